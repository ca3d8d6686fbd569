// SPDX-License-Identifier: GPL-2.0-only
/*
 * Expansion: first the recorded trials of each SUT in the order the run
 * asks for, then a walk over them that tracks what each host has booted
 * and which mode is in effect, to place reboots, mode switches and
 * warmups, and to estimate the time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/matrix/plan.h"
#include "util.h"

/* One recorded trial before the walk: what, not yet how. */
struct unit {
	size_t kernel, mode, workload;
	unsigned int repetition;
	bool profile;
};

struct units {
	struct unit *v;
	size_t nr, alloc;
};

int plan__cell_key(const struct matrix *m, size_t host, size_t kernel,
		   size_t mode, size_t workload, char *buf, size_t size)
{
	return snprintf(buf, size, "host=%s/kernel=%s/mode=%s/workload=%s",
			m->hosts[host].name, m->kernels[kernel].name,
			m->modes[mode].name, m->workloads[workload].name);
}

int plan_trial__key(const struct matrix *m, const struct plan_trial *t,
		    char *buf, size_t size)
{
	return plan__cell_key(m, t->host, t->kernel, t->mode, t->workload, buf,
			      size);
}

/*
 * splitmix64, and rejection for an unbiased bound: integer-only, so a
 * seed gives the same order on every machine and every version. Changing
 * this changes what every published seed means.
 */
uint64_t plan__random(uint64_t *state, uint64_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound, z;

	do {
		z = (*state += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
	} while (z >= limit);
	return z % bound;
}

static bool runs_on(const struct matrix *m, size_t w, size_t h)
{
	return m->workloads[w].sut == h;
}

static void units__add(struct units *u, size_t k, size_t md, size_t w,
		       unsigned int rep, bool profile)
{
	ALLOC_GROW(u->v, u->nr + 1, u->alloc);
	u->v[u->nr++] = (struct unit){ k, md, w, rep, profile };
}

/*
 * A cell's profile trials come right after its last measured one, in
 * the state that one ran in: no boot of their own. A workload that runs
 * without collectors has nothing to profile.
 */
static void units__add_profiles(const struct matrix *m, struct units *u,
				size_t k, size_t md, size_t w)
{
	unsigned int j;

	for (j = 1; m->workloads[w].collect && j <= plan__profile_trials(m);
	     j++)
		units__add(u, k, md, w, j, true);
}

unsigned int plan__profile_trials(const struct matrix *m)
{
	const struct matrix_collect *c = &m->collect;

	return c->perf.enabled && c->perf.record == RECORD_SEPARATE ?
		       c->perf.profile_trials :
		       0;
}

/*
 * "grouped" may reorder to save boots: the running kernel first (it is
 * booted already), and within each kernel the modes a sysfs switch can
 * reach before those that take a boot, so that they share the boot the
 * kernel needed anyway. Otherwise the file's order. Fills @kernels and
 * @modes with indexes.
 */
static void grouped_order(const struct matrix *m, size_t h, size_t *kernels,
			  size_t *modes)
{
	const struct matrix_host *host = &m->hosts[h];
	size_t i, n = 0;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < m->nr_kernels; i++)
			if ((m->kernels[i].kind == KERNEL_RUNNING) == !pass)
				kernels[n++] = i;
	n = 0;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < m->run.nr_modes; i++) {
			enum mode_apply a =
				matrix__apply(host, &m->modes[m->run.modes[i]]);
			bool boots = a == APPLY_KEXEC || a == APPLY_GRUB ||
				     a == APPLY_RESTART;

			if (boots == !!pass)
				modes[n++] = m->run.modes[i];
		}
}

