// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare --cost's arithmetic on a store whose trials have known
 * figures: busy CPU per GB from busy cores and throughput, calls per GB
 * over the probes' window, each path's own time with nested paths taken
 * out once, the rest, the cores a line rate needs, and the differences
 * between columns adding up to the difference of the whole; and on a
 * profile trial, the probes' share against perf's samples, the floor
 * taken out and known to its spread.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/cost-print.h"
#include "store/store.h"
#include "tap.h"
#include "util.h"

#define NR_REPS 5

struct mode_fig {
	const char *mode;
	double busy; /* cores */
	/* name, calls in the 2 s window, ns per call, own ns per call */
	struct {
		const char *name;
		uint64_t calls;
		double ns, self_ns;
	} probes[3];
};

/*
 * 0.25 GB moved in the probes' 2 s window, so calls per GB are four
 * times the calls, and a busy core is 8 s of CPU per GB. Strict: 8000 ms of busy CPU per GB, unmap 2e6 calls
 * per GB at 1 us (0.5 us its own, the other half in iotlb_sync nested in
 * it): 1000 ms each. Lazy: 6000 ms; unmap at 0.5 us, 1000 ms; fq_flush
 * 2e4 per GB at 10 us, 200 ms.
 */
static const struct mode_fig figs[] = {
	{ "strict",
	  1.0,
	  { { "unmap", 500000, 1000, 500 },
	    { "iotlb_sync", 500000, 500, 500 },
	    { "fq_flush", 0, 0, 0 } } },
	{ "lazy",
	  0.75,
	  { { "unmap", 500000, 500, 500 },
	    { "iotlb_sync", 0, 0, 0 },
	    { "fq_flush", 5000, 10000, 10000 } } },
};

/* A probe of @calls calls at @ns each, @self_ns of it its own. */
static struct store_probe probe_of(const char *name, const char *target,
				   uint64_t calls, double ns, double self_ns,
				   uint64_t *hist)
{
	return (struct store_probe){
		.name = name,
		.target = target,
		.attach = "fentry",
		.calls = calls,
		.total_ns = (uint64_t)(calls * ns),
		.self_known = true,
		.self_ns = (uint64_t)(calls * self_ns),
		.hist = hist,
		.hist_len = 40,
	};
}

/* A store with one run on one host, boot and kernel, being written. */
struct fixture {
	struct store *st;
	int64_t run, host, boot, kernel;
};

static int fixture__open(struct fixture *f, const char *path,
			 const char *run_name)
{
	struct store_boot boot = { "b1", "6.1.0", NULL, "", NULL };
	struct store_kernel k = { .name = "k" };
	int err;

	err = store__open(path, STORE_CREATE, &f->st);
	if (err)
		return err;
	err = store__begin(f->st)					  ?:
		      store__run_begin(f->st, run_name, "", 0, &f->run)	  ?:
		      store__host_upsert(f->st, "sut", "m1", &f->host)	  ?:
		      store__boot_upsert(f->st, f->host, &boot, &f->boot) ?:
		      store__kernel_upsert(f->st, &k, &f->kernel);
	if (err)
		store__close(f->st);
	return err;
}

static int fixture__cell(struct fixture *f, const char *mode,
			 const char *workload, int64_t *cell)
{
	return store__cell_upsert(f->st,
				  &(struct store_cell){ f->run, f->host,
							f->kernel, mode,
							workload, mode },
				  cell);
}

/* Committed if all went well, and closed: @err or the commit's. */
static int fixture__close(struct fixture *f, int err)
{
	if (!err)
		err = store__commit(f->st);
	store__close(f->st);
	return err;
}

