// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a probe costs per call: a tight loop of getppid() on one CPU,
 * under each configuration in turn, in several rounds:
 *
 *   none             no program on the hook
 *   floor            an empty program on syscalls:sys_enter_getppid
 *   ours count       our counting probe there (probe_tp, tp_count)
 *   bpftrace count   tracepoint:syscalls:sys_enter_getppid { @ = count(); }
 *   floor pair       empty programs on sys_enter_getppid and sys_exit_getppid
 *   ours latency     our begin:end pair, timing the syscall
 *   bpftrace hist    the same pair in bpftrace, with hist()
 *
 * Each figure is the median over the rounds of the best of a few
 * chunks within a round. What each probe adds is taken above its floor
 * (one hook for counting, two for latency), measured just before and
 * just after it in the same round, so that the tracepoint's own cost is
 * not charged to either tool and slow drift of the machine cancels. The
 * goal, read off and not asserted: ours adds at most half of what
 * bpftrace adds.
 *
 * A tool that did not count every call of a measurement (not attached
 * yet, or gone) has that round left out. PROBE_COST_ROUNDS=1 in the
 * environment prints every round's figures on stderr.
 *
 * Then, apart (the kernel's stats cost every program two clock reads,
 * which would move the floors): our programs' own run time per call,
 * from the kernel's BPF run-time stats (run_time_ns / calls counted),
 * the median over as many rounds. It leaves the hook out, and with it
 * most of what a busy machine adds to the figures above.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "collectors/bpf/bpf-probes.h"
#include "log.h"
#include "probe-resolve.h"
#include "subprocess.h"
#include "util.h"

#define CALLS 40000 /* per chunk */
#define CHUNKS 5
#define ROUNDS 11

enum config { NONE, FLOOR, COUNT, BT_COUNT, FLOOR2, LATENCY, BT_HIST, NR };

static const char *const names[NR] = {
	[NONE] = "no probe",
	[FLOOR] = "floor: empty program (1 hook)",
	[COUNT] = "ours: count",
	[BT_COUNT] = "bpftrace: count()",
	[FLOOR2] = "floor: empty programs (2 hooks)",
	[LATENCY] = "ours: latency (enter/exit pair)",
	[BT_HIST] = "bpftrace: hist() (enter/exit pair)",
};

static const char bt_count[] =
	"BEGIN { printf(\"ready\\n\"); }\n"
	"tracepoint:syscalls:sys_enter_getppid { @c = count(); }\n";
static const char bt_hist[] =
	"BEGIN { printf(\"ready\\n\"); }\n"
	"tracepoint:syscalls:sys_enter_getppid { @s[tid] = nsecs; }\n"
	"tracepoint:syscalls:sys_exit_getppid /@s[tid]/ {\n"
	"	@h = hist(nsecs - @s[tid]); delete(@s[tid]);\n"
	"}\n";

static struct bpf_env env;
/* ns/call, and what each probe adds above its floor */
static double samples[NR][ROUNDS], added[NR][ROUNDS];
/* our programs' run time per call, kernel stats (NAN: not measured) */
static double prog_ns[NR][ROUNDS];
static bool have_bpftrace = true;

