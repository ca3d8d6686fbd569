// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probes' floor: the time a probe adds to every call it times. A
 * probed call's duration runs from its entry program's clock read to
 * its exit program's, so it holds the end of the one, the trampoline
 * (or the kprobe's trap) on both sides and the start of the other: a
 * fixed cost per call that is the probe's, not the path's. Under TCG it
 * is most of a short call's time. The same programs, on the same rung
 * and sharing the collector's nesting map, are put on sys_ni_syscall(),
 * the "return -ENOSYS" of a syscall number no kernel has, and timed over
 * calls this process makes: the least batch mean is the floor, which
 * the cost decomposition takes out of each probed call, and how far the
 * median batch sits above it is how well the floor is known, which the
 * profile check allows for (docs/cost.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/bpf/bpf-probes.h"
#include "log.h"

#define CALIBRATE_CALLS 500
#define CALIBRATE_BATCHES 8

/*
 * Where to time it: sys_ni_syscall(), the "return -ENOSYS" every arch
 * sends a syscall number past its table to, else getppid(2), a few
 * instructions more; the first that attaches and sees the calls. Past
 * the table, never a free slot inside it: a kernel may fill that slot
 * later (x86's 335 became uretprobe in 6.11, which SIGILLs a caller
 * that is not its trampoline).
 */
#define NR_PAST_TABLE 100000

static const struct floor_fn {
	const char *spec;
	long nr;
} floor_fns[] = {
#if defined(__x86_64__)
	{ "fn:__x64_sys_ni_syscall", NR_PAST_TABLE },
	{ "fn:__x64_sys_getppid", SYS_getppid },
#elif defined(__aarch64__)
	{ "fn:sys_ni_syscall", NR_PAST_TABLE },
	{ "fn:__arm64_sys_getppid", SYS_getppid },
#endif
	{ NULL, 0 },
};

/* Timed calls and their time so far. */
static void totals(const struct bpf_probe *p, double *calls, double *ns)
{
	size_t i;

	*calls = 0;
	for (i = 0; i < PROBE_HIST_SLOTS; i++)
		*calls += (double)p->total.hist[i];
	*ns = (double)p->total.total_ns;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The least mean of a few batches: the first calls also pay for QEMU
 * translating the new code, and a batch an interrupt or a host stall
 * fell into reads high. The median batch's distance above it is the
 * spread: what the same probe costs from one batch of calls to the
 * next, and so how closely the floor stands for it on another path.
 */
static int time_batches(struct bpf_probe *p, long nr,
			struct bpf_calibration *cal)
{
	double mean[CALIBRATE_BATCHES], calls = 0, ns = 0, c, t;
	int b, i, ret;

	for (b = 0; b < CALIBRATE_BATCHES; b++) {
		for (i = 0; i < CALIBRATE_CALLS; i++)
			syscall(nr);
		ret = bpf_probe__read(p);
		if (ret)
			return ret;
		totals(p, &c, &t);
		/* Another process's calls count too: a mean all the same. */
		if (c - calls < CALIBRATE_CALLS / 2)
			return -ENODATA;
		mean[b] = (t - ns) / (c - calls);
		calls = c;
		ns = t;
	}
	qsort(mean, CALIBRATE_BATCHES, sizeof(*mean), cmp_double);
	cal->floor_ns = mean[0];
	cal->spread_ns = (mean[(CALIBRATE_BATCHES - 1) / 2] +
			  mean[CALIBRATE_BATCHES / 2]) /
				 2 -
			 mean[0];
	return 0;
}

static int try_fn(const struct floor_fn *f, const struct bpf_env *env,
		  int *nest_fd, struct bpf_calibration *cal)
{
	struct bpf_probe p = { 0 };
	struct bpf_spec spec;
	char err[256];
	int ret;

	ret = bpf_spec__parse(f->spec, &spec, err, sizeof(err));
	if (ret)
		return ret;
	ret = bpf_probe__resolve(&p, &spec, env, err, sizeof(err));
	if (ret)
		pr_debug("bpf: floor: %s", err);
	if (!ret)
		ret = bpf_probe__attach(&p, env, NULL, nest_fd);
	if (!ret && !p.timed)
		ret = -ENOENT;
	if (!ret)
		ret = time_batches(&p, f->nr, cal);
	bpf_probe__detach(&p);
	bpf_probe__release(&p);
	bpf_spec__release(&spec);
	return ret;
}

int bpf_calibrate__floor(const struct bpf_env *env, int *nest_fd,
			 struct bpf_calibration *cal)
{
	const struct floor_fn *f;
	int ret = -EOPNOTSUPP;

	cal->floor_ns = cal->spread_ns = -1;
	for (f = floor_fns; f->spec; f++) {
		ret = try_fn(f, env, nest_fd, cal);
		if (!ret)
			return 0;
		pr_debug("bpf: floor: %s: %s", f->spec + 3, strerror(-ret));
	}
	return ret;
}