static int add_trial(struct store *st, int64_t cell, unsigned int rep,
		     int64_t boot, const struct mode_fig *m)
{
	double spread = 1 + 0.001 * rep;
	uint64_t hist[40] = { 0 };
	int64_t trial;
	size_t i;
	int err;

	err = store__trial_find_or_insert(st, cell, rep, STORE_TRIAL_MEASURED, &trial, NULL) ?:
		      store__trial_start(st, trial, boot, m->mode, m->mode) ?:
		      /* Not used: bytes and the window are known. */
		      store__metric_add(st, trial, "throughput", 3e9, "bit/s", STORE_BETTER_HIGHER, NULL) ?:
		      store__metric_add(st, trial, "busy_cores", m->busy * spread, "cores", STORE_BETTER_LOWER, NULL) ?:
		      store__metric_add(st, trial, "probe_window_s", 2, "s", STORE_BETTER_NONE, NULL) ?:
		      store__metric_add(st, trial, "bytes", 2.5e8, "bytes",
					STORE_BETTER_NONE, NULL);
	for (i = 0; !err && i < 3; i++) {
		struct store_probe p =
			probe_of(m->probes[i].name, "f", m->probes[i].calls,
				 m->probes[i].ns, m->probes[i].self_ns, hist);

		/* Every call timed: the histogram holds them all. */
		hist[10] = m->probes[i].calls;
		err = store__probe_add(st, trial, &p, NULL);
	}
	return err ?: store__trial_finish(st, trial, STORE_TRIAL_OK, NULL);
}

/*
 * A profile trial of strict: all CPU time is 4e9 ns (1 busy core at 50%
 * of 2 CPUs, over the 2 s window). The probe floor is 1000 ns, known to
 * 100. sync: 10,000 calls of exactly the floor, a leaf as short as the
 * probe, and 3 of perf's 10,000 samples; map: 10,000 calls at 1100 ns,
 * 200 samples, its time in callees perf gives to them; idle: calls
 * shorter than the floor, never sampled.
 */
static int add_profile(struct store *st, int64_t cell, int64_t boot,
		       bool spread)
{
	static const struct {
		const char *name, *target;
		double ns;
		uint64_t samples;
	} fn[] = { { "sync", "s1", 1000, 3 },
		   { "map", "m1", 1100, 200 },
		   { "idle", "i1", 900, 0 },
		   { NULL, "other", 0, 9797 } };
	uint64_t hist[40] = { 0 };
	int64_t trial;
	size_t i;
	int err;

	err = store__trial_find_or_insert(st, cell, spread, STORE_TRIAL_PROFILE, &trial, NULL) ?:
		      store__trial_start(st, trial, boot, "strict", "strict") ?:
		      store__metric_add(st, trial, "busy_cores", 1, "cores", STORE_BETTER_LOWER, NULL) ?:
		      store__metric_add(st, trial, "cpu_util_pct", 50, "%", STORE_BETTER_LOWER, NULL) ?:
		      store__metric_add(st, trial, "probe_window_s", 2, "s", STORE_BETTER_NONE, NULL) ?:
		      store__metric_add(st, trial, "probe_floor_ns", 1000, "ns",
					STORE_BETTER_LOWER, NULL);
	if (!err && spread)
		err = store__metric_add(st, trial, "probe_floor_spread_ns", 100,
					"ns", STORE_BETTER_NONE, NULL);
	for (i = 0; !err && i < ARRAY_SIZE(fn); i++) {
		struct store_profile_row row = { "cpu-clock", fn[i].target,
						 NULL, fn[i].samples / 100.0,
						 fn[i].samples };
		struct store_probe p = probe_of(fn[i].name, fn[i].target, 10000,
						fn[i].ns, fn[i].ns, hist);

		hist[10] = 10000;
		/* perf lists no function it never sampled. */
		if (fn[i].samples)
			err = store__profile_add(st, trial, &row, NULL);
		if (!err && fn[i].name)
			err = store__probe_add(st, trial, &p, NULL);
	}
	return err ?: store__trial_finish(st, trial, STORE_TRIAL_OK, NULL);
}

