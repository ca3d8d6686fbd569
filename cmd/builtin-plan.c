// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench plan MATRIX: validate a matrix and show what a run of it
 * would do, in order, and how long it would take. Reads the matrix and
 * the local files it names, and asks a kernel's Debian suite what its
 * package is now; asks no host anything and downloads no kernel.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/matrix/matrix.h"
#include "bench/host/lava/lava-plan.h"
#include "bench/host/qemu/qemu.h"
#include "bench/testbed/testbed.h"
#include "bench/matrix/plan.h"
#include "builtin.h"
#include "config-error.h"
#include "log.h"
#include "parse-options.h"
#include "analysis/regress.h"
#include "stats/power.h"
#include "units.h"
#include "util.h"

/* Past this many steps the text shows the head and the tail. */
#define STEPS_SHOWN 40
#define STEPS_HEAD 30
#define STEPS_TAIL 5

static const char *const plan_usage[] = {
	"iommu-bench plan [--json] [--all] [--lava-yaml DIR] <matrix.toml>",
	NULL,
};

/* "2h 05m 30s", "4m 10s", "45s": an estimate reads better so. */
static char *fmt_eta(uint64_t ms, char *buf, size_t size)
{
	uint64_t s = (ms + 999) / 1000;

	if (s >= 3600)
		snprintf(buf, size,
			 "%" PRIu64 "h %02" PRIu64 "m %02" PRIu64 "s", s / 3600,
			 s / 60 % 60, s % 60);
	else if (s >= 60)
		snprintf(buf, size, "%" PRIu64 "m %02" PRIu64 "s", s / 60,
			 s % 60);
	else
		snprintf(buf, size, "%" PRIu64 "s", s);
	return buf;
}

static const char *db_of(const struct matrix *m)
{
	/* --db beats the file, the file beats $IOMMU_BENCH_DB. */
	if (global.db_path || !m->run.db)
		return global__db_path();
	return m->run.db;
}

static void print_hosts(const struct matrix *m)
{
	size_t i;

	printf("\nhosts\n");
	for (i = 0; i < m->nr_hosts; i++) {
		const struct matrix_host *h = &m->hosts[i];
		char eta[32];

		printf("  %-12s %-4s %-5s", h->name, host_role__name(h->role),
		       host_transport__name(h->transport));
		if (!h->address && h->labvm)
			printf(" lab machine %s (not running)", h->labvm);
		else if (h->transport == HOST_SSH)
			printf(" %s%s%s", h->user ? h->user : "",
			       h->user ? "@" : "", h->address);
		else if (h->transport == HOST_NETNS)
			printf(" %s in %s", h->address, h->netns);
		else if (h->address)
			printf(" %s", h->address);
		if (h->has_link)
			printf(", %s to %s",
			       h->transport == HOST_QEMU ||
					       m->hosts[h->link].transport ==
						       HOST_QEMU ?
				       "tap" :
				       "veth",
			       m->hosts[h->link].name);
		if (h->nic)
			printf(", nic %s", h->nic);
		if (h->role == ROLE_SUT && h->allow_reboot)
			printf(", reboots by %s (~%s)",
			       mode_apply__name(matrix__boot_method(h)),
			       fmt_eta(h->boot_estimate_ms, eta, sizeof(eta)));
		else if (h->role == ROLE_SUT)
			printf(", no reboots");
		putchar('\n');
	}
}

static void print_kernels(const struct matrix *m)
{
	size_t i;

	printf("\nkernels\n");
	for (i = 0; i < m->nr_kernels; i++) {
		const struct matrix_kernel *k = &m->kernels[i];
		const struct matrix_build *b = &k->build;

		printf("  %-12s ", k->name);
		if (k->kind == KERNEL_RUNNING)
			printf("the running kernel");
		else if (k->kind == KERNEL_IMAGE)
			printf("image %s", k->image);
		else if (k->kind == KERNEL_PACKAGE)
			printf("Debian package %s%s%s", k->package,
			       k->suite ? " from " : "",
			       k->suite ? k->suite : "");
		else
			printf("built from %s at %s + %zu patch%s", b->tree,
			       b->base ? b->base : "HEAD", b->nr_patches,
			       b->nr_patches == 1 ? "" : "es");
		if (k->fetched && strcmp(k->fetched, k->package))
			printf(", now %s %s", k->fetched, k->version);
		else if (k->version)
			printf(" %s", k->version);
		if (k->release)
			printf(", release %s", k->release);
		putchar('\n');
	}
}