/* The recorded trials of SUT @h, in the run's order. */
static void units__expand(const struct matrix *m, size_t h, struct units *u,
			  uint64_t *rng)
{
	const struct matrix_run *r = &m->run;
	bool grouped = r->order != ORDER_INTERLEAVED;
	unsigned int reps = grouped ? 1 : r->repetitions, rep;
	size_t *kernels = xcalloc(m->nr_kernels, sizeof(*kernels));
	size_t *modes = xcalloc(r->nr_modes, sizeof(*modes));
	size_t k, i, w;

	if (r->order == ORDER_GROUPED) {
		grouped_order(m, h, kernels, modes);
	} else {
		for (k = 0; k < m->nr_kernels; k++)
			kernels[k] = k;
		memcpy(modes, r->modes, r->nr_modes * sizeof(*modes));
	}
	for (rep = 1; rep <= reps; rep++)
		for (k = 0; k < m->nr_kernels; k++)
			for (i = 0; i < r->nr_modes; i++)
				for (w = 0; w < m->nr_workloads; w++) {
					unsigned int j;

					if (!runs_on(m, w, h))
						continue;
					if (!grouped) {
						units__add(u, kernels[k],
							   modes[i], w, rep,
							   false);
						if (rep == reps)
							units__add_profiles(
								m, u,
								kernels[k],
								modes[i], w);
						continue;
					}
					for (j = 1; j <= r->repetitions; j++)
						units__add(u, kernels[k],
							   modes[i], w, j,
							   false);
					units__add_profiles(m, u, kernels[k],
							    modes[i], w);
				}
	free(kernels);
	free(modes);
	if (r->order != ORDER_RANDOM)
		return;
	/* Fisher-Yates over this host's trials. */
	for (i = u->nr; i > 1; i--) {
		size_t j = plan__random(rng, i);
		struct unit tmp = u->v[i - 1];

		u->v[i - 1] = u->v[j];
		u->v[j] = tmp;
	}
}

/* What one SUT has booted and has in effect, as the walk goes. */
struct host_state {
	long kernel;	       /* -1: not booted by us (a VM not started) */
	long mode;	       /* -1: unknown, the kernel's default */
	bool tainted;	       /* booted with a custom mode's own cmdline */
	unsigned long epoch;   /* bumped at every change */
	unsigned long *warmed; /* per workload: epoch of its last warmup */
	uint64_t clock_ms;
	bool first;
};

static void push(struct plan *p, const struct plan_trial *t)
{
	static const size_t chunk = 1024;

	if (p->nr_trials % chunk == 0)
		p->trials = xrealloc(p->trials, (p->nr_trials + chunk) *
							sizeof(*p->trials));
	p->trials[p->nr_trials++] = *t;
}

/* Time passes on the host's clock, and is booked under @what. */
static void tick(struct plan *p, struct host_state *s, uint64_t *what,
		 uint64_t ms)
{
	s->clock_ms += ms;
	*what += ms;
	p->summary.estimated_ms += ms;
}

static bool apply_boots(enum mode_apply a)
{
	return a == APPLY_KEXEC || a == APPLY_GRUB || a == APPLY_RESTART;
}

/* Place one recorded trial, and the warmups and changes before it. */
static void walk_one(struct plan *p, size_t h, struct host_state *s,
		     const struct unit *u)
{
	const struct matrix *m = p->m;
	const struct matrix_host *host = &m->hosts[h];
	struct plan_trial t = {
		.host = h,
		.kernel = u->kernel,
		.mode = u->mode,
		.workload = u->workload,
		.profile = u->profile,
	};
	uint64_t trial_ms =
		matrix_workload__trial_ms(&m->workloads[u->workload]) +
		PLAN_TRIAL_OVERHEAD_MS;
	long prev = s->mode;
	unsigned int i, n = 1;

	t.apply = matrix__apply(host, &m->modes[u->mode]);
	/*
	 * A custom mode's cmdline may hold more than a group type (say
	 * iommu.forcedac=1), which no sysfs switch undoes: leaving such a
	 * mode takes a clean boot too.
	 */
	t.reboot_before = s->kernel != (long)u->kernel ||
			  ((apply_boots(t.apply) || s->tainted) &&
			   s->mode != (long)u->mode);
	if (t.reboot_before) {
		s->kernel = u->kernel;
		s->mode = apply_boots(t.apply) ? (long)u->mode : -1;
		s->tainted = apply_boots(t.apply) &&
			     !m->modes[u->mode].sysfs_equivalent;
		tick(p, s, &p->summary.boot_ms, host->boot_estimate_ms);
	} else if (!s->first) {
		tick(p, s, &p->summary.cooldown_ms, m->run.cooldown_ms);
	}
	if (t.apply == APPLY_SYSFS && s->mode != (long)u->mode) {
		p->summary.sysfs_switches++;
		tick(p, s, &p->summary.switch_ms, PLAN_SYSFS_SWITCH_MS);
		t.mode_switch = true;
	} else if (t.apply != APPLY_NONE && prev != (long)u->mode) {
		t.mode_switch = true;
	}
	s->mode = u->mode;
	if (t.reboot_before || t.mode_switch)
		s->epoch++;
	p->summary.reboots += t.reboot_before;
	p->summary.mode_switches += t.mode_switch;

	/* After every change, the first trial of a workload runs cold. */
	if (s->warmed[u->workload] != s->epoch) {
		s->warmed[u->workload] = s->epoch;
		n += m->run.warmup;
	}
	for (i = 0; i < n; i++) {
		bool warm = i + 1 < n;

		if (i)
			tick(p, s, &p->summary.cooldown_ms, m->run.cooldown_ms);
		t.warmup = warm;
		t.profile = !warm && u->profile;
		t.repetition = warm ? i + 1 : u->repetition;
		t.start_ms = s->clock_ms;
		push(p, &t);
		tick(p, s, &p->summary.trial_ms, trial_ms);
		p->summary.warmup_trials += warm;
		p->summary.trials += !warm && !t.profile;
		p->summary.profile_trials += !warm && t.profile;
		/* The changes happen once, before the first of them. */
		t.reboot_before = false;
		t.mode_switch = false;
	}
	s->first = false;
}

