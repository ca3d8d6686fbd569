// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trial loop: plan order, cooldowns between trials on a host, a
 * failure budget, and a stop after the current trial on a signal.
 */
#include <errno.h>
#include <time.h>

#include "bench/run/run.h"
#include "log.h"

static void cooldown(uint64_t ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	/* A signal ends the sleep early: the loop then stops. */
	nanosleep(&ts, NULL);
}

/* Why trial @i cannot run: one of its hosts did not come back; NULL. */
static const char *trial__lost(struct run_ctx *ctx, size_t i)
{
	const struct plan_trial *t = &ctx->plan.trials[i];
	const struct matrix_workload *w = &ctx->m->workloads[t->workload];

	if (ctx->hosts[t->host].lost)
		return ctx->hosts[t->host].lost;
	if (ctx->hosts[w->server].lost)
		return ctx->hosts[w->server].lost;
	return ctx->hosts[w->client].lost;
}

int run__execute(struct run_ctx *ctx)
{
	unsigned int failures = 0, lost = 0;
	bool first = true;
	const char *why;
	size_t i;
	int ret;

	for (i = 0; i < ctx->plan.nr_trials; i++) {
		if (!ctx->trial_ids[i] || ctx->trial_done[i])
			continue;
		if (run_signal__level())
			return -EINTR;
		/*
		 * A host lost to a reboot costs one failure, not one per
		 * trial left on it: the other hosts' trials still run.
		 */
		why = trial__lost(ctx, i);
		if (why) {
			ret = run_trial__fail(ctx, i, why);
			if (ret < 0)
				return ret;
			lost++;
			continue;
		}
		if (!first && ctx->m->run.cooldown_ms)
			cooldown(ctx->m->run.cooldown_ms);
		if (run_signal__level())
			return -EINTR;
		first = false;
		ret = run_trial__exec(ctx, i);
		if (ret < 0)
			return ret;
		if (ret > 0 && ++failures >= ctx->max_failures) {
			pr_err("%u trials failed: giving up (--max-failures "
			       "%u)",
			       failures, ctx->max_failures);
			return -ECANCELED;
		}
		if (run_signal__level())
			return -EINTR;
	}
	return failures || lost ? 1 : 0;
}
