// SPDX-License-Identifier: GPL-2.0-only
/*
 * One run of a loaded matrix, from its store row to its end: what `run`
 * does once and `bisect` once per step, so that a bisection's steps are
 * runs like any other (resumable, verified, stored trial by trial).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/run-install.h"
#include "bench/run/run.h"
#include "config-error.h"
#include "log.h"
#include "sha256.h"
#include "store/store.h"
#include "util.h"

int run_session__load(struct run_ctx *ctx, const char *path, bool warn)
{
	struct config_errors errs;
	int ret;

	config_errors__init(&errs, path);
	ret = matrix__load(path, &ctx->m, &errs);
	if (!ret)
		ret = plan__build(&ctx->plan, ctx->m, &errs);
	if (warn || ret)
		config_errors__print(&errs, stderr);
	if (ret && config_errors__failed(&errs))
		fprintf(stderr, "%s: %zu error%s\n", path, errs.nr_errors,
			errs.nr_errors == 1 ? "" : "s");
	config_errors__release(&errs);
	ctx->filter = (struct run_filter){ -1, -1, -1, -1, 0, 0 };
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

/* Continue the unfinished run of this name and config, or begin one. */
static int session__begin(struct run_ctx *ctx, const struct run_session_opts *o)
{
	char sha[SHA256_HEX_SIZE];
	int ret;

	if (o->run_id) {
		ctx->run_id = o->run_id;
		ret = store__run_resume(ctx->st, ctx->run_id);
		if (!ret)
			run_progress__msg(ctx, "run %lld (%s) continued in %s",
					  (long long)ctx->run_id,
					  ctx->m->run.name, ctx->db_path);
		ctx->resumed = !ret;
		return ret;
	}
	sha256__hex(o->config, o->config_len, sha);
	ret = o->fresh ? -ENOENT :
			 store__run_find_resumable(ctx->st, ctx->m->run.name,
						   sha, &ctx->run_id);
	if (!ret) {
		ret = store__run_resume(ctx->st, ctx->run_id);
		if (!ret)
			run_progress__msg(ctx, "resuming run %lld (%s) in %s%s",
					  (long long)ctx->run_id,
					  ctx->m->run.name, ctx->db_path,
					  o->resume_hint ? o->resume_hint : "");
		ctx->resumed = !ret;
	} else if (ret == -ENOENT && o->resume) {
		pr_err("--resume: %s has no unfinished run '%s' of this config",
		       ctx->db_path, ctx->m->run.name);
	} else if (ret == -ENOENT) {
		ret = store__run_begin(ctx->st, ctx->m->run.name, o->config,
				       o->config_len, &ctx->run_id);
		if (!ret)
			run_progress__msg(ctx, "run %lld (%s) into %s",
					  (long long)ctx->run_id,
					  ctx->m->run.name, ctx->db_path);
	}
	return ret;
}

int run_session__open(struct run_ctx *ctx, const struct run_session_opts *o)
{
	int ret;

	ctx->max_failures = o->max_failures;
	ctx->progress.quiet = o->quiet;
	ctx->progress.json = o->json;
	ctx->progress.tty = !o->json && isatty(STDERR_FILENO);
	ctx->db_path = o->db_path;
	ret = store__open(ctx->db_path, STORE_CREATE | STORE_MIGRATE, &ctx->st);
	if (ret)
		return ret;
	ctx->results_dir = dir_of(ctx->db_path);
	return session__begin(ctx, o);
}

int run_session__execute(struct run_ctx *ctx)
{
	int ret;

	run_signal__install(ctx);
	ctx->signals = true;
	ret = run_kernels__build(ctx);
	if (!ret)
		ret = run_hosts__open(ctx);
	if (!ret)
		ret = run_kernels__store(ctx);
	if (!ret)
		ret = run_store__plan(ctx);
	if (!ret)
		ret = run__execute(ctx);
	return ret;
}

int run_session__extend(struct run_ctx *ctx, unsigned int repetitions)
{
	struct config_errors errs;
	int ret;

	if (repetitions <= ctx->m->run.repetitions)
		return 0;
	ctx->m->run.repetitions = repetitions;
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
	ret = run_store__plan(ctx);
	if (!ret)
		ret = run__execute(ctx);
	return ret;
}

int run_session__close(struct run_ctx *ctx, int ret)
{
	enum store_run_status s = STORE_RUN_DONE;
	const char *word;

	/* Interrupted, it leaves them for the resumed run to use. */
	run_install__cleanup(ctx, ret != -EINTR && !run_signal__level());
	run_hosts__close(ctx);
	if (ret == -EINTR || run_signal__level())
		s = STORE_RUN_INTERRUPTED;
	else if (ret)
		s = STORE_RUN_FAILED;
	if (ctx->signals)
		run_signal__restore();
	ctx->signals = false;
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

void run_session__release(struct run_ctx *ctx)
{
	free_all(ctx->trial_ids, ctx->trial_done, ctx->kernel_ids,
		 ctx->results_dir);
	if (ctx->st)
		store__close(ctx->st);
	if (ctx->m) {
		plan__release(&ctx->plan);
		matrix__free(ctx->m);
	}
	memset(ctx, 0, sizeof(*ctx));
}
