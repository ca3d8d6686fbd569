// SPDX-License-Identifier: GPL-2.0-only
/* SHA-256 against the FIPS 180-4 examples, whole and fed in pieces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "tap.h"
#include "util.h"

static void hex_of(struct sha256 *s, char out[SHA256_HEX_SIZE])
{
	uint8_t d[SHA256_DIGEST_SIZE];
	int i;

	sha256__final(s, d);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_vectors(void)
{
	static const struct {
		const char *in, *want;
	} v[] = {
		{ "",
		  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc",
		  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		/* 112 bytes: padding spills into a second block. */
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	char hex[SHA256_HEX_SIZE];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		sha256__hex(v[i].in, strlen(v[i].in), hex);
		is_str(hex, v[i].want, "sha256 of %zu bytes", strlen(v[i].in));
	}
}

static void test_pieces(void)
{
	static const char want[] =
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	char chunk[1000], hex[SHA256_HEX_SIZE];
	struct sha256 s;
	size_t done = 0, n = 1;

	/* A million 'a' in uneven pieces crosses every buffer boundary. */
	memset(chunk, 'a', sizeof(chunk));
	sha256__init(&s);
	while (done < 1000000) {
		if (n > 1000000 - done)
			n = 1000000 - done;
		sha256__update(&s, chunk, n);
		done += n;
		n = n % 997 + 1;
	}
	hex_of(&s, hex);
	is_str(hex, want, "a million 'a' fed in pieces");
}

static void test_file(void)
{
	char path[] = "/tmp/iommu-bench-sha256.XXXXXX", hex[SHA256_HEX_SIZE];
	uint64_t size = 0;
	int fd = mkstemp(path);

	ok(fd >= 0 && write(fd, "abc", 3) == 3, "write a scratch file");
	close(fd);
	is_int(sha256__file(path, hex, &size), 0, "hash a file");
	is_str(hex,
	       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "file digest");
	is_int(size, 3, "file size");
	unlink(path);
	is_int(sha256__file(path, hex, &size), -2, "a missing file is -ENOENT");
}

int main(void)
{
	test_vectors();
	test_pieces();
	test_file();
	return tap_done();
}
