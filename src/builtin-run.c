// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench run MATRIX: execute a matrix's plan on its hosts and store
 * every trial. A run of the same name and config that did not finish is
 * continued (--new starts afresh); the store never holds half a trial.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/run.h"
#include "builtin.h"
#include "config-error.h"
#include "log.h"
#include "parse-options.h"
#include "report/adaptive.h"
#include "report/regress.h"
#include "sha256.h"
#include "store/store.h"
#include "util.h"

/* 128 + SIGINT, as a shell reports a command stopped by Ctrl-C. */
#define EXIT_INTERRUPTED 130

static const char *const run_usage[] = {
	"iommu-bench run [--resume|--new] [--only KEY=VALUE,...] "
	"[--shard K/N] [--quiet] [--json] [--max-failures N] <matrix.toml>",
	NULL,
};

struct run_args {
	bool resume, fresh, quiet;
	const char *only, *shard;
	int max_failures;
};

static const char *db_of(const struct matrix *m)
{
	/* As plan: --db beats the file, the file beats $IOMMU_BENCH_DB. */
	if (global.db_path || !m->run.db)
		return global__db_path();
	return m->run.db;
}

static int load(const char *path, struct run_ctx *ctx)
{
	struct config_errors errs;
	int ret;

	config_errors__init(&errs, path);
	ret = matrix__load(path, &ctx->m, &errs);
	if (!ret)
		ret = plan__build(&ctx->plan, ctx->m, &errs);
	config_errors__print(&errs, stderr);
	if (ret && config_errors__failed(&errs))
		fprintf(stderr, "%s: %zu error%s\n", path, errs.nr_errors,
			errs.nr_errors == 1 ? "" : "s");
	config_errors__release(&errs);
	return ret;
}

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *slash = strrchr(copy, '/'), *abs;

	if (!slash) {
		free(copy);
		copy = xstrdup(".");
	} else if (slash == copy) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
	}
	abs = realpath(copy, NULL);
	if (abs) {
		free(copy);
		return abs;
	}
	return copy;
}

