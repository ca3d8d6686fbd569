/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A run over fake hosts (tests/unit/fake-agent.h): the real matrix, plan,
 * store and trial loop, set up as `run` does but with the test's
 * host_ops, so that what a lab machine's reboot decides can be tested
 * here. Load, adjust the matrix if the test must, then start.
 */
#ifndef IOMMU_BENCH_TESTS_FAKE_RUN_H
#define IOMMU_BENCH_TESTS_FAKE_RUN_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "bench/agent/agent-file.h"
#include "bench/host/host-transports.h"
#include "bench/run/run.h"
#include "config-error.h"
#include "store/store.h"
#include "tap.h"
#include "util.h"

/*
 * A run named @name of @reps repetitions in mode lazy, which a kexec
 * applies, with no warmup or cooldown to wait for.
 */
#define FAKE_RUN_LAZY_KEXEC(name, reps)    \
	"[modes.lazy]\n"                   \
	"method = \"kexec\"\n"             \
	"cmdline = [\"iommu.strict=0\"]\n" \
	"[run]\n"                          \
	"name = \"" name "\"\n"            \
	"repetitions = " #reps "\n"        \
	"warmup = 0\n"                     \
	"cooldown = \"0s\"\n"              \
	"modes = [\"lazy\"]\n"

/* The matrices' two workloads: one on each SUT, a and b, peer p. */
#define FAKE_RUN_WORKLOADS   \
	"[[workloads]]\n"    \
	"name = \"tcp-a\"\n" \
	"server = \"a\"\n"   \
	"client = \"p\"\n"   \
	"[[workloads]]\n"    \
	"name = \"tcp-b\"\n" \
	"server = \"b\"\n"   \
	"client = \"p\"\n"

static inline int fake_run__load(struct run_ctx *ctx, const char *toml)
{
	struct config_errors errs;
	int ret;

	host_transports__set();
	config_errors__init(&errs, "test.toml");
	ret = matrix__load_buf("test.toml", toml, strlen(toml), &ctx->m, &errs);
	config_errors__release(&errs);
	return ret;
}

/*
 * Plan, open @db, begin the run (or resume @ctx->run_id), connect every
 * host through @ops and store the kernels and cells.
 */
static inline int fake_run__start(struct run_ctx *ctx, const char *db,
				  const char *toml, const struct host_ops *ops,
				  bool resume)
{
	struct config_errors errs;
	size_t i;
	int ret;

	config_errors__init(&errs, "test.toml");
	ret = plan__build(&ctx->plan, ctx->m, &errs);
	config_errors__release(&errs);
	if (!ret)
		ret = store__open(db, STORE_CREATE | STORE_MIGRATE, &ctx->st);
	if (!ret)
		ret = resume ? store__run_resume(ctx->st, ctx->run_id) :
			       store__run_begin(ctx->st, ctx->m->run.name, toml,
						strlen(toml), &ctx->run_id);
	if (ret)
		return ret;
	ctx->filter = (struct run_filter){ -1, -1, -1, -1, 0, 0 };
	ctx->max_failures = 20;
	ctx->progress.quiet = true;
	ctx->hosts = xcalloc(ctx->m->nr_hosts, sizeof(*ctx->hosts));
	for (i = 0; i < ctx->m->nr_hosts && !ret; i++) {
		ctx->hosts[i].h.m = &ctx->m->hosts[i];
		ctx->hosts[i].h.matrix = ctx->m;
		ctx->hosts[i].h.ops = ops;
		ctx->hosts[i].booted_kernel = ctx->hosts[i].booted_mode = -1;
		ctx->hosts[i].opened = true;
		ret = run_host__connect(ctx, &ctx->hosts[i]);
	}
	if (!ret)
		ret = run_kernels__store(ctx);
	if (!ret)
		ret = run_store__plan(ctx);
	return ret;
}

static inline void fake_run__release(struct run_ctx *ctx)
{
	run_hosts__close(ctx);
	free_all(ctx->trial_ids, ctx->trial_done, ctx->kernel_ids);
	if (ctx->st)
		store__close(ctx->st);
	plan__release(&ctx->plan);
	matrix__free(ctx->m);
	ctx->m = NULL;
}

/*
 * The end of a test: the run released if it is still open, @dir and
 * all the run left there (the database's -wal and -shm files too)
 * removed; the TAP plan.
 */
static inline int fake_run__end(struct run_ctx *ctx, const char *dir)
{
	if (ctx->m)
		fake_run__release(ctx);
	agent_file__remove_tree(dir, NULL);
	return tap_done();
}

/*
 * The rows of @query on @db, its first column one a line; @param, when
 * not NULL, is bound to ?1. "" when the database cannot be read.
 */
static inline char *fake_run__dump(const char *db, const char *query,
				   const char *param)
{
	sqlite3 *s = NULL;
	sqlite3_stmt *st = NULL;
	char *out = xstrdup(""), *n;

	if (sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL) ||
	    sqlite3_prepare_v2(s, query, -1, &st, NULL) ||
	    (param && sqlite3_bind_text(st, 1, param, -1, SQLITE_STATIC)))
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		n = xasprintf("%s%s\n", out,
			      (const char *)sqlite3_column_text(st, 0));
		free(out);
		out = n;
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(s);
	return out;
}

#endif /* IOMMU_BENCH_TESTS_FAKE_RUN_H */
