// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench bisect: the ends measured first, then the commit nearest
 * the middle of what is left, until one commit is the first bad. Every
 * question that can be answered before the first build is answered
 * before it: a bisection that fails on a typo after an hour of kernel
 * builds is the failure this file exists to prevent.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bisect/bisect.h"
#include "bench/run/run.h"
#include "bench/workload/dma-map.h"
#include "bench/workload/fio.h"
#include "bench/workload/iperf3.h"
#include "cache.h"
#include "collectors/bpf/bpf-exposure.h"
#include "collectors/procstat/procstat.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "stats/power.h"
#include "store/store.h"
#include "strvec.h"
#include "suggest.h"
#include "util.h"

/* Usage errors say so and end with exit 2; the rest with 1. */
#define USAGE(...)                              \
	({                                      \
		pr_err("bisect: " __VA_ARGS__); \
		-EINVAL;                        \
	})

static int pick_name(const char *what, const char *opt, const char *given,
		     const char *const *names, size_t n, char **out)
{
	const char *best;
	size_t i;

	if (!given && n == 1) {
		*out = xstrdup(names[0]);
		return 0;
	}
	if (!given) {
		struct strvec sv = { 0 };
		char *list;
		int ret;

		for (i = 0; i < n; i++)
			strvec__push(&sv, names[i]);
		list = strvec__join(&sv, ", ");
		ret = USAGE("the matrix runs %zu %ss: say which with %s "
			    "(one of %s)",
			    n, what, opt, list);
		free(list);
		strvec__release(&sv);
		return ret;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], given)) {
			*out = xstrdup(given);
			return 0;
		}
	{
		const char **c = xcalloc(n + 1, sizeof(*c));

		for (i = 0; i < n; i++)
			c[i] = names[i];
		best = suggest__best(given, c);
		pr_err("bisect: %s '%s': the matrix runs no such %s%s%s%s", opt,
		       given, what, best ? " (did you mean '" : "",
		       best ? best : "", best ? "'?)" : "");
		free(c);
	}
	return -EINVAL;
}

static int pick_mode(const struct matrix *m, const char *given, char **out)
{
	const char **names = xcalloc(m->run.nr_modes + 1, sizeof(*names));
	size_t i;
	int ret;

	for (i = 0; i < m->run.nr_modes; i++)
		names[i] = m->modes[m->run.modes[i]].name;
	ret = pick_name("mode", "--mode", given, names, m->run.nr_modes, out);
	free(names);
	return ret;
}

static int pick_workload(const struct matrix *m, const char *given, char **out)
{
	const char **names = xcalloc(m->nr_workloads + 1, sizeof(*names));
	size_t i;
	int ret;

	for (i = 0; i < m->nr_workloads; i++)
		names[i] = m->workloads[i].name;
	ret = pick_name("workload", "--workload", given, names, m->nr_workloads,
			out);
	free(names);
	return ret;
}

static const struct matrix_workload *workload_of(const struct matrix *m,
						 const char *name)
{
	return TABLE_FIND(m->workloads, m->nr_workloads, name, name);
}

static bool has_probe(const struct matrix *m, const char *probe)
{
	size_t i;

	for (i = 0; m->collect.bpf.enabled && i < m->collect.bpf.nr_probes; i++)
		if (!strcmp(m->collect.bpf.probes[i], probe))
			return true;
	return false;
}

/*
 * The metric must be one this matrix's trials store: its workload's,
 * its collectors', a probe it counts (NAME_per_gb), or one the
 * database already holds; a probe it does not count is named as such.
 */
