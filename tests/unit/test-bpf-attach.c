// SPDX-License-Identifier: GPL-2.0-only
/*
 * The attach chain against this kernel, with real programs: which rung
 * carries a probe and why the ones above it failed; then real counts,
 * from this process's own getppid() calls, through each tracepoint
 * rung: calls counted, and for a begin:end pair, a histogram that
 * accounts for every call.
 *
 * Where the kernel has BPF trampolines (the QEMU testbed) the same test
 * checks that fentry carries the function instead.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "collectors/bpf/bpf-probes.h"
#include "probe-resolve.h"
#include "tap.h"
#include "util.h"

#define CALLS 20000

static struct bpf_env env;

static int resolve(const char *name, struct bpf_probe *p)
{
	char err[256];
	int ret;

	ret = probe__resolve_event(name, p, &env, err, sizeof(err));
	if (ret)
		tap_diag("%s: %s", name, err);
	return ret;
}

static void getppid_n(int n)
{
	int i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static const struct bpf_fail *fail_of(const struct bpf_target *t,
				      enum bpf_rung r)
{
	unsigned int i;

	for (i = 0; i < t->nr_fails; i++)
		if (t->fails[i].rung == r)
			return &t->fails[i];
	return NULL;
}

/* The function rungs on this kernel, as a target tells them. */
static void check_fn_rungs(const struct bpf_target *t)
{
	const struct bpf_fail *fe = fail_of(t, BPF_RUNG_FENTRY);
	const struct bpf_fail *kp = fail_of(t, BPF_RUNG_KPROBE);

	if (t->rung == BPF_RUNG_FENTRY) {
		ok(!fe && !kp, "%s: fentry attached, no rung failed", t->name);
		return;
	}
	ok(fe != NULL, "%s: fentry failed and says so", t->name);
	if (fe) {
		ok(fe->err == EPERM || fe->err == 524 || fe->err == EINVAL,
		   "fentry: %s at %s (EPERM here, ENOTSUPP on arm64 < 6.4)",
		   strerror(fe->err), fe->stage);
		ok(fe->why && *fe->why, "with a reason: %s", fe->why);
	}
	if (env.kprobes) {
		ok(t->rung == BPF_RUNG_KPROBE || kp,
		   "%s: kprobes exist, so kprobe attached or says why",
		   t->name);
		return;
	}
	ok(kp && kp->err == ENOENT && !strcmp(kp->stage, "attach"),
	   "%s: kprobe attach failed, ENOENT", t->name);
	has_str(kp ? kp->why : NULL, "CONFIG_KPROBES",
		"the reason names the missing kernel option");
}

static void test_chain(void)
{
	struct bpf_probe p;
	struct bpf_target *fn = NULL, *tp = NULL;
	size_t i;

	if (resolve("map", &p))
		return;
	for (i = 0; i < p.nr_targets; i++) {
		if (p.targets[i].kind == BPF_TARGET_FN)
			fn = &p.targets[i];
		else
			tp = &p.targets[i];
	}
	if (!fn) {
		tap_diag(
			"this kernel has no iommu_dma_map_*: chain not tested");
		bpf_probe__release(&p);
		return;
	}
	is_int(bpf_probe__attach(&p, &env, NULL, NULL), 0,
	       "attaching never fails");
	check_fn_rungs(fn);
	if (fn->rung != BPF_RUNG_NONE) {
		ok(!tp || !tp->tried, "a function attached: no tracepoint");
		ok(p.timed, "and latency is measured");
	} else if (tp) {
		ok(tp->rung == BPF_RUNG_RAW_TP ||
			   tp->rung == BPF_RUNG_TRACEPOINT,
		   "map falls through to its tracepoint %s (%s)", tp->name,
		   bpf_rung__name(tp->rung));
		ok(!p.timed, "which counts calls but gives no latency");
	}
	is_int(bpf_probe__read(&p), 0, "its maps can be read");
	bpf_probe__release(&p);
}

