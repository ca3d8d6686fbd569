// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-trial cost figures, read from the store: one trial at a time,
 * since each needs its throughput, busy cores and probe rows together,
 * and a matrix's trials number hundreds, not the hundred thousand of a
 * metric history.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/probe-names.h"
#include "cost.h"
#include "log.h"
#include "util.h"

const char *const cost_fig_names[COST_NR_FIGS] = {
	[COST_MS_PER_GB] = "ms_per_gb",
	[COST_SHARE_PCT] = "share_pct",
	[COST_CALLS_PER_GB] = "calls_per_gb",
	[COST_NS_PER_CALL] = "ns_per_call",
	[COST_SELF_NS_PER_CALL] = "self_ns_per_call",
	[COST_BPF_NS_PER_CALL] = "bpf_ns_per_call",
	[COST_BENCH_NS_PER_CALL] = "bench_ns_per_call",
	[COST_PROBE_PCT] = "probe_pct",
	[COST_PROBE_LO_PCT] = "probe_lo_pct",
	[COST_PROBE_HI_PCT] = "probe_hi_pct",
	[COST_PROFILE_PCT] = "profile_pct",
	[COST_PROFILE_LO_PCT] = "profile_lo_pct",
	[COST_PROFILE_HI_PCT] = "profile_hi_pct",
};

static const char *const fig_units[COST_NR_FIGS] = {
	[COST_MS_PER_GB] = "ms/GB",	  [COST_SHARE_PCT] = "%",
	[COST_CALLS_PER_GB] = "calls/GB", [COST_NS_PER_CALL] = "ns",
	[COST_SELF_NS_PER_CALL] = "ns",	  [COST_BPF_NS_PER_CALL] = "ns",
	[COST_BENCH_NS_PER_CALL] = "ns",  [COST_PROBE_PCT] = "%",
	[COST_PROBE_LO_PCT] = "%",	  [COST_PROBE_HI_PCT] = "%",
	[COST_PROFILE_PCT] = "%",	  [COST_PROFILE_LO_PCT] = "%",
	[COST_PROFILE_HI_PCT] = "%",
};

/* What one trial holds that the figures need; NAN where missing. */
struct cost_trial {
	double bps, busy, bytes, window_s, floor_ns, spread_ns, util_pct;
	double bench_map_ns, bench_unmap_ns; /* dma_map's means */
	/* Each probe's own programs per call (NAME_bpf_ns), where known. */
	struct {
		char probe[32];
		double ns;
	} bpf[PROBE__NR];
	size_t nr_bpf;
};

struct cost_stmts {
	struct store_rows *metrics, *probes, *profile, *targets;
};

static void add(struct dataset *ds, const uint32_t dim[DS_NR_DIMS],
		const char *path, enum cost_fig fig, double v)
{
	char name[96];

	if (!isfinite(v))
		return;
	snprintf(name, sizeof(name), "%s/%s", path, cost_fig_names[fig]);
	dataset__add(ds, dim, name, fig_units[fig], STORE_BETTER_LOWER, v);
}

/* The field of @t that metric @name fills, or NULL. */
static double *trial_field(struct cost_trial *t, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "throughput", offsetof(struct cost_trial, bps) },
		{ "busy_cores", offsetof(struct cost_trial, busy) },
		{ "bytes", offsetof(struct cost_trial, bytes) },
		{ "probe_window_s", offsetof(struct cost_trial, window_s) },
		{ "cpu_util_pct", offsetof(struct cost_trial, util_pct) },
		{ "probe_floor_ns", offsetof(struct cost_trial, floor_ns) },
		{ "probe_floor_spread_ns",
		  offsetof(struct cost_trial, spread_ns) },
		{ "map_ns", offsetof(struct cost_trial, bench_map_ns) },
		{ "unmap_ns", offsetof(struct cost_trial, bench_unmap_ns) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strcmp(name, fields[i].name))
			return (double *)((char *)t + fields[i].off);
	return NULL;
}

static int read_metrics(struct store_rows *s, int64_t trial,
			struct cost_trial *t)
{
	int rc;