static int make_store(const char *path, bool spread)
{
	struct fixture f;
	unsigned int rep;
	int64_t cell;
	size_t m;
	int err;

	err = fixture__open(&f, path, "cost");
	if (err)
		return err;
	for (m = 0; !err && m < 2; m++) {
		err = fixture__cell(&f, figs[m].mode, "rx", &cell);
		for (rep = 0; !err && rep < NR_REPS; rep++)
			err = add_trial(f.st, cell, rep, f.boot, &figs[m]);
		if (!err && !m)
			err = add_profile(f.st, cell, f.boot, spread);
	}
	return fixture__close(&f, err);
}

static const struct cost_path *
path(const struct cost_table *ct, const struct cost_group *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->nr_paths; i++)
		if (!strcmp(ds__str(&ct->ds, g->paths[i].name), name))
			return &g->paths[i];
	return NULL;
}

static double median(const struct cost_table *ct, const struct cost_group *g,
		     const char *name, enum cost_fig fig, size_t col)
{
	const struct cost_path *p = path(ct, g, name);
	const struct cmp_cell *c = p ? cost__cell(ct, g, p->row[fig], col) :
				       NULL;

	return c ? c->s.median : NAN;
}

#define near(got, want, tol, ...)                                            \
	({                                                                   \
		double _g = (got), _w = (want);                              \
		int _p = tap__ok(fabs(_g - _w) <= (tol), __FILE__, __LINE__, \
				 __VA_ARGS__);                               \
		if (!_p)                                                     \
			printf("#   got %.6g, want %.6g\n", _g, _w);         \
		_p;                                                          \
	})

/* Which store and which checks a median belongs to. */
enum median_set { RX, PROFILE, SPREAD, DMA_MAP };

static const struct median_case {
	enum median_set set;
	const char *path;
	enum cost_fig fig;
	size_t col;
	double want, tol;
	const char *what;
} median_cases[] = {
	{ PROFILE, "sync", COST_PROBE_PCT, 0, 0, 1e-12,
	  "sync: nothing above the floor, a call as short as the probe" },
	{ PROFILE, "sync", COST_PROFILE_PCT, 0, 0.03, 1e-12,
	  "sync: perf's 3 samples of 10,000" },
	{ PROFILE, "sync", COST_PROFILE_LO_PCT, 0, 0.0102, 1e-4,
	  "sync: their Wilson interval starts above 0" },
	{ PROFILE, "map", COST_PROBE_PCT, 0, 0.025, 1e-12,
	  "map: 100 ns a call above the floor, 0.025% of all CPU time" },
	{ SPREAD, "sync", COST_PROBE_HI_PCT, 0, 0.025, 1e-12,
	  "sync: up to 0.025% with the floor its spread lower" },
	{ SPREAD, "map", COST_PROBE_LO_PCT, 0, 0, 1e-12,
	  "map: down to 0 with the floor its spread higher" },
	{ DMA_MAP, "unmap", COST_BENCH_NS_PER_CALL, 0, 5100, 1e-9,
	  "strict: unmap 5100 ns by the benchmark's clock (median)" },
	{ DMA_MAP, "unmap", COST_BENCH_NS_PER_CALL, 1, 2600, 1e-9,
	  "lazy: 2600 ns" },
	{ DMA_MAP, "unmap", COST_NS_PER_CALL, 0, 4001, 1e-9,
	  "strict: 4001 ns by the probe" },
	{ DMA_MAP, "map", COST_BENCH_NS_PER_CALL, 1, 2000, 1e-9,
	  "map, by the benchmark only (no map probe here)" },
	{ RX, "unmap", COST_CALLS_PER_GB, 0, 2e6, 1e-3,
	  "calls per GB moved in the window" },
	{ RX, "unmap", COST_NS_PER_CALL, 0, 1000, 1e-9,
	  "unmap's mean time per call, nested paths in" },
	{ RX, "unmap", COST_SELF_NS_PER_CALL, 0, 500, 1e-9,
	  "unmap's own time per call" },
	{ RX, "unmap", COST_MS_PER_GB, 0, 1000, 1e-6,
	  "unmap's own ms per GB: own ns x calls per GB" },
	{ RX, "iotlb_sync", COST_MS_PER_GB, 0, 1000, 1e-6,
	  "iotlb_sync's, counted once" },
	{ RX, "unmap", COST_SHARE_PCT, 0, 100 * 1000 / 8016.0, 1e-6,
	  "unmap's share of the busy CPU" },
	{ RX, COST_UNPROBED, COST_MS_PER_GB, 0, 8000 * 1.002 - 2000, 1e-6,
	  "the rest: busy CPU less the probed paths, each once" },
	{ RX, "iotlb_sync", COST_MS_PER_GB, 1, 0, 1e-9,
	  "lazy: iotlb_sync never called, 0 ms per GB" },
};

