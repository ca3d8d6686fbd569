// SPDX-License-Identifier: GPL-2.0-only
/*
 * SHA-256 against the FIPS 180-4 examples, whole and fed in pieces;
 * HMAC-SHA-256 against RFC 4231's; the hex and compare helpers beside.
 */
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

/* Case 5 truncates its MAC to 128 bits, which nothing here does. */
static void test_hmac_rfc4231(void)
{
	static const struct {
		int nr;
		uint8_t kfill; /* the key: @klen of these, 0: 1, 2, 3... */
		size_t klen;
		const char *key; /* or this text */
		uint8_t dfill;
		size_t dlen;
		const char *data;
		const char *want;
	} v[] = {
		{ 1, 0x0b, 20, NULL, 0, 0, "Hi There",
		  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
		{ 2, 0, 0, "Jefe", 0, 0, "what do ya want for nothing?",
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
		{ 3, 0xaa, 20, NULL, 0xdd, 50, NULL,
		  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
		{ 4, 0, 25, NULL, 0xcd, 50, NULL,
		  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
		{ 6, 0xaa, 131, NULL, 0, 0,
		  "Test Using Larger Than Block-Size Key - Hash Key First",
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
		{ 7, 0xaa, 131, NULL, 0, 0,
		  "This is a test using a larger than block-size key and a "
		  "larger than block-size data. The key needs to be hashed "
		  "before being used by the HMAC algorithm.",
		  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
	};
	uint8_t key[256], data[256], mac[SHA256_DIGEST_SIZE];
	char hex[SHA256_HEX_SIZE];
	struct hmac_sha256 h;
	size_t i, j, klen, dlen;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		klen = v[i].key ? strlen(v[i].key) : v[i].klen;
		for (j = 0; j < klen; j++)
			key[j] = v[i].key   ? (uint8_t)v[i].key[j] :
				 v[i].kfill ? v[i].kfill :
					      (uint8_t)(j + 1);
		dlen = v[i].data ? strlen(v[i].data) : v[i].dlen;
		if (v[i].data)
			memcpy(data, v[i].data, dlen);
		else
			memset(data, v[i].dfill, dlen);
		hmac_sha256(key, klen, data, dlen, mac);
		hex_encode(mac, sizeof(mac), hex);
		is_str(hex, v[i].want, "HMAC-SHA-256, RFC 4231 case %d",
		       v[i].nr);
		/* The same fed a byte at a time. */
		hmac_sha256__init(&h, key, klen);
		for (j = 0; j < dlen; j++)
			hmac_sha256__update(&h, data + j, 1);
		hmac_sha256__final(&h, mac);
		hex_encode(mac, sizeof(mac), hex);
		is_str(hex, v[i].want, "RFC 4231 case %d in pieces", v[i].nr);
	}
}

static void test_helpers(void)
{
	static const uint8_t b[] = { 0x00, 0x7f, 0xa5, 0xff };
	uint8_t back[4] = { 0 };
	char hex[9];

	hex_encode(b, sizeof(b), hex);
	is_str(hex, "007fa5ff", "hex_encode is lower-case, two digits a byte");
	ok(!hex_decode("007FA5ff", 4, back) && !memcmp(back, b, 4),
	   "hex_decode takes either case back");
	is_int(hex_decode("007fa5fg", 4, back), -22, "and refuses a non-digit");
	is_int(hex_decode("0 7fa5ff", 4, back), -22, "and a space");
	ok(memeq_ct(b, b, sizeof(b)), "memeq_ct: the same bytes");
	ok(!memeq_ct(b, "\x00\x7f\xa5\xfe", 4), "memeq_ct: the last differs");
	ok(!memeq_ct(b, "\x01\x7f\xa5\xff", 4), "memeq_ct: the first differs");
	ok(memeq_ct(b, "", 0), "memeq_ct: nothing equals nothing");
}

int main(void)
{
	test_vectors();
	test_pieces();
	test_file();
	test_hmac_rfc4231();
	test_helpers();
	return tap_done();
}
