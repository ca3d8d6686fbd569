/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the export's files (kcidb-*.c) and nothing else: the report
 * being assembled, a run as the export sees it, the ids.
 */
#ifndef IOMMU_BENCH_KCIDB_PRIV_H
#define IOMMU_BENCH_KCIDB_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

struct store;
struct store_query;
struct store_rows;
struct toml_value;

/* The top node of every test path (docs/kcidb.md). */
#define KCIDB_PATH_ROOT "iommu_bench"

struct kcidb_ctx {
	struct store *st;
	const char *origin;
	json_t *checkouts, *builds, *tests, *issues, *incidents;
	json_t *seen; /* every id already in the report */
};

/* A run as the export reads it. */
struct kcidb_run {
	int64_t id;
	char *name;
	/* sha256 of its name, start and matrix: what no merge renumbers */
	char ident[SHA256_HEX_SIZE];
	struct toml_value *matrix; /* the matrix it ran; NULL: unreadable */
	/* its kernels' row ids and the ids of their builds in the report */
	struct kcidb_build {
		int64_t kernel_id;
		char *id;
	} * builds;
	size_t nr_builds, alloc_builds;
};

/*
 * "ORIGIN:" and 32 hex of the sha256 of @kind and the NULL-terminated
 * strings after it, each ended by a NUL: the same facts, the same id.
 */
char *kcidb__id(const char *origin, const char *kind, ...)
	__attribute__((sentinel));
/* True when @id is in the report already; else it is noted as being. */
bool kcidb__seen(struct kcidb_ctx *c, const char *id);
/* The run's identity from what it stored: its name, start and matrix. */
void kcidb__run_ident(const char *name, const char *started_at,
		      const char *config_sha256, char out[SHA256_HEX_SIZE]);

/*
 * Set @key to @s, where JSON can hold it: a byte that is not UTF-8 is
 * written '?' (json_string_or_null(): an error's words may be anything).
 */
void kcidb__set_str(json_t *o, const char *key, const char *s);
/* The same, but nothing set for "" (not known). */
void kcidb__set_known(json_t *o, const char *key, const char *s);
/* @v, or null where it is not a number (an interval too few values have). */
json_t *kcidb__real(double v);

/*
 * The build id of @kernel_id in @run's report, NULL where none: every
 * kernel of a run has one once kcidb__kernels() has run.
 */
const char *kcidb_run__build(const struct kcidb_run *run, int64_t kernel_id);

/* A cell, as every test of it says where it ran and on what. */
struct kcidb_cell {
	const char *key, *host, *mode, *workload;
	int64_t kernel_id;
};

/* A test's id: the run's identity, the cell's key, the metric. */
char *kcidb__test_id(const struct kcidb_ctx *c, const struct kcidb_run *run,
		     const char *cell_key, const char *metric);
/*
 * A new test object with its id, build, origin, path
 * (iommu_bench.WORKLOAD.MODE, then .METRIC where @metric is not NULL)
 * and environment (the host).
 */
json_t *kcidb__test_new(const struct kcidb_ctx *c, const struct kcidb_run *run,
			const struct kcidb_cell *cell, const char *metric,
			const char *id);
/* Set "duration" to the seconds from @start to @end (store times). */
void kcidb__set_duration(json_t *o, const char *start, const char *end);
/* "start_time": @seconds before the store's time @end, kept if unknown. */
void kcidb__set_start_before(json_t *o, const char *end, double seconds);
/* The tests of a run's trials that gave no figure: 0 or -errno. */
int kcidb__trials(struct kcidb_ctx *c, struct kcidb_run *run);

/*
 * A built kernel's source: what the run stored of its build (@recipe),
 * else what the run's matrix says of it.
 */
struct kcidb_source {
	const char *tree, *base, *config, *arch;
	const char *branch; /* the branch a nightly follows; NULL: none */
	const struct toml_value *patches; /* an array, NULL: none */
	json_t *recipe; /* kernels.recipe, owning the strings; NULL: none */
};

/*
 * @kernel's build table in @matrix, else the followed kernel's (a
 * confirmation's and a bisection's kernels are named by their commit),
 * else the only built kernel's: false where there is none.
 */
bool kcidb__source(const struct toml_value *matrix, const char *kernel,
		   struct kcidb_source *src);

/*
 * A built kernel's stored recipe (kernels.recipe, schemas/README.md)
 * over what the matrix said in @src: its tree, base, arch and config.
 * False, and @src as it was, for a row without one (older databases)
 * or a package's. Release @src->recipe with json_decref().
 */
bool kcidb__recipe(const char *text, struct kcidb_source *src);
/* The recipe's patchset_hash, and the patches' names in @misc. */
void kcidb__recipe_patches(json_t *checkout, json_t *misc,
			   const struct kcidb_source *src);
/* The recipe's compiler and duration, when it was built in @misc. */
void kcidb__recipe_build(json_t *build, json_t *misc,
			 const struct kcidb_source *src);

/*
 * @row called on each row of @q, a query of the run ?1: 0, or the
 * negative errno of the query (SQLite's words logged).
 */
int kcidb__each(struct kcidb_ctx *c, const struct store_query *q,
		struct kcidb_run *run,
		void (*row)(struct kcidb_ctx *c, struct kcidb_run *run,
			    const struct store_rows *r, void *arg),
		void *arg);

/* Each step adds its objects to the report; 0 or -errno and the words. */
int kcidb__kernels(struct kcidb_ctx *c, struct kcidb_run *run, char **err);
int kcidb__tests(struct kcidb_ctx *c, struct kcidb_run *run, char **err);
int kcidb__issues(struct kcidb_ctx *c, struct kcidb_run *run, char **err);

#endif /* IOMMU_BENCH_KCIDB_PRIV_H */
