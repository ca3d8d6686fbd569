// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runs a night makes: tonight's (the matrix with the followed kernel
 * pinned to tonight's head), and each confirmation (the followed kernel
 * twice, at both ends, one cell, interleaved trial by trial and with
 * more repetitions, so that both ends meet the same machine, minute by
 * minute). Each is an ordinary run of the store, which compare, report
 * and export read as any; its id is stored before its first trial, so
 * that a killed night reopens that run rather than begin another.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/nightly/nightly-priv.h"
#include "bench/run/run.h"
#include "config-error.h"
#include "log.h"
#include "util.h"

static size_t followed(const struct night *nt, const struct matrix *m)
{
	return (size_t)matrix__find_kernel(m, nt->k->name);
}

/* @k at @rev: a commit of its tree, or a package's versioned name. */
static void pin(struct matrix_kernel *k, const char *rev, const char *package)
{
	/* A watch night's kernel is what the machine booted: nothing to pin. */
	if (k->kind == KERNEL_RUNNING)
		return;
	if (k->kind == KERNEL_BUILD) {
		free(k->build.base);
		k->build.base = xstrdup(rev);
		return;
	}
	free(k->package);
	k->package = xstrdup(package);
	free(k->release);
	k->release = xstrdup(package + strlen("linux-image-"));
}

/*
 * Open (or reopen, *@run_id) the run of @config, have @keep store its id
 * before its first trial, execute it, close it.
 */
static int session(struct night *nt, struct run_ctx *ctx, const char *config,
		   int64_t *run_id, int (*keep)(struct night *, void *),
		   void *arg)
{
	struct run_session_opts so = {
		.db_path = nt->o->db_path,
		.config = config,
		.config_len = strlen(config),
		.run_id = *run_id,
		.quiet = nt->o->quiet,
		.max_failures = 1000,
	};
	int ret, status;

	ctx->build_workdir = nt->workdir;
	ret = run_session__open(ctx, &so);
	if (ret)
		return ret;
	if (!*run_id) {
		*run_id = ctx->run_id;
		ret = keep(nt, arg);
	}
	if (!ret)
		ret = run_session__execute(ctx);
	status = run_session__close(ctx, ret);
	if (status == EXIT_INTERRUPTED)
		return -EINTR;
	return ret > 0 ? 0 : ret;
}

static int keep_night_run(struct night *nt, void *arg)
{
	struct store_night set = { .id = nt->n.id, .run_id = nt->n.run_id };

	(void)arg;
	return store__night_set(nt->st, &set);
}

static int keep_confirm_run(struct night *nt, void *arg)
{
	const struct store_regression *r = arg;
	struct store_regression set = { .id = r->id,
					.confirm_run_id = r->confirm_run_id };

	return store__regression_set(nt->st, &set);
}

int night__run(struct night *nt)
{
	struct run_ctx ctx = { 0 };
	char *config;
	int ret;

	ret = run_session__load(&ctx, nt->o->matrix, false);
	if (ret)
		goto out;
	pin(&ctx.m->kernels[followed(nt, ctx.m)], nt->n.head, nt->n.package);
	config = xasprintf("# iommu-bench nightly: night %lld of %s, kernel %s "
			   "at %s\n%.*s",
			   (long long)nt->n.id, nt->series, nt->k->name,
			   nt->n.head, (int)nt->len, nt->text);
	ret = session(nt, &ctx, config, &nt->n.run_id, keep_night_run, NULL);
	free(config);
	if (ret && ret != -EINTR) {
		night__say(nt, "the run failed (%s): nothing to judge",
			   strerror(-ret));
		ret = -ECANCELED;
	}
out:
	run_session__release(&ctx);
	return ret;
}

/* The confirmation's matrix: the followed kernel at both ends, one cell. */
static int confirm_matrix(struct night *nt, struct run_ctx *ctx,
			  const struct store_regression *r)
{
	struct matrix *m = ctx->m;
	struct matrix_kernel two[2];
	struct config_errors errs;
	size_t i, f = followed(nt, m);
	unsigned int reps = nt->cfg->confirm_repetitions;
	char *only;
	int ret;

	matrix_kernel__dup(&m->kernels[f], &two[0]);
	matrix_kernel__dup(&m->kernels[f], &two[1]);
	pin(&two[0], r->base, nt->base.package);
	pin(&two[1], r->head, nt->n.package);
	free(two[0].name);
	free(two[1].name);
	two[0].name = xasprintf("%.*s", NIGHT_ABBREV, r->base);
	two[1].name = xasprintf("%.*s", NIGHT_ABBREV, r->head);
	for (i = 0; i < m->nr_kernels; i++)
		matrix_kernel__release(&m->kernels[i]);
	m->kernels = xrealloc(m->kernels, sizeof(two));
	memcpy(m->kernels, two, sizeof(two));
	m->nr_kernels = 2;
	if (!reps)
		reps = m->run.repetitions * 2 < 6 ? 6 : m->run.repetitions * 2;
	m->run.repetitions = reps;
	m->run.order = ORDER_INTERLEAVED;
	m->run.until_max = 0;
	plan__release(&ctx->plan);
	config_errors__init(&errs, m->path);
	ret = plan__build(&ctx->plan, m, &errs);
	config_errors__print(&errs, stderr);
	config_errors__release(&errs);
	if (ret)
		return ret;
	only = xasprintf("host=%s,mode=%s,workload=%s", r->host, r->mode,
			 r->workload);
	ret = run_filter__parse_only(&ctx->filter, m, only);
	free(only);
	return ret;
}

/* Of the interleaved pairs, how many moved the way the night saw. */
static int count_pairs(struct night *nt, struct store_regression *r)
{
	double *b = NULL, *h = NULL;
	char base[NIGHT_ABBREV + 1], head[NIGHT_ABBREV + 1];
	size_t nb = 0, nh = 0, i;
	bool up = r->change_pct > 0;
	int ret;

	snprintf(base, sizeof(base), "%s", r->base);
	snprintf(head, sizeof(head), "%s", r->head);
	ret = store__kernel_cell_values(nt->st, r->confirm_run_id, base,
					r->mode, r->workload, r->metric, &b,
					&nb, NULL);
	if (!ret)
		ret = store__kernel_cell_values(nt->st, r->confirm_run_id, head,
						r->mode, r->workload, r->metric,
						&h, &nh, NULL);
	r->pairs = nb < nh ? nb : nh;
	r->reproduced = 0;
	for (i = 0; !ret && i < (size_t)r->pairs; i++)
		r->reproduced += up ? h[i] > b[i] : h[i] < b[i];
	free(b);
	free(h);
	return ret;
}

int night__confirm_run(struct night *nt, struct store_regression *r)
{
	struct run_ctx ctx = { 0 };
	char *config;
	int ret;

	ret = run_session__load(&ctx, nt->o->matrix, false);
	if (!ret)
		ret = confirm_matrix(nt, &ctx, r);
	if (ret)
		goto out;
	config = xasprintf("# iommu-bench nightly: night %lld of %s confirms "
			   "regression %lld (%s.%s, %s): %s against %s\n%.*s",
			   (long long)nt->n.id, nt->series, (long long)r->id,
			   r->workload, r->metric, r->mode, r->base, r->head,
			   (int)nt->len, nt->text);
	ret = session(nt, &ctx, config, &r->confirm_run_id, keep_confirm_run,
		      r);
	free(config);
	if (!ret)
		ret = count_pairs(nt, r);
out:
	run_session__release(&ctx);
	return ret;
}