/* A function with no tracepoint to fall back on. */
static void test_fn_alone(void)
{
	struct bpf_probe p;
	json_t *j;

	if (resolve("fn:vfs_read", &p))
		return;
	bpf_probe__attach(&p, &env, NULL, NULL);
	check_fn_rungs(&p.targets[0]);
	j = bpf_probe__json(&p);
	if (p.targets[0].rung == BPF_RUNG_NONE)
		is_str(json_string_value(json_object_get(j, "attach")), "none",
		       "not attached says \"none\"");
	else
		ok(p.timed, "attached: it has latency");
	json_decref(j);
	bpf_probe__release(&p);
}

static void test_pair(void)
{
	struct bpf_probe p;
	__u64 timed;
	double mean;

	if (resolve("tp:syscalls:sys_enter_getppid:sys_exit_getppid", &p))
		return;
	bpf_probe__attach(&p, &env, NULL, NULL);
	is_int(p.targets[0].rung, BPF_RUNG_TRACEPOINT,
	       "syscall events take the perf tracepoint rung");
	ok(fail_of(&p.targets[0], BPF_RUNG_RAW_TP) != NULL,
	   "after raw_tp said they are no raw tracepoints");
	ok(p.timed, "a begin:end pair has latency");
	getppid_n(CALLS);
	is_int(bpf_probe__read(&p), 0, "read");
	bpf_probe__detach(&p);
	ok(p.total.calls >= CALLS, "%llu calls for our %d getppid()s",
	   (unsigned long long)p.total.calls, CALLS);
	timed = hist__sum(p.total.hist, PROBE_HIST_SLOTS);
	is_int(timed + p.total.untimed, p.total.calls,
	       "the histogram and the untimed calls account for every call");
	ok(p.total.untimed <= p.total.calls - CALLS,
	   "untimed only for calls not ours (in flight at attach)");
	mean = (double)p.total.total_ns / (double)timed;
	ok(mean > 10 && mean < 1e6, "a mean of %.0f ns is a syscall's", mean);
	ok(hist__percentile(p.total.hist, PROBE_HIST_SLOTS, 50) <= 4 * mean,
	   "p50 no more than 4 times the mean");
	bpf_probe__release(&p);
}

/* Does program @fd use the map of id @map_id? */
static bool prog_uses(int fd, __u32 map_id)
{
	struct bpf_prog_info info = { 0 };
	__u32 ids[16], len = sizeof(info), i;

	info.nr_map_ids = ARRAY_SIZE(ids);
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	for (i = 0; i < info.nr_map_ids && i < ARRAY_SIZE(ids); i++)
		if (ids[i] == map_id)
			return true;
	return false;
}

static __u32 map_id(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/*
 * The probes of one collector share one nesting map: the first object
 * loaded makes it, the others reuse it. Without the shared descriptor
 * a probe's programs have a map of their own.
 */
static void test_nest_shared(void)
{
	static const char *const names[] = {
		"tp:syscalls:sys_enter_getppid:sys_exit_getppid",
		"tp:raw_syscalls:sys_enter:sys_exit",
		"tp:syscalls:sys_enter_getpid",
	};
	struct bpf_probe p[ARRAY_SIZE(names)], alone;
	int nest_fd = -1;
	bool shared = true;
	__u32 id;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (resolve(names[i], &p[i])) {
			while (i--)
				bpf_probe__release(&p[i]);
			return;
		}
		bpf_probe__attach(&p[i], &env, NULL, &nest_fd);
		if (!i)
			ok(nest_fd >= 0, "the first probe leaves its map");
	}
	id = nest_fd >= 0 ? map_id(nest_fd) : 0;
	for (i = 0; i < ARRAY_SIZE(names) - 1; i++)
		shared &= p[i].targets[0].rung != BPF_RUNG_NONE &&
			  prog_uses(p[i].targets[0].prog_fds[0], id) &&
			  prog_uses(p[i].targets[0].prog_fds[1], id);
	ok(id && shared,
	   "both pairs' begin and end programs use that one map (id %u)", id);
	if (!resolve(names[0], &alone)) {
		bpf_probe__attach(&alone, &env, NULL, NULL);
		ok(alone.targets[0].rung != BPF_RUNG_NONE &&
			   !prog_uses(alone.targets[0].prog_fds[0], id),
		   "a probe attached without it has a map of its own");
		bpf_probe__release(&alone);
	}
	for (i = 0; i < ARRAY_SIZE(names); i++)
		bpf_probe__release(&p[i]);
	ok(map_id(nest_fd) == id, "the map outlives the objects");
	if (nest_fd >= 0)
		close(nest_fd);
}

