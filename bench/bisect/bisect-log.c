// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a bisection says: each step as it is judged, the end, and the
 * log, which is git bisect log's (so `git bisect replay` takes it) with
 * each step's figure in the comment above its verdict.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect/bisect.h"
#include "log.h"
#include "stats/stats.h"
#include "util.h"

static double median_of(const struct bisect_step *st)
{
	double *v, med;

	if (!st->n)
		return NAN;
	v = xcalloc(st->n, sizeof(double));
	memcpy(v, st->values, st->n * sizeof(double));
	stats__sort(v, st->n);
	med = stats__median(v, st->n);
	free(v);
	return med;
}

/* "252172 (1 trial, run 7)" or "9.41e9 (median of 5 trials, p ...)" */
static void figure(const struct bisect_state *s, const struct bisect_step *st,
		   FILE *fp)
{
	if (!st->n) {
		fprintf(fp, "not measured");
		return;
	}
	fprintf(fp, "%s %.6g (%s%zu trial%s, run %lld", s->metric,
		median_of(st), st->n > 1 ? "median of " : "", st->n,
		st->n == 1 ? "" : "s", (long long)st->run_id);
	if (!isnan(st->p_good))
		fprintf(fp,
			"; p = %.3g against the good end, %.3g against "
			"the bad",
			st->p_good, st->p_bad);
	fprintf(fp, ")");
}

char *bisect__subject(const struct bisect_state *s, const char *commit)
{
	char *subj = NULL, *err = NULL;

	if (bisect_git__subject(s->tree, commit, &subj, &err))
		subj = xstrdup("?");
	free(err);
	return subj;
}

void bisect__print_step(const struct bisect_state *s,
			const struct bisect_step *st, FILE *fp)
{
	fprintf(fp, "bisect: %.*s is %s: ", BISECT_ABBREV, st->commit,
		st->verdict == BISECT_SKIP ? "skipped" :
					     bisect_verdict__name(st->verdict));
	if (st->verdict == BISECT_SKIP)
		fprintf(fp, "%s", st->why ? st->why : "?");
	else
		figure(s, st, fp);
	fputc('\n', fp);
}

struct bisect_cost {
	unsigned int builds, cached, boots, steps;
	double first_s, incr_median_s;
};

static void cost_of(const struct bisect_state *s, struct bisect_cost *c)
{
	double *incr = xcalloc(s->nr_steps + 1, sizeof(double));
	size_t i, n = 0;

	memset(c, 0, sizeof(*c));
	c->first_s = NAN;
	for (i = 0; i < s->nr_steps; i++) {
		const struct bisect_step *st = &s->steps[i];

		c->boots += st->boots;
		if (st->cached) {
			c->cached++;
			continue;
		}
		if (st->build_s <= 0)
			continue;
		c->builds++;
		if (isnan(c->first_s))
			c->first_s = st->build_s;
		else
			incr[n++] = st->build_s;
	}
	c->steps = s->nr_steps > 2 ? s->nr_steps - 2 : 0;
	stats__sort(incr, n);
	c->incr_median_s = n ? stats__median(incr, n) : NAN;
	free(incr);
}

/* The commit before @at among the candidates, or the good end. */
static const struct bisect_step *before(struct bisect_state *s, const char *at)
{
	size_t i;

	for (i = 0; i < s->nr_candidates; i++)
		if (!strcmp(s->candidates[i], at))
			break;
	if (i == 0 || i == s->nr_candidates)
		return &s->steps[0];
	return bisect_state__step(s, s->candidates[i - 1]) ?: &s->steps[0];
}

static json_t *figure_json(const struct bisect_step *st)
{
	double med = median_of(st);

	return json_pack("{s:s, s:o, s:i, s:I}", "commit", st->commit, "median",
			 isnan(med) ? json_null() : json_real(med), "trials",
			 (int)st->n, "run", (json_int_t)st->run_id);
}

static void print_json(struct bisect_state *s, const struct bisect_cost *c)
{
	json_t *o = bisect_state__json(s);

	json_object_set_new(
		o, "cost",
		json_pack(
			"{s:i, s:i, s:i, s:i, s:o, s:o}", "builds",
			(int)c->builds, "cached", (int)c->cached, "boots",
			(int)c->boots, "steps", (int)c->steps, "first_build_s",
			isnan(c->first_s) ? json_null() : json_real(c->first_s),
			"incremental_build_s",
			isnan(c->incr_median_s) ? json_null() :
						  json_real(c->incr_median_s)));
	if (s->status == BISECT_STATUS_FOUND) {
		char *subj = bisect__subject(s, s->first_bad);

		json_object_set_new(o, "subject", json_string(subj));
		json_object_set_new(o, "before",
				    figure_json(before(s, s->first_bad)));
		json_object_set_new(
			o, "after",
			figure_json(bisect_state__step(s, s->first_bad)));
		free(subj);
	}
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	fputc('\n', stdout);
	json_decref(o);
}