	t->bps = t->busy = t->bytes = t->window_s = t->floor_ns = NAN;
	t->spread_ns = t->util_pct = t->bench_map_ns = t->bench_unmap_ns = NAN;
	t->nr_bpf = 0;
	rc = store_rows__rebind(s, STORE_ARGS(STORE_INT(trial)));
	if (rc)
		return rc;
	while ((rc = store_rows__next(s)) > 0) {
		const char *name = store_rows__str(s, 0);
		double v = store_rows__real(s, 1);
		double *field = trial_field(t, name);

		if (field)
			*field = v;
		else if (t->nr_bpf < ARRAY_SIZE(t->bpf) &&
			 strlen(name) - strlen(STORE_BPF_NS_SUFFIX) <
				 sizeof(t->bpf[0].probe)) {
			snprintf(t->bpf[t->nr_bpf].probe,
				 sizeof(t->bpf[0].probe), "%.*s",
				 (int)(strlen(name) -
				       strlen(STORE_BPF_NS_SUFFIX)),
				 name);
			t->bpf[t->nr_bpf++].ns = v;
		}
	}
	return rc;
}

/*
 * The GB moved while the probes counted: the workload's bytes, which
 * hold its omitted first seconds as the probes' window does; iperf3's
 * rate over that window where a trial has no byte count.
 */
static double gb_counted(const struct cost_trial *t, struct cost_load *info)
{
	if (t->bytes > 0)
		return t->bytes / 1e9;
	info->no_window++;
	if (t->window_s > 0 && t->bps > 0)
		return t->bps / 8 * t->window_s / 1e9;
	return NAN;
}

/*
 * Busy core-seconds per GB: the busy cores over the window (procstat's
 * and the probes' are the same collect.start to collect.stop) for the
 * bytes moved in it; without a window, busy cores for the 8e9 / bps
 * seconds a GB takes at iperf3's rate, which leaves out the moments
 * around the run.
 */
static double cpu_ms_per_gb(const struct cost_trial *t, double gb)
{
	if (!(t->busy > 0))
		return NAN;
	if (t->window_s > 0 && gb > 0)
		return t->busy * t->window_s / gb * 1e3;
	if (t->bps > 0)
		return 8e12 * t->busy / t->bps;
	return NAN;
}

static double bpf_ns(const struct cost_trial *t, const char *probe)
{
	size_t i;

	for (i = 0; i < t->nr_bpf; i++)
		if (!strcmp(t->bpf[i].probe, probe))
			return t->bpf[i].ns;
	return NAN;
}

/*
 * The probe's floor (bpf-calibrate.c) is in every call it timed, the
 * path's own time is what is above it; a call shorter than the floor
 * (noise) gives none.
 */
static double above_floor(double self, double floor)
{
	if (!(floor > 0))
		return self;
	return self > floor ? self - floor : 0;
}

static int read_probes(struct dataset *ds, struct store_rows *s, int64_t trial,
		       const uint32_t dim[DS_NR_DIMS],
		       const struct cost_trial *t, double gb, double cpu_ms,
		       struct cost_load *info)
{
	double probed = 0, floor_ms = 0;
	bool no_self = false;
	int rc;

	rc = store_rows__rebind(s, STORE_ARGS(STORE_INT(trial)));
	if (rc)
		return rc;
	while ((rc = store_rows__next(s)) > 0) {
		const char *name = store_rows__str(s, 0);
		double calls = store_rows__real(s, 1);
		double total = store_rows__real(s, 2);
		double timed = store_rows__real(s, 3);
		double per_gb = calls / gb, ns = NAN, self = NAN, own, ms;

		add(ds, dim, name, COST_CALLS_PER_GB, per_gb);
		/* Never called: no time per call, and none spent. */
		if (!calls) {
			add(ds, dim, name, COST_MS_PER_GB, 0);
			add(ds, dim, name, COST_SHARE_PCT, 0);
			continue;
		}
		/* An event without a duration (a tracepoint): counted only. */
		if (!(timed > 0))
			continue;
		ns = total / timed;
		if (store_rows__null(s, 4)) {
			self = ns;
			no_self = true;
		} else {
			self = store_rows__real(s, 4) / timed;
		}
		own = above_floor(self, t->floor_ns);
		ms = own * per_gb / 1e6;
		probed += ms;
		floor_ms += (self - own) * per_gb / 1e6;
		add(ds, dim, name, COST_NS_PER_CALL, ns);
		add(ds, dim, name, COST_BPF_NS_PER_CALL, bpf_ns(t, name));
		add(ds, dim, name, COST_SELF_NS_PER_CALL, self);
		add(ds, dim, name, COST_MS_PER_GB, ms);
		add(ds, dim, name, COST_SHARE_PCT, ms / cpu_ms * 100);
	}
	if (rc < 0)
		return rc;
	info->no_self += no_self;
	/* What the floor took out of the paths: the probes' own time. */
	if (t->floor_ns > 0)
		add(ds, dim, COST_PROBES, COST_NS_PER_CALL, t->floor_ns);
	if (t->floor_ns > 0 && isfinite(gb)) {
		add(ds, dim, COST_PROBES, COST_MS_PER_GB, floor_ms);
		add(ds, dim, COST_PROBES, COST_SHARE_PCT,
		    floor_ms / cpu_ms * 100);
		probed += floor_ms;
	}
	if (isfinite(gb) && isfinite(cpu_ms)) {
		add(ds, dim, COST_UNPROBED, COST_MS_PER_GB, cpu_ms - probed);
		add(ds, dim, COST_UNPROBED, COST_SHARE_PCT,
		    (cpu_ms - probed) / cpu_ms * 100);
	}
	return 0;
}

