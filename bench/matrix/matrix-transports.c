// SPDX-License-Identifier: GPL-2.0-only
/*
 * The transports a matrix may name, as handed down by whoever knows
 * them (bench/host/host-transports.c): the matrix includes none of
 * their folders, so a new transport changes nothing here.
 */
#include <string.h>

#include "matrix-priv.h"
#include "util.h"

#define MAX_TRANSPORTS 16
#define MAX_HOST_KEYS 64

static const struct matrix_transport *const *transports;
static const char *names[MAX_TRANSPORTS + 1];
/* Every key any transport knows, so that a typo gets a suggestion. */
static const char *all_keys[MAX_HOST_KEYS + 1] = { "transport", "role",
						   "description" };
static size_t nr_all_keys = 3;

static void add_key(const char *key)
{
	size_t i;

	for (i = 0; i < nr_all_keys; i++)
		if (!strcmp(all_keys[i], key))
			return;
	if (nr_all_keys < MAX_HOST_KEYS)
		all_keys[nr_all_keys++] = key;
}

void matrix__set_transports(const struct matrix_transport *const *table)
{
	const char *const *k;
	size_t i;

	transports = table;
	for (i = 0; table[i] && i < MAX_TRANSPORTS; i++) {
		names[i] = table[i]->name;
		for (k = table[i]->keys; k && *k; k++)
			add_key(*k);
	}
	names[i] = NULL;
}

const struct matrix_transport *matrix__transport(const char *name)
{
	size_t i;

	for (i = 0; transports && transports[i]; i++)
		if (!strcmp(transports[i]->name, name))
			return transports[i];
	return NULL;
}

const char *const *matrix__transport_names(void)
{
	return names;
}

const char *const *matrix__host_keys(void)
{
	return all_keys;
}

const char *host_transport__name(enum host_transport t)
{
	size_t i;

	for (i = 0; transports && transports[i]; i++)
		if (transports[i]->id == t)
			return transports[i]->name;
	return "unknown";
}

bool matrix_transport__takes(const struct matrix_transport *t, const char *key)
{
	const char *const *k;

	if (!strcmp(key, "transport") || !strcmp(key, "role") ||
	    !strcmp(key, "description"))
		return true;
	for (k = t->keys; k && *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}
