// SPDX-License-Identifier: GPL-2.0-only
/*
 * The selected part of the plan written down before the first trial:
 * every cell and trial row exists (pending) from the start, so the
 * database shows what the run will do, and a resume finds each trial by
 * (cell key, warmup, repetition) and skips those stored 'ok'.
 */
#include <errno.h>
#include <string.h>

#include "bench/run/run.h"
#include "log.h"
#include "store/store.h"
#include "util.h"

static int trial__row(struct run_ctx *ctx, size_t i, char *last_key,
		      int64_t *cell_id)
{
	const struct matrix *m = ctx->m;
	const struct plan_trial *t = &ctx->plan.trials[i];
	enum store_trial_status status;
	char key[PLAN_KEY_MAX];
	int ret;

	plan_trial__key(m, t, key, sizeof(key));
	if (strcmp(key, last_key)) {
		struct store_cell c = {
			.run_id = ctx->run_id,
			.host_id = ctx->hosts[t->host].host_id,
			.kernel_id = ctx->kernel_ids[t->kernel],
			.mode = m->modes[t->mode].name,
			.workload = m->workloads[t->workload].name,
			.key = key,
		};

		ret = store__cell_upsert(ctx->st, &c, cell_id);
		if (ret == -EEXIST)
			pr_err("cell %s: stored with other values: the matrix "
			       "changed under this run; start a new one "
			       "(--new)",
			       key);
		if (ret)
			return ret;
		strcpy(last_key, key);
	}
	ret = store__trial_find_or_insert(ctx->st, *cell_id, t->repetition,
					  t->warmup  ? STORE_TRIAL_WARMUP :
					  t->profile ? STORE_TRIAL_PROFILE :
						       STORE_TRIAL_MEASURED,
					  &ctx->trial_ids[i], &status);
	if (ret)
		return ret;
	if (status == STORE_TRIAL_OK) {
		ctx->trial_done[i] = true;
		return 0;
	}
	/* A crash left it running, or it failed before: run it afresh. */
	if (status != STORE_TRIAL_PENDING)
		ret = store__trial_reset(ctx->st, ctx->trial_ids[i]);
	ctx->progress.total++;
	return ret;
}

int run_store__plan(struct run_ctx *ctx)
{
	char last_key[PLAN_KEY_MAX] = "";
	int64_t cell_id = 0;
	size_t i, selected = 0, done = 0;
	int ret;

	ctx->trial_ids = xcalloc(ctx->plan.nr_trials, sizeof(*ctx->trial_ids));
	ctx->trial_done =
		xcalloc(ctx->plan.nr_trials, sizeof(*ctx->trial_done));
	ret = store__begin(ctx->st);
	if (ret)
		return ret;
	for (i = 0; i < ctx->plan.nr_trials && !ret; i++) {
		if (!run_filter__match(&ctx->filter, ctx->m,
				       &ctx->plan.trials[i]))
			continue;
		selected++;
		ret = trial__row(ctx, i, last_key, &cell_id);
		done += ctx->trial_done[i];
	}
	if (!ret)
		ret = store__commit(ctx->st);
	if (ret) {
		store__rollback(ctx->st);
		return ret;
	}
	if (!selected) {
		pr_err("--only/--shard select no trial of this matrix");
		return -ENOENT;
	}
	if (done)
		run_progress__msg(ctx,
				  "%zu of %zu trials already stored ok; "
				  "%zu to run",
				  done, selected, selected - done);
	return 0;
}
