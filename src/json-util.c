// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "json-util.h"
#include "util.h"

json_t *json_string_or_null(const char *s)
{
	json_t *j;
	char *copy;
	size_t i;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	copy = xstrdup(s);
	for (i = 0; copy[i]; i++)
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

json_t *json_strings(char *const *v, size_t nr)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < nr; i++)
		json_array_append_new(a, json_string_or_null(v[i]));
	return a;
}
