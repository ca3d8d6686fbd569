/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interned strings and tuple maps: the report groups hundreds of
 * thousands of trial metrics by (run, host, kernel, mode, workload,
 * metric), and comparing small integers beats comparing strings.
 *
 * Both tables hand out dense ids in insertion order, so that an id is
 * also an index into whatever array the caller keeps beside the table,
 * and iterating ids replays the order the data came in (the plan's).
 */
#ifndef IOMMU_BENCH_ANALYSIS_KEYMAP_H
#define IOMMU_BENCH_ANALYSIS_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intern {
	char **strs;
	size_t nr, alloc;
	uint32_t *slots; /* id + 1; 0 is empty */
	size_t nr_slots;
};

/* The id of @s, added when new. */
uint32_t intern__id(struct intern *in, const char *s);
/* The id of @s, or -1 when it was never added. */
int64_t intern__find(const struct intern *in, const char *s);
const char *intern__str(const struct intern *in, uint32_t id);
void intern__release(struct intern *in);

#define KEYMAP_MAX_WIDTH 8

/* Fixed-width tuples of uint32_t to dense ids. */
struct keymap {
	unsigned int width;
	uint32_t *keys; /* nr * width */
	size_t nr, alloc;
	uint32_t *slots;
	size_t nr_slots;
};

void keymap__init(struct keymap *m, unsigned int width);
/* The id of @key (width words), added when new; @added may be NULL. */
uint32_t keymap__id(struct keymap *m, const uint32_t *key, bool *added);
/* The id of @key, or -1. */
int64_t keymap__find(const struct keymap *m, const uint32_t *key);
const uint32_t *keymap__key(const struct keymap *m, uint32_t id);
void keymap__release(struct keymap *m);

#endif /* IOMMU_BENCH_ANALYSIS_KEYMAP_H */
