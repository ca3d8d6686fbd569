// SPDX-License-Identifier: GPL-2.0-only
/*
 * One step of a bisection: the commit built in the kept worktree (make
 * rebuilds what the checkout changed), then the matrix's cell run on it
 * as a run of its own, the kernel named by the commit, so that compare,
 * report and export see the steps as they see any run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect/bisect.h"
#include "bench/kbuild/kbuild.h"
#include "bench/run/run.h"
#include "clock.h"
#include "config-error.h"
#include "log.h"
#include "store/store.h"
#include "util.h"

/* The first line of a build's error: the rest is make's tail. */
static char *first_line(const char *s)
{
	const char *nl = s ? strchr(s, '\n') : NULL;

	if (!s)
		return xstrdup("unknown error");
	return nl ? xstrndup(s, nl - s) : xstrdup(s);
}

static int step__build(struct bisect_ctx *c, const struct matrix_build *b,
		       struct bisect_step *st)
{
	struct kbuild_result res = { 0 };
	int64_t t0 = mono_ms();
	struct kbuild_recipe r;
	char *err = NULL;
	int ret;

	run_kernels__recipe(b, &r);
	r.base = st->commit;
	r.jobs = c->jobs;
	r.workdir = c->s->workdir;

	ret = kbuild__build(&r, NULL, &res, &err);
	if (ret == -EINTR)
		goto out;
	if (ret) {
		const char *log = err ? strstr(err, "(the whole log: ") : NULL;
		char *line = first_line(err);

		/* The log's tail stays in the log: the reason is a line. */
		free(st->why);
		st->why = xasprintf("does not build: %s%s%.*s", line,
				    log ? " " : "",
				    log ? (int)strcspn(log, "\n") : 0,
				    log ? log : "");
		free(line);
		st->verdict = BISECT_SKIP;
		pr_warn("bisect: %.*s %s", BISECT_ABBREV, st->commit, st->why);
		ret = 0;
		goto out;
	}
	/* Built before a kill, found now: the build it cost still counts. */
	if (!res.cached || st->build_s <= 0) {
		st->cached = res.cached;
		st->build_s = res.cached ? 0 : (mono_ms() - t0) / 1e3;
	}
	pr_info("bisect: %.*s %s in %.0f s, build id %s", BISECT_ABBREV,
		st->commit, res.cached ? "found in the cache" : "built",
		(mono_ms() - t0) / 1e3, res.build_id ? res.build_id : "?");
out:
	free(err);
	kbuild_result__release(&res);
	return ret;
}

/* The bisected kernel's index in @m: by name, else the only one. */
static size_t step__kernel(const struct bisect_ctx *c, const struct matrix *m)
{
	long i = c->s->kernel ? matrix__find_kernel(m, c->s->kernel) : 0;

	return i < 0 ? 0 : (size_t)i;
}

/* The matrix as this step runs it: its kernel at the commit, one cell. */
static int step__prepare(struct bisect_ctx *c, struct run_ctx *ctx,
			 const struct bisect_step *st)
{
	struct matrix *m = ctx->m;
	struct matrix_kernel *k = &m->kernels[step__kernel(c, m)];
	char *only;
	int ret;

	free(k->name);
	k->name = xstrndup(st->commit, BISECT_ABBREV);
	free(k->build.base);
	k->build.base = xstrdup(st->commit);
	free(m->run.name);
	m->run.name = xstrdup(c->s->run_name);
	m->run.until_max = 0;
	only = xasprintf("kernel=%s,mode=%s,workload=%s", k->name, c->s->mode,
			 c->s->workload);
	ret = run_filter__parse_only(&ctx->filter, m, only);
	free(only);
	return ret;
}

static int step__run(struct bisect_ctx *c, struct run_ctx *ctx,
		     struct bisect_step *st)
{
	char *config = xasprintf("# iommu-bench bisect: kernel %.*s is "
				 "commit %s\n%s",
				 BISECT_ABBREV, st->commit, st->commit,
				 c->matrix_text);
	struct run_session_opts so = {
		.db_path = c->db_path,
		.config = config,
		.config_len = strlen(config),
		.run_id = st->run_id,
		.quiet = c->o->quiet,
		/* A boot that fails fails the step's trials, not the run. */
		.max_failures = 1000,
	};
	char *err = NULL;
	int ret, status;

	ret = run_session__open(ctx, &so);
	free(config);
	if (ret)
		return ret;
	if (!st->run_id) {
		st->run_id = ctx->run_id;
		/* Resume finds this run again, not a second one. */
		ret = bisect_state__save(c->s, &err);
		if (ret) {
			pr_err("bisect: %s", err);
			free(err);
			run_session__close(ctx, ret);
			return ret;
		}
	}
	ctx->m->run.repetitions = st->repetitions;
	plan__release(&ctx->plan);
	{
		struct config_errors errs;

		config_errors__init(&errs, ctx->m->path);
		ret = plan__build(&ctx->plan, ctx->m, &errs);
		config_errors__print(&errs, stderr);
		config_errors__release(&errs);
	}
	if (!ret)
		ret = run_session__execute(ctx);
	st->boots++;
	status = run_session__close(ctx, ret);
	if (status == EXIT_INTERRUPTED)
		return -EINTR;
	/* Failed trials are the step's news (a kernel that won't boot). */
	return ret > 0 ? 0 : ret;
}

static int step__values(struct bisect_ctx *c, struct run_ctx *ctx,
			struct bisect_step *st)
{
	char *why = NULL;
	double *v;
	size_t n;
	int ret;

	ret = store__cell_values(ctx->st, st->run_id, c->s->mode,
				 c->s->workload, c->s->metric, &v, &n, &why);
	if (ret)
		return ret;
	free(st->values);
	st->values = v;
	st->n = n;
	st->booted = n > 0;
	if (!n) {
		free(st->why);
		st->why = xasprintf("no %s measured: %s", c->s->metric,
				    why ? why : "no trial ran");
		st->verdict = BISECT_SKIP;
	}
	free(why);
	return 0;
}

int bisect_step__measure(struct bisect_ctx *c, struct bisect_step *st)
{
	struct run_ctx ctx = { 0 };
	int ret;

	ret = run_session__load(&ctx, c->s->matrix, false);
	if (ret)
		goto out;
	ret = step__build(c, &ctx.m->kernels[step__kernel(c, ctx.m)].build, st);
	if (ret || st->verdict == BISECT_SKIP)
		goto out;
	ret = step__prepare(c, &ctx, st);
	if (!ret)
		ret = step__run(c, &ctx, st);
	if (!ret)
		ret = step__values(c, &ctx, st);
out:
	run_session__release(&ctx);
	return ret;
}
