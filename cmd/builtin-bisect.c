// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench bisect MATRIX --good REV --bad REV --metric NAME: which
 * commit between two kernels changed a figure, each step built, booted
 * and measured as a run of its own. `bisect log` shows where it stands.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bisect/bisect.h"
#include "bench/matrix/matrix.h"
#include "builtin.h"
#include "config-error.h"
#include "log.h"
#include "parse-options.h"
#include "util.h"

static const char *const bisect_usage[] = {
	"iommu-bench bisect <matrix.toml> --good <REV> --bad <REV> "
	"(--metric <NAME> | --probe <NAME>)\n"
	"                   [--mode <M>] [--workload <W>] [--threshold <PCT>] "
	"[--repetitions <N>]\n"
	"                   [--max-repetitions <N>] [--workdir <DIR>] "
	"[-j <N>] [--new] [--json]",
	"iommu-bench bisect --resume [<matrix.toml>] [--json]",
	"iommu-bench bisect log [--json]",
	NULL,
};

static int bisect_log(int argc, const char **argv)
{
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_END(),
	};
	static const char *const usage[] = {
		"iommu-bench bisect log [--db <PATH>] [--json]", NULL
	};

	argc = parse_options(argc, argv, opts, usage, 0);
	if (argc)
		usage_error(usage, opts, "bisect log takes no argument");
	return bisect__log(global__db_path(), global.json) ? EXIT_USAGE :
							     EXIT_OK;
}

/* The database a matrix names, read before anything is checked. */
static int db_of(const char *path, const char **db)
{
	struct config_errors errs;
	struct matrix *m = NULL;
	int ret;

	config_errors__init(&errs, path);
	ret = matrix__load(path, &m, &errs);
	/* Its warnings are said once, when the bisection checks it. */
	if (ret)
		config_errors__print(&errs, stderr);
	config_errors__release(&errs);
	if (ret)
		return ret;
	*db = global__matrix_db(m->run.db);
	/* The matrix is freed, the name kept. */
	*db = xstrdup(*db);
	matrix__free(m);
	return 0;
}

static double parse_pct(const char *s)
{
	char *end;
	double v;

	if (!s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || (*end && strcmp(end, "%")))
		return -2;
	return v;
}

/* The numbers asked, in range, into @o: 0 or EXIT_USAGE. */
static int take_numbers(struct bisect_opts *o, const char *threshold, long reps,
			long max_reps, long jobs)
{
	o->threshold_pct = parse_pct(threshold);
	if (o->threshold_pct == -2) {
		pr_err("bisect: --threshold '%s': a percentage, like 50",
		       threshold);
		return EXIT_USAGE;
	}
	if (reps < 0 || max_reps < 0 || jobs < 0 || reps > 1000 ||
	    max_reps > 1000) {
		pr_err("bisect: --repetitions, --max-repetitions and --jobs "
		       "are positive numbers (at most 1000)");
		return EXIT_USAGE;
	}
	o->repetitions = (int)reps;
	o->max_repetitions = (int)max_reps;
	o->jobs = (int)jobs;
	return 0;
}

/* The builds run elsewhere: a relative --workdir would move. */
static int absolute_workdir(struct bisect_opts *o, char **workdir)
{
	char *cwd;

	if (!o->workdir || o->workdir[0] == '/')
		return 0;
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		pr_err("bisect: --workdir %s: %s", o->workdir, strerror(errno));
		return EXIT_WORK_FAILED;
	}
	*workdir = xasprintf("%s/%s", cwd, o->workdir);
	o->workdir = *workdir;
	free(cwd);
	return 0;
}

int cmd_bisect(int argc, const char **argv)
{
	struct bisect_opts o = { .threshold_pct = -1 };
	const char *threshold = NULL, *db = NULL;
	char *workdir = NULL;
	long reps = 0, max_reps = 0, jobs = 0;
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_STRING(0, "good", &o.good, "REV",
			   "a commit with the old figure"),
		OPT_STRING(0, "bad", &o.bad, "REV",
			   "a later commit with the new figure"),
		OPT_STRING(0, "metric", &o.metric, "NAME",
			   "the figure: throughput, iotlb_sync_per_gb, ..."),
		OPT_STRING(0, "probe", &o.probe, "NAME",
			   "the figure is this probe's calls per GB"),
		OPT_STRING(0, "mode", &o.mode, "NAME",
			   "the mode to measure in (default: the matrix's "
			   "only one)"),
		OPT_STRING(0, "workload", &o.workload, "NAME",
			   "the workload (default: the matrix's only one)"),
		OPT_STRING(0, "kernel", &o.kernel, "NAME",
			   "the kernel whose commits are bisected (default: "
			   "the matrix's only one)"),
		OPT_STRING(0, "threshold", &threshold, "PCT",
			   "a probe count is bad past PCT% of the way from "
			   "the good end's figure to the bad's (default 50)"),
		OPT_INTEGER(0, "repetitions", &reps, "N",
			    "trials a step (default: the matrix's)"),
		OPT_INTEGER(0, "max-repetitions", &max_reps, "N",
			    "a noisy step's trials at most, added while the "
			    "test cannot tell (default 4x)"),
		OPT_STRING(0, "workdir", &o.workdir, "DIR",
			   "the kept worktree and objects (default: under "
			   "the cache)"),
		OPT_INTEGER('j', "jobs", &jobs, "N",
			    "parallel make jobs (default: every CPU)"),
		OPT_BOOLEAN(0, "resume", &o.resume,
			    "continue the bisection a killed one left"),
		OPT_BOOLEAN(0, "new", &o.fresh,
			    "start over even if one is in progress"),
		OPT_BOOLEAN('q', "quiet", &o.quiet, "print only errors"),
		OPT_END(),
	};
	int ret;

	if (argc > 1 && !strcmp(argv[1], "log"))
		return bisect_log(argc - 1, argv + 1);
	argc = parse_options(argc, argv, opts, bisect_usage, 0);
	if (argc > 1)
		usage_error(bisect_usage, opts, "one matrix file, please");
	if (!argc && !o.resume)
		usage_error(bisect_usage, opts, "which matrix file?");
	if (o.resume && o.fresh)
		usage_error(bisect_usage, opts,
			    "--resume and --new exclude each other");
	if (o.resume && (o.good || o.bad || o.metric || o.probe || threshold))
		usage_error(bisect_usage, opts,
			    "--resume continues with what the bisection was "
			    "started with: no --good, --bad, --metric, "
			    "--probe or --threshold");
	ret = take_numbers(&o, threshold, reps, max_reps, jobs);
	if (ret)
		return ret;
	o.json = global.json;
	ret = absolute_workdir(&o, &workdir);
	if (ret)
		return ret;
	if (argc) {
		o.matrix = argv[0];
		if (db_of(o.matrix, &db))
			return EXIT_USAGE;
		o.db_path = db;
	} else {
		o.db_path = global__db_path();
	}
	ret = bisect__main(&o);
	free((char *)db);
	free(workdir);
	return ret;
}
