// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a run tells its user: on a terminal one live status line, else
 * one line per trial (both on stderr); --json streams events as JSON
 * lines on stdout instead; --quiet keeps only errors.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/run/run.h"
#include "clock.h"
#include "util.h"

static void emit(json_t *ev)
{
	char *s = json_dumps(ev, JSON_COMPACT);

	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		fflush(stdout);
	}
	free(s);
	json_decref(ev);
}

void run_progress__msg(struct run_ctx *ctx, const char *fmt, ...)
{
	struct run_progress *p = &ctx->progress;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (p->json)
		emit(json_pack("{s:s, s:s}", "event", "message", "text", s));
	else if (!p->quiet)
		fprintf(stderr, "%s%s\n", p->tty ? "\r\033[K" : "", s);
	free(s);
}

/* From what the trials so far took; the plan's estimate before that. */
static uint64_t eta_ms(struct run_ctx *ctx, size_t i)
{
	struct run_progress *p = &ctx->progress;
	const struct plan_trial *t = &ctx->plan.trials[i];
	uint64_t spent = mono_ms() - p->started_ms;

	if (p->done >= p->total)
		return 0;
	if (p->done)
		return spent / p->done * (p->total - p->done);
	return ctx->plan.summary.estimated_ms > t->start_ms ?
		       ctx->plan.summary.estimated_ms - t->start_ms :
		       0;
}

/* The workload's answer's throughput; 0 when it has none. */
static double gbps_of(const json_t *client)
{
	return json_number_value(json_object_get(client, "throughput_bps")) /
	       1e9;
}

static json_t *trial_event(struct run_ctx *ctx, size_t i, const char *status,
			   const char *error, const json_t *client,
			   uint64_t wall_ms)
{
	const struct matrix *m = ctx->m;
	const struct plan_trial *t = &ctx->plan.trials[i];
	json_t *e;

	e = json_pack("{s:s, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:i, s:b, s:b, "
		      "s:s, s:s?, s:f, s:I, s:I}",
		      "event", "trial", "trial", (json_int_t)ctx->trial_ids[i],
		      "done", (json_int_t)ctx->progress.done, "total",
		      (json_int_t)ctx->progress.total, "host",
		      m->hosts[t->host].name, "kernel",
		      m->kernels[t->kernel].name, "mode",
		      m->modes[t->mode].name, "workload",
		      m->workloads[t->workload].name, "repetition",
		      (int)t->repetition, "warmup", t->warmup, "profile",
		      t->profile, "status", status, "error", error, "gbps",
		      gbps_of(client), "wall_ms", (json_int_t)wall_ms, "eta_ms",
		      (json_int_t)eta_ms(ctx, i));
	/* A dma_map trial's figures are its mean times, not a rate. */
	if (e && client && m->workloads[t->workload].type == WORKLOAD_DMA_MAP) {
		json_object_set(e, "map_ns", json_object_get(client, "map_ns"));
		json_object_set(e, "unmap_ns",
				json_object_get(client, "unmap_ns"));
	}
	return e;
}

/* What a trial's line says it measured. */
static void headline(const struct matrix_workload *w, const json_t *client,
		     char *buf, size_t size)
{
	if (w->type == WORKLOAD_DMA_MAP && client)
		snprintf(buf, size, "map %lld ns, unmap %lld ns",
			 json_integer_value(json_object_get(client, "map_ns")),
			 json_integer_value(
				 json_object_get(client, "unmap_ns")));
	else if (w->type == WORKLOAD_DMA_MAP)
		snprintf(buf, size, "no times");
	else
		snprintf(buf, size, "%.2f Gbit/s", gbps_of(client));
}

void run_progress__trial(struct run_ctx *ctx, size_t i, const char *status,
			 const char *error, const json_t *client,
			 uint64_t wall_ms)
{
	struct run_progress *p = &ctx->progress;
	const struct matrix *m = ctx->m;
	const struct plan_trial *t = &ctx->plan.trials[i];
	const struct matrix_workload *w = &m->workloads[t->workload];
	uint64_t work = matrix_workload__trial_ms(w), eta;
	char figure[64];

	if (!p->started_ms)
		p->started_ms = mono_ms() - wall_ms;
	p->done++;
	if (error) {
		p->failed++;
		client = NULL;
	}
	if (!error && wall_ms > work) {
		p->overhead_ms += wall_ms - work;
		p->measured++;
	}
	if (p->json) {
		emit(trial_event(ctx, i, status, error, client, wall_ms));
		return;
	}
	if (error)
		fprintf(stderr, "%strial %zu/%zu failed: %s\n",
			p->tty ? "\r\033[K" : "", p->done, p->total, error);
	if (p->quiet)
		return;
	eta = eta_ms(ctx, i);
	/* A failed trial measured nothing: no figure of its own beside it. */
	headline(w, client, figure, sizeof(figure));
	fprintf(stderr,
		"%strial %zu/%zu %s kernel=%s mode=%s %s %s%u: %s, %s, ETA "
		"%" PRIu64 "s%s",
		p->tty ? "\r\033[K" : "", p->done, p->total,
		m->hosts[t->host].name, m->kernels[t->kernel].name,
		m->modes[t->mode].name, w->name,
		t->warmup  ? "warmup " :
		t->profile ? "profile " :
			     "rep ",
		t->repetition, status, figure, (eta + 999) / 1000,
		p->tty ? "" : "\n");
	fflush(stderr);
}

void run_progress__end(struct run_ctx *ctx, const char *status)
{
	struct run_progress *p = &ctx->progress;
	uint64_t per = p->measured ? p->overhead_ms / p->measured : 0;

	if (p->json) {
		emit(json_pack("{s:s, s:I, s:s, s:I, s:I, s:I}", "event", "end",
			       "run", (json_int_t)ctx->run_id, "status", status,
			       "trials", (json_int_t)p->done, "failed",
			       (json_int_t)p->failed, "overhead_ms_per_trial",
			       (json_int_t)per));
		return;
	}
	if (p->tty && !p->quiet)
		fputc('\n', stderr);
	if (!p->quiet)
		fprintf(stderr,
			"run %lld %s: %zu trials, %zu failed; overhead %" PRIu64
			" ms per trial beyond the workload\n",
			(long long)ctx->run_id, status, p->done, p->failed,
			per);
}
