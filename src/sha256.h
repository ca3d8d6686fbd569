/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SHA-256 (FIPS 180-4), small and dependency-free: the store fingerprints
 * matrix files and artifacts, and no crypto library is linked. HMAC
 * (RFC 2104) on top, for the agent's handshake over TCP (chan-auth.h).
 */
#ifndef IOMMU_BENCH_SHA256_H
#define IOMMU_BENCH_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE (2 * SHA256_DIGEST_SIZE + 1)
#define SHA256_BLOCK_SIZE 64

struct sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	uint8_t buf[SHA256_BLOCK_SIZE];
	size_t nbuf;
};

void sha256__init(struct sha256 *s);
void sha256__update(struct sha256 *s, const void *data, size_t len);
void sha256__final(struct sha256 *s, uint8_t out[SHA256_DIGEST_SIZE]);

/* final(), in lower-case hex, NUL-terminated. */
void sha256__final_hex(struct sha256 *s, char out[SHA256_HEX_SIZE]);
/* Lower-case hex of the digest of @data, NUL-terminated. */
void sha256__hex(const void *data, size_t len, char out[SHA256_HEX_SIZE]);

/*
 * Hex digest and size of the file at @path.
 * Returns 0 or a negative errno.
 */
int sha256__file(const char *path, char out[SHA256_HEX_SIZE], uint64_t *size);

/* HMAC-SHA-256 in pieces: a MAC over fields without joining them first. */
struct hmac_sha256 {
	struct sha256 inner, outer;
};

/* A key longer than a block is hashed first, as RFC 2104 says. */
void hmac_sha256__init(struct hmac_sha256 *h, const void *key, size_t key_len);
void hmac_sha256__update(struct hmac_sha256 *h, const void *data, size_t len);
/* The MAC into @out; *@h is wiped, since it holds the key's pads. */
void hmac_sha256__final(struct hmac_sha256 *h, uint8_t out[SHA256_DIGEST_SIZE]);

void hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
		 uint8_t out[SHA256_DIGEST_SIZE]);

#endif /* IOMMU_BENCH_SHA256_H */
