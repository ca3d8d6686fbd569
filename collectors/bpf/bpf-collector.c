// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bpf collector: call counts and log2 latency histograms of the
 * IOMMU DMA paths during a workload, from per-CPU maps read at stop (no
 * per-event traffic to user space).
 *
 * Its config is the matrix's [collect.bpf] table as JSON: "probes" is
 * "default" or an array of probe names, which may also hold "default",
 * "fn:NAME", "tp:CAT:NAME" and "tp:CAT:BEGIN:END" (trace uses that);
 * "device" is "nic" (the SUT's interface), a PCI address or an
 * interface. create() validates and resolves, start() attaches, stop()
 * reads the maps and detaches. docs/trace.md documents the results.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "collectors/bpf/bpf-exposure.h"
#include "collectors/bpf/bpf-probes.h"
#include "collectors/collector.h"
#include "log.h"
#include "store/store.h"
#include "util.h"

struct bpf_collector {
	struct collector c;
	struct bpf_env env;
	struct bpf_filter filter;
	struct bpf_probe *probes;
	size_t nr, alloc;
	struct bpf_exposure *exposure; /* NULL: not asked for */
	char *nic;
	bool cost;    /* the kernel's run-time stats while measuring */
	int stats_fd; /* holds them on; -1: off */
	int nest_fd;  /* the probes' shared nesting map; -1: none yet */
	struct bpf_calibration floor; /* the probes' own share of a call */
	int64_t t_start, t_stop;      /* mono_ns() */
	bool started, stopped;
};

#define ERR_MAX 512

static bool probe__known(const struct bpf_collector *bc, const char *name)
{
	size_t i;

	for (i = 0; i < bc->nr; i++)
		if (!strcmp(bc->probes[i].name, name))
			return true;
	return false;
}

static int collector__add(struct bpf_collector *bc, const char *name)
{
	char err[ERR_MAX];
	struct bpf_spec spec;
	const struct bpf_probe_def *d;
	int ret;

	if (!strcmp(name, "default")) {
		for (d = bpf_probe_defs; d->name; d++)
			if (d->in_default &&
			    (ret = collector__add(bc, d->name)))
				return ret;
		return 0;
	}
	ret = bpf_spec__parse(name, &spec, err, sizeof(err));
	if (ret) {
		pr_err("bpf: %s", err);
		return ret;
	}
	if (probe__known(bc, spec.name))
		goto out;
	if (spec.def && spec.def->window) {
		if (!bc->exposure) {
			bc->exposure = xcalloc(1, sizeof(*bc->exposure));
			ret = bpf_exposure__resolve(bc->exposure, &bc->env);
		}
		goto out;
	}
	ALLOC_GROW(bc->probes, bc->nr + 1, bc->alloc);
	ret = bpf_probe__resolve(&bc->probes[bc->nr], &spec, &bc->env, err,
				 sizeof(err));
	if (ret) {
		bpf_probe__release(&bc->probes[bc->nr]);
		pr_err("bpf: %s", err);
		goto out;
	}
	bc->nr++;
out:
	bpf_spec__release(&spec);
	return ret;
}

static int collector__config(struct bpf_collector *bc,
			     const struct collector_opts *opts)
{
	const json_t *cfg = opts ? opts->config : NULL;
	const json_t *probes = cfg ? json_object_get(cfg, "probes") : NULL;
	const json_t *dev = cfg ? json_object_get(cfg, "device") : NULL;
	const char *dev_name;
	char err[ERR_MAX];
	size_t i;
	json_t *v;
	int ret;

	if (!probes || (json_is_string(probes) &&
			!strcmp(json_string_value(probes), "default"))) {
		ret = collector__add(bc, "default");
	} else if (json_is_array(probes) && json_array_size(probes)) {
		ret = 0;
		json_array_foreach(probes, i, v) {
			if (!json_is_string(v)) {
				pr_err("bpf: probes: element %zu is not a "
				       "string",
				       i);
				return -EINVAL;
			}
			ret = collector__add(bc, json_string_value(v));
			if (ret)
				return ret;
		}
	} else {
		pr_err("bpf: probes: expected \"default\" or a non-empty "
		       "array of probe names");
		return -EINVAL;
	}
	if (ret)
		return ret;
	bc->cost = cfg && json_is_true(json_object_get(cfg, "cost"));
	if (!dev || json_is_null(dev))
		return ret;
	dev_name = json_string_value(dev);
	if (dev_name && !strcmp(dev_name, "nic"))
		dev_name = opts->nic;
	if (!dev_name) {
		pr_err("bpf: device: expected \"nic\" (with a NIC under "
		       "test), a PCI address or an interface name");
		return -EINVAL;
	}
	ret = bpf_filter__set(&bc->filter, dev_name, err, sizeof(err));
	if (ret)
		pr_err("bpf: %s", err);
	return ret;
}

static void bpf_destroy(struct collector *c)
{
	struct bpf_collector *bc = (struct bpf_collector *)c;
	size_t i;

	if (!bc)
		return;
	for (i = 0; i < bc->nr; i++)
		bpf_probe__release(&bc->probes[i]);
	free(bc->probes);
	if (bc->stats_fd >= 0)
		close(bc->stats_fd);
	if (bc->nest_fd >= 0)
		close(bc->nest_fd);
	if (bc->exposure)
		bpf_exposure__release(bc->exposure);
	free(bc->exposure);
	free(bc->nic);
	bpf_env__close(&bc->env);
	free(bc);
}

static int bpf_create(const struct collector_opts *opts, struct collector **out)
{
	struct bpf_collector *bc = xcalloc(1, sizeof(*bc));
	int err;

	bc->c.ops = &bpf_collector_ops;
	bc->stats_fd = bc->nest_fd = -1;
	bc->floor.floor_ns = bc->floor.spread_ns = -1;
	bpf_env__open(&bc->env);
	if (opts && opts->nic)
		bc->nic = xstrdup(opts->nic);
	err = collector__config(bc, opts);
	if (err) {
		bpf_destroy(&bc->c);
		return err;
	}
	*out = &bc->c;
	return 0;
}

static int bpf_start(struct collector *c)
{
	struct bpf_collector *bc = (struct bpf_collector *)c;
	size_t i;
	int err;

	if (bc->cost) {
		bc->stats_fd = bpf_env__stats_on();
		if (bc->stats_fd < 0) {
			pr_err("bpf: cost: cannot turn the kernel's BPF "
			       "run-time stats on: %s",
			       strerror(-bc->stats_fd));
			return bc->stats_fd;
		}
	}
	for (i = 0; i < bc->nr; i++) {
		err = bpf_probe__attach(&bc->probes[i], &bc->env, &bc->filter,
					&bc->nest_fd);
		if (err)
			return err;
	}
	/* Before the window: its getppid() calls are not the workload's. */
	bc->floor.floor_ns = bc->floor.spread_ns = -1;
	if (bc->nr) {
		err = bpf_calibrate__floor(&bc->env, &bc->nest_fd, &bc->floor);
		if (err)
			pr_debug("bpf: no probe floor here: %s",
				 strerror(-err));
	}
	if (bc->exposure) {
		err = bpf_exposure__attach(bc->exposure, &bc->env, bc->nic);
		if (err)
			return err;
	}
	bc->t_start = mono_ns();
	bc->started = true;
	return 0;
}

static int bpf_stop(struct collector *c)
{
	struct bpf_collector *bc = (struct bpf_collector *)c;
	int err, ret = 0;
	size_t i;

	if (!bc->started || bc->stopped)
		return 0;
	bc->t_stop = mono_ns();
	for (i = 0; i < bc->nr; i++) {
		err = bpf_probe__read(&bc->probes[i]);
		if (err)
			ret = err;
	}
	if (bc->exposure) {
		err = bpf_exposure__read(bc->exposure);
		if (err)
			ret = err;
		bpf_exposure__detach(bc->exposure);
	}
	bpf_probes__detach(bc->probes, bc->nr);
	if (bc->stats_fd >= 0)
		close(bc->stats_fd);
	bc->stats_fd = -1;
	bc->stopped = true;
	return ret;
}

/* Hardware IOMMUs the kernel registered: entries of /sys/class/iommu. */
static int iommu_units(void)
{
	DIR *d = opendir("/sys/class/iommu");
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static json_t *env__json(const struct bpf_env *env)
{
	return json_pack("{s:s, s:b, s:b, s:b, s:o, s:s, s:i}", "kernel",
			 env->release, "btf", env->btf != NULL, "kallsyms",
			 env->ksyms != NULL, "kprobes", env->kprobes, "tracefs",
			 env->tracefs ? json_string(env->tracefs) : json_null(),
			 "tracefs_note",
			 env->tracefs_note ? env->tracefs_note : "",
			 "iommu_units", iommu_units());
}

static int bpf_results(struct collector *c, json_t **out)
{
	struct bpf_collector *bc = (struct bpf_collector *)c;
	json_t *o = env__json(&bc->env), *probes = json_array();
	size_t i;

	if (!bc->stopped) {
		json_decref(o);
		json_decref(probes);
		return -EINVAL;
	}
	for (i = 0; i < bc->nr; i++)
		json_array_append_new(probes, bpf_probe__json(&bc->probes[i]));
	json_object_set_new(o, "duration_s",
			    json_real((bc->t_stop - bc->t_start) / 1e9));
	/* The run-time stats were on: a probe never run cost 0, not "?". */
	json_object_set_new(o, "cost", json_boolean(bc->cost));
	json_object_set_new(o, "probe_floor_ns",
			    bc->floor.floor_ns >= 0 ?
				    json_real(bc->floor.floor_ns) :
				    json_null());
	json_object_set_new(o, "probe_floor_spread_ns",
			    bc->floor.spread_ns >= 0 ?
				    json_real(bc->floor.spread_ns) :
				    json_null());
	json_object_set_new(o, "device",
			    bc->filter.on ? json_string(bc->filter.dev_name) :
					    json_null());
	json_object_set_new(o, "probes", probes);
	if (bc->exposure)
		json_object_set_new(o, "exposure",
				    bpf_exposure__json(bc->exposure));
	*out = o;
	return 0;
}

static int store_one(struct store *st, int64_t trial_id, const json_t *p)
{
	const json_t *hist = json_object_get(p, "hist"), *v, *self, *nested;
	struct store_probe sp = { 0 };
	uint64_t *buckets;
	size_t i;
	int err;

	sp.name = json_string_value(json_object_get(p, "name"));
	sp.target = json_string_value(json_object_get(p, "target"));
	sp.attach = json_string_value(json_object_get(p, "attach"));
	if (!sp.name || !sp.target || !sp.attach || !json_is_array(hist)) {
		pr_err("bpf: results: a probe without name, target, attach "
		       "or hist");
		return -EINVAL;
	}
	sp.calls = json_integer_value(json_object_get(p, "calls"));
	sp.total_ns = json_integer_value(json_object_get(p, "total_ns"));
	/* null (no latency) or absent (an older agent): not known */
	self = json_object_get(p, "self_ns");
	nested = json_object_get(p, "nested");
	if (json_is_integer(self) && json_is_integer(nested)) {
		sp.self_known = true;
		sp.self_ns = json_integer_value(self);
		sp.nested = json_integer_value(nested);
	}
	sp.hist_len = json_array_size(hist);
	buckets = xcalloc(sp.hist_len + 1, sizeof(*buckets));
	json_array_foreach(hist, i, v)
		buckets[i] = json_integer_value(v);
	sp.hist = buckets;
	err = store__probe_add(st, trial_id, &sp, NULL);
	free(buckets);
	return err;
}

/*
 * What a cost per GB needs beside the probes (docs/cost.md): how long
 * they counted (the window busy CPU is taken over), the time a probe
 * adds to each call it times, and, where the kernel's run-time stats
 * were on, the time the probes' own programs took.
 */
static int store_window(struct store *st, int64_t trial_id,
			const json_t *results)
{
	const json_t *probes = json_object_get(results, "probes"), *p;
	const json_t *floor = json_object_get(results, "probe_floor_ns");
	const json_t *spread =
		json_object_get(results, "probe_floor_spread_ns");
	double secs = json_number_value(json_object_get(results, "duration_s"));
	json_int_t run_ns = 0;
	bool stats = json_is_true(json_object_get(results, "cost"));
	size_t i;
	int err = 0;

	if (secs > 0)
		err = store__metric_add(st, trial_id, "probe_window_s", secs,
					"s", STORE_BETTER_NONE, NULL);
	if (!err && json_is_number(floor))
		err = store__metric_add(st, trial_id, "probe_floor_ns",
					json_number_value(floor), "ns",
					STORE_BETTER_LOWER, NULL);
	if (!err && json_is_number(spread))
		err = store__metric_add(st, trial_id, "probe_floor_spread_ns",
					json_number_value(spread), "ns",
					STORE_BETTER_NONE, NULL);
	json_array_foreach(probes, i, p) {
		json_int_t ns =
			json_integer_value(json_object_get(p, "run_ns"));
		json_int_t calls =
			json_integer_value(json_object_get(p, "calls"));
		const char *name =
			json_string_value(json_object_get(p, "name"));
		char metric[64];

		if (!json_object_get(p, "runs"))
			continue;
		stats = true;
		run_ns += ns;
		/* Per call of the probed path: what its time holds of ours. */
		if (err || !name || calls <= 0)
			continue;
		snprintf(metric, sizeof(metric), "%s%s", name,
			 STORE_BPF_NS_SUFFIX);
		err = store__metric_add(st, trial_id, metric,
					(double)ns / (double)calls, "ns",
					STORE_BETTER_LOWER, NULL);
	}
	p = json_object_get(results, "exposure");
	if (p && json_object_get(p, "runs")) {
		stats = true;
		run_ns += json_integer_value(json_object_get(p, "run_ns"));
	}
	if (!err && stats)
		err = store__metric_add(st, trial_id, "bpf_run_ns",
					(double)run_ns, "ns",
					STORE_BETTER_LOWER, NULL);
	return err;
}

static int bpf_store(struct store *st, int64_t trial_id, const json_t *results)
{
	const json_t *probes = json_object_get(results, "probes"), *p;
	size_t i;
	int err;

	if (!json_is_array(probes)) {
		pr_err("bpf: results: no \"probes\" array");
		return -EINVAL;
	}
	json_array_foreach(probes, i, p) {
		err = store_one(st, trial_id, p);
		if (err)
			return err;
	}
	err = store_window(st, trial_id, results);
	if (err)
		return err;
	p = json_object_get(results, "exposure");
	return p ? bpf_exposure__store(st, trial_id, p) : 0;
}

/* A rung in a word: "works", else its first failure, else "not tried". */
static json_t *rung__json(const struct bpf_collector *bc, enum bpf_rung r)
{
	const struct bpf_fail *fail = NULL;
	size_t i, j;
	char buf[16];

	for (i = 0; i < bc->nr; i++) {
		const struct bpf_probe *p = &bc->probes[i];

		for (j = 0; j < p->nr_targets; j++) {
			const struct bpf_target *t = &p->targets[j];
			unsigned int k;

			if (t->rung == r)
				return json_string("works");
			for (k = 0; k < t->nr_fails && !fail; k++)
				if (t->fails[k].rung == r &&
				    strcmp(t->fails[k].stage, "resolve"))
					fail = &t->fails[k];
		}
	}
	if (!fail)
		return json_string("not tried");
	return json_sprintf("%s failed, %s: %s", fail->stage,
			    bpf_errno__name(fail->err, buf, sizeof(buf)),
			    fail->why);
}

static json_t *rungs__json(const struct bpf_collector *bc)
{
	static const enum bpf_rung all[] = { BPF_RUNG_FENTRY, BPF_RUNG_KPROBE,
					     BPF_RUNG_RAW_TP,
					     BPF_RUNG_TRACEPOINT };
	json_t *o = json_object();
	size_t r;

	for (r = 0; r < ARRAY_SIZE(all); r++)
		json_object_set_new(o, bpf_rung__name(all[r]),
				    rung__json(bc, all[r]));
	return o;
}

/*
 * Every logical probe, resolved and attached for a moment: which rung
 * would carry it here, and why the others do not.
 */
static int bpf_support(json_t **info)
{
	struct bpf_collector *bc = xcalloc(1, sizeof(*bc));
	const struct bpf_probe_def *d;
	json_t *o, *probes = json_array();
	size_t i;

	bc->stats_fd = bc->nest_fd = -1;
	bc->floor.floor_ns = bc->floor.spread_ns = -1;
	if (geteuid()) {
		*info = json_pack("{s:b, s:s}", "available", false, "reason",
				  "loading BPF programs needs root");
		free(bc);
		return 0;
	}
	bc->c.ops = &bpf_collector_ops;
	bpf_env__open(&bc->env);
	for (d = bpf_probe_defs; d->name; d++)
		collector__add(bc, d->name);
	for (i = 0; i < bc->nr; i++) {
		struct bpf_probe *p = &bc->probes[i];
		json_t *j;

		bpf_probe__attach(p, &bc->env, NULL, &bc->nest_fd);
		bpf_probe__detach(p);
		j = bpf_probe__json(p);
		/* Nothing was measured: no counts to mislead with. */
		json_object_del(j, "calls");
		json_object_del(j, "total_ns");
		json_object_del(j, "hist");
		json_object_del(j, "untimed");
		json_object_del(j, "bytes");
		json_object_del(j, "missed");
		json_object_del(j, "self_ns");
		json_object_del(j, "nested");
		json_object_set_new(j, "default",
				    json_boolean(p->def && p->def->in_default));
		json_object_set_new(j, "what", json_string(p->def->what));
		json_array_append_new(probes, j);
	}
	if (bc->exposure) {
		const struct bpf_probe_def *x = bpf_probe_def__find("exposure");
		json_t *j;

		bpf_exposure__attach(bc->exposure, &bc->env, NULL);
		bpf_exposure__detach(bc->exposure);
		static const char *const counts[] = {
			"opened",
			"windows",
			"by_sync",
			"by_flush",
			"pending",
			"lost",
			"pending_oldest_ns",
			"unpaired",
			"missed",
			"sum_ns",
			"max_ns",
			"stale_max",
			"hist",
		};
		size_t k;

		j = bpf_exposure__json(bc->exposure);
		/* As for the probes: what attaches, no counts. */
		for (k = 0; k < ARRAY_SIZE(counts); k++)
			json_object_del(j, counts[k]);
		json_object_set_new(j, "name", json_string("exposure"));
		json_object_set_new(
			j, "attach",
			json_string(bpf_rung__name(bc->exposure->rung)));
		json_object_set_new(j, "default", json_boolean(false));
		json_object_set_new(j, "what", json_string(x ? x->what : ""));
		json_array_append_new(probes, j);
	}
	o = env__json(&bc->env);
	json_object_set_new(o, "rungs", rungs__json(bc));
	json_object_set_new(o, "probes", probes);
	bpf_destroy(&bc->c);
	*info = o;
	return 0;
}

COLLECTOR_OPS(bpf, bpf_store);