static void print_modes(const struct matrix *m)
{
	size_t i, j;

	printf("\nmodes\n");
	for (i = 0; i < m->run.nr_modes; i++) {
		const struct matrix_mode *md = &m->modes[m->run.modes[i]];
		char what[160] = "";
		int n = 0;

		for (j = 0; j < md->nr_cmdline && n < (int)sizeof(what); j++)
			n += snprintf(what + n, sizeof(what) - n, "%s%s",
				      j ? " " : "", md->cmdline[j]);
		if (md->group_type != GROUP_TYPE_UNSET && n < (int)sizeof(what))
			snprintf(what + n, sizeof(what) - n, "%sgroup type %s",
				 n ? ", " : "",
				 group_type__name(md->group_type));
		if (!*what)
			snprintf(what, sizeof(what), "as the host has it");
		printf("  %-12s %-40s", md->name, what);
		for (j = 0; j < m->nr_hosts; j++) {
			const struct matrix_host *h = &m->hosts[j];
			enum mode_apply a = matrix__apply(h, md);

			if (h->role == ROLE_SUT)
				printf(" %s: %s", h->name,
				       a == APPLY_NONE ? "verify only" :
							 mode_apply__name(a));
		}
		putchar('\n');
	}
}

static void print_workloads(const struct matrix *m)
{
	size_t i;

	printf("\nworkloads\n");
	for (i = 0; i < m->nr_workloads; i++) {
		const struct matrix_workload *w = &m->workloads[i];
		char what[256];

		w->ops->describe(m, w, what, sizeof(what));
		printf("  %-12s %s %s\n", w->name, w->ops->name, what);
	}
}

/* Consecutive trials of one cell: "1 warmup + reps 1-10 + 1 profile". */
struct step {
	size_t first, n;
	unsigned int warmups, rep_lo, rep_hi, profiles;
};

static bool step__extends(const struct step *s, const struct plan_trial *a,
			  const struct plan_trial *t)
{
	if (t->host != a->host || t->kernel != a->kernel ||
	    t->mode != a->mode || t->workload != a->workload ||
	    t->reboot_before || t->mode_switch || t->warmup)
		return false;
	if (t->profile)
		return true;
	if (s->profiles)
		return false;
	return s->n == s->warmups || t->repetition == s->rep_hi + 1;
}

static size_t steps__build(const struct plan *p, struct step **out)
{
	struct step *v = NULL;
	size_t nr = 0, alloc = 0, i;

	for (i = 0; i < p->nr_trials; i++) {
		const struct plan_trial *t = &p->trials[i];
		struct step *s = nr ? &v[nr - 1] : NULL;

		if (!s || !step__extends(s, &p->trials[s->first], t)) {
			ALLOC_GROW(v, nr + 1, alloc);
			s = &v[nr++];
			memset(s, 0, sizeof(*s));
			s->first = i;
		}
		s->n++;
		if (t->warmup) {
			s->warmups++;
			continue;
		}
		if (t->profile) {
			s->profiles++;
			continue;
		}
		if (s->n == s->warmups + 1)
			s->rep_lo = t->repetition;
		s->rep_hi = t->repetition;
	}
	*out = v;
	return nr;
}