/* Continue the unfinished run of this config, or begin one. */
static int run_open(struct run_ctx *ctx, const struct run_args *a,
		    const char *path)
{
	char sha[SHA256_HEX_SIZE], *config = NULL;
	size_t len;
	int ret;

	ret = read_file(path, &config, &len);
	if (ret) {
		pr_err("cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	sha256__hex(config, len, sha);
	ret = a->fresh ? -ENOENT :
			 store__run_find_resumable(ctx->st, ctx->m->run.name,
						   sha, &ctx->run_id);
	if (!ret) {
		ret = store__run_resume(ctx->st, ctx->run_id);
		if (!ret)
			run_progress__msg(ctx,
					  "resuming run %lld (%s) in %s; --new "
					  "starts a fresh one",
					  (long long)ctx->run_id,
					  ctx->m->run.name, ctx->db_path);
	} else if (ret == -ENOENT && a->resume) {
		pr_err("--resume: %s has no unfinished run '%s' of this config",
		       ctx->db_path, ctx->m->run.name);
		ret = -ENOENT;
	} else if (ret == -ENOENT) {
		ret = store__run_begin(ctx->st, ctx->m->run.name, config, len,
				       &ctx->run_id);
		if (!ret)
			run_progress__msg(ctx, "run %lld (%s) into %s",
					  (long long)ctx->run_id,
					  ctx->m->run.name, ctx->db_path);
	}
	free(config);
	return ret;
}

static int setup(struct run_ctx *ctx, const struct run_args *a,
		 const char *path)
{
	int ret;

	ctx->filter = (struct run_filter){ -1, -1, -1, -1, 0, 0 };
	if (a->only && run_filter__parse_only(&ctx->filter, ctx->m, a->only))
		return -EINVAL;
	if (a->shard && run_filter__parse_shard(&ctx->filter, a->shard))
		return -EINVAL;
	if (a->max_failures < 1) {
		pr_err("--max-failures: %d is not a positive number",
		       a->max_failures);
		return -EINVAL;
	}
	ctx->max_failures = a->max_failures;
	ctx->progress.quiet = a->quiet;
	ctx->progress.json = global.json;
	ctx->progress.tty = !global.json && isatty(STDERR_FILENO);
	ctx->db_path = db_of(ctx->m);
	ret = store__open(ctx->db_path, STORE_CREATE | STORE_MIGRATE, &ctx->st);
	if (ret)
		return ret;
	ctx->results_dir = dir_of(ctx->db_path);
	return run_open(ctx, a, path);
}

/* The comparisons [run] until watches: the modes', else the kernels'. */
static void until_opts(const struct matrix *m, struct adaptive_opts *o)
{
	static const char *const fallback[] = { REGRESS_DEFAULT_METRIC, NULL };

	o->by = m->run.nr_modes > 1 || m->nr_kernels == 1 ? DS_MODE : DS_KERNEL;
	o->baseline = o->by == DS_MODE ? m->modes[m->run.modes[0]].name :
					 m->kernels[0].name;
	o->metrics = m->regress.nr_metrics ?
			     (const char *const *)m->regress.metrics :
			     fallback;
	o->width_pct = m->run.until_width_pct;
}

/* Whether another round is wanted; 0 no, 1 yes, or -errno. */
static int until_open(struct run_ctx *ctx)
{
	struct adaptive_status st;
	struct adaptive_opts o;
	struct rdb r;
	int ret;

	until_opts(ctx->m, &o);
	if (rdb__open(ctx->db_path, &r))
		return -EIO;
	ret = adaptive__check(&r, ctx->run_id, &o, &st);
	rdb__close(&r);
	if (ret)
		return ret;
	if (!st.open) {
		run_progress__msg(ctx,
				  "until: all %zu headline comparison%s within "
				  "%g%% at %u repetitions",
				  st.comparisons,
				  st.comparisons == 1 ? " is" : "s are",
				  o.width_pct, ctx->m->run.repetitions);
	} else {
		run_progress__msg(ctx,
				  "until: %zu of %zu headline comparisons "
				  "wider than %g%% (%s: %.0f%%); round %u of "
				  "at most %u",
				  st.open, st.comparisons, o.width_pct,
				  st.widest ? st.widest : "?", st.widest_pct,
				  ctx->m->run.repetitions + 1,
				  ctx->m->run.until_max);
	}
	ret = st.open > 0;
	adaptive_status__release(&st);
	return ret;
}

/* One more repetition of every selected cell: the plan, then its rows. */
static int until_extend(struct run_ctx *ctx)
{
	struct config_errors errs;
	int ret;

	ctx->m->run.repetitions++;
	plan__release(&ctx->plan);
	config_errors__init(&errs, ctx->m->path);
	ret = plan__build(&ctx->plan, ctx->m, &errs);
	if (ret)
		config_errors__print(&errs, stderr);
	config_errors__release(&errs);
	if (ret)
		return ret;
	free(ctx->trial_ids);
	free(ctx->trial_done);
	ctx->trial_ids = NULL;
	ctx->trial_done = NULL;
	return run_store__plan(ctx);
}

/*
 * [run] until: rounds of repetitions until every headline comparison is
 * as precise as asked, judged blind to the verdicts (report/adaptive.c).
 */
static int until(struct run_ctx *ctx)
{
	const struct matrix_run *r = &ctx->m->run;
	int ret = 0;

	while (r->until_max && r->repetitions < r->until_max) {
		if (run_signal__level())
			return -EINTR;
		ret = until_open(ctx);
		if (ret <= 0)
			return ret;
		ret = until_extend(ctx);
		if (!ret)
			ret = run__execute(ctx);
		if (ret)
			return ret;
	}
	return ret;
}

static int execute(struct run_ctx *ctx)
{
	int ret;

	run_signal__install(ctx);
	ret = run_kernels__build(ctx);
	if (!ret)
		ret = run_hosts__open(ctx);
	if (!ret)
		ret = run_kernels__store(ctx);
	if (!ret)
		ret = run_store__plan(ctx);
	if (!ret)
		ret = run__execute(ctx);
	if (!ret)
		ret = until(ctx);
	run_hosts__close(ctx);
	run_signal__restore();
	return ret;
}

static int finish(struct run_ctx *ctx, int ret)
{
	enum store_run_status s = STORE_RUN_DONE;
	const char *word;

	if (ret == -EINTR || run_signal__level())
		s = STORE_RUN_INTERRUPTED;
	else if (ret)
		s = STORE_RUN_FAILED;
	word = s == STORE_RUN_DONE && ret == 0 ? "done" :
	       s == STORE_RUN_INTERRUPTED      ? "interrupted" :
						 "failed";
	/* Trials that failed leave the run resumable: they rerun then. */
	if (ret > 0)
		s = STORE_RUN_FAILED;
	if (store__run_finish(ctx->st, ctx->run_id, s))
		pr_warn("run %lld: its end could not be recorded",
			(long long)ctx->run_id);
	run_progress__end(ctx, word);
	if (s == STORE_RUN_INTERRUPTED)
		return EXIT_INTERRUPTED;
	return s == STORE_RUN_DONE ? EXIT_OK : EXIT_WORK_FAILED;
}

static void release(struct run_ctx *ctx)
{
	free(ctx->trial_ids);
	free(ctx->trial_done);
	free(ctx->kernel_ids);
	free(ctx->results_dir);
	if (ctx->st)
		store__close(ctx->st);
	if (ctx->m) {
		plan__release(&ctx->plan);
		matrix__free(ctx->m);
	}
}

int cmd_run(int argc, const char **argv)
{
	struct run_args a = { .max_failures = 10 };
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_BOOLEAN(0, "resume", &a.resume,
			    "continue the unfinished run; error if none"),
		OPT_BOOLEAN(0, "new", &a.fresh,
			    "start a new run even if one can be resumed"),
		OPT_STRING(0, "only", &a.only, "KEY=VALUE,...",
			   "only these hosts/kernels/modes/workloads"),
		OPT_STRING(0, "shard", &a.shard, "K/N",
			   "only the K-th of N slices of the cells"),
		OPT_BOOLEAN('q', "quiet", &a.quiet, "print only errors"),
		OPT_INTEGER(0, "max-failures", &a.max_failures, "N",
			    "stop after N failed trials (default 10)"),
		OPT_END(),
	};
	struct run_ctx ctx = { 0 };
	int ret;

	argc = parse_options(argc, argv, opts, run_usage, 0);
	if (argc != 1)
		usage_error(run_usage, opts,
			    argc ? "one matrix file, please" :
				   "which matrix file?");
	if (a.resume && a.fresh)
		usage_error(run_usage, opts,
			    "--resume and --new exclude each other");
	ret = load(argv[0], &ctx);
	if (ret) {
		release(&ctx);
		return ret == -EINVAL || ret == -E2BIG ? EXIT_USAGE :
							 EXIT_WORK_FAILED;
	}
	ret = setup(&ctx, &a, argv[0]);
	if (ret) {
		release(&ctx);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
	}
	ret = finish(&ctx, execute(&ctx));
	release(&ctx);
	return ret;
}
