// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdlib.h>

#include "markup.h"
#include "util.h"

/* Length of the valid UTF-8 sequence at @s, 0 when it is not one. */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and beyond U+10FFFF are not UTF-8. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff)
		return 0;
	return n;
}

void markup__escape(FILE *fp, const char *str)
{
	/* What HTML and XML read as markup, in text and attributes. */
	static const char *const entity[0x80] = {
		['&'] = "&amp;",  ['<'] = "&lt;",   ['>'] = "&gt;",
		['"'] = "&quot;", ['\''] = "&#39;",
	};
	const unsigned char *s = (const unsigned char *)str;
	int n;

	while (*s) {
		if (*s < 0x80 && entity[*s]) {
			fputs(entity[*s], fp);
			s++;
			continue;
		}
		if (*s == '\t' || *s == '\n')
			n = 1;
		else
			n = *s < 0x20 || *s == 0x7f ? 0 : utf8_len(s);
		if (!n) {
			fputs("\xef\xbf\xbd", fp); /* U+FFFD */
			s++;
			continue;
		}
		fwrite(s, 1, n, fp);
		s += n;
	}
}

void markup__escapef(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	markup__escape(fp, s);
	free(s);
}