static void print_step(const struct plan *p, const struct step *s)
{
	const struct matrix *m = p->m;
	const struct plan_trial *t = &p->trials[s->first];
	char idx[48], what[80], before[48] = "";
	int n = 0;

	if (s->n == 1)
		snprintf(idx, sizeof(idx), "%zu", s->first + 1);
	else
		snprintf(idx, sizeof(idx), "%zu-%zu", s->first + 1,
			 s->first + s->n);
	if (s->warmups)
		n = snprintf(what, sizeof(what), "%u warmup%s%s", s->warmups,
			     s->warmups == 1 ? "" : "s",
			     s->n > s->warmups ? " + " : "");
	if (s->rep_lo && s->rep_lo == s->rep_hi)
		n += snprintf(what + n, sizeof(what) - n, "rep %u", s->rep_lo);
	else if (s->rep_lo)
		n += snprintf(what + n, sizeof(what) - n, "reps %u-%u",
			      s->rep_lo, s->rep_hi);
	if (s->profiles)
		snprintf(what + n, sizeof(what) - n, "%s%u profile",
			 s->rep_lo ? " + " : "", s->profiles);
	/* The mode's own boot when it is one (kexec on a grub host). */
	if (t->reboot_before)
		snprintf(before, sizeof(before), "%s boot",
			 mode_apply__name(
				 t->apply == APPLY_KEXEC ||
						 t->apply == APPLY_GRUB ||
						 t->apply == APPLY_RESTART ?
					 t->apply :
					 matrix__boot_method(
						 &m->hosts[t->host])));
	if (t->mode_switch && t->apply == APPLY_SYSFS)
		snprintf(before + strlen(before),
			 sizeof(before) - strlen(before), "%ssysfs switch",
			 *before ? ", " : "");
	printf("  %-13s %-10s %-12s %-12s %-12s %-*s%s\n", idx,
	       m->hosts[t->host].name, m->kernels[t->kernel].name,
	       m->modes[t->mode].name, m->workloads[t->workload].name,
	       *before ? 24 : 0, what, before);
}

static void print_steps(const struct plan *p, bool all)
{
	struct step *steps;
	size_t nr = steps__build(p, &steps), i;

	printf("\ntrials, in order (%s)\n",
	       matrix_order__name(p->m->run.order));
	printf("  %-13s %-10s %-12s %-12s %-12s %-24s %s\n", "#", "host",
	       "kernel", "mode", "workload", "trials", "before");
	for (i = 0; i < nr; i++) {
		if (!all && nr > STEPS_SHOWN && i == STEPS_HEAD) {
			printf("  ... %zu more steps (--all lists them; --json "
			       "lists every trial)\n",
			       nr - STEPS_HEAD - STEPS_TAIL);
			i = nr - STEPS_TAIL;
		}
		print_step(p, &steps[i]);
	}
	free(steps);
}

static void print_text(const struct plan *p, bool all)
{
	const struct matrix *m = p->m;
	const struct plan_summary *s = &p->summary;
	char a[32], b[32], c[32], d[32], e[32], cd[UNITS_FMT_MAX];

	printf("matrix   %s\n", m->path);
	printf("run      %s: %u repetition%s, %u warmup%s after each change, "
	       "order %s",
	       m->run.name, m->run.repetitions,
	       m->run.repetitions == 1 ? "" : "s", m->run.warmup,
	       m->run.warmup == 1 ? "" : "s", matrix_order__name(m->run.order));
	if (m->run.order == ORDER_RANDOM)
		printf(" (seed %" PRIu64 ")", m->run.seed);
	printf(", cooldown %s\n",
	       units__format_duration(m->run.cooldown_ms, cd, sizeof(cd)));
	if (m->run.until_max)
		printf("until    rounds of repetitions until every headline "
		       "interval is within %g%%,\n         up to %u "
		       "repetitions (up to %.1fx the trials' time below)\n",
		       m->run.until_width_pct, m->run.until_max,
		       (double)m->run.until_max / m->run.repetitions);
	printf("db       %s\n", db_of(m));
	print_hosts(m);
	print_kernels(m);
	print_modes(m);
	print_workloads(m);
	print_steps(p, all);
	printf("\nsummary\n");
	printf("  %zu cell%s, %zu trials + %zu warmups", s->cells,
	       s->cells == 1 ? "" : "s", s->trials, s->warmup_trials);
	if (s->profile_trials)
		printf(" + %zu profile trial%s", s->profile_trials,
		       s->profile_trials == 1 ? "" : "s");
	printf(", %zu reboot%s, %zu mode switch%s (%zu by sysfs)\n", s->reboots,
	       s->reboots == 1 ? "" : "s", s->mode_switches,
	       s->mode_switches == 1 ? "" : "es", s->sysfs_switches);
	printf("  estimated %s: trials %s, reboots %s, switches %s, "
	       "cooldowns %s\n",
	       fmt_eta(s->estimated_ms, a, sizeof(a)),
	       fmt_eta(s->trial_ms, b, sizeof(b)),
	       fmt_eta(s->boot_ms, c, sizeof(c)),
	       fmt_eta(s->switch_ms, d, sizeof(d)),
	       fmt_eta(s->cooldown_ms, e, sizeof(e)));
	printf("  (a trial is its workload's time (iperf3's omit + duration, "
	       "fio's and dma_map's run) + %ds overhead; kernel builds are "
	       "not included)\n",
	       PLAN_TRIAL_OVERHEAD_MS / 1000);
}

