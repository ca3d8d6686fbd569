/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growing vector of strings that it owns. v[nr] is NULL whenever v is
 * not, so that v is an argument vector as it stands; { 0 } is empty.
 * Allocation failure is fatal, as everywhere (util.h).
 */
#ifndef IOMMU_BENCH_STRVEC_H
#define IOMMU_BENCH_STRVEC_H

#include <stdbool.h>
#include <stddef.h>

struct strvec {
	char **v;
	size_t nr, alloc;
};

/* Append a copy of @s. */
void strvec__push(struct strvec *sv, const char *s);
/* Append @s itself, which the vector now owns. */
void strvec__push_nodup(struct strvec *sv, char *s);
void strvec__pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool strvec__contains(const struct strvec *sv, const char *s);
/* Append @s itself unless the vector holds its equal: then free it. */
void strvec__push_distinct(struct strvec *sv, char *s);
/* v as an argv: never NULL, NULL-terminated, even when empty. */
const char *const *strvec__argv(const struct strvec *sv);
/* The strings with @sep between them; "" when empty. free() it. */
char *strvec__join(const struct strvec *sv, const char *sep);
void strvec__release(struct strvec *sv);

/* Free @nr strings and the array that holds them (a vector's v, kept). */
void strv_free(char **v, size_t nr);

#endif /* IOMMU_BENCH_STRVEC_H */
