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
#include "analysis/adaptive-check.h"
#include "analysis/regress.h"
#include "sha256.h"
#include "store/store.h"
#include "util.h"

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

static int setup(struct run_ctx *ctx, const struct run_args *a,
		 const char *path)
{
	struct run_session_opts o = {
		.resume = a->resume,
		.fresh = a->fresh,
		.resume_hint = "; --new starts a fresh one",
		.quiet = a->quiet,
		.json = global.json,
	};
	char *config = NULL;
	int ret;

	if (a->only && run_filter__parse_only(&ctx->filter, ctx->m, a->only))
		return -EINVAL;
	if (a->shard && run_filter__parse_shard(&ctx->filter, a->shard))
		return -EINVAL;
	if (a->max_failures < 1) {
		pr_err("--max-failures: %d is not a positive number",
		       a->max_failures);
		return -EINVAL;
	}
	o.max_failures = a->max_failures;
	o.db_path = global__matrix_db(ctx->m->run.db);
	ret = read_file(path, &config, &o.config_len);
	if (ret) {
		pr_err("cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	o.config = config;
	ret = run_session__open(ctx, &o);
	free(config);
	return ret;
}

/* The comparisons [run] until watches: the modes', else the kernels'. */
static void until_opts(const struct matrix *m, struct adaptive_opts *o)
{
	size_t nr;

	o->by = m->run.nr_modes > 1 || m->nr_kernels == 1 ? DS_MODE : DS_KERNEL;
	o->baseline = o->by == DS_MODE ? m->modes[m->run.modes[0]].name :
					 m->kernels[0].name;
	o->metrics = matrix__gate_metrics(m, &nr);
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

/*
 * [run] until: rounds of repetitions until every headline comparison is
 * as precise as asked, judged blind to the verdicts (stats/adaptive.c).
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
		ret = run_session__extend(ctx, r->repetitions + 1);
		if (ret)
			return ret;
	}
	return ret;
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

	global__matrix_file(argc, argv, opts, run_usage);
	if (a.resume && a.fresh)
		usage_error(run_usage, opts,
			    "--resume and --new exclude each other");
	ret = run_session__load(&ctx, argv[0], true);
	if (ret) {
		run_session__release(&ctx);
		return ret == -EINVAL || ret == -E2BIG ? EXIT_USAGE :
							 EXIT_WORK_FAILED;
	}
	ret = setup(&ctx, &a, argv[0]);
	if (ret) {
		run_session__release(&ctx);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
	}
	ret = run_session__execute(&ctx);
	if (!ret)
		ret = until(&ctx);
	ret = run_session__close(&ctx, ret);
	run_session__release(&ctx);
	return ret;
}
