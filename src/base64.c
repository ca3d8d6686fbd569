// SPDX-License-Identifier: GPL-2.0-only
/*
 * Base64 encode and strict decode. Strict so that one byte lost or
 * mangled on the way shows as an error, never as a file that is
 * silently different from the one on the host.
 */
#include <errno.h>
#include <stdint.h>

#include "base64.h"
#include "util.h"

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64__encode(const void *data, size_t len)
{
	const unsigned char *p = data;
	char *out = xmalloc(BASE64_ENCODED_LEN(len) + 1), *o = out;
	size_t i;

	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 |
			     p[i + 2];

		*o++ = alphabet[v >> 18];
		*o++ = alphabet[(v >> 12) & 63];
		*o++ = alphabet[(v >> 6) & 63];
		*o++ = alphabet[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[(v >> 12) & 63];
		*o++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

static int value_of(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int base64__decode(const char *s, size_t len, void *out, size_t *out_len)
{
	unsigned char *o = out;
	size_t i;

	if (len % 4)
		return -EINVAL;
	for (i = 0; i < len; i += 4) {
		bool last = i + 4 == len;
		int pad = 0, k, d[4];
		uint32_t v = 0;

		if (last && s[i + 3] == '=')
			pad = s[i + 2] == '=' ? 2 : 1;
		for (k = 0; k < 4; k++) {
			d[k] = k >= 4 - pad ? 0 : value_of(s[i + k]);
			if (d[k] < 0)
				return -EINVAL;
			v = v << 6 | (uint32_t)d[k];
		}
		/* The bits padding leaves over must be zero. */
		if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
			return -EINVAL;
		*o++ = v >> 16;
		if (pad < 2)
			*o++ = (v >> 8) & 0xff;
		if (pad < 1)
			*o++ = v & 0xff;
	}
	*out_len = (size_t)(o - (unsigned char *)out);
	return 0;
}
