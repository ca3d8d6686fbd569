// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench nightly MATRIX: one night of the kernel test robot
 * (bench/nightly/), what the CI templates and the systemd timer run.
 * Started again after a kill, it resumes the unfinished night.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/matrix/matrix.h"
#include "bench/nightly/nightly.h"
#include "builtin.h"
#include "config-error.h"
#include "log.h"
#include "parse-options.h"
#include "util.h"

static const char *const nightly_usage[] = {
	"iommu-bench nightly [--send] [--junit FILE] [-j N] [--workdir DIR] [-q] [--json] MATRIX",
	NULL,
};

/* The database a matrix names, --db beating it. */
static char *db_of(const char *path)
{
	struct config_errors errs;
	struct matrix *m = NULL;
	char *db = NULL;

	config_errors__init(&errs, path);
	if (!matrix__load(path, &m, &errs)) {
		db = xstrdup(global__matrix_db(m->run.db));
		matrix__free(m);
	}
	config_errors__release(&errs);
	return db ? db : xstrdup(global__db_path());
}

int cmd_nightly(int argc, const char **argv)
{
	struct nightly_opts o = { 0 };
	long jobs = 0;
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_BOOLEAN(0, "send", &o.send,
			    "hand each mail to [nightly.mail] sendmail "
			    "(default: write it only)"),
		OPT_INTEGER('j', "jobs", &jobs, "N",
			    "parallel make jobs of its builds (default: every "
			    "CPU)"),
		OPT_STRING(0, "junit", &o.junit, "FILE",
			   "the night's judgement as JUnit XML, for CI test "
			   "reports"),
		OPT_STRING(0, "workdir", &o.workdir, "DIR",
			   "the kept worktree of its builds and bisections "
			   "(default: bisect's, under the cache)"),
		OPT_BOOLEAN('q', "quiet", &o.quiet,
			    "print only errors and the verdict"),
		OPT_GROUP(
			"A night: fetch the followed branch (or resolve the "
			"package), run the\nmatrix on its head, judge it "
			"against the last good night and the\nhistory, "
			"measure a regression again before believing it, "
			"bisect it,\nand write the mail (docs/nightly.md). "
			"Killed, it resumes where it stopped.\nExit status: 0 "
			"a good night; 1 a regression or a failed night; 2 "
			"bad\nusage; 3 another night of the database is "
			"running; 130 interrupted."),
		OPT_END(),
	};
	char *db;
	int ret;

	argc = parse_options(argc, argv, opts, nightly_usage, 0);
	if (argc != 1)
		usage_error(nightly_usage, opts,
			    argc ? "one matrix file, please" :
				   "which matrix file?");
	if (jobs < 0 || jobs > 1024) {
		pr_err("nightly: --jobs wants a number of jobs, got %ld", jobs);
		return EXIT_USAGE;
	}
	if (o.workdir && o.workdir[0] != '/') {
		pr_err("nightly: --workdir %s: an absolute path, please (the "
		       "builds run elsewhere)",
		       o.workdir);
		return EXIT_USAGE;
	}
	o.matrix = argv[0];
	o.jobs = (int)jobs;
	o.json = global.json;
	db = db_of(o.matrix);
	o.db_path = db;
	ret = nightly__main(&o);
	free(db);
	return ret;
}