static void print_cost(const struct bisect_cost *c)
{
	printf("%u build%s", c->builds, c->builds == 1 ? "" : "s");
	if (!isnan(c->first_s))
		printf(" (the first %.0f s", c->first_s);
	if (!isnan(c->incr_median_s))
		printf(", then %.0f s each, a median", c->incr_median_s);
	if (!isnan(c->first_s))
		printf(")");
	if (c->cached)
		printf(", %u from the cache", c->cached);
	printf(", %u boot%s, %u step%s besides the ends\n", c->boots,
	       c->boots == 1 ? "" : "s", c->steps, c->steps == 1 ? "" : "s");
}

void bisect__print_result(const struct bisect_state *cs, bool json)
{
	struct bisect_state *s = (struct bisect_state *)cs;
	struct bisect_cost c;
	size_t i;

	cost_of(s, &c);
	if (json) {
		print_json(s, &c);
		return;
	}
	if (s->status == BISECT_STATUS_FOUND) {
		const struct bisect_step *b = before(s, s->first_bad);
		const struct bisect_step *a =
			bisect_state__step(s, s->first_bad);
		char *subj = bisect__subject(s, s->first_bad);

		printf("%s is the first bad commit\n    %s\n", s->first_bad,
		       subj);
		printf("%s in %s, %s: %.6g before it (%.*s), %.6g at it\n",
		       s->metric, s->mode, s->workload, median_of(b),
		       BISECT_ABBREV, b->commit, median_of(a));
		free(subj);
	} else if (s->status == BISECT_STATUS_NO_DIFFERENCE) {
		printf("the ends do not differ in %s: good ", s->metric);
		figure(s, &s->steps[0], stdout);
		printf(", bad ");
		figure(s, &s->steps[1], stdout);
		printf("\n");
	} else if (s->status == BISECT_STATUS_AMBIGUOUS) {
		printf("skipped commits hide the first bad one; it is one "
		       "of:\n");
		for (i = 0; i < s->nr_candidates; i++) {
			const struct bisect_step *st =
				bisect_state__step(s, s->candidates[i]);

			if (st && st->verdict == BISECT_GOOD)
				continue;
			printf("    %s %s\n", s->candidates[i],
			       st && st->why ? st->why : "");
			if (st && st->verdict == BISECT_BAD)
				break;
		}
	}
	print_cost(&c);
	printf("every step is a run named %s: iommu-bench compare --by "
	       "kernel --run name:%s --only metric=%s\n",
	       s->run_name, s->run_name, s->metric);
}

static void log_line(const struct bisect_state *s, const struct bisect_step *st,
		     const char *word, FILE *fp)
{
	char *subj = bisect__subject(s, st->commit);

	fprintf(fp, "# %s: [%s] %s\n# ", word, st->commit, subj);
	if (st->verdict == BISECT_SKIP)
		fprintf(fp, "%s", st->why ? st->why : "skipped");
	else
		figure(s, st, fp);
	if (st->cached)
		fprintf(fp, "; build from the cache");
	else if (st->build_s > 0)
		fprintf(fp, "; built in %.0f s", st->build_s);
	fprintf(fp, "\ngit bisect %s %s\n", word, st->commit);
	free(subj);
}

void bisect__log_lines(const struct bisect_state *s, FILE *fp)
{
	size_t i;

	fprintf(fp,
		"# iommu-bench bisect %s --good %s --bad %s --metric %s "
		"--mode %s --workload %s (%s)\n",
		s->matrix, s->good_arg, s->bad_arg, s->metric, s->mode,
		s->workload, bisect_status__name(s->status));
	fprintf(fp, "git bisect start\n");
	for (i = 0; i < s->nr_steps; i++) {
		const struct bisect_step *st = &s->steps[i];

		if (st->verdict == BISECT_UNKNOWN)
			continue;
		log_line(s, st,
			 i == 0 ? "good" :
			 i == 1 ? "bad" :
				  bisect_verdict__name(st->verdict),
			 fp);
	}
	if (s->status == BISECT_STATUS_FOUND) {
		char *subj = bisect__subject(s, s->first_bad);

		fprintf(fp, "# first bad commit: [%s] %s\n", s->first_bad,
			subj);
		free(subj);
	}
}

int bisect__log(const char *db_path, bool json)
{
	char *path = bisect_state__path(db_path), *err = NULL;
	struct bisect_state s;
	int ret;

	ret = bisect_state__load(path, &s, &err);
	if (ret == -ENOENT) {
		pr_err("bisect log: no bisection in %s (%s does not exist)",
		       db_path, path);
		free(path);
		return ret;
	}
	free(path);
	if (ret) {
		pr_err("bisect log: %s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	if (json) {
		json_t *o = bisect_state__json(&s);

		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
		json_decref(o);
		goto out;
	}
	bisect__log_lines(&s, stdout);
out:
	bisect_state__release(&s);
	return 0;
}