static int load_trial(struct dataset *ds, struct cost_stmts *st, int64_t trial,
		      const uint32_t dim[DS_NR_DIMS], struct cost_load *info)
{
	struct cost_trial t;
	double cpu_ms, gb;
	int err;

	err = read_metrics(st->metrics, trial, &t);
	if (err)
		return err;
	info->trials++;
	gb = gb_counted(&t, info);
	cpu_ms = cpu_ms_per_gb(&t, gb);
	if (isfinite(cpu_ms)) {
		dataset__add(ds, dim, "cpu_ms_per_gb", "ms/GB",
			     STORE_BETTER_LOWER, cpu_ms);
		/* A GB is 8 Gbit: the line rate one core sustains. */
		dataset__add(ds, dim, "gbit_per_core", "Gbit/s",
			     STORE_BETTER_HIGHER, 8e3 / cpu_ms);
	} else {
		info->no_cpu++;
	}
	/*
	 * A third estimate of a path's time per call, beside the probes'
	 * and the profile's: the benchmark's own clock around each call
	 * (which holds the probe's trampoline and programs too).
	 */
	if (isfinite(t.bench_map_ns) || isfinite(t.bench_unmap_ns)) {
		add(ds, dim, "map", COST_BENCH_NS_PER_CALL, t.bench_map_ns);
		add(ds, dim, "unmap", COST_BENCH_NS_PER_CALL, t.bench_unmap_ns);
		info->bench++;
	}
	return read_probes(ds, st->probes, trial, dim, &t, gb, cpu_ms, info);
}

/* As above_floor(): no call takes less than nothing. */
static double above(double total, double floor)
{
	return total > floor ? total - floor : 0;
}

/*
 * Wilson's 95% interval of a share of @k samples in @n: perf's figure is
 * a count, and a path a few samples hit has a wide one.
 */
static void wilson(double k, double n, double *lo, double *hi)
{
	const double z = 1.959964, z2 = z * z;
	double mid = (k + z2 / 2) / (n + z2);
	double half = z / (n + z2) * sqrt(k * (n - k) / n + z2 / 4);

	/* At the ends the bound is exact, where rounding would leave 1e-18. */
	*lo = k <= 0 ? 0 : fmax(mid - half, 0);
	*hi = k >= n ? 1 : fmin(mid + half, 1);
}

/*
 * A profile trial: each called path's probe time and perf's samples in
 * its functions, both as a share of all CPU time in the trial (perf
 * records every CPU, idle ones too; the CPUs are busy cores over the
 * busy share). perf counts a function's own samples, the probe its whole
 * call: they agree where a path spends its time in its own code.
 */
static int load_profile(struct dataset *ds, struct cost_stmts *st,
			int64_t trial, const uint32_t dim[DS_NR_DIMS],
			struct cost_load *info)
{
	struct cost_trial t;
	double cpu_ns, samples, lo, hi, timed, total, floor, spread;
	int rc, err;

