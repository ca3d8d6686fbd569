// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exposure window outside a guest: the log-linear histogram's
 * buckets and percentiles against values known exactly; results stored
 * into a real SQLite store (metrics for a measured window, none for an
 * unprotected or unmeasured one, a lying histogram refused); compare
 * saying "unprotected" where a cell has no window by design; and the
 * BPF object itself loaded into this kernel, so that its verifier, not
 * only a guest's, accepts it. The windows themselves need an IOMMU:
 * tests/cli/testbed-exposure.t measures them in the testbed.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "collectors-test.h"
#include "collectors/bpf/bpf-exposure.h"
#include "log.h"
#include "analysis/compare.h"
#include "analysis/dataset.h"

#include "exposure.skel.h"

static void test_buckets(void)
{
	double lo, hi, prev_hi = 0;
	bool contiguous = true, holds = true;
	unsigned int i;

	for (i = 0; i < EXPOSURE_HIST_SLOTS; i++) {
		expo_hist__bounds(i, &lo, &hi);
		if (lo != prev_hi || !(hi > lo))
			contiguous = false;
		/* Each bucket is at most 1/8 of its lower bound wide. */
		if (lo >= 8 && (hi - lo) > lo / 8 + 1e-9)
			holds = false;
		prev_hi = hi;
	}
	ok(contiguous, "buckets tile [0, 2^40) without gaps or overlaps");
	ok(holds, "each bucket spans at most 12.5%% of its values");
	expo_hist__bounds(EXPOSURE_HIST_SLOTS - 1, &lo, &hi);
	ok(hi == ldexp(1, 40), "the last bucket ends at 2^40 ns");
	expo_hist__bounds(8, &lo, &hi);
	ok(lo == 8 && hi == 9, "bucket 8 is [8, 9)");
	expo_hist__bounds(16, &lo, &hi);
	ok(lo == 16 && hi == 18, "bucket 16 is [16, 18)");
}

/* The bucket the BPF program puts @v in (bpf/exposure.bpf.c). */
static unsigned int slot_of(unsigned long long v)
{
	unsigned int e = 0, m;

	if (v < 8)
		return (unsigned int)v;
	while (v >> (e + 1))
		e++;
	m = (unsigned int)(v >> (e - 3)) & 7;
	return e * 8 + m - 16;
}

static void test_percentiles(void)
{
	__u64 hist[EXPOSURE_HIST_SLOTS] = { 0 }, log2[PROBE_HIST_SLOTS];
	double lo, hi, p50, p99;
	unsigned long long v;
	bool in_bucket = true;

	/* 1000 windows at 20 us, 1000 at 5 ms: the modes of the trade-off. */
	for (v = 0; v < 1000; v++) {
		hist[slot_of(20000 + v)]++;
		hist[slot_of(5000000 + v * 1000)]++;
	}
	for (v = 1; v < (1ull << 39); v = v * 3 + 1) {
		expo_hist__bounds(slot_of(v), &lo, &hi);
		in_bucket = in_bucket && lo <= v && v < hi;
	}
	ok(in_bucket, "every value lands in the bucket that holds it");
	p50 = expo_hist__percentile(hist, EXPOSURE_HIST_SLOTS, 50);
	p99 = expo_hist__percentile(hist, EXPOSURE_HIST_SLOTS, 99);
	ok(fabs(p50 - 20999) / 20999 < 0.13,
	   "p50 %.0f ns, within 12.5%% of "
	   "the largest short one",
	   p50);
	ok(p99 > 5.8e6 && p99 < 6.8e6, "p99 %.0f ns, among the long ones", p99);
	ok(isnan(expo_hist__percentile((__u64[EXPOSURE_HIST_SLOTS]){ 0 },
				       EXPOSURE_HIST_SLOTS, 50)),
	   "an empty histogram has no percentile");
	expo_hist__to_log2(hist, EXPOSURE_HIST_SLOTS, log2, PROBE_HIST_SLOTS);
	ok(log2[14] == 1000 && log2[22] == 1000,
	   "folded into log2 buckets: 2^14 and 2^22 ns hold 1000 each");
}

static json_t *results(const char *state, const char *why, long long n)
{
	json_t *hist = json_array(), *o;
	long long i;

	for (i = 0; i < 100; i++)
		json_array_append_new(hist, json_integer(i == 99 ? n : 0));
	o = json_pack("{s:s, s:s, s:[s], s:[s,s], s:[s], s:I, s:I, s:I, s:I, "
		      "s:I, s:I, s:I, s:o}",
		      "state", state, "rung", "fentry", "open",
		      "iommu_unmap_fast", "sync", "intel_iommu_tlb_sync",
		      "amd_iommu_iotlb_sync", "flush", "intel_flush_iotlb_all",
		      "windows", (json_int_t)n, "pending", (json_int_t)3,
		      "pending_oldest_ns", (json_int_t)7000000, "max_ns",
		      (json_int_t)6000000, "stale_max", (json_int_t)265,
		      "sum_ns", (json_int_t)(n * 4000000), "by_flush",
		      (json_int_t)n, "hist", hist);
	if (why)
		json_object_set_new(o, "why", json_string(why));
	return o;
}

