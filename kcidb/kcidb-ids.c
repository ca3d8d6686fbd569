// SPDX-License-Identifier: GPL-2.0-only
/*
 * KCIDB's ids: derived from what the store keeps of an object and never
 * changes (a run's name, start and matrix; a cell's key; a metric's
 * name; a kernel's identity; a regression's unique key), never from row
 * ids, which `db merge` renumbers, nor from the time of the export: the
 * same object exported twice, from this database or a merged one, has
 * the same id, and KCIDB merges it instead of counting it twice.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kcidb/kcidb-priv.h"
#include "util.h"

/* 128 bits: collisions are out of reach, and ids stay readable. */
#define KCIDB_ID_HEX 32

char *kcidb__id(const char *origin, const char *kind, ...)
{
	char hex[SHA256_HEX_SIZE];
	struct sha256 s;
	const char *part;
	va_list ap;

	sha256__init(&s);
	sha256__update(&s, kind, strlen(kind) + 1);
	va_start(ap, kind);
	while ((part = va_arg(ap, const char *)))
		sha256__update(&s, part, strlen(part) + 1);
	va_end(ap);
	sha256__final_hex(&s, hex);
	return xasprintf("%s:%.*s", origin, KCIDB_ID_HEX, hex);
}

bool kcidb__seen(struct kcidb_ctx *c, const char *id)
{
	if (json_object_get(c->seen, id))
		return true;
	json_object_set_new(c->seen, id, json_true());
	return false;
}

void kcidb__run_ident(const char *name, const char *started_at,
		      const char *config_sha256, char out[SHA256_HEX_SIZE])
{
	struct sha256 s;

	sha256__init(&s);
	sha256__update(&s, name, strlen(name) + 1);
	sha256__update(&s, started_at, strlen(started_at) + 1);
	sha256__update(&s, config_sha256, strlen(config_sha256) + 1);
	sha256__final_hex(&s, out);
}

const char *kcidb_run__build(const struct kcidb_run *run, int64_t kernel_id)
{
	size_t i;

	for (i = 0; i < run->nr_builds; i++)
		if (run->builds[i].kernel_id == kernel_id)
			return run->builds[i].id;
	return NULL;
}