	err = read_metrics(st->metrics, trial, &t);
	if (err)
		return err;
	err = store_rows__rebind(st->profile,
				 STORE_ARGS(STORE_INT(trial), STORE_TEXT("")));
	if (err)
		return err;
	rc = store_rows__next(st->profile);
	if (rc <= 0)
		return rc;
	cpu_ns = t.busy / (t.util_pct / 100) * t.window_s * 1e9;
	samples = store_rows__real(st->profile, 1);
	if (!(samples > 0) || !(cpu_ns > 0))
		return 0;
	info->profiles++;
	err = store_rows__rebind(st->targets, STORE_ARGS(STORE_INT(trial)));
	if (err)
		return err;
	while ((rc = store_rows__next(st->targets)) > 0) {
		const char *name = store_rows__str(st->targets, 0);

		/* The target list stays put until the targets step on. */
		err = store_rows__rebind(st->profile,
					 STORE_ARGS(STORE_INT(trial),
						    STORE_TEXT(store_rows__str(
							    st->targets, 2))));
		if (!err) {
			err = store_rows__next(st->profile);
			err = err > 0 ? 0 : err ? err : -EIO;
		}
		if (err)
			return err;
		/*
		 * The probe's floor is in every call it timed, and perf
		 * puts its programs' samples apart: taken out where known,
		 * and known to its spread, which makes the share an
		 * interval (a leaf as short as the probe reads anywhere
		 * from nothing to the floor's error).
		 */
		timed = store_rows__real(st->targets, 4);
		total = store_rows__real(st->targets, 1);
		floor = t.floor_ns > 0 ? t.floor_ns : 0;
		spread = floor > 0 && t.spread_ns >= 0 ? t.spread_ns : 0;
		add(ds, dim, name, COST_PROBE_PCT,
		    above(total, floor * timed) / cpu_ns * 100);
		add(ds, dim, name, COST_PROBE_LO_PCT,
		    above(total, (floor + spread) * timed) / cpu_ns * 100);
		add(ds, dim, name, COST_PROBE_HI_PCT,
		    above(total, fmax(floor - spread, 0) * timed) / cpu_ns *
			    100);
		wilson(store_rows__real(st->profile, 1), samples, &lo, &hi);
		add(ds, dim, name, COST_PROFILE_PCT,
		    store_rows__real(st->profile, 1) / samples * 100);
		add(ds, dim, name, COST_PROFILE_LO_PCT, lo * 100);
		add(ds, dim, name, COST_PROFILE_HI_PCT, hi * 100);
	}
	return rc;
}

static int load_trials(struct dataset *ds, struct rdb *r, struct cost_stmts *st,
		       const int64_t *runs, size_t nr_runs,
		       const struct ds_filter *f, bool profile,
		       struct cost_load *info)
{
	const char *val[DS_NR_DIMS];
	uint32_t dim[DS_NR_DIMS];
	struct store_rows *s = NULL;
	char run[DS_RUN_TEXT];
	int rc = 0, err, d;

	err = rdb__query_runs_and(r, &store_q_cost_trials, runs, nr_runs,
				  STORE_INT(profile), &s);
	if (err)
		return err;
	while (!err && (rc = store_rows__next(s)) > 0) {
		if (!dataset__row_cell(ds, s, runs, nr_runs, f, val, run))
			continue;
		if ((int)store_rows__int(s, 6)) {
			ds->mode_mismatch += !profile;
			continue;
		}
		for (d = 0; d < DS_NR_DIMS; d++)
			dim[d] = intern__id(&ds->str, val[d]);
		err = profile ? load_profile(ds, st, store_rows__int(s, 0), dim,
					     info) :
				load_trial(ds, st, store_rows__int(s, 0), dim,
					   info);
	}
	if (!err && rc < 0)
		err = rc;
	store_rows__close(s);
	return err;
}

int cost__load(struct dataset *ds, struct rdb *r, const int64_t *runs,
	       size_t nr_runs, const struct ds_filter *f,
	       struct cost_load *info)
{
	struct cost_stmts st = { 0 };
	int err;

	memset(info, 0, sizeof(*info));
	if (!nr_runs)
		return 0;
	err = rdb__query(r, &store_q_cost_metrics, NULL, &st.metrics);
	if (!err)
		err = rdb__query(r, &store_q_cost_probes, NULL, &st.probes);
	if (!err)
		err = rdb__query(r, &store_q_cost_profile, NULL, &st.profile);
	if (!err)
		err = rdb__query(r, &store_q_cost_targets, NULL, &st.targets);
	if (!err)
		err = load_trials(ds, r, &st, runs, nr_runs, f, false, info);
	if (!err)
		err = load_trials(ds, r, &st, runs, nr_runs, f, true, info);
	store_rows__close(st.metrics);
	store_rows__close(st.probes);
	store_rows__close(st.profile);
	store_rows__close(st.targets);
	return err;
}