static void check_medians(const struct cost_table *ct,
			  const struct cost_group *g, enum median_set set)
{
	const struct median_case *c;

	for (c = median_cases; c < median_cases + ARRAY_SIZE(median_cases); c++)
		if (c->set == set)
			near(median(ct, g, c->path, c->fig, c->col), c->want,
			     c->tol, "%s", c->what);
}

/*
 * sync's probe time is all floor; perf has 3 samples in it, whose Wilson
 * interval (0.010% to 0.088%) is not 0: the point says "differ", the
 * interval the spread gives it (0 to 0.025%) meets perf's.
 */
static void profile_checks(const char *db, bool spread)
{
	struct cmp_opts o = CMP_OPTS_DEFAULT;
	struct cost_table ct = { 0 };
	const struct cost_path *p;
	const struct cost_group *g;
	int64_t run = 1;
	struct rdb r;
	char *text;

	if (!ok(!rdb__open(db, &r), "opened read-only"))
		return;
	dataset__init(&ct.ds);
	ok(!cost__load(&ct.ds, &r, &run, 1, NULL, &ct.load) &&
		   !cost__build(&ct, &o),
	   "loaded and built");
	is_int(ct.load.profiles, 1, "the profile trial read");
	g = &ct.groups[0];
	p = path(&ct, g, "sync");
	check_medians(&ct, g, PROFILE);
	if (spread) {
		check_medians(&ct, g, SPREAD);
		is_int(p ? cost__agree(&ct, p, 0) : -2, 1,
		       "sync: the probes' interval meets perf's: agree");
		text = p ? cost__profile_text(&ct, p, 0) : NULL;
		ok(text && strstr(text, "agree") &&
			   strstr(text, "0.030% (0.010-0.088%)"),
		   "and says so with both figures: %s", text);
		free(text);
	} else {
		ok(isnan(median(&ct, g, "sync", COST_PROBE_HI_PCT, 0)) ||
			   median(&ct, g, "sync", COST_PROBE_HI_PCT, 0) == 0,
		   "no spread stored (an older agent): the share is a point");
		is_int(p ? cost__agree(&ct, p, 0) : -2, 0,
		       "sync: then the point 0 is outside perf's: differ");
	}
	p = path(&ct, g, "idle");
	near(median(&ct, g, "idle", COST_PROFILE_LO_PCT, 0), 0, 0,
	     "idle: no sample, perf's interval starts at exactly 0");
	is_int(p ? cost__agree(&ct, p, 0) : -2, 1,
	       "idle: nothing by either method: agree");
	p = path(&ct, g, "map");
	is_int(p ? cost__agree(&ct, p, 0) : -2, 0,
	       "map: 0.025% against perf's 2%: differ (its time is its callees')");
	p = path(&ct, g, "unmap");
	is_int(p ? cost__agree(&ct, p, 0) : -2, -1,
	       "unmap: not on the profile trial, no verdict");
	cost__release(&ct);
	dataset__release(&ct.ds);
	rdb__close(&r);
}

/*
 * A dma_map run moves no bytes: per call only. Strict's unmap 5000 ns
 * by the benchmark's clock and 4000 ns by the probe, lazy's 2500 and
 * 1500; map 2000 and 1000 in both.
 */
