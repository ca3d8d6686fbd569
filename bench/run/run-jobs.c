// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's end of host_jobs_ops: a lab transport reports each job it
 * submits, and what became of it, and the run keeps them in the store's
 * lab_jobs beside the trials, so that `run --resume` after a kill hands
 * the transport back the jobs it left (bench/host/lava/host-lava.c).
 */
#include <string.h>

#include "bench/run/run.h"
#include "store/store.h"
#include "util.h"

static int jobs_add(void *arg, const struct host *h, const struct host_job *j)
{
	struct run_ctx *ctx = arg;
	struct store_lab_job s = {
		.host = h->m->name,
		.server = j->server,
		.job_id = j->id,
		.sha256 = j->sha256,
		.kernel = j->kernel,
		.cmdline = j->cmdline,
	};

	return store__lab_job_add(ctx->st, ctx->run_id, &s);
}

static int jobs_set(void *arg, const struct host_job *j)
{
	struct run_ctx *ctx = arg;
	struct store_lab_job s = {
		.server = j->server,
		.job_id = j->id,
		.state = j->state,
		.health = j->health,
		.device = j->device,
		.error = j->error,
	};

	return store__lab_job_set(ctx->st, &s);
}

static int jobs_open(void *arg, const struct host *h, struct host_job **out,
		     size_t *nr)
{
	struct run_ctx *ctx = arg;
	struct store_lab_job *v;
	struct host_job *o;
	size_t n, i;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = store__lab_jobs_open(ctx->st, ctx->run_id, h->m->name, &v, &n);
	if (ret)
		return ret;
	o = n ? xcalloc(n, sizeof(*o)) : NULL;
	for (i = 0; i < n; i++) {
		/* The strings change hands: v's are freed as empty below. */
		o[i] = (struct host_job){
			.server = v[i].server,
			.id = v[i].job_id,
			.sha256 = v[i].sha256,
			.kernel = v[i].kernel,
			.cmdline = v[i].cmdline,
			.state = v[i].state,
			.health = v[i].health,
			.device = v[i].device,
			.error = v[i].error,
			.run_id = v[i].run_id,
			.this_run = v[i].run_id == ctx->run_id,
		};
		free(v[i].host);
		memset(&v[i], 0, sizeof(v[i]));
	}
	store_lab_jobs__free(v, n);
	*out = o;
	*nr = n;
	return 0;
}

const struct host_jobs_ops run_jobs_ops = {
	.add = jobs_add,
	.set = jobs_set,
	.open = jobs_open,
};
