// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench: benchmark and regression-track Linux IOMMU DMA modes.
 *
 * main only parses the global options and dispatches through the command
 * table; every command lives in its own builtin-<cmd>.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/host-transports.h"
#include "builtin.h"
#include "log.h"
#include "output.h"
#include "parse-options.h"
#include "report/report-opts.h"
#include "suggest.h"
#include "util.h"

struct global_opts global;

const struct cmd_struct commands[] = {
	{ "agent", cmd_agent, "the on-host side: JSON requests on stdin" },
	{ "bisect", cmd_bisect,
	  "find the commit that changed a figure: build, boot, measure" },
	{ "compare", cmd_compare,
	  "benchstat-style comparison of stored runs or CSV files" },
	{ "db", cmd_db, "inspect or migrate the results database" },
	{ "export", cmd_export, "export stored trial metrics as CSV or JSON" },
	{ "help", cmd_help, "show help for the tool or a command" },
	{ "kernel", cmd_kernel,
	  "build patched kernels: cached, config-verified, bootable" },
	{ "labvm", cmd_labvm,
	  "a lab machine in a VM: Debian, grub and sshd, power-cycled" },
	{ "nightly", cmd_nightly,
	  "the kernel test robot: a night followed, judged, bisected, mailed" },
	{ "plan", cmd_plan, "expand and validate a matrix; touch no host" },
	{ "probe", cmd_probe, "what this host's IOMMU is and does right now" },
	{ "regress", cmd_regress,
	  "the CI gate: regressions between runs, change points in history" },
	{ "report", cmd_report, "a self-contained HTML report with plots" },
	{ "run", cmd_run, "execute a matrix: resumable, verified, stored" },
	{ "testbed", cmd_testbed,
	  "build the QEMU testbed's guest kernels and initramfs" },
	{ "trace", cmd_trace,
	  "live counts and latency histograms of the IOMMU DMA paths" },
	{ "triage", cmd_triage,
	  "the robot's regressions: list, show, ignore, note" },
	{ "version", cmd_version, "print the version and build details" },
	{ NULL, NULL, NULL },
};

static const char *const main_usage[] = {
	"iommu-bench [-v] [--db PATH] [--json] <command> [<args>]",
	NULL,
};

static bool show_version, show_help;

static const struct option main_options[] = {
	OPT_GLOBALS(),
	OPT_JSON(),
	OPT_BOOLEAN('h', "help", &show_help, "this overview"),
	OPT_BOOLEAN(0, "version", &show_version, "print the version and exit"),
	OPT_END(),
};

const char *global__db_path(void)
{
	const char *env;

	if (global.db_path)
		return global.db_path;
	env = getenv("IOMMU_BENCH_DB");
	if (env && *env)
		return env;
	return "results/iommu-bench.db";
}

void global__db_advice(const char *path, int err)
{
	if (err == -ENOENT)
		pr_err("%s: run a matrix into it, give --db PATH, or create it "
		       "with 'iommu-bench --db %s db migrate'",
		       path, path);
	else if (err == -ESTALE)
		pr_err("%s: migrate it with 'iommu-bench --db %s db migrate'",
		       path, path);
	else if (err == -EPROTONOSUPPORT)
		pr_err("%s: upgrade iommu-bench", path);
}

int global__rdb_open(struct rdb *r)
{
	int err = rdb__open(global__db_path(), r);

	if (err)
		global__db_advice(global__db_path(), err);
	return err;
}

const char *global__matrix_db(const char *matrix_db)
{
	/* As plan: --db beats the file, the file beats $IOMMU_BENCH_DB. */
	if (global.db_path || !matrix_db)
		return global__db_path();
	return matrix_db;
}

int global__levels(const char *alpha, const char *conf, double *a, double *c)
{
	if (alpha && report_opt_number("--alpha", alpha, 0, 0.5, a))
		return -EINVAL;
	if (conf && report_opt_number("--confidence", conf, 0.5, 1, c))
		return -EINVAL;
	return 0;
}

void global__matrix_file(int argc, const char **argv, const struct option *opts,
			 const char *const *usage)
{
	argc = parse_options(argc, argv, opts, usage, 0);
	if (argc != 1)
		usage_error(usage, opts,
			    argc ? "one matrix file, please" :
				   "which matrix file?");
}

int global__cache_path(int err, char *dir)
{
	if (err) {
		pr_err("no cache folder: set IOMMU_BENCH_CACHE or HOME");
		return EXIT_WORK_FAILED;
	}
	output__path(dir, global.json);
	free(dir);
	return EXIT_OK;
}

int global__unknown_subcommand(const char *cmd, const char *arg,
			       const char *best)
{
	if (best)
		pr_err("'%s' is not a %s subcommand; did you mean '%s'?", arg,
		       cmd, best);
	else
		pr_err("'%s' is not a %s subcommand (see 'iommu-bench %s "
		       "--help')",
		       arg, cmd, cmd);
	return EXIT_USAGE;
}

const struct cmd_struct *command__find(const char *name)
{
	return TABLE_FIND(commands, ARRAY_SIZE(commands), name, name);
}

void main__usage(FILE *fp)
{
	const struct cmd_struct *c;

	usage_with_options_fp(fp, main_usage, main_options);
	fprintf(fp, "\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(fp, "    %-12s%s\n", c->name, c->summary);
	fprintf(fp,
		"\nSee 'iommu-bench help <command>' or man iommu-bench(1).\n");
}

int main__unknown_command(const char *name)
{
	const char *best =
		SUGGEST_BEST(name, commands, ARRAY_SIZE(commands), name);

	if (best)
		pr_err("'%s' is not a command; did you mean '%s'?", name, best);
	else
		pr_err("'%s' is not a command (see 'iommu-bench --help')",
		       name);
	return EXIT_USAGE;
}

int main(int argc, const char **argv)
{
	const struct cmd_struct *cmd;

	argv[0] = "iommu-bench";
	host_transports__set();
	argc = parse_options(argc, argv, main_options, main_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION |
				     PARSE_OPT_NO_INTERNAL_HELP);
	if (show_help) {
		main__usage(stdout);
		return EXIT_OK;
	}
	if (show_version)
		return cmd_version(1, (const char *[]){ "version", NULL });
	if (!argc) {
		main__usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "__complete"))
		return cmd_complete(argc, argv);
	cmd = command__find(argv[0]);
	if (!cmd)
		return main__unknown_command(argv[0]);
	return cmd->fn(argc, argv);
}