static int make_dma_map_store(const char *path)
{
	static const struct {
		const char *mode;
		double map_ns, unmap_ns, probe_unmap_ns;
	} m[] = { { "strict", 2000, 5000, 4000 },
		  { "lazy", 2000, 2500, 1500 } };
	uint64_t hist[40] = { 0 };
	int64_t cell, trial;
	struct fixture f;
	unsigned int rep;
	struct store *st;
	size_t i;
	int err;

	err = fixture__open(&f, path, "dm");
	if (err)
		return err;
	st = f.st;
	hist[10] = 1000;
	for (i = 0; !err && i < ARRAY_SIZE(m); i++) {
		err = fixture__cell(&f, m[i].mode, "dm-t1", &cell);
		for (rep = 0; !err && rep < 3; rep++) {
			double ns = m[i].probe_unmap_ns + rep;
			struct store_probe p =
				probe_of("unmap", "f", 1000, ns, ns, hist);

			err = store__trial_find_or_insert(st, cell, rep, STORE_TRIAL_MEASURED, &trial, NULL) ?:
				      store__trial_start(st, trial, f.boot, m[i].mode, m[i].mode) ?:
				      store__metric_add(st, trial, "map_ns", m[i].map_ns, "ns", STORE_BETTER_LOWER, NULL) ?:
				      store__metric_add(st, trial, "unmap_ns", m[i].unmap_ns + 100 * rep, "ns", STORE_BETTER_LOWER, NULL) ?:
				      store__probe_add(st, trial, &p, NULL) ?:
				      store__trial_finish(st, trial,
							  STORE_TRIAL_OK, NULL);
		}
	}
	return fixture__close(&f, err);
}

static void dma_map_checks(const char *db)
{
	struct cmp_opts o = CMP_OPTS_DEFAULT;
	struct cost_table ct = { 0 };
	const struct cost_group *g;
	const struct cost_path *p;
	struct rdb r;
	int64_t run = 1;
	char *t;

	if (!ok(!make_dma_map_store(db), "a dma_map store: no bytes, the "
					 "benchmark's means and a probe") ||
	    !ok(!rdb__open(db, &r), "opened"))
		return;
	dataset__init(&ct.ds);
	ok(!cost__load(&ct.ds, &r, &run, 1, NULL, &ct.load), "loaded");
	is_int(ct.load.bench, 6, "six trials with the benchmark's times");
	is_int(ct.load.no_cpu, 6, "... none with a cost per GB");
	if (!ok(!cost__build(&ct, &o) && ct.nr_groups == 1, "one group")) {
		dataset__release(&ct.ds);
		rdb__close(&r);
		return;
	}
	g = &ct.groups[0];
	ok(g->cpu < 0, "no busy CPU per GB: its figures are per call");
	check_medians(&ct, g, DMA_MAP);
	p = path(&ct, g, "unmap");
	t = p ? cost__call_diff_text(&ct, p, 0, 1) : NULL;
	ok(t && strstr(t, "unmap: lazy against strict: -2500 ns a call") &&
		   strstr(t, "by the benchmark's mean"),
	   "the difference by the benchmark: %s", t ? t : "(none)");
	free(t);
	t = p ? cost__call_diff_text(&ct, p, 1, 1) : NULL;
	ok(t && strstr(t, "-2500 ns a call") &&
		   strstr(t, "by the probe's whole call"),
	   "and by the probe: %s", t ? t : "(none)");
	free(t);
	cost__release(&ct);
	dataset__release(&ct.ds);
	rdb__close(&r);
}

