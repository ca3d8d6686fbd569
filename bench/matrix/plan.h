/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A matrix expanded into the trials a run executes, in execution order:
 * SUT host x kernel x mode x workload x repetition, with the warmup
 * trials, reboots and mode switches between them, and what it all costs
 * in time. Built from the matrix alone: no host is asked anything.
 *
 * A cell is one (host, kernel, mode, workload); its trials are its
 * repetitions. plan_cell__key() names a cell stably, for the store to
 * find what an interrupted run already has.
 */
#ifndef IOMMU_BENCH_PLAN_H
#define IOMMU_BENCH_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/matrix/matrix.h"
#include "config-error.h"

/* A bigger plan is a mistake (or a week of machine time): refuse it. */
#define PLAN_MAX_TRIALS 1000000
/* Agent start, collectors on and off, results fetched: per trial. */
#define PLAN_TRIAL_OVERHEAD_MS 5000
/* Unbind, write the group type, rebind, wait for the link. */
#define PLAN_SYSFS_SWITCH_MS 10000
/* "host=NAME/kernel=NAME/mode=NAME/workload=NAME", names <= 64 bytes. */
#define PLAN_KEY_MAX 320

struct plan_trial {
	size_t host, kernel, mode, workload; /* matrix indexes */
	unsigned int repetition;	     /* 1-based; a warmup's own count */
	bool warmup;			     /* run, not recorded */
	bool profile; /* recorded apart: perf record, outside the statistics */
	enum mode_apply apply; /* how the mode gets in place here */
	bool reboot_before;    /* a boot precedes this trial */
	bool mode_switch;      /* the mode changes before it */
	uint64_t start_ms;     /* estimated, from the run's start */
};

struct plan_summary {
	size_t cells;  /* distinct host x kernel x mode x workload */
	size_t trials; /* recorded: cells x repetitions */
	size_t warmup_trials;
	size_t profile_trials; /* cells x [collect.perf] profile_trials */
	size_t reboots;
	size_t mode_switches; /* by sysfs or by a boot's cmdline */
	size_t sysfs_switches;
	/* The estimate, and what it is made of. */
	uint64_t estimated_ms;
	uint64_t trial_ms; /* omit + duration + overhead, all trials */
	uint64_t boot_ms;
	uint64_t switch_ms;
	uint64_t cooldown_ms;
};

struct plan {
	const struct matrix *m;
	struct plan_trial *trials; /* every trial, warmups included */
	size_t nr_trials;
	struct plan_summary summary;
};

/*
 * Expand @m. Fails (-E2BIG, reported into @errs) only when the plan
 * would exceed PLAN_MAX_TRIALS.
 */
int plan__build(struct plan *p, const struct matrix *m,
		struct config_errors *errs);
void plan__release(struct plan *p);

/* Profile trials per cell: [collect.perf] record = "separate" ones. */
unsigned int plan__profile_trials(const struct matrix *m);

/*
 * A cell's key into @buf; returns its length (as snprintf: cut short if
 * @size is too small). Names are safe names, so '/' and '=' cannot occur
 * in them and the key parses back unambiguously.
 */
int plan__cell_key(const struct matrix *m, size_t host, size_t kernel,
		   size_t mode, size_t workload, char *buf, size_t size);
int plan_trial__key(const struct matrix *m, const struct plan_trial *t,
		    char *buf, size_t size);

/*
 * The plan as JSON on @fp, every trial listed (docs/matrix.md has the
 * format); @db is the database the run would write. Returns 0 or -EIO.
 */
/* @gate (may be NULL, a reference taken) is added as "gate". */
int plan__print_json(const struct plan *p, const char *db, json_t *gate,
		     FILE *fp);

/* The deterministic generator behind order = "random": [0, @bound). */
uint64_t plan__random(uint64_t *state, uint64_t bound);

#endif /* IOMMU_BENCH_PLAN_H */
