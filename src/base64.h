/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Base64 (RFC 4648, the standard alphabet, with padding), for bytes
 * that must travel inside JSON: file.read's chunks of an artifact.
 * Our own because it is forty lines and the agent links nothing else
 * that has it (jansson does not, libiperf's copy is not exported).
 */
#ifndef IOMMU_BENCH_BASE64_H
#define IOMMU_BENCH_BASE64_H

#include <stddef.h>

/* Characters base64__encode() writes for @len bytes, without the NUL. */
#define BASE64_ENCODED_LEN(len) ((((len) + 2) / 3) * 4)
/* Bytes base64__decode() may write for @len characters, at most. */
#define BASE64_DECODED_MAX(len) (((len) / 4) * 3)

/* @data as a new NUL-terminated string. */
char *base64__encode(const void *data, size_t len);
/*
 * @len characters of @s into @out (BASE64_DECODED_MAX(@len) bytes at
 * least), *@out_len set. Strict: whole quads, padding only at the end,
 * no whitespace, no bits left over in the last quad. 0 or -EINVAL.
 */
int base64__decode(const char *s, size_t len, void *out, size_t *out_len);

#endif /* IOMMU_BENCH_BASE64_H */
