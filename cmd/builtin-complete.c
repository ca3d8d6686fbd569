// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench __complete WHAT [MATRIX]: the words the shell's completion
 * (completions/iommu-bench) offers, one a line, read from the tables and
 * the database so that they never go stale. Hidden: not in the command
 * table. It says nothing on failure (no database, a broken matrix): a
 * completion that prints would scribble over the user's command line.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/dataset.h"
#include "analysis/rdb.h"
#include "bench/matrix/matrix.h"
#include "builtin.h"
#include "config-error.h"
#include "parse-options.h"
#include "util.h"

static int complete__commands(void)
{
	const struct cmd_struct *c;

	for (c = commands; c->name; c++)
		printf("%s\n", c->name);
	return EXIT_OK;
}

/* What --run takes: the keywords, every id, and name:NAME once a name. */
static int complete__runs(void)
{
	struct rdb_runs runs = { 0 };
	struct rdb r;
	size_t i, j;

	if (rdb__open(global__db_path(), &r))
		return EXIT_WORK_FAILED;
	if (rdb__runs(&r, &runs))
		goto out;
	printf("latest\nprevious\nall\n");
	for (i = 0; i < runs.nr; i++)
		printf("%lld\n", (long long)runs.v[i].id);
	for (i = 0; i < runs.nr; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(runs.v[j].name, runs.v[i].name))
				break;
		if (j == i && *runs.v[i].name)
			printf("name:%s\n", runs.v[i].name);
	}
	rdb__runs_release(&runs);
out:
	rdb__close(&r);
	return EXIT_OK;
}

/* A matrix's kernel or mode names, from the file as plan reads it. */
static int complete__matrix(const char *what, const char *path)
{
	struct config_errors errs;
	struct matrix *m = NULL;
	size_t i;

	config_errors__init(&errs, path);
	if (matrix__load(path, &m, &errs)) {
		config_errors__release(&errs);
		return EXIT_WORK_FAILED;
	}
	config_errors__release(&errs);
	if (!strcmp(what, "kernels"))
		for (i = 0; i < m->nr_kernels; i++)
			printf("%s\n", m->kernels[i].name);
	else
		for (i = 0; i < m->nr_modes; i++)
			printf("%s\n", m->modes[i].name);
	matrix__free(m);
	return EXIT_OK;
}

int cmd_complete(int argc, const char **argv)
{
	static const char *const usage[] = {
		"iommu-bench __complete commands|runs|by",
		"iommu-bench __complete kernels|modes MATRIX",
		NULL,
	};
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_END(),
	};
	int i;

	argc = parse_options(argc, argv, opts, usage, 0);
	/* Silent whatever -v said: the shell shows no stderr well. */
	log_verbosity = -1;
	if (argc == 1 && !strcmp(argv[0], "commands"))
		return complete__commands();
	if (argc == 1 && !strcmp(argv[0], "runs"))
		return complete__runs();
	if (argc == 1 && !strcmp(argv[0], "by")) {
		for (i = 0; i < DS_NR_DIMS; i++)
			printf("%s\n", ds_dim_names[i]);
		return EXIT_OK;
	}
	if (argc == 2 &&
	    (!strcmp(argv[0], "kernels") || !strcmp(argv[0], "modes")))
		return complete__matrix(argv[0], argv[1]);
	return EXIT_USAGE;
}