static double metric(sqlite3 *db, long long trial, const char *name)
{
	sqlite3_stmt *s;
	double v = NAN;

	if (sqlite3_prepare_v2(db,
			       "SELECT value FROM metrics WHERE trial_id = ?1 "
			       "AND name = ?2",
			       -1, &s, NULL))
		return NAN;
	sqlite3_bind_int64(s, 1, trial);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	return v;
}

static char *probe_col(sqlite3 *db, long long trial, const char *col)
{
	char *sql = xasprintf("SELECT %s FROM probes WHERE trial_id = %lld "
			      "AND name = 'exposure'",
			      col, trial);
	sqlite3_stmt *s;
	char *v = NULL;

	if (!sqlite3_prepare_v2(db, sql, -1, &s, NULL) &&
	    sqlite3_step(s) == SQLITE_ROW)
		v = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	free(sql);
	return v;
}

static void test_store(void)
{
	char *path = xasprintf("%s/results.db", ct_tmpdir), *v;
	int64_t run, trial;
	struct store *st = ct_store(&run, &trial);
	json_t *bad, *good = results("measured", NULL, 5000);
	sqlite3 *db;
	double lo, hi;
	int err;

	bad = results("measured", NULL, 5000);
	json_object_set_new(bad, "windows", json_integer(4999));
	ct_capture_begin();
	err = bpf_exposure__store(st, trial, bad);
	free(ct_capture_end());
	is_int(err, -EINVAL,
	       "a histogram that does not hold every window "
	       "is refused");
	json_decref(bad);
	is_int(bpf_exposure__store(st, trial, good), 0, "measured: stored");
	is_int(store__commit(st), 0, "committed");
	store__close(st);
	json_decref(good);

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)) {
		ok(0, "the store opens");
		free(path);
		return;
	}
	expo_hist__bounds(99, &lo, &hi);
	ok(metric(db, trial, "exposure_p50_us") * 1e3 >= lo &&
		   metric(db, trial, "exposure_p50_us") * 1e3 < hi,
	   "exposure_p50_us in the bucket every window fell in");
	is_int((int)metric(db, trial, "exposure_max_us"), 7000,
	       "exposure_max_us: the oldest still open (7 ms) beats the "
	       "longest ended (6 ms)");
	is_int((int)metric(db, trial, "stale_max"), 265, "stale_max");
	is_int((int)metric(db, trial, "exposure_windows"), 5000,
	       "exposure_windows");
	is_int((int)metric(db, trial, "exposure_pending"), 3,
	       "exposure_pending: the open ones counted, not dropped");
	v = probe_col(db, trial, "attach");
	is_str(v, "fentry", "the probes row says the rung");
	free(v);
	v = probe_col(db, trial, "target");
	is_str(v,
	       "iommu_unmap_fast > intel_iommu_tlb_sync, amd_iommu_iotlb_sync | "
	       "intel_flush_iotlb_all",
	       "and the functions: open > strict ends | lazy ends");
	free(v);
	v = probe_col(db, trial, "calls");
	is_str(v, "5000", "calls: the windows");
	free(v);
	sqlite3_close(db);
	free(path);
}

/* A second trial of the scratch store's cell, stored from @x. */
static void store_other(const json_t *x, int64_t *trial)
{
	static const struct scratch_trial t = {
		"t", "machine-2", "boot-2", "6.1", "k", "passthrough", "key-2"
	};
	char *path = xasprintf("%s/other.db", ct_tmpdir);
	struct store *st;
	int64_t run;

	unlink(path);
	if (scratch_store__open(path, &t, &st, &run, trial)) {
		printf("Bail out! cannot create a second store\n");
		exit(1);
	}
	is_int(bpf_exposure__store(st, *trial, x), 0, "%s: stored",
	       json_string_value(json_object_get(x, "state")));
	store__commit(st);
	store__close(st);
	free(path);
}