static void test_count(enum bpf_rung only, const char *what)
{
	struct bpf_probe p;
	struct bpf_target *t;

	if (resolve("tp:raw_syscalls:sys_enter", &p))
		return;
	t = &p.targets[0];
	t->tried = true;
	is_int(bpf_target__attach(t, &env, NULL, only), 0, "%s attaches", what);
	is_int(t->rung, only, "by that rung");
	getppid_n(CALLS);
	bpf_probe__read(&p);
	ok(p.total.calls >= CALLS, "%s: %llu calls for our %d syscalls", what,
	   (unsigned long long)p.total.calls, CALLS);
	is_int(hist__len(p.total.hist, PROBE_HIST_SLOTS), 0,
	       "%s: one tracepoint gives no histogram", what);
	bpf_probe__release(&p);
}

/*
 * The device filter's code must pass the verifier on every rung: no
 * DMA happens here to filter, but a program the verifier refused would
 * fail at load, not at attach.
 */
static void test_filter_loads(void)
{
	static const enum bpf_rung rungs[] = { BPF_RUNG_RAW_TP,
					       BPF_RUNG_TRACEPOINT };
	struct bpf_filter f;
	struct bpf_probe p;
	char err[256];
	size_t i;

	bpf_filter__set(&f, "0000:3b:00.0", err, sizeof(err));
	for (i = 0; i < ARRAY_SIZE(rungs); i++) {
		if (resolve("tp:dma:dma_map_phys", &p))
			return;
		is_int(bpf_target__attach(&p.targets[0], &env, &f, rungs[i]), 0,
		       "dma:dma_map_phys with a device filter, by %s",
		       bpf_rung__name(rungs[i]));
		if (rungs[i] == BPF_RUNG_TRACEPOINT)
			ok(p.targets[0].dev_loc_off >= 0,
			   "the record's device field was found");
		else
			ok(p.targets[0].dev_arg == 0 &&
				   p.targets[0].size_arg >= 0,
			   "the raw arguments' device and size were found");
		bpf_probe__release(&p);
	}
	if (resolve("fn:iommu_dma_unmap_phys", &p))
		return;
	bpf_target__attach(&p.targets[0], &env, &f, BPF_RUNG_NONE);
	for (i = 0; i < p.targets[0].nr_fails; i++)
		if (p.targets[0].fails[i].rung == BPF_RUNG_KPROBE)
			ok(strcmp(p.targets[0].fails[i].stage, "load"),
			   "the kprobe rung's filter passes the verifier (%s)",
			   p.targets[0].fails[i].stage);
	bpf_probe__release(&p);
}

int main(void)
{
	if (geteuid())
		tap_skip_all("loading BPF programs needs root");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		tap_skip_all("no kernel BTF (CONFIG_DEBUG_INFO_BTF)");
	bpf_env__open(&env);
	if (!env.tracefs)
		tap_skip_all("no tracefs");
	test_chain();
	test_fn_alone();
	test_pair();
	test_nest_shared();
	test_count(BPF_RUNG_RAW_TP, "raw_tp");
	test_count(BPF_RUNG_TRACEPOINT, "perf tracepoint");
	test_filter_loads();
	bpf_env__close(&env);
	return tap_done();
}
