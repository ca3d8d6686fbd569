// SPDX-License-Identifier: GPL-2.0-only
/*
 * A probe is its targets taken together: the functions are tried first
 * (they give latency), and the tracepoint only when none of them could
 * attach, so that no call is counted twice.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "collectors/bpf/bpf-probes.h"
#include "util.h"

int bpf_probe__attach(struct bpf_probe *p, const struct bpf_env *env,
		      const struct bpf_filter *filter, int *nest_fd)
{
	bool any_fn = false;
	size_t i;

	for (i = 0; i < p->nr_targets; i++)
		p->targets[i].nest_fd = nest_fd;
	for (i = 0; i < p->nr_targets; i++) {
		struct bpf_target *t = &p->targets[i];

		if (t->kind != BPF_TARGET_FN)
			continue;
		t->tried = true;
		if (!bpf_target__attach(t, env, filter, BPF_RUNG_NONE)) {
			any_fn = true;
			p->timed = true;
		}
	}
	for (i = 0; i < p->nr_targets && !any_fn; i++) {
		struct bpf_target *t = &p->targets[i];

		if (t->kind != BPF_TARGET_TP)
			continue;
		t->tried = true;
		if (!bpf_target__attach(t, env, filter, BPF_RUNG_NONE)) {
			p->timed = t->tp_end != NULL;
			break;
		}
	}
	return 0;
}

int bpf_probe__read(struct bpf_probe *p)
{
	int err, ret = 0;
	size_t i;

	memset(&p->total, 0, sizeof(p->total));
	p->missed = p->run_ns = p->runs = 0;
	for (i = 0; i < p->nr_targets; i++) {
		err = bpf_target__read(&p->targets[i]);
		if (err)
			ret = err;
		probe_stats__add(&p->total, &p->targets[i].stats);
		p->missed += p->targets[i].missed;
		p->run_ns += p->targets[i].run_ns;
		p->runs += p->targets[i].runs;
	}
	return ret;
}

void bpf_probe__detach(struct bpf_probe *p)
{
	bpf_probes__detach(p, 1);
}

static void *detach_one(void *arg)
{
	bpf_target__detach(arg);
	return NULL;
}

/*
 * Each detach waits out RCU grace periods in the kernel (tens of ms
 * for a tracepoint); in parallel they share them, so a probe set of
 * a dozen targets detaches in one wait instead of a dozen.
 */
void bpf_probes__detach(struct bpf_probe *probes, size_t n)
{
	pthread_t *tids;
	bool *started;
	size_t i, j, nr = 0, k = 0;

	for (i = 0; i < n; i++)
		nr += probes[i].nr_targets;
	tids = xcalloc(nr + 1, sizeof(*tids));
	started = xcalloc(nr + 1, sizeof(*started));
	for (i = 0; i < n; i++) {
		for (j = 0; j < probes[i].nr_targets; j++, k++) {
			struct bpf_target *t = &probes[i].targets[j];

			if (!t->obj)
				continue;
			/* Without a thread, it is done here and now. */
			started[k] =
				!pthread_create(&tids[k], NULL, detach_one, t);
			if (!started[k])
				bpf_target__detach(t);
		}
	}
	for (k = 0; k < nr; k++)
		if (started[k])
			pthread_join(tids[k], NULL);
	free(tids);
	free(started);
}

static json_t *fail__json(const struct bpf_fail *f)
{
	char buf[16];
	const char *name = bpf_errno__name(f->err, buf, sizeof(buf));

	json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:s}", "rung",
			      bpf_rung__name(f->rung), "stage", f->stage,
			      "errno", f->err, "error", name, "reason", f->why);

	if (f->verifier[0])
		json_object_set_new(o, "verifier", json_string(f->verifier));
	return o;
}

static json_t *target__json(const struct bpf_target *t)
{
	json_t *o, *tried = json_array();
	unsigned int i;

	for (i = 0; i < t->nr_fails; i++)
		json_array_append_new(tried, fail__json(&t->fails[i]));
	o = json_pack("{s:s, s:s, s:s, s:I}", "name", t->name, "kind",
		      t->kind == BPF_TARGET_FN ? "function" : "tracepoint",
		      "attach", bpf_rung__name(t->rung), "calls",
		      (json_int_t)t->stats.calls);
	if (t->kind == BPF_TARGET_FN) {
		json_object_set_new(o, "symbol",
				    t->symbol ? json_string(t->symbol) :
						json_null());
		json_object_set_new(o, "module",
				    t->module ? json_string(t->module) :
						json_null());
		json_object_set_new(o, "in_btf", json_boolean(t->in_btf));
		json_object_set_new(o, "in_kallsyms",
				    json_boolean(t->symbol != NULL));
		if (t->nr_syms > 1)
			json_object_set_new(o, "duplicates",
					    json_integer(t->nr_syms));
	}
	json_object_set_new(o, "tried", json_boolean(t->tried));
	json_object_set_new(o, "failed", tried);
	return o;
}

