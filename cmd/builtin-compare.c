// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench compare: benchstat for IOMMU modes. Stored runs (or CSV
 * files of label,value rows) become a table with a row per workload and
 * metric, a column per mode, kernel, host or run, each cell's median and
 * confidence interval, and every column against the baseline: change,
 * interval, Mann-Whitney p, better or worse by the metric's direction.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "output.h"
#include "parse-options.h"
#include "report/compare-print.h"
#include "report/cost-print.h"
#include "analysis/dataset.h"
#include "report/noise-print.h"
#include "analysis/regress.h"
#include "report/report-opts.h"
#include "units.h"
#include "util.h"

static const char *const compare_usage[] = {
	"iommu-bench compare [--run <ID>]... [--by <AXIS>] [--baseline <NAME>] [--only <KEY=VALUE>]... [--json | --csv]",
	"iommu-bench compare --aa [--run <ID>]... [--only <KEY=VALUE>]... [--json]",
	"iommu-bench compare --cost [--at <RATES>] [--run <ID>]... [--by <AXIS>] [--baseline <NAME>] [--only <KEY=VALUE>]... [--json]",
	"iommu-bench compare [--better higher|lower] [--json | --csv] <FILE.csv>...",
	NULL,
};

struct compare_args {
	struct strvec runs, only, files;
	const char *by, *baseline, *alpha, *conf, *cv_max, *better, *unit;
	const char *at;
	bool csv, aa, cost;
};

static int parse_better(const char *s, enum store_better *b)
{
	if (!s || !strcmp(s, "none"))
		*b = STORE_BETTER_NONE;
	else if (!strcmp(s, "higher"))
		*b = STORE_BETTER_HIGHER;
	else if (!strcmp(s, "lower"))
		*b = STORE_BETTER_LOWER;
	else
		return -EINVAL;
	return 0;
}

/* Statistics options, each checked with the value named on error. */
static int parse_stats(const struct compare_args *a, struct cmp_opts *o)
{
	double pct;

	if (global__levels(a->alpha, a->conf, &o->alpha, &o->conf))
		return -EINVAL;
	if (a->cv_max) {
		if (report_opt_number("--cv-max", a->cv_max, 0, 1000, &pct))
			return -EINVAL;
		o->cv_max = pct / 100;
	}
	o->baseline = a->baseline;
	return 0;
}

/*
 * --aa: the noise floor of each metric --only names (throughput by
 * default), pooled over the selected runs.
 */
static int print_noise(struct rdb *r, const int64_t *ids, size_t nr,
		       const struct ds_filter *f, const struct cmp_opts *o)
{
	json_t *all = json_array();
	struct noise n;
	bool named = false;
	size_t i;
	int err = 0;

	for (i = 0; !err && i <= f->nr; i++) {
		const char *metric;

		if (i < f->nr && f->v[i].key != DS_FILTER_METRIC)
			continue;
		if (i == f->nr && named)
			break;
		metric = i < f->nr ? f->v[i].value : REGRESS_DEFAULT_METRIC;
		named = true;
		err = noise__load(r, ids, nr, metric, f, o, &n);
		if (err)
			break;
		if (global.json)
			json_array_append_new(all, noise__json(&n));
		else
			noise__print_text(&n, stdout);
		noise__release(&n);
	}
	if (!err && global.json)
		output__json(json_incref(all));
	json_decref(all);
	return err ? EXIT_WORK_FAILED : EXIT_OK;
}

static int load_db(const struct compare_args *a, const struct cmp_opts *o,
		   struct dataset *ds, struct cost_load *load)
{
	struct ds_filter f = { 0 };
	struct rdb_runs runs;
	struct rdb r;
	int64_t *ids = NULL;
	size_t i, nr;
	int err, status = EXIT_USAGE;