static double ns_per_call(void)
{
	int64_t t0 = mono_ns();
	int i;

	for (i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	return (double)(mono_ns() - t0) / CALLS;
}

/*
 * Warm the caches and the branch predictors, then the best of a few
 * chunks: on a shared machine interference only ever adds time, so the
 * minimum is the estimate least disturbed by it.
 */
static double measure(void)
{
	double best, v;
	int i;

	best = ns_per_call();
	for (i = 0; i < CHUNKS; i++) {
		v = ns_per_call();
		if (v < best)
			best = v;
	}
	return best;
}

/* bpftrace, started and waited for until its BEGIN ran (after attach). */
struct bt {
	struct spawn sp; /* sp.out: everything it printed */
};

static int bt_read_until(struct bt *bt, const char *word, int timeout_ms)
{
	int64_t end = mono_ms() + timeout_ms;

	while (!bt->sp.out || !strstr(bt->sp.out, word)) {
		if (mono_ms() >= end)
			return -ETIMEDOUT;
		if (!spawn__wait(&bt->sp, 100)) {
			fprintf(stderr, "bpftrace said: %s\n",
				bt->sp.out ? bt->sp.out : "");
			return -EIO;
		}
	}
	return 0;
}

static void bt_stop(struct bt *bt);

static int bt_start(const char *prog, struct bt *bt)
{
	const char *argv[] = { "bpftrace", "-B", "line", "-e", prog, NULL };
	const struct spawn_opts o = {
		.flags = SPAWN_CAPTURE_OUT | SPAWN_ERR_TO_OUT,
		.max_capture = 65536,
	};
	int err;

	err = spawn__argv(&bt->sp, argv, &o);
	if (err) {
		spawn__release(&bt->sp);
		return err;
	}
	/* "Attaching N probes..." comes before attaching; BEGIN after. */
	if (bt_read_until(bt, "Attaching", 30000) ||
	    bt_read_until(bt, "ready", 30000)) {
		bt_stop(bt);
		spawn__release(&bt->sp);
		return -EIO;
	}
	return 0;
}

/*
 * The calls bpftrace counted, from the maps it prints on SIGINT: "@c: N"
 * for count(), the buckets' counts for hist().
 */
static unsigned long long bt_counted(const char *out)
{
	unsigned long long n = 0;
	const char *p = strstr(out, "@c: ");

	if (p)
		return strtoull(p + 4, NULL, 10);
	for (p = strchr(out, '['); p; p = strchr(p + 1, '[')) {
		const char *close = strchr(p, ')');

		if (close && close - p < 40)
			n += strtoull(close + 1, NULL, 10);
	}
	return n;
}

/* Stop it, keeping what it prints as it ends. */
static void bt_stop(struct bt *bt)
{
	/* SIGINT: it prints its maps and exits. */
	spawn__signal(&bt->sp, SIGINT);
	if (spawn__wait(&bt->sp, 5000))
		spawn__stop(&bt->sp, SIGKILL, 1000);
}

static int ours(const char *event, struct bpf_probe *p)
{
	char err[256];
	int ret;

	ret = probe__resolve_event(event, p, &env, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", event, err);
		return ret;
	}
	p->targets[0].tried = true;
	return bpf_target__attach(&p->targets[0], &env, NULL,
				  BPF_RUNG_TRACEPOINT);
}

static int run(enum config c, double *out)
{
	struct bpf_floor *f[2] = { NULL, NULL };
	struct bpf_probe p = { 0 };
	static struct bt bt;
	int err = 0;

	switch (c) {
	case NONE:
		break;
	case FLOOR2:
		err = bpf_floor__attach("syscalls", "sys_exit_getppid", &f[1]);
		/* fall through */
	case FLOOR:
		if (!err)
			err = bpf_floor__attach("syscalls", "sys_enter_getppid",
						&f[0]);
		break;
	case COUNT:
		err = ours("tp:syscalls:sys_enter_getppid", &p);
		break;
	case LATENCY:
		err = ours("tp:syscalls:sys_enter_getppid:sys_exit_getppid",
			   &p);
		break;
	case BT_COUNT:
	case BT_HIST:
		if (!have_bpftrace)
			return -ENOENT;
		err = bt_start(c == BT_COUNT ? bt_count : bt_hist, &bt);
		if (err) {
			have_bpftrace = false;
			return err;
		}
		*out = measure();
		bt_stop(&bt);
		/* A measurement bpftrace did not see whole is no measurement. */
		if (bt_counted(bt.sp.out ? bt.sp.out : "") <
		    (CHUNKS + 1) * (unsigned long long)CALLS) {
			fprintf(stderr,
				"probe-cost: bpftrace counted %llu of our %d "
				"calls: round left out\n",
				bt_counted(bt.sp.out ? bt.sp.out : ""),
				(CHUNKS + 1) * CALLS);
			*out = NAN;
		}
		spawn__release(&bt.sp);
		return 0;
	case NR:
		break;
	}
	if (!err)
		*out = measure();
	if (!err && (c == COUNT || c == LATENCY) &&
	    (bpf_probe__read(&p) ||
	     p.total.calls < (CHUNKS + 1) * (unsigned long long)CALLS)) {
		fprintf(stderr,
			"probe-cost: we counted %llu of our %d calls: "
			"round left out\n",
			(unsigned long long)p.total.calls,
			(CHUNKS + 1) * CALLS);
		*out = NAN;
	}
	bpf_floor__detach(f[0]);
	bpf_floor__detach(f[1]);
	bpf_probe__release(&p);
	return err;
}

/*
 * Our probe @c (COUNT or LATENCY) with the kernel's run-time stats on:
 * its programs' run time per call counted, into *@out.
 */
static int prog_cost(enum config c, double *out)
{
	struct bpf_probe p = { 0 };
	int err;

	*out = NAN;
	err = ours(c == COUNT ?
			   "tp:syscalls:sys_enter_getppid" :
			   "tp:syscalls:sys_enter_getppid:sys_exit_getppid",
		   &p);
	if (!err) {
		ns_per_call();
		err = bpf_probe__read(&p);
	}
	if (!err && p.total.calls >= CALLS && p.runs)
		*out = (double)p.run_ns / (double)p.total.calls;
	bpf_probe__release(&p);
	return err;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Of the rounds that measured (NAN: left out). */
static double median(const double *v_in)
{
	double v[ROUNDS];
	int i, n = 0;

	for (i = 0; i < ROUNDS; i++)
		if (!isnan(v_in[i]))
			v[n++] = v_in[i];
	if (!n)
		return NAN;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static enum config floor_of(enum config c)
{
	switch (c) {
	case COUNT:
	case BT_COUNT:
		return FLOOR;
	case LATENCY:
	case BT_HIST:
		return FLOOR2;
	default:
		return NONE;
	}
}

static void report(void)
{
	double m[NR], add[NR];
	int c, r;

	for (c = 0; c < NR; c++) {
		m[c] = median(samples[c]);
		add[c] = median(added[c]);
		if (c == FLOOR || c == FLOOR2)
			add[c] = m[c] - median(samples[NONE]);
		if (!getenv("PROBE_COST_ROUNDS"))
			continue;
		fprintf(stderr, "%-36s", names[c]);
		for (r = 0; r < ROUNDS; r++)
			fprintf(stderr, " %7.1f (%+6.1f)", samples[c][r],
				added[c][r]);
		fprintf(stderr, "\n");
	}
	printf("\n%-36s %10s %12s\n", "configuration", "ns/call", "added");
	for (c = 0; c < NR; c++) {
		if ((c == BT_COUNT || c == BT_HIST) && !have_bpftrace)
			continue;
		printf("%-36s %10.1f %+12.1f%s\n", names[c], m[c], add[c],
		       c == FLOOR || c == FLOOR2 ? "  (above no probe)" : "");
	}
	if (!isnan(median(prog_ns[COUNT])))
		printf("\nour programs' own run time per call (kernel BPF "
		       "stats, median of %d rounds):\n"
		       "  count:   %6.1f ns (1 program)\n"
		       "  latency: %6.1f ns (2 programs)\n",
		       ROUNDS, median(prog_ns[COUNT]),
		       median(prog_ns[LATENCY]));
	if (!have_bpftrace) {
		printf("\nbpftrace did not run: no ratios\n");
		return;
	}
	printf("\nadded above the floor, ours / bpftrace (goal <= 0.50):\n");
	printf("  count:   %6.1f / %6.1f ns = %.2f\n", add[COUNT],
	       add[BT_COUNT],
	       add[BT_COUNT] > 0 ? add[COUNT] / add[BT_COUNT] : 0.0);
	printf("  latency: %6.1f / %6.1f ns = %.2f\n", add[LATENCY],
	       add[BT_HIST],
	       add[BT_HIST] > 0 ? add[LATENCY] / add[BT_HIST] : 0.0);
}

/*
 * One round: each probe between two measurements of its floor, so that
 * what it adds is taken against a floor measured seconds, not minutes,
 * away (this machine's speed drifts more than a probe costs).
 */
static int round_of(int r)
{
	static const enum config order[] = {
		NONE, FLOOR,  COUNT,   FLOOR,  BT_COUNT, FLOOR,
		NONE, FLOOR2, LATENCY, FLOOR2, BT_HIST,	 FLOOR2
	};
	double last[NR] = { 0 }, before[NR] = { 0 };
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		enum config c = order[i];
		double v;

		err = run(c, &v);
		if (err && (c == BT_COUNT || c == BT_HIST))
			continue;
		if (err) {
			fprintf(stderr, "%s: %s\n", names[c], strerror(-err));
			return err;
		}
		if (c == NONE || c == FLOOR || c == FLOOR2) {
			samples[c][r] = v;
			last[c] = v;
			/* close the pending probe's bracket */
			if (i >= 2 && floor_of(order[i - 1]) == c &&
			    floor_of(order[i - 1]) != NONE) {
				enum config p = order[i - 1];

				added[p][r] =
					samples[p][r] - (before[p] + v) / 2;
			}
			continue;
		}
		samples[c][r] = v;
		before[c] = last[floor_of(c)];
	}
	return 0;
}

/* The last CPU: the first one takes most interrupts. */
static int pin(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(n - 1, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return (int)n - 1;
}

int main(void)
{
	int r, cpu, stats_fd;

	if (geteuid()) {
		printf("probe-cost: skipped, loading BPF programs needs root\n");
		return 0;
	}
	bpf_env__open(&env);
	if (!env.tracefs) {
		printf("probe-cost: skipped, no tracefs\n");
		return 0;
	}
	cpu = pin();
	printf("probe cost per getppid() call: CPU %d; median of %d rounds, "
	       "each the best of %d x %d calls\n",
	       cpu, ROUNDS, CHUNKS, CALLS);
	for (r = 0; r < ROUNDS; r++) {
		if (round_of(r))
			return 1;
		fprintf(stderr, "probe-cost: round %d of %d done\n", r + 1,
			ROUNDS);
	}
	for (r = 0; r < ROUNDS; r++)
		prog_ns[COUNT][r] = prog_ns[LATENCY][r] = NAN;
	stats_fd = bpf_env__stats_on();
	if (stats_fd < 0)
		fprintf(stderr, "probe-cost: no BPF run-time stats: %s\n",
			strerror(-stats_fd));
	for (r = 0; r < ROUNDS && stats_fd >= 0; r++)
		if (prog_cost(COUNT, &prog_ns[COUNT][r]) ||
		    prog_cost(LATENCY, &prog_ns[LATENCY][r]))
			break;
	if (stats_fd >= 0)
		close(stats_fd);
	report();
	bpf_env__close(&env);
	return 0;
}