static void walk(struct plan *p, size_t h, const struct units *u)
{
	const struct matrix *m = p->m;
	struct host_state s = { .mode = -1, .first = true };
	size_t i;

	/* SUTs run one after another: each starts where the last ended. */
	s.clock_ms = p->summary.estimated_ms;
	/* Booted as it is, unless it is a VM that has yet to start. */
	s.kernel = -1;
	for (i = 0; i < m->nr_kernels; i++)
		if (m->kernels[i].kind == KERNEL_RUNNING &&
		    !matrix_host__is_vm(&m->hosts[h]))
			s.kernel = i;
	s.warmed = xcalloc(m->nr_workloads, sizeof(*s.warmed));
	for (i = 0; i < m->nr_workloads; i++)
		s.warmed[i] = ~0UL;
	for (i = 0; i < u->nr; i++)
		walk_one(p, h, &s, &u->v[i]);
	free(s.warmed);
}

/* Cells, and a bound on trials with warmups, refused past the limit. */
static int count(struct plan *p, struct config_errors *errs)
{
	const struct matrix *m = p->m;
	struct toml_pos pos = m->run.pos;
	unsigned __int128 bound;
	size_t w;

	for (w = 0; w < m->nr_workloads; w++)
		p->summary.cells += m->nr_kernels * m->run.nr_modes;
	bound = (unsigned __int128)p->summary.cells *
		(m->run.repetitions + plan__profile_trials(m)) *
		(1 + m->run.warmup);
	if (bound <= PLAN_MAX_TRIALS)
		return 0;
	if (m->run.src && toml_table__get(m->run.src, "repetitions"))
		pos = toml_table__get(m->run.src, "repetitions")->pos;
	config_errors__add(errs, pos,
			   "the matrix expands to %zu cells x %u "
			   "repetitions, over %d trials; split it",
			   p->summary.cells, m->run.repetitions,
			   PLAN_MAX_TRIALS);
	return -E2BIG;
}

int plan__build(struct plan *p, const struct matrix *m,
		struct config_errors *errs)
{
	uint64_t rng = m->run.seed;
	size_t h;
	int ret;

	memset(p, 0, sizeof(*p));
	p->m = m;
	ret = count(p, errs);
	if (ret)
		return ret;
	/* SUTs one after another, in the file's order. */
	for (h = 0; h < m->nr_hosts; h++) {
		struct units u = { 0 };

		if (m->hosts[h].role != ROLE_SUT)
			continue;
		units__expand(m, h, &u, &rng);
		if (u.nr)
			walk(p, h, &u);
		free(u.v);
	}
	return 0;
}

void plan__release(struct plan *p)
{
	free(p->trials);
	memset(p, 0, sizeof(*p));
}