	for (i = 0; i < a->only.nr; i++)
		if (ds_filter__add(&f, a->only.v[i]))
			goto out_filter;
	if (global__rdb_open(&r)) {
		status = EXIT_WORK_FAILED;
		goto out_filter;
	}
	err = rdb__runs(&r, &runs);
	if (err) {
		status = EXIT_WORK_FAILED;
		goto out_db;
	}
	err = report_select_runs(&runs, &a->runs, &ids, &nr);
	if (err) {
		status = err == -EINVAL || runs.nr ? EXIT_USAGE :
						     EXIT_WORK_FAILED;
		goto out_runs;
	}
	if (a->aa) {
		status = print_noise(&r, ids, nr, &f, o);
		goto out_runs;
	}
	status = EXIT_WORK_FAILED;
	if (a->cost ? cost__load(ds, &r, ids, nr, &f, load) :
		      dataset__load_db(ds, &r, ids, nr, &f))
		goto out_runs;
	status = EXIT_USAGE;
	if (dataset__check_filter(ds, &f))
		goto out_runs;
	status = EXIT_OK;
	if (!ds->nr_series) {
		pr_err("%s: no measured trials in the selected run%s",
		       global__db_path(), nr == 1 ? "" : "s");
		status = EXIT_WORK_FAILED;
	}
	if (ds->mode_mismatch)
		pr_warn("left out %zu trial%s whose verified mode was not "
			"the one requested",
			ds->mode_mismatch, ds->mode_mismatch == 1 ? "" : "s");
out_runs:
	free(ids);
	rdb__runs_release(&runs);
out_db:
	rdb__close(&r);
out_filter:
	ds_filter__release(&f);
	return status;
}

static int load_csv(const struct compare_args *a, struct dataset *ds)
{
	enum store_better better;
	size_t i;

	if (parse_better(a->better, &better)) {
		pr_err("--better wants higher, lower or none, got '%s'",
		       a->better);
		return EXIT_USAGE;
	}
	for (i = 0; i < a->files.nr; i++)
		if (dataset__load_csv(ds, a->files.v[i], better,
				      a->unit ? a->unit : ""))
			return EXIT_USAGE;
	return EXIT_OK;
}

static int print_table(const struct cmp_table *t, bool csv)
{
	int status = EXIT_OK;

	if (global.json)
		status = cmp__print_json(t, stdout) ? EXIT_WORK_FAILED :
						      EXIT_OK;
	else if (csv)
		cmp__print_csv(t, stdout);
	else
		cmp__print_text(t, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("writing the comparison: %s", strerror(errno));
		status = EXIT_WORK_FAILED;
	}
	return status;
}

/* --at 10G,25G: line rates in Gbit/s, each as iperf3's -b reads it. */
static int parse_at(const char *arg, struct cost_table *ct)
{
	char *copy = xstrdup(arg ? arg : "10G,25G,100G"), *tok, *save = NULL;
	char err[UNITS_ERR_MAX];
	uint64_t bps;
	int ret = 0;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (units__parse_bitrate(tok, &bps, err, sizeof(err)) || !bps) {
			pr_err("--at: '%s' is not a line rate (%s): give rates "
			       "as iperf3's -b reads them, e.g. 10G,25G,100G",
			       tok, bps ? err : "zero");
			ret = -EINVAL;
			break;
		}
		ct->at_gbit = xrealloc(ct->at_gbit,
				       (ct->nr_at + 1) * sizeof(*ct->at_gbit));
		ct->at_gbit[ct->nr_at++] = (double)bps / 1e9;
	}
	free(copy);
	if (!ret && !ct->nr_at) {
		pr_err("--at: no line rate in '%s'", arg);
		ret = -EINVAL;
	}
	return ret;
}

/* --cost: where the CPU goes per GB, and what line rates cost. */
static int cost(const struct compare_args *a, const struct cmp_opts *o)
{
	struct cost_table ct = { 0 };
	int status = EXIT_USAGE, err;

	dataset__init(&ct.ds);
	if (parse_at(a->at, &ct))
		goto out;
	status = load_db(a, o, &ct.ds, &ct.load);
	if (status != EXIT_OK)
		goto out;
	if (!ct.ds.nr_series)
		goto out;
	if (ct.load.no_cpu == ct.load.trials && !ct.load.bench) {
		pr_err("%s: none of the %zu measured trials has both a "
		       "throughput and busy CPU, or a dma_map benchmark's "
		       "times: --cost needs iperf3 and procstat ([collect] "
		       "procstat = true), or a dma_map workload",
		       global__db_path(), ct.load.trials);
		status = EXIT_WORK_FAILED;
		goto out;
	}
	err = cost__build(&ct, o);
	if (err) {
		status = EXIT_USAGE;
		goto out;
	}
	if (global.json) {
		status = cost__print_json(&ct, stdout) ? EXIT_WORK_FAILED :
							 EXIT_OK;
	} else {
		cost__print_text(&ct, stdout);
		status = EXIT_OK;
	}
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("writing the costs: %s", strerror(errno));
		status = EXIT_WORK_FAILED;
	}
	cost__release(&ct);
out:
	free(ct.at_gbit);
	dataset__release(&ct.ds);
	return status;
}

/*
 * The options that exclude each other, or that mean nothing without
 * another: each refused with exit status 2 and the reason.
 */
