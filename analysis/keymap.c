// SPDX-License-Identifier: GPL-2.0-only
/* Open addressing with linear probing, kept at most half full. */
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "util.h"

static uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	/* FNV's low bits are weak for short keys; mix before masking. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* A power of two at least twice @nr, so probes stay short. */
static size_t slots_for(size_t nr)
{
	size_t n = 16;

	while (n < 2 * nr + 2)
		n *= 2;
	return n;
}

static uint64_t str_hash(const struct intern *in, uint32_t id)
{
	return hash_bytes(in->strs[id], strlen(in->strs[id]));
}

static void intern_rehash(struct intern *in)
{
	size_t i, j, mask;

	free(in->slots);
	in->nr_slots = slots_for(in->nr + 1);
	in->slots = xcalloc(in->nr_slots, sizeof(*in->slots));
	mask = in->nr_slots - 1;
	for (i = 0; i < in->nr; i++) {
		j = str_hash(in, i) & mask;
		while (in->slots[j])
			j = (j + 1) & mask;
		in->slots[j] = i + 1;
	}
}

/* The slot holding @s, or the empty slot where it would go. */
static size_t intern_slot(const struct intern *in, const char *s)
{
	size_t mask = in->nr_slots - 1;
	size_t j = hash_bytes(s, strlen(s)) & mask;

	while (in->slots[j] && strcmp(in->strs[in->slots[j] - 1], s))
		j = (j + 1) & mask;
	return j;
}

uint32_t intern__id(struct intern *in, const char *s)
{
	size_t j;

	if (2 * (in->nr + 1) >= in->nr_slots)
		intern_rehash(in);
	j = intern_slot(in, s);
	if (in->slots[j])
		return in->slots[j] - 1;
	ALLOC_GROW(in->strs, in->nr + 1, in->alloc);
	in->strs[in->nr] = xstrdup(s);
	in->slots[j] = ++in->nr;
	return in->nr - 1;
}

int64_t intern__find(const struct intern *in, const char *s)
{
	size_t j;

	if (!in->nr_slots)
		return -1;
	j = intern_slot(in, s);
	return in->slots[j] ? (int64_t)in->slots[j] - 1 : -1;
}

const char *intern__str(const struct intern *in, uint32_t id)
{
	return id < in->nr ? in->strs[id] : "";
}

void intern__release(struct intern *in)
{
	size_t i;

	for (i = 0; i < in->nr; i++)
		free(in->strs[i]);
	free(in->strs);
	free(in->slots);
	memset(in, 0, sizeof(*in));
}

void keymap__init(struct keymap *m, unsigned int width)
{
	memset(m, 0, sizeof(*m));
	m->width = width;
}

static uint64_t key_hash(const struct keymap *m, const uint32_t *key)
{
	return hash_bytes(key, m->width * sizeof(*key));
}

static void keymap_rehash(struct keymap *m)
{
	size_t i, j, mask;

	free(m->slots);
	m->nr_slots = slots_for(m->nr + 1);
	m->slots = xcalloc(m->nr_slots, sizeof(*m->slots));
	mask = m->nr_slots - 1;
	for (i = 0; i < m->nr; i++) {
		j = key_hash(m, keymap__key(m, i)) & mask;
		while (m->slots[j])
			j = (j + 1) & mask;
		m->slots[j] = i + 1;
	}
}

static size_t keymap_slot(const struct keymap *m, const uint32_t *key)
{
	size_t mask = m->nr_slots - 1;
	size_t j = key_hash(m, key) & mask;
	size_t bytes = m->width * sizeof(*key);

	while (m->slots[j] &&
	       memcmp(keymap__key(m, m->slots[j] - 1), key, bytes))
		j = (j + 1) & mask;
	return j;
}

uint32_t keymap__id(struct keymap *m, const uint32_t *key, bool *added)
{
	size_t j;

	if (2 * (m->nr + 1) >= m->nr_slots)
		keymap_rehash(m);
	j = keymap_slot(m, key);
	if (added)
		*added = !m->slots[j];
	if (m->slots[j])
		return m->slots[j] - 1;
	ALLOC_GROW(m->keys, (m->nr + 1) * m->width, m->alloc);
	memcpy(m->keys + m->nr * m->width, key, m->width * sizeof(*key));
	m->slots[j] = ++m->nr;
	return m->nr - 1;
}

int64_t keymap__find(const struct keymap *m, const uint32_t *key)
{
	size_t j;

	if (!m->nr_slots)
		return -1;
	j = keymap_slot(m, key);
	return m->slots[j] ? (int64_t)m->slots[j] - 1 : -1;
}

const uint32_t *keymap__key(const struct keymap *m, uint32_t id)
{
	return m->keys + (size_t)id * m->width;
}

void keymap__release(struct keymap *m)
{
	free(m->keys);
	free(m->slots);
	keymap__init(m, m->width);
}
