/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The commands. One builtin-<cmd>.c each, exporting cmd_<cmd>(), listed in
 * the command table in main.c. argv[0] is the command's own name; the
 * return value is the process exit status (see util.h).
 */
#ifndef IOMMU_BENCH_BUILTIN_H
#define IOMMU_BENCH_BUILTIN_H

#include <stdbool.h>
#include <stdio.h>

#include "log.h"
#include "version.h"

/* Options given before the command; commands may set them again. */
struct global_opts {
	bool json;
	const char *db_path; /* --db; NULL means see global__db_path() */
};

extern struct global_opts global;

/*
 * Every command accepts the global options after its name too, so that
 * "iommu-bench plan -v m.toml" and "iommu-bench -v plan m.toml" agree.
 */
#define OPT_GLOBALS()                                                       \
	OPT_INCR('v', "verbose", &log_verbosity,                            \
		 "more output (repeat for debug)"),                         \
		OPT_STRING(0, "db", &global.db_path, "PATH",                \
			   "results database (default: $IOMMU_BENCH_DB or " \
			   "results/iommu-bench.db)")
#define OPT_JSON() \
	OPT_BOOLEAN(0, "json", &global.json, "machine-readable JSON on stdout")

/* --db, else $IOMMU_BENCH_DB, else results/iommu-bench.db. */
const char *global__db_path(void);
/*
 * After store__open() or rdb__open() on @path failed with @err: what to
 * do about it, where the user can do something (a database missing or
 * empty, one to migrate, one newer than this binary).
 */
void global__db_advice(const char *path, int err);
struct rdb;
/* rdb__open() on global__db_path(), with its advice: 0 or -errno. */
int global__rdb_open(struct rdb *r);
/* A matrix's database: --db, else its [run] db, else global__db_path(). */
const char *global__matrix_db(const char *matrix_db);
/*
 * What OPT_LEVELS() took, checked and into *@a and *@c where given:
 * -EINVAL (said) for a level out of its range.
 */
int global__levels(const char *alpha, const char *conf, double *a, double *c);
struct option;
/*
 * The options of plan and run, then their one argument, a matrix file,
 * left in argv[0]; any other count of arguments is a usage error.
 */
void global__matrix_file(int argc, const char **argv, const struct option *opts,
			 const char *const *usage);
/*
 * What `kernel path` and `testbed path` print: the cache folder @dir
 * (freed), on stdout as --json asks; when @err, that there is none.
 */
int global__cache_path(int err, char *dir);
/*
 * @arg named no subcommand of @cmd (db, labvm, triage): say so, with
 * @best when suggest__best() found one near it. The exit status, 2.
 */
int global__unknown_subcommand(const char *cmd, const char *arg,
			       const char *best);

int cmd_agent(int argc, const char **argv);
int cmd_bisect(int argc, const char **argv);
int cmd_compare(int argc, const char **argv);
/* Hidden, not in the table: the words completions/iommu-bench offers. */
int cmd_complete(int argc, const char **argv);
int cmd_db(int argc, const char **argv);
int cmd_export(int argc, const char **argv);
int cmd_help(int argc, const char **argv);
int cmd_nightly(int argc, const char **argv);
int cmd_plan(int argc, const char **argv);
int cmd_probe(int argc, const char **argv);
int cmd_regress(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_run(int argc, const char **argv);
int cmd_trace(int argc, const char **argv);
int cmd_triage(int argc, const char **argv);
int cmd_testbed(int argc, const char **argv);
int cmd_kernel(int argc, const char **argv);
int cmd_labvm(int argc, const char **argv);
int cmd_version(int argc, const char **argv);

/* The command table, for help and "did you mean". */
struct cmd_struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *summary;
};

extern const struct cmd_struct commands[];
const struct cmd_struct *command__find(const char *name);
void main__usage(FILE *fp);
int main__unknown_command(const char *name);

#endif /* IOMMU_BENCH_BUILTIN_H */
