/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * JSON values from C strings that may be NULL or not UTF-8 (a cmdline,
 * a driver's name, a path may hold anything): they never fail.
 */
#ifndef IOMMU_BENCH_JSON_UTIL_H
#define IOMMU_BENCH_JSON_UTIL_H

#include <jansson.h>
#include <stddef.h>

/* null for NULL; bytes that are not UTF-8 replaced by '?'. */
json_t *json_string_or_null(const char *s);
/* An array of @nr such strings. */
json_t *json_strings(char *const *v, size_t nr);

/* @obj's @key as a double; NAN when absent or not a number. */
double json_number_or_nan(const json_t *obj, const char *key);

#endif /* IOMMU_BENCH_JSON_UTIL_H */
