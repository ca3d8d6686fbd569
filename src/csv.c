// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "csv.h"

void csv__field(FILE *fp, const char *s, bool last)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, fp);
	} else {
		fputc('"', fp);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', fp);
			fputc(*s, fp);
		}
		fputc('"', fp);
	}
	fputs(last ? "\r\n" : ",", fp);
}
