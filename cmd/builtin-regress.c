// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench regress: the nightly CI gate. Exit 0 when the candidate
 * holds up against the baseline, 1 on a regression of a gated metric
 * (significant, in the metric's bad direction, beyond its threshold), a
 * cell the candidate lost, or too few trials to judge at all; 2 for bad
 * usage. --history N adds change-point detection over the last N runs;
 * --junit FILE writes what CI systems display.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "log.h"
#include "parse-options.h"
#include "report/regress-print.h"
#include "report/report-opts.h"
#include "util.h"

static const char *const regress_usage[] = {
	"iommu-bench regress [--baseline <SEL>] [--candidate <SEL>] [--threshold [<METRIC>=]<PCT>]... [--junit <FILE>] [--json]",
	"iommu-bench regress --history <N> [--threshold [<METRIC>=]<PCT>]... [--junit <FILE>] [--json]",
	NULL,
};

struct regress_args {
	const char *baseline, *candidate, *alpha, *conf, *junit, *max_p;
	const char *inconclusive;
	struct strvec thresholds, only, metrics;
	long history, min_segment;
};

static int parse_thresholds(const struct regress_args *a,
			    struct regress_opts *o)
{
	const char *arg, *eq;
	char *opt;
	size_t i;
	double pct;
	int err;

	o->thresholds = xcalloc(a->thresholds.nr + 1, sizeof(*o->thresholds));
	for (i = 0; i < a->thresholds.nr; i++) {
		arg = a->thresholds.v[i];
		eq = strchr(arg, '=');
		opt = eq ? xasprintf("--threshold %.*s=", (int)(eq - arg),
				     arg) :
			   xstrdup("--threshold");
		err = report_opt_number(opt, eq ? eq + 1 : arg, 0, 1000, &pct);
		free(opt);
		if (err)
			return err;
		if (!eq) {
			o->default_pct = pct;
			continue;
		}
		if (eq == arg) {
			pr_err("--threshold wants PCT or METRIC=PCT, got '%s'",
			       arg);
			return -EINVAL;
		}
		o->thresholds[o->nr_thresholds].metric =
			xstrndup(arg, eq - arg);
		o->thresholds[o->nr_thresholds++].pct = pct;
	}
	return 0;
}

static int parse_args(const struct regress_args *a, struct regress_opts *o,
		      struct ds_filter *f)
{
	size_t i;
	int err = 0;

	if (global__levels(a->alpha, a->conf, &o->cmp.alpha, &o->cmp.conf))
		return -EINVAL;
	if (a->max_p &&
	    report_opt_number("--max-p", a->max_p, 0, 1, &o->cp.max_p))
		return -EINVAL;
	if (a->history < 0 || a->history == 1 || a->history > 5000) {
		pr_err("--history wants a number of runs from 2 to 5000, got "
		       "%ld",
		       a->history);
		return -EINVAL;
	}
	if (a->min_segment < 2 || a->min_segment > 100) {
		pr_err("--min-segment wants 2 to 100 runs, got %ld",
		       a->min_segment);
		return -EINVAL;
	}
	o->cp.min_size = a->min_segment;
	if (a->inconclusive && strcmp(a->inconclusive, "pass") &&
	    strcmp(a->inconclusive, "fail")) {
		pr_err("--inconclusive wants pass or fail, got '%s'",
		       a->inconclusive);
		return -EINVAL;
	}
	o->inconclusive_pass = a->inconclusive &&
			       !strcmp(a->inconclusive, "pass");
	if (a->metrics.nr)
		o->metrics = strvec__argv(&a->metrics);
	for (i = 0; !err && i < a->only.nr; i++)
		err = ds_filter__add(f, a->only.v[i]);
	return err ? err : parse_thresholds(a, o);
}

static int run_pairwise(struct rdb *r, const struct rdb_runs *runs,
			const struct regress_args *a,
			const struct regress_opts *o, const struct ds_filter *f,
			struct regress_result *res)
{
	int err;

	err = regress_sel__resolve(r, runs, "--baseline",
				   a->baseline ? a->baseline : "previous",
				   &res->base);
	if (!err)
		err = regress_sel__resolve(
			r, runs, "--candidate",
			a->candidate ? a->candidate : "latest", &res->cand);
	if (err)
		return err == -EIO ? EXIT_WORK_FAILED : EXIT_USAGE;
	err = regress__pairwise(r, o, f, res);
	if (err)
		return err == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
	if (!res->nr_items) {
		pr_err("%s: no measured trials to compare in run %lld or %lld",
		       r->path, (long long)res->base.run,
		       (long long)res->cand.run);
		return EXIT_WORK_FAILED;
	}
	return EXIT_OK;
}

/*
 * A gate that cannot reach significance at any effect size would pass
 * whatever the candidate did: say so, and fail unless told to pass.
 */
static bool powerless(const struct regress_result *res,
		      const struct regress_opts *o)
{
	size_t n = res->gated[REG_INCONCLUSIVE], m;
	char *why;

	if (!n)
		return false;
	m = n + res->gated[REG_OK] + res->gated[REG_REGRESSION] +
	    res->gated[REG_IMPROVEMENT];
	why = xasprintf("cannot judge %zu of %zu gated comparison%s: %zu "
			"trial%s a side, where %zu at alpha %g (Holm) need at "
			"least %zu a side",
			n, m, m == 1 ? "" : "s", res->short_n,
			res->short_n == 1 ? "" : "s", m, o->cmp.alpha,
			res->need_n);
	if (o->inconclusive_pass)
		pr_warn("%s (--inconclusive pass: not a failure)", why);
	else
		pr_err("%s (--inconclusive pass lets it pass)", why);
	free(why);
	return !o->inconclusive_pass;
}

/* Warnings, the verdict and the outputs; the exit status. */
static int finish(const struct regress_result *res,
		  const struct regress_history *h, const struct regress_opts *o,
		  const char *junit)
{
	bool failed;
	int status;

	failed = (res && (res->gated[REG_REGRESSION] ||
			  res->gated[REG_MISSING] || powerless(res, o))) ||
		 (h && h->unrecovered);
	status = failed ? EXIT_WORK_FAILED : EXIT_OK;
	if (global.json)
		regress__print_json(res, h, o, failed, stdout);
	else
		regress__print_text(res, h, o, log_verbosity >= LOG_INFO,
				    stdout);
	if (junit && regress__write_junit(res, h, junit))
		status = EXIT_WORK_FAILED;
	if (!global.json)
		printf("%s\n", failed ? "FAIL" : "PASS");
	return status;
}

/* The store read and judged, pairwise and over the history as asked. */
static int regress(const struct regress_args *a, const struct regress_opts *o,
		   const struct ds_filter *f)
{
	struct regress_result res = { 0 }, *resp = NULL;
	struct regress_history h, *hp = NULL;
	struct rdb_runs runs = { 0 };
	bool pairwise = !a->history || a->baseline || a->candidate;
	struct rdb r;
	int status = EXIT_WORK_FAILED;

	if (global__rdb_open(&r))
		return status;
	if (rdb__runs(&r, &runs))
		goto out_db;
	if (pairwise) {
		status = run_pairwise(&r, &runs, a, o, f, &res);
		resp = &res;
		if (status != EXIT_OK)
			goto out;
	}
	if (a->history) {
		status = EXIT_WORK_FAILED;
		if (regress__history(&r, &runs, a->history, o, f, &h))
			goto out;
		hp = &h;
	}
	status = finish(resp, hp, o, a->junit);
out:
	if (hp)
		regress__history_release(hp);
	regress__release(&res);
	rdb__runs_release(&runs);
out_db:
	rdb__close(&r);
	return status;
}

static void release_opts(struct regress_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_thresholds; i++)
		free((char *)o->thresholds[i].metric);
	free(o->thresholds);
}

