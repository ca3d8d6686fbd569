// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench kernel build | path: patched kernels from a git tree, the
 * same recipe as a matrix's `[[kernels]] build = {...}`, built in a
 * worktree (never in the user's checkout), config-verified and cached,
 * so that base and patched kernels differ only by what was meant.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/kbuild/kbuild.h"
#include "builtin.h"
#include "json-util.h"
#include "log.h"
#include "output.h"
#include "parse-options.h"
#include "strvec.h"
#include "suggest.h"
#include "util.h"

static const char *const kernel_usage[] = {
	"iommu-bench kernel build --tree <DIR> [--base <REF>] "
	"[--patch <FILE>]...\n"
	"                         [--config <FILE|TARGET>] "
	"[--fragment <FILE>]... [--arch <ARCH>]\n"
	"                         [--cross-compile <PREFIX>] [-j <N>] "
	"[--out <DIR>] [--workdir <DIR>]\n"
	"                         [--allow-missing-config] [--config-only] "
	"[--json]",
	"iommu-bench kernel path [--out <DIR>] [--json]",
	NULL,
};

static struct kernel_args {
	const char *tree, *base, *config, *arch, *cross_compile, *out;
	const char *workdir;
	struct strvec patches, fragments;
	long jobs;
	bool allow_missing, config_only;
} args;

static int push_cb(const struct option *opt, const char *arg)
{
	if (!arg || !*arg)
		return -1;
	return parse_opt_strvec(opt, arg);
}

static const struct option kernel_options[] = {
	OPT_GLOBALS(),
	OPT_JSON(),
	OPT_STRING(
		0, "tree", &args.tree, "DIR",
		"the kernel git tree (never modified: builds use a worktree)"),
	OPT_STRING(0, "base", &args.base, "REF",
		   "the revision to build (default HEAD)"),
	OPT_CALLBACK(0, "patch", &args.patches, "FILE",
		     "a patch, mbox (git am) or diff (git apply), applied "
		     "in order with --3way (repeatable)",
		     push_cb),
	OPT_STRING(0, "config", &args.config, "FILE|TARGET",
		   "the base config: a file (olddefconfig) or defconfig, "
		   "tinyconfig, allnoconfig, NAME_defconfig... (default "
		   "defconfig)"),
	OPT_CALLBACK(0, "fragment", &args.fragments, "FILE",
		     "a config fragment merged over the base, later ones "
		     "win; every option it sets is verified (repeatable)",
		     push_cb),
	OPT_STRING(0, "arch", &args.arch, "ARCH",
		   "the kernel's ARCH= (default this machine's)"),
	OPT_STRING(0, "cross-compile", &args.cross_compile, "PREFIX",
		   "CROSS_COMPILE= prefix, e.g. aarch64-linux-gnu-"),
	OPT_INTEGER('j', "jobs", &args.jobs, "N",
		    "parallel make jobs (default: every CPU)"),
	OPT_STRING(0, "out", &args.out, "DIR",
		   "the cache folder of builds (default: "
		   "$IOMMU_BENCH_CACHE/kernels, $XDG_CACHE_HOME/iommu-bench/"
		   "kernels or ~/.cache/iommu-bench/kernels)"),
	OPT_STRING(0, "workdir", &args.workdir, "DIR",
		   "keep the worktree and the objects in DIR across builds: "
		   "the next build there checks its base out and make "
		   "rebuilds only what changed (ccache where installed)"),
	OPT_BOOLEAN(0, "allow-missing-config", &args.allow_missing,
		    "report fragment options that did not land, but build"),
	OPT_BOOLEAN(0, "config-only", &args.config_only,
		    "stop after the verified .config"),
	OPT_GROUP("build: a cached build when the key of its inputs is known "
		  "(base commit,\npatches, config, fragments, arch, cross "
		  "prefix, compiler version),\nelse a build in a temporary "
		  "worktree. Exit 1 when it fails or an option\nof a fragment "
		  "did not land in .config. path: print the cache folder."),
	OPT_END(),
};

/* The entry's result.json with absolute paths and whether it was cached. */
static json_t *result_json(const struct kbuild_result *res)
{
	json_t *o = json_deep_copy(res->meta);

	json_object_del(o, "files");
	json_object_set_new(o, "cached", json_boolean(res->cached));
	json_object_set_new(o, "dir", json_string_or_null(res->dir));
	json_object_set_new(o, "image", json_string_or_null(res->image));
	json_object_set_new(o, "system_map",
			    json_string_or_null(res->system_map));
	json_object_set_new(o, "config", json_string_or_null(res->config));
	json_object_set_new(o, "modules_tar",
			    json_string_or_null(res->modules_tar));
	json_object_set_new(o, "modules_dir",
			    json_string_or_null(res->modules_dir));
	json_object_set_new(o, "log", json_string_or_null(res->log));
	return o;
}

static void print_text(const struct kbuild_result *res)
{
	size_t i;

	if (res->config_only)
		printf("kernel config %s: %s\n", res->key,
		       res->cached ? "cached" : "made");
	else
		printf("kernel %s (build id %s): %s\n", res->release,
		       res->build_id, res->cached ? "cached" : "built");
	if (res->image)
		printf("  image       %s\n", res->image);
	printf("  config      %s\n", res->config);
	if (res->system_map)
		printf("  System.map  %s\n", res->system_map);
	if (res->modules_tar)
		printf("  modules     %s\n", res->modules_tar);
	printf("  log         %s\n", res->log);
	for (i = 0; i < res->nr_missing; i++)
		printf("  missing     %s: wanted %s, got %s (from %s)\n",
		       res->missing[i].option,
		       res->missing[i].wanted ? res->missing[i].wanted :
						"not set",
		       res->missing[i].actual ? res->missing[i].actual :
						"not set",
		       res->missing[i].fragment);
}

static int kernel_build(void)
{
	struct kbuild_recipe r = {
		.tree = args.tree,
		.base = args.base,
		.patches = args.patches.v,
		.nr_patches = args.patches.nr,
		.config = args.config,
		.fragments = args.fragments.v,
		.nr_fragments = args.fragments.nr,
		.arch = args.arch,
		.cross_compile = args.cross_compile,
		.jobs = (int)args.jobs,
		.allow_missing_config = args.allow_missing,
		.config_only = args.config_only,
	};
	struct kbuild_result res;
	char *err = NULL, *workdir = NULL;
	int ret;

	/* git runs in the tree: the folder must not depend on where. */
	if (args.workdir && args.workdir[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		workdir = xasprintf("%s/%s", cwd ? cwd : ".", args.workdir);
		free(cwd);
	} else if (args.workdir) {
		workdir = xstrdup(args.workdir);
	}
	r.workdir = workdir;
	if (!args.tree)
		usage_error(kernel_usage, kernel_options,
			    "kernel build needs --tree");
	if (args.jobs < 0 || args.jobs > 4096)
		usage_error(kernel_usage, kernel_options,
			    "-j %ld: expected 1..4096", args.jobs);
	/* A build takes minutes: say what is going on. */
	if (log_verbosity < LOG_INFO)
		log_verbosity = LOG_INFO;
	ret = kbuild__build(&r, args.out, &res, &err);
	free(workdir);
	if (ret) {
		pr_err("kernel build: %s", err ? err : strerror(-ret));
		free(err);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
	}
	if (global.json)
		output__json(result_json(&res));
	else
		print_text(&res);
	kbuild_result__release(&res);
	return EXIT_OK;
}

static int kernel_path(void)
{
	char *dir = NULL;
	int err = 0;

	if (args.tree || args.patches.nr || args.fragments.nr)
		usage_error(kernel_usage, kernel_options,
			    "kernel path takes no recipe");
	if (args.out)
		dir = xstrdup(args.out);
	else
		err = kbuild__cache_dir(&dir);
	return global__cache_path(err, dir);
}

static const struct subcommand subcommands[] = {
	{ "build", "kernel build", kernel_build },
	{ "path", "kernel path", kernel_path },
};

int cmd_kernel(int argc, const char **argv)
{
	int ret;

	ret = run_subcommand(argc, argv, subcommands, ARRAY_SIZE(subcommands),
			     kernel_options, kernel_usage, "kernel");
	strvec__release(&args.patches);
	strvec__release(&args.fragments);
	return ret;
}