/*
 * What the nightly gate can tell from this matrix's runs: its metrics
 * over every cell, each a comparison, at the repetitions there are.
 */
static void gate_power(const struct plan *p, struct stats_power *pw)
{
	const struct matrix *m = p->m;
	size_t metrics;

	matrix__gate_metrics(m, &metrics);
	stats__power(p->summary.cells * metrics, m->run.repetitions,
		     STATS_ALPHA, pw);
}

static json_t *gate_json(const struct plan *p, const struct stats_power *pw)
{
	json_t *names = json_array();
	const char *const *v;
	size_t i, nr;

	v = matrix__gate_metrics(p->m, &nr);
	for (i = 0; i < nr; i++)
		json_array_append_new(names, json_string(v[i]));
	return json_pack("{s:o, s:I, s:I, s:f, s:f, s:f, s:b, s:I, s:o}",
			 "metrics", names, "comparisons",
			 (json_int_t)pw->comparisons, "trials",
			 (json_int_t)pw->trials, "alpha", STATS_ALPHA, "min_p",
			 pw->min_p, "first_alpha", pw->first_alpha,
			 "can_detect", pw->can_detect, "trials_needed",
			 (json_int_t)pw->trials_needed, "smallest_change_sd",
			 isnan(pw->smallest_sd) ? json_null() :
						  json_real(pw->smallest_sd));
}

/* What until's rounds can add, when they are all run: it may stop sooner. */
static void print_gate_until(const struct matrix *m,
			     const struct stats_power *pw)
{
	struct stats_power most;

	if (m->run.until_max <= m->run.repetitions)
		return;
	stats__power(pw->comparisons, m->run.until_max, STATS_ALPHA, &most);
	if (most.can_detect)
		printf("  where until adds rounds up to %u a side: a change of "
		       "%.1f standard deviations\n",
		       m->run.until_max, most.smallest_sd);
	else
		printf("  where until adds rounds up to %u a side: still "
		       "none\n",
		       m->run.until_max);
}

static void print_gate(const struct plan *p, const struct stats_power *pw)
{
	const struct matrix *m = p->m;
	const char *const *v;
	size_t i, nr;

	printf("\ngate (regress, alpha %g, Holm)\n  ", STATS_ALPHA);
	v = matrix__gate_metrics(m, &nr);
	for (i = 0; i < nr; i++)
		printf("%s%s", i ? ", " : "", v[i]);
	printf(": %zu comparison%s (every cell), %zu trial%s a side\n",
	       pw->comparisons, pw->comparisons == 1 ? "" : "s", pw->trials,
	       pw->trials == 1 ? "" : "s");
	if (!pw->can_detect) {
		printf("  detects no change, however large: %zu a side reach "
		       "at best p = %.2g, Holm's first step asks p < %.2g; "
		       "it needs at least %zu repetitions\n",
		       pw->trials, pw->min_p, pw->first_alpha,
		       pw->trials_needed);
		print_gate_until(m, pw);
		return;
	}
	printf("  detects 8 times in 10 a change of %.1f standard deviations "
	       "of a trial:\n  %.0f%% where trials vary by 10%%, %.1f%% where "
	       "by 1%% (best p %.2g, Holm's first step asks < %.2g)\n",
	       pw->smallest_sd, pw->smallest_sd * 10, pw->smallest_sd,
	       pw->min_p, pw->first_alpha);
	print_gate_until(m, pw);
}

