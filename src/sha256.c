// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "util.h"

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256__block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
			(w[i - 15] >> 3)) +
		       (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^
			(w[i - 2] >> 10));
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
		     ((e & f) ^ (~e & g)) + k[i] + w[i];
		t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

void sha256__init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->nbuf = 0;
}

void sha256__update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t n;

	s->len += len;
	if (s->nbuf) {
		n = sizeof(s->buf) - s->nbuf;
		if (n > len)
			n = len;
		memcpy(s->buf + s->nbuf, p, n);
		s->nbuf += n, p += n, len -= n;
		if (s->nbuf < sizeof(s->buf))
			return;
		sha256__block(s, s->buf);
		s->nbuf = 0;
	}
	for (; len >= sizeof(s->buf);
	     p += sizeof(s->buf), len -= sizeof(s->buf))
		sha256__block(s, p);
	memcpy(s->buf, p, len);
	s->nbuf = len;
}

void sha256__final(struct sha256 *s, uint8_t out[SHA256_DIGEST_SIZE])
{
	uint64_t bits = s->len * 8;
	uint8_t pad[72] = { 0x80 };
	size_t npad;
	int i;

	/* 0x80, zeros up to 56 mod 64, then the bit length big-endian. */
	npad = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
	for (i = 0; i < 8; i++)
		pad[npad + i] = bits >> (56 - 8 * i);
	/* Counts the padding into s->len, which no longer matters. */
	sha256__update(s, pad, npad + 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = s->h[i] >> 24;
		out[4 * i + 1] = s->h[i] >> 16;
		out[4 * i + 2] = s->h[i] >> 8;
		out[4 * i + 3] = s->h[i];
	}
}

void sha256__final_hex(struct sha256 *s, char out[SHA256_HEX_SIZE])
{
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256__final(s, d);
	hex_encode(d, sizeof(d), out);
}

void sha256__hex(const void *data, size_t len, char out[SHA256_HEX_SIZE])
{
	struct sha256 s;

	sha256__init(&s);
	sha256__update(&s, data, len);
	sha256__final_hex(&s, out);
}

int sha256__file(const char *path, char out[SHA256_HEX_SIZE], uint64_t *size)
{
	uint8_t buf[65536];
	struct sha256 s;
	int fd, err = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	sha256__init(&s);
	while ((n = read_retry(fd, buf, sizeof(buf))) > 0)
		sha256__update(&s, buf, n);
	if (n < 0) {
		err = (int)n;
		goto out;
	}
	if (size)
		*size = s.len; /* before final() counts the padding in */
	sha256__final_hex(&s, out);
out:
	close(fd);
	return err;
}

void hmac_sha256__init(struct hmac_sha256 *h, const void *key, size_t key_len)
{
	uint8_t kb[SHA256_BLOCK_SIZE] = { 0 }, pad[SHA256_BLOCK_SIZE];
	size_t i;

	if (key_len > sizeof(kb)) {
		sha256__init(&h->inner);
		sha256__update(&h->inner, key, key_len);
		sha256__final(&h->inner, kb);
	} else if (key_len) {
		memcpy(kb, key, key_len);
	}
	for (i = 0; i < sizeof(kb); i++)
		pad[i] = kb[i] ^ 0x36;
	sha256__init(&h->inner);
	sha256__update(&h->inner, pad, sizeof(pad));
	for (i = 0; i < sizeof(kb); i++)
		pad[i] = kb[i] ^ 0x5c;
	sha256__init(&h->outer);
	sha256__update(&h->outer, pad, sizeof(pad));
	explicit_bzero(kb, sizeof(kb));
	explicit_bzero(pad, sizeof(pad));
}

void hmac_sha256__update(struct hmac_sha256 *h, const void *data, size_t len)
{
	sha256__update(&h->inner, data, len);
}

void hmac_sha256__final(struct hmac_sha256 *h, uint8_t out[SHA256_DIGEST_SIZE])
{
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256__final(&h->inner, d);
	sha256__update(&h->outer, d, sizeof(d));
	sha256__final(&h->outer, out);
	explicit_bzero(d, sizeof(d));
	explicit_bzero(h, sizeof(*h));
}

void hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
		 uint8_t out[SHA256_DIGEST_SIZE])
{
	struct hmac_sha256 h;

	hmac_sha256__init(&h, key, key_len);
	hmac_sha256__update(&h, data, len);
	hmac_sha256__final(&h, out);
}
