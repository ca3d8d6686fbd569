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

/*
 * The slots (id + 1, 0 empty) of a set's @nr ids rebuilt, room for one
 * more: each id at @hash(@set, id), probing on from a taken slot.
 */
static void slots_rebuild(uint32_t **slots, size_t *nr_slots, size_t nr,
			  const void *set,
			  uint64_t (*hash)(const void *set, uint32_t id))
{
	size_t i, j, mask;

	free(*slots);
	*nr_slots = slots_for(nr + 1);
	*slots = xcalloc(*nr_slots, sizeof(**slots));
	mask = *nr_slots - 1;
	for (i = 0; i < nr; i++) {
		j = hash(set, i) & mask;
		while ((*slots)[j])
			j = (j + 1) & mask;
		(*slots)[j] = i + 1;
	}
}

/*
 * The slot holding the id whose key is @key (hashed to @h), as @same
 * judges, or the empty slot where it would go.
 */
static size_t slots_find(const uint32_t *slots, size_t nr_slots, uint64_t h,
			 const void *set, const void *key,
			 bool (*same)(const void *set, uint32_t id,
				      const void *key))
{
	size_t mask = nr_slots - 1;
	size_t j = h & mask;

	while (slots[j] && !same(set, slots[j] - 1, key))
		j = (j + 1) & mask;
	return j;
}

static uint64_t str_hash(const void *set, uint32_t id)
{
	const struct intern *in = set;

	return hash_bytes(in->strs[id], strlen(in->strs[id]));
}

static bool str_same(const void *set, uint32_t id, const void *key)
{
	const struct intern *in = set;

	return !strcmp(in->strs[id], key);
}

static void intern_rehash(struct intern *in)
{
	slots_rebuild(&in->slots, &in->nr_slots, in->nr, in, str_hash);
}

/* The slot holding @s, or the empty slot where it would go. */
static size_t intern_slot(const struct intern *in, const char *s)
{
	return slots_find(in->slots, in->nr_slots, hash_bytes(s, strlen(s)), in,
			  s, str_same);
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

/* The id in slot @j, or -1 for an empty one. */
static int64_t slot_id(const uint32_t *slots, size_t j)
{
	return slots[j] ? (int64_t)slots[j] - 1 : -1;
}

int64_t intern__find(const struct intern *in, const char *s)
{
	return in->nr_slots ? slot_id(in->slots, intern_slot(in, s)) : -1;
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

static uint64_t id_hash(const void *set, uint32_t id)
{
	return key_hash(set, keymap__key(set, id));
}

static bool key_same(const void *set, uint32_t id, const void *key)
{
	const struct keymap *m = set;

	return !memcmp(keymap__key(m, id), key, m->width * sizeof(uint32_t));
}

static void keymap_rehash(struct keymap *m)
{
	slots_rebuild(&m->slots, &m->nr_slots, m->nr, m, id_hash);
}

static size_t keymap_slot(const struct keymap *m, const uint32_t *key)
{
	return slots_find(m->slots, m->nr_slots, key_hash(m, key), m, key,
			  key_same);
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
	return m->nr_slots ? slot_id(m->slots, keymap_slot(m, key)) : -1;
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
