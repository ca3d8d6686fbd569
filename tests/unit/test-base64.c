// SPDX-License-Identifier: GPL-2.0-only
/*
 * Base64 against RFC 4648's vectors, round trips of every length up to
 * a few quads over all byte values, and the strict decoder refusing
 * what a mangled chunk would look like.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "tap.h"
#include "util.h"

static void test_vectors(void)
{
	static const char *const v[][2] = {
		{ "", "" },
		{ "f", "Zg==" },
		{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	unsigned char out[16];
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		char *e = base64__encode(v[i][0], strlen(v[i][0]));

		is_str(e, v[i][1], "encode '%s'", v[i][0]);
		free(e);
		ok(!base64__decode(v[i][1], strlen(v[i][1]), out, &n) &&
			   n == strlen(v[i][0]) && !memcmp(out, v[i][0], n),
		   "decode '%s'", v[i][1]);
	}
}

static void test_round_trip(void)
{
	unsigned char in[300], out[300];
	size_t len, i, n;
	int bad = 0;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 3);
	for (len = 0; len <= sizeof(in); len++) {
		char *e = base64__encode(in, len);

		if (strlen(e) != BASE64_ENCODED_LEN(len) ||
		    base64__decode(e, strlen(e), out, &n) || n != len ||
		    memcmp(in, out, len))
			bad++;
		free(e);
	}
	is_int(bad, 0, "every length 0..300 of all byte values round-trips");
	ok(BASE64_DECODED_MAX(BASE64_ENCODED_LEN(1u << 20)) >= 1u << 20,
	   "a decode buffer of BASE64_DECODED_MAX holds a 1 MiB chunk");
}

static void test_refused(void)
{
	static const char *const bad[] = {
		"Zg=",		    /* not whole quads */
		"Zg",	"Z===",	    /* a lone sextet */
		"=Zg=", "Zg==Zm8=", /* padding in the middle */
		"Zh==",		    /* bits left over after the last byte */
		"Zm9=", "Zm 9v",    "Zm9v\n", "Zm9-", "Zm9_",
	};
	unsigned char out[16];
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		is_int(base64__decode(bad[i], strlen(bad[i]), out, &n), -EINVAL,
		       "refused: '%s'", bad[i]);
}

int main(void)
{
	test_vectors();
	test_round_trip();
	test_refused();
	return tap_done();
}