static int check_metric(const struct matrix *m, const char *workload,
			const char *db_path, const char *metric)
{
	const struct matrix_workload *w = workload_of(m, workload);
	size_t n = strlen(metric), k = strlen(STORE_PER_GB_SUFFIX), i;
	struct strvec known = { 0 };
	struct store *st;
	const char *best;
	int ret = 0;

	if (n > k && !strcmp(metric + n - k, STORE_PER_GB_SUFFIX)) {
		char *probe = xstrndup(metric, n - k);

		if (!has_probe(m, probe)) {
			for (i = 0; m->collect.bpf.enabled &&
				    i < m->collect.bpf.nr_probes;
			     i++)
				strvec__push(&known, m->collect.bpf.probes[i]);
			best = known.v ? suggest__best(
						 probe,
						 (const char *const *)known.v) :
					 NULL;
			ret = USAGE("--metric %s: the matrix counts no probe "
				    "'%s' ([collect.bpf] probes)%s%s%s",
				    metric, probe,
				    best ? "; did you mean '" : "",
				    best ? best : "", best ? "'?" : "");
		}
		free(probe);
		strvec__release(&known);
		return ret;
	}
	if (w && w->type == WORKLOAD_FIO)
		fio__metric_names(&known);
	else if (w && w->type == WORKLOAD_DMA_MAP)
		dma_map__metric_names(&known);
	else
		iperf3__metric_names(&known);
	procstat__metric_names(&known);
	if (has_probe(m, "exposure"))
		bpf_exposure__metric_names(&known);
	for (i = 0; m->collect.bpf.enabled && i < m->collect.bpf.nr_probes; i++)
		strvec__pushf(&known, "%s%s", m->collect.bpf.probes[i],
			      STORE_PER_GB_SUFFIX);
	if (!access(db_path, F_OK) && !store__open(db_path, 0, &st)) {
		store__metric_names(st, &known);
		store__close(st);
	}
	for (i = 0; i < known.nr; i++)
		if (!strcmp(known.v[i], metric))
			goto out;
	best = known.v ? suggest__best(metric, (const char *const *)known.v) :
			 NULL;
	ret = USAGE("--metric %s: no collector or workload of this matrix "
		    "stores it%s%s%s",
		    metric, best ? " (did you mean '" : "", best ? best : "",
		    best ? "'?)" : "");
out:
	strvec__release(&known);
	return ret;
}

int bisect__default_workdir(const struct matrix_build *b, char **out)
{
	struct sha256 h;
	uint8_t d[SHA256_DIGEST_SIZE];
	char *dir, *tree = realpath(b->tree, NULL);
	size_t i;
	int ret;

	ret = cache__dir("bisect", &dir);
	if (ret) {
		free(tree);
		return ret;
	}
	sha256__init(&h);
#define FEED(s) sha256__update(&h, (s) ? (s) : "", strlen((s) ? (s) : "") + 1)
	FEED(tree ? tree : b->tree);
	FEED(b->arch);
	FEED(b->cross_compile);
	FEED(b->config);
	for (i = 0; i < b->nr_fragments; i++)
		FEED(b->fragments[i]);
#undef FEED
	sha256__final(&h, d);
	*out = xasprintf("%s/%02x%02x%02x%02x%02x%02x%02x%02x", dir, d[0], d[1],
			 d[2], d[3], d[4], d[5], d[6], d[7]);
	free(dir);
	free(tree);
	return 0;
}

static int check_ends(struct bisect_state *s, const struct bisect_opts *o)
{
	char *err = NULL;
	int ret;

	ret = bisect_git__resolve(s->tree, o->good, &s->good, &err);
	if (!ret)
		ret = bisect_git__resolve(s->tree, o->bad, &s->bad, &err);
	if (ret) {
		pr_err("bisect: %s", err);
		errmsg__clear(&err);
		return -EINVAL;
	}
	if (!strcmp(s->good, s->bad))
		return USAGE("--good %s and --bad %s are the same commit",
			     o->good, o->bad);
	ret = bisect_git__is_ancestor(s->tree, s->good, s->bad, &err);
	if (ret == 0) {
		ret = bisect_git__is_ancestor(s->tree, s->bad, s->good, &err);
		if (ret == 1)
			return USAGE("--good %s is a descendant of --bad %s: "
				     "swapped? The good end must come "
				     "first in history",
				     o->good, o->bad);
		if (ret == 0)
			return USAGE("--good %s is not an ancestor of --bad "
				     "%s: they are unrelated (no history "
				     "leads from one to the other)",
				     o->good, o->bad);
	}
	if (ret < 0) {
		pr_err("bisect: %s", err);
		errmsg__clear(&err);
		return ret;
	}
	ret = bisect_git__first_parent(s->tree, s->good, s->bad, &s->candidates,
				       &s->nr_candidates, &err);
	if (ret) {
		pr_err("bisect: %s", err);
		errmsg__clear(&err);
		return ret;
	}
	if (!s->nr_candidates)
		return USAGE("no first-parent commit of --bad %s comes after "
			     "--good %s",
			     o->bad, o->good);
	return 0;
}

