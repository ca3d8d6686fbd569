/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /proc/stat, /proc/softirqs and /proc/interrupts: snapshots and the
 * deltas between two of them. Pure text in, numbers out, so that the
 * unit tests feed fixture files (CPUs gone offline included).
 *
 * CPUs are keyed by their number, never by position: /proc/stat lists
 * only online CPUs, /proc/interrupts' columns are the online CPUs too,
 * /proc/softirqs lists the possible ones. A CPU missing from either
 * snapshot is left out of a delta and named in it.
 */
#ifndef IOMMU_BENCH_PROCSTAT_PARSE_H
#define IOMMU_BENCH_PROCSTAT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The /proc/stat columns we keep, in its order (guest is inside user). */
enum procstat_field {
	PS_USER,
	PS_NICE,
	PS_SYSTEM,
	PS_IDLE,
	PS_IOWAIT,
	PS_IRQ,
	PS_SOFTIRQ,
	PS_STEAL,
	PS_NR_FIELDS,
};

extern const char *const procstat_field_names[PS_NR_FIELDS];

struct procstat_cpu {
	int cpu;
	uint64_t v[PS_NR_FIELDS]; /* USER_HZ ticks */
};

/* One counter per CPU, as /proc/softirqs and /proc/interrupts give. */
struct procstat_counts {
	int *cpu;
	uint64_t *n;
	size_t nr, alloc;
};

struct procstat_irq {
	char *id;   /* "38", "NMI" */
	char *desc; /* the rest of the line: chip, hwirq, name */
	struct procstat_counts c;
};

/* Which /proc/interrupts lines are the NIC's. */
struct procstat_nic {
	const char *const *keys; /* names, matched at word boundaries */
	size_t nr_keys;
	const unsigned int *irqs; /* IRQ numbers (msi_irqs) */
	size_t nr_irqs;
};

struct procstat_snap {
	double t; /* CLOCK_MONOTONIC seconds */
	struct procstat_cpu *cpus;
	size_t nr_cpus, alloc_cpus;
	struct procstat_counts net_rx, net_tx;
	struct procstat_irq *irqs;
	size_t nr_irqs, alloc_irqs;
};

int procstat__parse_stat(const char *text, struct procstat_snap *s);
int procstat__parse_softirqs(const char *text, struct procstat_snap *s);
/* Only the lines @nic matches (none when @nic is NULL). */
int procstat__parse_interrupts(const char *text, const struct procstat_nic *nic,
			       struct procstat_snap *s);
/* Whether a /proc/interrupts line (@id, @desc) is one of @nic's. */
bool procstat__irq_matches(const struct procstat_nic *nic, const char *id,
			   const char *desc);

/* Read the three files now (@nic may be NULL). */
int procstat__snap_read(struct procstat_snap *s,
			const struct procstat_nic *nic);
void procstat__snap_release(struct procstat_snap *s);

struct procstat_cpu_delta {
	int cpu;
	uint64_t v[PS_NR_FIELDS];
	uint64_t total, busy; /* busy: all but idle and iowait */
	uint64_t net_rx, net_tx;
};

struct procstat_irq_delta {
	const char *id, *desc; /* borrowed from the later snapshot */
	uint64_t count;
};

struct procstat_delta {
	double seconds;
	struct procstat_cpu_delta *cpus; /* CPUs online in both */
	size_t nr_cpus;
	int *missing; /* CPUs in only one of the snapshots */
	size_t nr_missing;
	struct procstat_cpu_delta sum; /* over @cpus; sum.cpu is -1 */
	/* A counter went backwards (iowait may): clamped to 0. */
	bool backwards;
	struct procstat_irq_delta *irqs;
	size_t nr_irqs;
	uint64_t irq_total;
};

int procstat__delta(const struct procstat_snap *a,
		    const struct procstat_snap *b, struct procstat_delta *d);
void procstat__delta_release(struct procstat_delta *d);

/* @part as a percentage of @total; 0 when @total is 0. */
double procstat__pct(uint64_t part, uint64_t total);

#endif /* IOMMU_BENCH_PROCSTAT_PARSE_H */