int main(void)
{
	char dir[] = "/tmp/test-cost.XXXXXX", path_db[72];
	struct cmp_opts o = CMP_OPTS_DEFAULT;
	struct cost_table ct = { 0 };
	const struct cost_group *g;
	const struct cmp_cell *c;
	struct cost_diff d, part;
	double parts = 0;
	struct rdb r;
	int64_t run = 1;
	size_t i;

	if (!mkdtemp(dir))
		tap_skip_all("no scratch folder");
	snprintf(path_db, sizeof(path_db), "%s/c.db", dir);
	if (!ok(!make_store(path_db, true),
		"a store of 10 trials with probes, and a profile trial"))
		goto out;
	if (!ok(!rdb__open(path_db, &r), "opened read-only"))
		goto out;
	dataset__init(&ct.ds);
	ok(!cost__load(&ct.ds, &r, &run, 1, NULL, &ct.load), "loaded");
	is_int(ct.load.trials, 10, "every measured trial read");
	is_int(ct.load.no_window, 0, "every trial had its bytes");
	is_int(ct.load.no_self, 0, "every probe had its own time");
	ok(!cost__build(&ct, &o), "built");
	is_int(ct.nr_groups, 1, "one group: the workload");
	is_int(ct.t.nr_cols, 2, "two columns: the modes");
	is_str(ds__str(&ct.ds, ct.t.cols[0]), "strict", "strict first");
	g = &ct.groups[0];

	c = cost__cell(&ct, g, g->cpu, 0);
	near(c ? c->s.median : NAN, 8000 * 1.002, 1e-6,
	     "strict: 8000 ms of busy CPU per GB (1 core, 2 s, 0.25 GB)");
	c = cost__cell(&ct, g, g->cpu, 1);
	near(c ? c->s.median : NAN, 6000 * 1.002, 1e-6, "lazy: 6000 ms per GB");
	c = cost__cell(&ct, g, g->gbit_per_core, 0);
	near(c ? c->s.median : NAN, 1 / 1.002, 1e-9,
	     "strict: 1 Gbit/s per busy core");
	check_medians(&ct, g, RX);
	ok(isnan(median(&ct, g, "iotlb_sync", COST_NS_PER_CALL, 1)),
	   "and no time per call: there was no call");
	near(median(&ct, g, "fq_flush", COST_MS_PER_GB, 1), 200, 1e-6,
	     "lazy: the flush queue's 200 ms per GB");

	c = cost__cell(&ct, g, g->cpu, 0);
	near(cost__cores(c->s.median, 25), 8.016 * 25 / 8, 1e-9,
	     "25 Gbit/s at 8 s of CPU per GB: 25 cores");

	ok(cost__diff(&ct, g->cpu, 1, &d), "lazy against strict");
	near(d.diff, -2000 * 1.002, 5, "lazy spends 2000 ms less per GB");
	ok(d.lo <= d.diff && d.diff <= d.hi && d.hi < 0,
	   "its interval holds it and excludes no change");
	is_int(d.nx * 100 + d.ny, 505, "n=5+5");
	for (i = 0; i < g->nr_paths; i++)
		if (cost__diff(&ct, g->paths[i].row[COST_MS_PER_GB], 1, &part))
			parts += part.diff;
	near(parts, d.diff, 1,
	     "the paths' and the rest's shifts add up to the whole's");
	ok(cost__diff(&ct, path(&ct, g, "iotlb_sync")->row[COST_MS_PER_GB], 1,
		      &part) &&
		   fabs(part.diff + 1000) < 1e-6,
	   "of which iotlb_sync: -1000 ms per GB");

	cost__release(&ct);
	dataset__release(&ct.ds);
	rdb__close(&r);

	profile_checks(path_db, true);
	unlink(path_db);
	if (ok(!make_store(path_db, false),
	       "the same, the floor's spread not stored"))
		profile_checks(path_db, false);
	unlink(path_db);
	dma_map_checks(path_db);
out:
	unlink(path_db);
	/* A read-only reader closing last cannot remove the WAL's files. */
	strcat(path_db, "-wal");
	unlink(path_db);
	strcpy(path_db + strlen(path_db) - 4, "-shm");
	unlink(path_db);
	rmdir(dir);
	printf("1..%d\n", tap__n);
	return tap__failed ? 1 : 0;
}
