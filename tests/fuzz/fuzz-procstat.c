// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the procstat collector's readers of /proc/stat,
 * /proc/softirqs and /proc/interrupts (on a host whose kernel may be
 * any version, in a guest that may be anything): two snapshots parsed
 * and their delta taken, as a trial does. The input is the six files in
 * that order, each part ending at a line "=====":
 *
 *   STAT ===== SOFTIRQS ===== INTERRUPTS ===== (the same, later)
 */
#include "collectors/procstat/procstat-parse.h"
#include "fuzz/fuzz-util.h"

#define SEP "\n=====\n"
#define NR_PARTS 6

FUZZ_INITIALIZE()

static int snap(struct procstat_snap *s, char *const *p,
		const struct procstat_nic *nic)
{
	return procstat__parse_stat(p[0], s)		 ?:
		       procstat__parse_softirqs(p[1], s) ?:
		       procstat__parse_interrupts(p[2], nic, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "eth0", "virtio2" };
	static const unsigned int irqs[] = { 24, 61 };
	struct procstat_nic nic = { keys, 2, irqs, 2 };
	struct procstat_snap a = { 0 }, b = { 0 };
	struct procstat_delta d;
	char *parts[NR_PARTS] = { 0 };
	size_t n, i;

	n = fuzz_split(data, size, SEP, parts, NR_PARTS);
	for (i = n; i < NR_PARTS; i++)
		parts[i] = xstrdup("");
	b.t = 10.0;
	if (snap(&a, parts, &nic) || snap(&b, parts + 3, &nic))
		goto out;
	if (!procstat__delta(&a, &b, &d)) {
		/* Each CPU once (busy <= total is not checked: counters
		 * near 2^64, never seen, wrap in the sums). */
		CHECK(d.nr_cpus <= a.nr_cpus && d.nr_cpus <= b.nr_cpus);
		CHECK(d.nr_cpus + d.nr_missing >= b.nr_cpus);
		CHECK(procstat__pct(d.sum.busy, d.sum.total) >= 0);
		procstat__delta_release(&d);
	}
out:
	procstat__snap_release(&a);
	procstat__snap_release(&b);
	fuzz_free_parts(parts, NR_PARTS);
	return 0;
}
