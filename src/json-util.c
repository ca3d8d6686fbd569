// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
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

double json_number_or_nan(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}