int cmd_regress(int argc, const char **argv)
{
	struct regress_args a = { .min_segment = 3 };
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_STRING(0, "baseline", &a.baseline, "SEL",
			   "run id, latest, previous, run:ID, kernel:NAME or "
			   "a kernel name (default: previous)"),
		OPT_STRING(0, "candidate", &a.candidate, "SEL",
			   "likewise (default: latest)"),
		OPT_CALLBACK(0, "threshold", &a.thresholds, "[METRIC=]PCT",
			     "smallest change that counts, in percent "
			     "(default 3); repeatable",
			     parse_opt_strvec),
		OPT_LEVELS(&a.alpha, &a.conf),
		OPT_CALLBACK(0, "metric", &a.metrics, "NAME",
			     "gate on this metric (default: the matrix's "
			     "[regress] metrics, else throughput); repeatable",
			     parse_opt_strvec),
		OPT_STRING(0, "inconclusive", &a.inconclusive, "pass|fail",
			   "too few trials to judge a gated metric at all "
			   "(default: fail)"),
		OPT_CALLBACK(0, "only", &a.only, "KEY=VALUE",
			     "keep host, kernel, mode, workload or metric "
			     "VALUE; repeatable",
			     parse_opt_strvec),
		OPT_STRING(0, "junit", &a.junit, "FILE",
			   "write JUnit XML for CI test reports"),
		OPT_GROUP("history"),
		OPT_INTEGER(0, "history", &a.history, "N",
			    "change points over the last N runs"),
		OPT_STRING(0, "max-p", &a.max_p, "P",
			   "significance of a change point (default 0.001)"),
		OPT_INTEGER(0, "min-segment", &a.min_segment, "N",
			    "runs each side of a change point (default 3)"),
		OPT_GROUP(
			"A regression is a change of a gated metric in its bad direction that\n"
			"is significant (the Hodges-Lehmann interval of the Mann-Whitney test,\n"
			"Holm-adjusted across the gated comparisons, excludes no change) and\n"
			"at least the threshold. Other metrics are reported, not gated.\n"
			"With -v every comparison is listed, not only the notable ones.\n"
			"Exit status: 0 pass; 1 a regression, a cell the candidate lost, too\n"
			"few trials to judge at all, a regression still in effect in\n"
			"--history, or the database could not be read; 2 bad usage,\n"
			"including a selection or a metric that names nothing."),
		OPT_END(),
	};
	struct regress_opts o = { .cmp = CMP_OPTS_DEFAULT,
				  .default_pct = 3,
				  .cp = CP_OPTS_DEFAULT };
	struct ds_filter f = { 0 };
	int status = EXIT_USAGE;

	argc = parse_options(argc, argv, opts, regress_usage, 0);
	if (argc)
		usage_error(regress_usage, opts, "unexpected argument '%s'",
			    argv[0]);
	if (!parse_args(&a, &o, &f))
		status = regress(&a, &o, &f);
	release_opts(&o);
	ds_filter__release(&f);
	strvec__release(&a.thresholds);
	strvec__release(&a.only);
	strvec__release(&a.metrics);
	return status;
}