static void test_store_none(void)
{
	static const char *const states[] = { "unprotected", "not measured" };
	char *path = xasprintf("%s/other.db", ct_tmpdir), *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(states); i++) {
		json_t *x = results(states[i],
				    "eth0's IOMMU domain is identity", 0);
		int64_t trial;
		sqlite3 *db;

		store_other(x, &trial);
		json_decref(x);
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)) {
			ok(0, "the store opens");
			continue;
		}
		ok(isnan(metric(db, trial, "exposure_p99_us")) &&
			   isnan(metric(db, trial, "stale_max")),
		   "%s: no window metric at all (not zero)", states[i]);
		v = probe_col(db, trial, "attach");
		is_str(v, i ? "none" : "unprotected", "%s: the row says so",
		       states[i]);
		free(v);
		v = probe_col(db, trial, "target");
		is_str(v, "eth0's IOMMU domain is identity",
		       "%s: and why, in target", states[i]);
		free(v);
		sqlite3_close(db);
	}
	free(path);
}

static void test_compare(void)
{
	struct cmp_opts o = CMP_OPTS_DEFAULT;
	uint32_t dim[DS_NR_DIMS];
	const char *modes[] = { "strict", "lazy", "passthrough" };
	struct cmp_table t;
	struct dataset ds;
	size_t i, m, col;
	int d;

	dataset__init(&ds);
	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		for (d = 0; d < DS_NR_DIMS; d++)
			dim[d] = intern__id(&ds.str, "");
		dim[DS_MODE] = intern__id(&ds.str, modes[m]);
		dim[DS_WORKLOAD] = intern__id(&ds.str, "rx");
		for (i = 0; i < 6; i++) {
			dataset__add(&ds, dim, "throughput", "bit/s",
				     STORE_BETTER_HIGHER, 1e9 * (m + 1) + i);
			if (m < 2)
				dataset__add(&ds, dim, "exposure_p99_us", "us",
					     STORE_BETTER_LOWER,
					     m ? 5000 + i : 20 + i);
		}
		if (m == 2)
			dataset__mark_unprotected(&ds, dim);
	}
	ok(!cmp__build(&ds, &o, &t), "table built");
	for (i = 0; i < t.nr_rows; i++) {
		const char *name =
			ds__str(&ds, ds.metrics[t.rows[i].metric].name);

		for (col = 0; col < t.nr_cols; col++) {
			const struct cmp_cell *c = &t.rows[i].cells[col];
			bool pt = !strcmp(ds__str(&ds, t.cols[col]),
					  "passthrough");

			if (!strcmp(name, "exposure_p99_us") && pt)
				ok(!c->present && c->unprotected,
				   "passthrough's window: unprotected");
			else if (!strcmp(name, "throughput") && pt)
				ok(c->present && !c->unprotected,
				   "passthrough's throughput: a figure");
		}
	}
	cmp__release(&t);
	dataset__release(&ds);
}

/*
 * The kprobe programs load on any kernel with BPF (attaching is what
 * needs kprobes); fentry ones need a target at load, which this kernel
 * may refuse. Either way the verifier here has read the whole object.
 */
static void test_load(void)
{
	struct exposure_bpf *o;
	struct bpf_program *prog;
	int err;

	if (geteuid()) {
		tap_skip("loading BPF programs needs root");
		return;
	}
	o = exposure_bpf__open();
	if (!o) {
		ok(0, "the exposure object opens: %s", strerror(errno));
		return;
	}
	bpf_object__for_each_program(prog, o->obj) bpf_program__set_autoload(
		prog, !strncmp(bpf_program__name(prog), "kp_", 3));
	ct_capture_begin();
	err = exposure_bpf__load(o);
	free(ct_capture_end());
	is_int(err, 0, "this kernel's verifier accepts the kprobe rung");
	exposure_bpf__destroy(o);
}

/* Without an IOMMU, "unprotected", whatever could have been resolved. */
static void test_unprotected_here(void)
{
	struct bpf_exposure x;
	struct bpf_env env;

	DIR *d = opendir("/sys/class/iommu");
	struct dirent *de;
	bool iommu = false;

	while (d && !iommu && (de = readdir(d)))
		iommu = de->d_name[0] != '.';
	if (d)
		closedir(d);
	if (iommu) {
		tap_skip("this machine has an IOMMU");
		return;
	}
	bpf_env__open(&env);
	bpf_exposure__resolve(&x, &env);
	is_int(bpf_exposure__attach(&x, &env, NULL), 0, "attach");
	ok(x.state == EXPO_UNPROTECTED && x.why && strstr(x.why, "no IOMMU"),
	   "no IOMMU here: unprotected (%s)", x.why ? x.why : "-");
	bpf_exposure__release(&x);
	bpf_env__close(&env);
}

int main(void)
{
	log_verbosity = -1;
	ct_guard();
	test_buckets();
	test_percentiles();
	test_store();
	test_store_none();
	test_compare();
	test_load();
	test_unprotected_here();
	return tap_done();
}