/* "a,b" of the attached targets, and their rungs "fentry+kprobe". */
static void probe__names(const struct bpf_probe *p, char **target,
			 char **attach)
{
	size_t i, tlen = 0, alen = 0;
	char *tb = xstrdup(""), *ab = xstrdup("");

	for (i = 0; i < p->nr_targets; i++) {
		const struct bpf_target *t = &p->targets[i];
		const char *rung = bpf_rung__name(t->rung);
		char *n;

		if (t->rung == BPF_RUNG_NONE)
			continue;
		n = xasprintf("%s%s%s", tb, tlen ? "," : "", t->name);
		free(tb);
		tb = n;
		tlen++;
		if (strstr(ab, rung))
			continue;
		n = xasprintf("%s%s%s", ab, alen ? "+" : "", rung);
		free(ab);
		ab = n;
		alen++;
	}
	if (!alen) {
		free(ab);
		ab = xstrdup("none");
	}
	*target = tb;
	*attach = ab;
}

/* Does an attached target read a size? Else bytes are not known. */
static bool probe__sized(const struct bpf_probe *p)
{
	size_t i;

	for (i = 0; i < p->nr_targets; i++) {
		const struct bpf_target *t = &p->targets[i];

		if ((t->rung == BPF_RUNG_FENTRY || t->rung == BPF_RUNG_KPROBE ||
		     t->rung == BPF_RUNG_RAW_TP) &&
		    t->size_arg >= 0)
			return true;
		if (t->rung == BPF_RUNG_TRACEPOINT && t->size_off >= 0)
			return true;
	}
	return false;
}

void bpf_prog__stats_json(json_t *o, __u64 missed, __u64 run_ns, __u64 runs)
{
	json_object_set_new(o, "missed", json_integer((json_int_t)missed));
	/* Only where the kernel's run-time stats were on ("cost"). */
	if (runs) {
		json_object_set_new(o, "run_ns",
				    json_integer((json_int_t)run_ns));
		json_object_set_new(o, "runs", json_integer((json_int_t)runs));
	}
}

/* A count of timed calls: null for a probe without latency. */
static json_t *timed_int(const struct bpf_probe *p, __u64 v)
{
	return p->timed ? json_integer((json_int_t)v) : json_null();
}

json_t *bpf_probe__json(const struct bpf_probe *p)
{
	size_t n = p->timed ? hist__len(p->total.hist, PROBE_HIST_SLOTS) : 0;
	json_t *o, *hist = json_array(), *targets = json_array();
	json_t *missing = json_array();
	char *target, *attach;
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(
			hist, json_integer((json_int_t)p->total.hist[i]));
	for (i = 0; i < p->nr_targets; i++)
		json_array_append_new(targets, target__json(&p->targets[i]));
	for (i = 0; i < p->missing.nr; i++)
		json_array_append_new(missing, json_string(p->missing.v[i]));
	probe__names(p, &target, &attach);
	o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:o, s:b, s:I}", "name",
		      p->name, "target", target, "attach", attach, "calls",
		      (json_int_t)p->total.calls, "total_ns",
		      (json_int_t)p->total.total_ns, "hist", hist, "latency",
		      p->timed, "untimed", (json_int_t)p->total.untimed);
	json_object_set_new(o, "bytes",
			    probe__sized(p) ?
				    json_integer((json_int_t)p->total.bytes) :
				    json_null());
	json_object_set_new(o, "self_ns", timed_int(p, p->total.self_ns));
	json_object_set_new(o, "nested", timed_int(p, p->total.nested));
	bpf_prog__stats_json(o, p->missed, p->run_ns, p->runs);
	json_object_set_new(o, "targets", targets);
	json_object_set_new(o, "missing", missing);
	free(target);
	free(attach);
	return o;
}