static void check_combinations(const struct compare_args *a)
{
	int i;

	if (a->csv && global.json)
		usage_error(NULL, NULL, "--json and --csv exclude each other");
	if (a->files.nr && (a->runs.nr || a->only.nr || a->by))
		usage_error(NULL, NULL,
			    "CSV files are compared by label: --run, --only "
			    "and --by are for the database");
	if (a->aa && a->files.nr)
		usage_error(NULL, NULL,
			    "--aa reads the trials' boots from the database, "
			    "not CSV files");
	if (!a->files.nr && (a->better || a->unit))
		usage_error(NULL, NULL,
			    "--better and --unit describe CSV input; stored "
			    "metrics carry their own");
	if (a->cost && (a->files.nr || a->aa || a->csv))
		usage_error(NULL, NULL,
			    "--cost reads trials and probes from the database: "
			    "not with CSV files, --aa or --csv");
	if (a->at && !a->cost)
		usage_error(NULL, NULL, "--at is for --cost");
	for (i = 0; a->cost && i < (int)a->only.nr; i++)
		if (!strncmp(a->only.v[i], "metric=", 7))
			usage_error(NULL, NULL,
				    "--cost shows its own figures: --only "
				    "metric= is for the plain comparison");
}

int cmd_compare(int argc, const char **argv)
{
	struct compare_args a = { 0 };
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_BOOLEAN(0, "csv", &a.csv, "CSV on stdout, a line per cell"),
		OPT_SELECTION(&a.runs, &a.by, &a.baseline, &a.only),
		OPT_LEVELS(&a.alpha, &a.conf),
		OPT_CV_MAX(&a.cv_max),
		OPT_BOOLEAN(0, "aa", &a.aa,
			    "the noise floor instead: per cell, the CV within "
			    "and between boots, and the cell against itself"),
		OPT_BOOLEAN(0, "cost", &a.cost,
			    "where the CPU goes instead: busy CPU time per GB "
			    "moved, split by probed path, and the cores line "
			    "rates need (docs/cost.md)"),
		OPT_STRING(0, "at", &a.at, "RATES",
			   "with --cost: the line rates to cost, as iperf3's "
			   "-b writes them (default 10G,25G,100G)"),
		OPT_GROUP("CSV input (files of label,value lines)"),
		OPT_STRING(0, "better", &a.better, "DIR",
			   "higher, lower or none (default): the direction "
			   "of the CSV numbers"),
		OPT_STRING(0, "unit", &a.unit, "UNIT",
			   "the unit of the CSV numbers (e.g. bit/s)"),
		OPT_GROUP(
			"Cells are 'median ± CI'; the delta column is the Hodges-Lehmann\n"
			"change against the baseline with the interval of the Mann-Whitney\n"
			"test, its p-value and n; '~' means no significant difference, and\n"
			"the interval then holds no change. Trials of several runs pool\n"
			"unless --by run. Exit status: 0 ok; 1 the database could not be\n"
			"read or holds no matching trials; 2 bad usage, including an\n"
			"unknown run, --only value or --baseline."),
		OPT_END(),
	};
	struct cmp_opts o = CMP_OPTS_DEFAULT;
	struct cmp_table t;
	struct dataset ds;
	int status, by, i;

	argc = parse_options(argc, argv, opts, compare_usage, 0);
	for (i = 0; i < argc; i++)
		strvec__push(&a.files, argv[i]);
	check_combinations(&a);
	if (a.by) {
		by = ds__dim_parse(a.by);
		if (by < 0 || by == DS_WORKLOAD || by == DS_LABEL)
			usage_error(NULL, NULL,
				    "--by wants mode, kernel, host or run, got "
				    "'%s'",
				    a.by);
		o.by = by;
	}
	if (a.files.nr)
		o.by = DS_LABEL;
	dataset__init(&ds);
	status = EXIT_USAGE;
	if (parse_stats(&a, &o))
		goto out;
	if (a.cost) {
		status = cost(&a, &o);
		goto out;
	}
	status = a.files.nr ? load_csv(&a, &ds) : load_db(&a, &o, &ds, NULL);
	if (status != EXIT_OK || a.aa)
		goto out;
	status = cmp__build(&ds, &o, &t);
	if (status) {
		status = EXIT_USAGE;
		goto out;
	}
	status = print_table(&t, a.csv);
	cmp__release(&t);
out:
	dataset__release(&ds);
	strvec__release(&a.runs);
	strvec__release(&a.only);
	strvec__release(&a.files);
	return status;
}