/*
 * What each package kernel of a suite is there now (a meta-package
 * moves), asked of the suite without downloading a kernel. A mirror
 * that cannot be reached leaves the plan as it is, said; a suite or a
 * package that is not there is bad input.
 */
static int resolve_kernels(struct matrix *m)
{
	char *name, *version, *err = NULL;
	size_t i;
	int ret;

	for (i = 0; i < m->nr_kernels; i++) {
		struct matrix_kernel *k = &m->kernels[i];

		if (k->kind != KERNEL_PACKAGE || !k->suite)
			continue;
		ret = testbed__kernel_resolve(k->package, k->suite, &name,
					      &version, &err);
		if (ret == -EIO) {
			pr_warn("kernel '%s': cannot tell what %s in %s is "
				"now: %s",
				k->name, k->package, k->suite, err);
		} else if (ret) {
			pr_err("kernel '%s': %s", k->name,
			       err ? err : strerror(-ret));
			free(err);
			return ret;
		} else {
			k->fetched = name;
			k->version = version;
		}
		free(err);
		err = NULL;
	}
	return 0;
}

/* What the testbed cache already knows a VM cannot boot, said now. */
static int check_vm_kernels(const struct matrix *m)
{
	size_t h, k;
	char *err = NULL;
	int ret = 0;

	for (h = 0; h < m->nr_hosts; h++) {
		if (m->hosts[h].transport != HOST_QEMU)
			continue;
		for (k = 0; k < m->nr_kernels; k++) {
			if (!qemu__kernel_check(&m->hosts[h], &m->kernels[k],
						&err))
				continue;
			pr_err("%s", err);
			free(err);
			err = NULL;
			ret = -EOPNOTSUPP;
		}
	}
	return ret;
}

int cmd_plan(int argc, const char **argv)
{
	const char *lava_yaml = NULL;
	bool all = false;
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_BOOLEAN(0, "all", &all, "list every step, however many"),
		OPT_STRING(0, "lava-yaml", &lava_yaml, "DIR",
			   "write the LAVA jobs' definitions there"),
		OPT_END(),
	};
	struct config_errors errs;
	struct stats_power pw;
	struct matrix *m = NULL;
	struct plan p;
	int ret;

	global__matrix_file(argc, argv, opts, plan_usage);
	config_errors__init(&errs, argv[0]);
	ret = matrix__load(argv[0], &m, &errs);
	if (!ret)
		ret = plan__build(&p, m, &errs);
	config_errors__print(&errs, stderr);
	if (ret) {
		if (config_errors__failed(&errs))
			fprintf(stderr, "%s: %zu error%s\n", argv[0],
				errs.nr_errors, errs.nr_errors == 1 ? "" : "s");
		config_errors__release(&errs);
		matrix__free(m);
		return ret == -EINVAL || ret == -E2BIG ? EXIT_USAGE :
							 EXIT_WORK_FAILED;
	}
	config_errors__release(&errs);
	if (check_vm_kernels(m) || resolve_kernels(m)) {
		plan__release(&p);
		matrix__free(m);
		return EXIT_USAGE;
	}
	gate_power(&p, &pw);
	if (!pw.can_detect)
		pr_warn("%s: the gate cannot detect any change with %u "
			"repetitions over %zu comparisons: set [run] "
			"repetitions to at least %zu",
			argv[0], m->run.repetitions, pw.comparisons,
			pw.trials_needed);
	if (global.json) {
		ret = plan__print_json(&p, db_of(m), gate_json(&p, &pw),
				       stdout);
	} else {
		print_text(&p, all);
		print_gate(&p, &pw);
	}
	if (!ret && (lava_yaml || !global.json)) {
		char *err = NULL;

		ret = lava_plan__print(&p, lava_yaml,
				       global.json ? stderr : stdout, &err);
		if (err)
			pr_err("%s", err);
		free(err);
	}
	plan__release(&p);
	matrix__free(m);
	if (ret || fflush(stdout)) {
		pr_err("plan: cannot write the plan");
		return EXIT_WORK_FAILED;
	}
	return EXIT_OK;
}
