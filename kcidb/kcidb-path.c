// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test's name in KCIDB's tree, iommu_bench.WORKLOAD.MODE.METRIC
 * (docs/kcidb.md), and its id. KCIDB takes [a-zA-Z0-9_-]+ in each part
 * of a path: any other character, a metric's own dot included
 * (cpu_util_pct.cpu0), becomes '_', so that every path has its four
 * parts. The id is of the names as stored, never of the path, so that
 * two names a path would confuse stay two tests.
 */
#include <stdlib.h>
#include <string.h>

#include "kcidb/kcidb-priv.h"
#include "util.h"

static bool path_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
}

/* ".PART" at @p, PART made KCIDB's; returns the end. */
static char *path_part(char *p, const char *part)
{
	*p++ = '.';
	for (; *part; part++)
		*p++ = path_char(*part) ? *part : '_';
	return p;
}

static char *test_path(const struct kcidb_cell *cell, const char *metric)
{
	size_t len = strlen(KCIDB_PATH_ROOT) + strlen(cell->workload) +
		     strlen(cell->mode) + (metric ? strlen(metric) : 0) + 4;
	char *path = xcalloc(1, len), *p;

	p = stpcpy(path, KCIDB_PATH_ROOT);
	p = path_part(p, cell->workload);
	p = path_part(p, cell->mode);
	if (metric)
		path_part(p, metric);
	return path;
}

char *kcidb__test_id(const struct kcidb_ctx *c, const struct kcidb_run *run,
		     const char *cell_key, const char *metric)
{
	return kcidb__id(c->origin, "test", run->ident, cell_key, metric, NULL);
}

json_t *kcidb__test_new(const struct kcidb_ctx *c, const struct kcidb_run *run,
			const struct kcidb_cell *cell, const char *metric,
			const char *id)
{
	json_t *o = json_object(), *env = json_object();
	const char *build = kcidb_run__build(run, cell->kernel_id);
	char *path = test_path(cell, metric);

	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "build_id", json_string(build ? build : ""));
	json_object_set_new(o, "origin", json_string(c->origin));
	kcidb__set_str(o, "path", path);
	kcidb__set_str(env, "comment", cell->host);
	json_object_set_new(o, "environment", env);
	free(path);
	return o;
}