static char *now_utc(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

/* The one kernel bisect moves: named, or the matrix's only one, built. */
static int pick_kernel(const struct matrix *m, const struct bisect_opts *o,
		       const struct matrix_kernel **out)
{
	const struct matrix_kernel *k;

	if (o->kernel) {
		long i = matrix__find_kernel(m, o->kernel);

		if (i < 0)
			return USAGE("%s has no kernel '%s' to bisect",
				     o->matrix, o->kernel);
		k = &m->kernels[i];
	} else if (m->nr_kernels != 1) {
		return USAGE("%s has %zu kernels: bisect wants exactly one "
			     "[[kernels]] entry, with a build recipe, whose "
			     "base it moves from commit to commit",
			     o->matrix, m->nr_kernels);
	} else {
		k = &m->kernels[0];
	}
	if (k->kind != KERNEL_BUILD)
		return USAGE("kernel '%s' of %s has no build recipe: bisect "
			     "builds every commit it tests, so the kernel "
			     "needs build = { tree = ..., config = ... }",
			     k->name, o->matrix);
	if (k->build.base)
		pr_warn("bisect: kernel '%s': its build's base %s is "
			"replaced by each commit tested",
			k->name, k->build.base);
	*out = k;
	return 0;
}

/* Edits in the checkout would be in no commit that bisect builds. */
static int check_clean(const struct bisect_state *s)
{
	char *err = NULL;
	int ret;

	ret = bisect_git__dirty(s->tree, &err);
	if (ret == 1)
		ret = USAGE("the tree %s has uncommitted changes to tracked "
			    "files: bisect builds commits, never the "
			    "checkout; commit or stash them first",
			    s->tree);
	else if (ret < 0)
		pr_err("bisect: %s", err);
	free(err);
	return ret;
}

/* How a step is judged, and how many trials it may take to judge it. */
static int pick_judgement(struct bisect_state *s, const struct bisect_opts *o,
			  const struct matrix *m)
{
	s->kind = bisect_judge__kind(s->metric);
	s->alpha = STATS_ALPHA;
	if (o->threshold_pct >= 0 && s->kind == BISECT_BY_TEST)
		return USAGE("--threshold: %s is judged by the Mann-Whitney "
			     "test against both ends; a threshold is for a "
			     "probe's calls per GB",
			     s->metric);
	s->threshold_pct = o->threshold_pct >= 0 ? o->threshold_pct : 50;
	if (!(s->threshold_pct > 0 && s->threshold_pct < 100))
		return USAGE("--threshold %g: a percentage of the way from the "
			     "good end's figure to the bad end's, between 0 "
			     "and 100",
			     s->threshold_pct);
	s->repetitions = o->repetitions > 0 ? (unsigned int)o->repetitions :
					      m->run.repetitions;
	if (s->kind == BISECT_BY_TEST &&
	    s->repetitions < bisect_judge__min_trials(s->alpha)) {
		if (o->repetitions > 0)
			pr_warn("bisect: %u trials a step cannot reach "
				"p < %g: %u each",
				s->repetitions, s->alpha,
				bisect_judge__min_trials(s->alpha));
		s->repetitions = bisect_judge__min_trials(s->alpha);
	}
	s->max_repetitions = o->max_repetitions > 0 ?
				     (unsigned int)o->max_repetitions :
				     4 * s->repetitions;
	if (s->max_repetitions < s->repetitions)
		s->max_repetitions = s->repetitions;
	return 0;
}

/* What the state remembers of how it was asked, for a resume to compare. */
static int state_origin(struct bisect_state *s, const struct bisect_opts *o,
			const struct matrix *m, const struct matrix_kernel *k,
			const char *matrix_sha)
{
	int ret = 0;

	s->good_arg = xstrdup(o->good);
	s->bad_arg = xstrdup(o->bad);
	s->matrix = realpath(o->matrix, NULL);
	if (!s->matrix)
		s->matrix = xstrdup(o->matrix);
	s->matrix_sha256 = xstrdup(matrix_sha);
	s->run_name = xasprintf("%s-bisect", m->run.name);
	if (o->workdir)
		s->workdir = xstrdup(o->workdir);
	else
		ret = bisect__default_workdir(&k->build, &s->workdir);
	s->started_at = now_utc();
	return ret;
}

/* Everything asked, checked before the first build. */
static int state_new(struct bisect_state *s, const struct bisect_opts *o,
		     const char *db_path, const char *matrix_sha)
{
	struct run_ctx ctx = { 0 };
	const struct matrix_kernel *k;
	struct matrix *m;
	int ret;

	if (!o->good || !o->bad)
		return USAGE("both ends are needed: --good REV --bad REV");
	if (o->metric && o->probe)
		return USAGE("--metric and --probe name the same thing: one "
			     "of them");
	if (!o->metric && !o->probe)
		return USAGE("which figure? --metric NAME (throughput, "
			     "iotlb_sync_per_gb, ...) or --probe NAME");
	ret = run_session__load(&ctx, o->matrix, true);
	if (ret) {
		ret = -EINVAL;
		goto out;
	}
	m = ctx.m;
	ret = pick_kernel(m, o, &k);
	if (ret)
		goto out;
	memset(s, 0, sizeof(*s));
	s->tree = xstrdup(k->build.tree);
	if (o->kernel)
		s->kernel = xstrdup(k->name);
	ret = check_clean(s);
	if (ret)
		goto out;
	ret = pick_mode(m, o->mode, &s->mode);
	if (!ret)
		ret = pick_workload(m, o->workload, &s->workload);
	if (ret)
		goto out;
	s->metric = o->probe ?
			    xasprintf("%s%s", o->probe, STORE_PER_GB_SUFFIX) :
			    xstrdup(o->metric);
	ret = check_metric(m, s->workload, db_path, s->metric);
	if (!ret)
		ret = pick_judgement(s, o, m);
	if (!ret)
		ret = check_ends(s, o);
	if (!ret)
		ret = state_origin(s, o, m, k, matrix_sha);
out:
	run_session__release(&ctx);
	return ret;
}

static struct bisect_step *step_add(struct bisect_state *s, const char *commit)
{
	struct bisect_step *st;

	s->steps = xrealloc(s->steps, (s->nr_steps + 1) * sizeof(*s->steps));
	st = &s->steps[s->nr_steps++];
	memset(st, 0, sizeof(*st));
	st->commit = xstrdup(commit);
	st->repetitions = s->repetitions;
	st->p_good = st->p_bad = NAN;
	return st;
}

static int save(struct bisect_state *s)
{
	char *err = NULL;
	int ret = bisect_state__save(s, &err);

	if (ret)
		pr_err("bisect: %s", err);
	free(err);
	return ret;
}

/* Measure @st to its repetitions; its own verdict is the caller's. */
static int measure(struct bisect_ctx *c, struct bisect_step *st,
		   const char *what)
{
	char *subj = bisect__subject(c->s, st->commit);
	int ret;

	pr_info("bisect: %s %.*s \"%s\": %u trial%s of %s in %s", what,
		BISECT_ABBREV, st->commit, subj, st->repetitions,
		st->repetitions == 1 ? "" : "s", c->s->workload, c->s->mode);
	free(subj);
	st->verdict = BISECT_UNKNOWN;
	ret = bisect_step__measure(c, st);
	if (!ret)
		ret = save(c->s);
	return ret;
}

static double *copy_of(const struct bisect_step *st)
{
	double *v = xcalloc(st->n ? st->n : 1, sizeof(double));

	memcpy(v, st->values, st->n * sizeof(double));
	return v;
}

static int judge_ends(struct bisect_state *s, struct bisect_ends *e)
{
	double *g = copy_of(&s->steps[0]), *b = copy_of(&s->steps[1]);
	int ret;

	ret = bisect_judge__ends(s->kind, g, s->steps[0].n, b, s->steps[1].n,
				 s->threshold_pct, s->alpha, e);
	free(g);
	free(b);
	return ret;
}

/* The ends, measured (again, with more trials, while a test can't tell). */
static int ends(struct bisect_ctx *c, struct bisect_ends *e)
{
	struct bisect_state *s = c->s;
	static const char *const role[] = { "good end", "bad end" };
	size_t i;
	int ret;

	if (s->nr_steps < 2) {
		step_add(s, s->good);
		step_add(s, s->bad);
	}
	for (;;) {
		for (i = 0; i < 2; i++) {
			struct bisect_step *st = &s->steps[i];

			if (st->verdict != BISECT_UNKNOWN &&
			    st->n >= st->repetitions)
				continue;
			ret = measure(c, st, role[i]);
			if (ret)
				return ret;
			if (st->verdict == BISECT_SKIP) {
				pr_err("bisect: the %s %.*s cannot be measured: "
				       "%s",
				       role[i], BISECT_ABBREV, st->commit,
				       st->why);
				return -EIO;
			}
			st->verdict = i ? BISECT_BAD : BISECT_GOOD;
			ret = save(s);
			if (ret)
				return ret;
		}
		ret = judge_ends(s, e);
		if (ret)
			return ret;
		if (e->differ || s->kind == BISECT_BY_THRESHOLD ||
		    s->steps[0].repetitions >= s->max_repetitions)
			return 0;
		for (i = 0; i < 2; i++) {
			struct bisect_step *st = &s->steps[i];

			st->repetitions += s->repetitions;
			if (st->repetitions > s->max_repetitions)
				st->repetitions = s->max_repetitions;
		}
		pr_info("bisect: the ends do not differ yet (p = %.3g): %u "
			"trials each",
			e->p, s->steps[0].repetitions);
	}
}

static int judge_step(struct bisect_state *s, const struct bisect_ends *e,
		      struct bisect_step *st)
{
	double *g = copy_of(&s->steps[0]), *b = copy_of(&s->steps[1]);
	double *v = copy_of(st);

	st->verdict = bisect_judge__step(s->kind, e, g, s->steps[0].n, b,
					 s->steps[1].n, v, st->n, s->alpha,
					 &st->p_good, &st->p_bad);
	free_all(g, b, v);
	return st->verdict;
}

static int test_one(struct bisect_ctx *c, const struct bisect_ends *e,
		    const char *commit, size_t left)
{
	struct bisect_state *s = c->s;
	struct bisect_step *st = bisect_state__step(s, commit);
	char *what;
	int ret;

	if (!st)
		st = step_add(s, commit);
	what = xasprintf("step (%zu left, at most %u more build%s):", left,
			 bisect_search__max_steps(left),
			 bisect_search__max_steps(left) == 1 ? "" : "s");
	for (;;) {
		ret = measure(c, st, what);
		if (ret || st->verdict == BISECT_SKIP)
			break;
		if (judge_step(s, e, st) != BISECT_UNKNOWN)
			break;
		if (st->repetitions >= s->max_repetitions) {
			free(st->why);
			st->why = xasprintf("inconclusive after %zu trials "
					    "(p = %.3g against the good end, "
					    "%.3g against the bad)",
					    st->n, st->p_good, st->p_bad);
			st->verdict = BISECT_SKIP;
			break;
		}
		st->repetitions += s->repetitions;
		if (st->repetitions > s->max_repetitions)
			st->repetitions = s->max_repetitions;
	}
	free(what);
	if (!ret)
		ret = save(s);
	if (!ret)
		bisect__print_step(s, st, stderr);
	return ret;
}

static int search(struct bisect_ctx *c, const struct bisect_ends *e)
{
	struct bisect_state *s = c->s;
	struct bisect_search q = { .n = s->nr_candidates };
	enum bisect_next what;
	size_t at, to, i, left;
	int ret;

	q.v = xcalloc(q.n, sizeof(*q.v));
	for (;;) {
		for (i = 0; i < q.n; i++) {
			struct bisect_step *st =
				bisect_state__step(s, s->candidates[i]);

			q.v[i] = st ? st->verdict : BISECT_UNKNOWN;
		}
		q.v[q.n - 1] = BISECT_BAD;
		ret = bisect_search__next(&q, &what, &at, &to);
		if (ret) {
			pr_err("bisect: the verdicts contradict each other "
			       "(a good commit after a bad one): see "
			       "`iommu-bench bisect log`");
			break;
		}
		if (what == BISECT_FOUND) {
			s->status = BISECT_STATUS_FOUND;
			s->first_bad = xstrdup(s->candidates[at]);
			break;
		}
		if (what == BISECT_AMBIGUOUS) {
			s->status = BISECT_STATUS_AMBIGUOUS;
			break;
		}
		for (i = left = 0; i < q.n; i++)
			left += q.v[i] == BISECT_UNKNOWN;
		ret = test_one(c, e, s->candidates[at], left);
		if (ret)
			break;
	}
	free(q.v);
	if (!ret)
		ret = save(s);
	return ret;
}

static int read_matrix(const char *path, char **text, size_t *len,
		       char sha[SHA256_HEX_SIZE])
{
	int ret = read_file(path, text, len);

	if (ret) {
		pr_err("bisect: cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	sha256__hex(*text, *len, sha);
	return 0;
}

static int exit_of(int ret)
{
	if (ret == -EINVAL)
		return EXIT_USAGE;
	if (ret == -EINTR)
		return EXIT_INTERRUPTED;
	return ret ? EXIT_WORK_FAILED : EXIT_OK;
}

static int open_state(const struct bisect_opts *o, const char *path,
		      struct bisect_state *s, bool *exists)
{
	char *err = NULL;
	int ret = bisect_state__load(path, s, &err);

	*exists = !ret;
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		pr_err("bisect: %s", err ? err : strerror(-ret));
		free(err);
		return ret == -EINVAL && o->fresh ? 0 : -EIO;
	}
	return 0;
}

/* --resume needs one running; without it, a running one is not replaced. */
static int check_resume(const struct bisect_opts *o, const char *path,
			const struct bisect_state *s, bool exists)
{
	if (!o->resume) {
		if (exists && s->status == BISECT_STATUS_RUNNING && !o->fresh)
			return USAGE("a bisection of %s..%s (%s) is in "
				     "progress in %s: --resume continues it, "
				     "--new starts over",
				     s->good_arg, s->bad_arg, s->metric, path);
		return 0;
	}
	if (!exists)
		return USAGE("--resume: no bisection in progress for %s (%s "
			     "does not exist)",
			     o->db_path, path);
	if (s->status != BISECT_STATUS_RUNNING)
		return USAGE("--resume: the bisection in %s has ended (%s); "
			     "`bisect log` shows it",
			     path, bisect_status__name(s->status));
	return 0;
}

/* A new bisection in @s, said and saved before its first build. */
static int start(const struct bisect_opts *o, const char *path, const char *sha,
		 struct bisect_state *s)
{
	unsigned int steps;
	int ret;

	bisect_state__release(s);
	ret = state_new(s, o, o->db_path, sha);
	if (ret)
		return ret;
	s->path = xstrdup(path);
	steps = bisect_search__max_steps(s->nr_candidates);
	pr_info("bisect: %zu commits after the good end, %u build%s at most "
		"besides the ends; %s in %s, judged by %s",
		s->nr_candidates, steps, steps == 1 ? "" : "s", s->workload,
		s->mode,
		s->kind == BISECT_BY_THRESHOLD ? "threshold" : "Mann-Whitney");
	return save(s);
}

int bisect__main(const struct bisect_opts *o)
{
	char sha[SHA256_HEX_SIZE],
		*path = o->state_path ? xstrdup(o->state_path) :
					bisect_state__path(o->db_path);
	struct bisect_state s = { 0 };
	struct bisect_ctx c = {
		.s = &s,
		.o = o,
		.db_path = o->db_path,
		.jobs = o->jobs,
	};
	struct bisect_ends e;
	bool exists;
	int ret;

	ret = open_state(o, path, &s, &exists);
	if (!ret)
		ret = check_resume(o, path, &s, exists);
	if (ret)
		goto out;
	ret = read_matrix(o->resume ? s.matrix : o->matrix, &c.matrix_text,
			  &c.matrix_len, sha);
	if (ret)
		goto out;
	if (o->resume && strcmp(sha, s.matrix_sha256)) {
		ret = USAGE("--resume: %s changed since the bisection began; "
			    "its steps would not be comparable (--new starts "
			    "over)",
			    s.matrix);
		goto out;
	}
	if (!o->resume) {
		ret = start(o, path, sha, &s);
		if (ret)
			goto out;
	}
	ret = ends(&c, &e);
	if (ret)
		goto out;
	if (!e.differ) {
		s.status = BISECT_STATUS_NO_DIFFERENCE;
		ret = save(&s);
	} else {
		ret = search(&c, &e);
	}
	if (!ret)
		bisect__print_result(&s, o->json);
	if (!ret && s.status != BISECT_STATUS_FOUND)
		ret = -ESRCH;
out:
	free(c.matrix_text);
	free(path);
	bisect_state__release(&s);
	return ret == -ESRCH ? EXIT_WORK_FAILED : exit_of(ret);
}
