// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench testbed build | path: the QEMU testbed's guest kernels,
 * Debian packages downloaded into a cache and given an initramfs that
 * boots them into the agent. `run` builds what a matrix needs by itself;
 * this command is for doing it ahead of time (CI images, offline use)
 * and for seeing where things are.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench/testbed/testbed.h"
#include "builtin.h"
#include "cache.h"
#include "debian-suite.h"
#include "log.h"
#include "output.h"
#include "parse-options.h"
#include "strvec.h"
#include "suggest.h"
#include "util.h"

/* The testbed's reference kernels: Debian 12's, measured by hand first. */
#define TESTBED_DEFAULT_KERNEL "linux-image-6.1.0-57-amd64"
#define TESTBED_DEFAULT_KERNEL_ARM64 "linux-image-6.1.0-57-arm64"
/* With --suite and no --kernel: the suite's newest, by its meta-package. */
#define TESTBED_SUITE_KERNEL "linux-image-amd64"
#define TESTBED_SUITE_KERNEL_ARM64 "linux-image-arm64"

static const char *const testbed_usage[] = {
	"iommu-bench testbed build [--kernel <PKG>]... [--suite <SUITE>] "
	"[--arch <ARCH>] [--force] [--json]",
	"iommu-bench testbed resolve --kernel <PKG>... --suite <SUITE> "
	"[--json]",
	"iommu-bench testbed path [--json]",
	NULL,
};

struct testbed_args {
	struct strvec kernels;
	const char *suite;
	const char *arch;
	bool force;
};

static struct testbed_args args;

static const struct option testbed_options[] = {
	OPT_GLOBALS(),
	OPT_JSON(),
	OPT_CALLBACK(
		0, "kernel", &args.kernels, "PKG",
		"a Debian kernel package (repeatable; default " TESTBED_DEFAULT_KERNEL
		")",
		parse_opt_strvec),
	OPT_STRING(0, "suite", &args.suite, "SUITE",
		   "fetch the kernels from this Debian suite (sid, "
		   "trixie-backports...) through the cache's own apt "
		   "configuration; a meta-package (linux-image-amd64) resolves "
		   "to the kernel it depends on there, and is the default"),
	OPT_STRING(0, "arch", &args.arch, "ARCH",
		   "without --kernel: the reference kernel of this guest "
		   "arch (x86_64: " TESTBED_DEFAULT_KERNEL
		   ", arm64: " TESTBED_DEFAULT_KERNEL_ARM64
		   "; with --suite, " TESTBED_SUITE_KERNEL
		   " or " TESTBED_SUITE_KERNEL_ARM64 ")"),
	OPT_BOOLEAN(0, "force", &args.force,
		    "download and build again even what the cache holds"),
	OPT_GROUP(
		"build: download each kernel package (apt-get download, never\n"
		"installed), unpack it, run depmod and build its initramfs,\n"
		"each only when the cache lacks it. resolve: say which\n"
		"versioned package each is in the suite now (a meta-package's\n"
		"kernel), downloading no kernel. path: print the cache\n"
		"folder ($IOMMU_BENCH_CACHE, $XDG_CACHE_HOME/iommu-bench or\n"
		"~/.cache/iommu-bench, then testbed/)."),
	OPT_END(),
};

/* The arch's reference kernel in @fallback; every name asked checked. */
static void build_args_check(const char **fallback, const char *const *pkgs,
			     size_t nr)
{
	size_t i;

	if (args.arch && args.kernels.nr)
		usage_error(testbed_usage, testbed_options,
			    "--arch picks a reference kernel; with --kernel "
			    "the package's name says its arch");
	if (args.arch && !strcmp(args.arch, "arm64"))
		fallback[0] = args.suite ? TESTBED_SUITE_KERNEL_ARM64 :
					   TESTBED_DEFAULT_KERNEL_ARM64;
	else if (args.arch && strcmp(args.arch, "x86_64"))
		usage_error(testbed_usage, testbed_options,
			    "--arch %s: the testbed has guests for x86_64 and "
			    "arm64%s",
			    args.arch,
			    !strcmp(args.arch, "aarch64") ? " (aarch64 is "
							    "arm64)" :
			    !strcmp(args.arch, "amd64")	  ? " (amd64 is "
							    "x86_64)" :
							    "");
	for (i = 0; i < nr; i++)
		if (!testbed__package_is_valid(pkgs[i]))
			usage_error(testbed_usage, testbed_options,
				    "'%s' is not a Debian kernel package name "
				    "(linux-image- and then [a-z0-9.+-], at "
				    "most 100 characters)",
				    pkgs[i]);
	if (args.suite && !debian_suite__is_valid(args.suite))
		usage_error(testbed_usage, testbed_options,
			    "--suite '%s' is not a Debian suite name "
			    "([a-z0-9-], starting with a letter, such as "
			    "trixie-backports)",
			    args.suite);
}

/* One kernel built: into @out for --json, else its lines. */
static void kernel_say(json_t *out, const struct testbed_kernel *k)
{
	const struct arch *a = arch__of_package(k->package);

	if (global.json) {
		json_array_append_new(
			out,
			json_pack("{s:s, s:s?, s:s, s:s, s:s?, s:s?, "
				  "s:s, s:s, s:s, s:b, s:s, s:s}",
				  "package", k->package, "arch",
				  a ? a->name : NULL, "version", k->version,
				  "release", k->release, "suite", k->suite,
				  "asked", k->asked, "layout",
				  testbed_layout__name(k->layout), "image",
				  k->image, "initrd", k->initrd, "cached",
				  k->cached, "config", k->config, "dir",
				  k->dir));
		return;
	}
	if (k->asked)
		printf("%s in %s: ", k->asked, k->suite);
	printf("%s %s (release %s, %s%s%s): %s\n", k->package, k->version,
	       k->release, a ? a->name : "arch not in its name",
	       k->suite ? ", from " : "", k->suite ? k->suite : "",
	       k->cached ? "cached" : "built");
	printf("  image   %s\n  initrd  %s\n", k->image, k->initrd);
}

/* The JSON array for --json (the lines were printed otherwise). */
static int testbed_done(json_t *out, bool failed)
{
	if (global.json)
		output__json(out);
	else
		json_decref(out);
	return failed ? EXIT_WORK_FAILED : EXIT_OK;
}

static int testbed_build(void)
{
	const char *fallback[] = { args.suite ? TESTBED_SUITE_KERNEL :
						TESTBED_DEFAULT_KERNEL };
	const char *const *pkgs =
		args.kernels.nr ? strvec__argv(&args.kernels) : fallback;
	size_t i, nr = args.kernels.nr ? args.kernels.nr : 1;
	json_t *out = json_array();
	struct testbed_kernel k;
	bool failed = false;
	char *err;

	build_args_check(fallback, pkgs, nr);
	/* A first build takes seconds per kernel: say what is going on. */
	if (log_verbosity < LOG_INFO)
		log_verbosity = LOG_INFO;
	for (i = 0; i < nr; i++) {
		err = NULL;
		if (testbed__kernel_get(pkgs[i], args.suite, NULL, true,
					args.force, &k, &err)) {
			pr_err("%s", err ? err : pkgs[i]);
			free(err);
			failed = true;
			continue;
		}
		kernel_say(out, &k);
		testbed_kernel__release(&k);
	}
	return testbed_done(out, failed);
}

static int testbed_resolve(void)
{
	const char *const *pkgs = strvec__argv(&args.kernels);
	char *name, *version, *err;
	json_t *out = json_array();
	bool failed = false;
	size_t i;

	if (!args.suite || !args.kernels.nr || args.arch || args.force)
		usage_error(testbed_usage, testbed_options,
			    "testbed resolve takes --kernel and --suite, and "
			    "no --arch or --force");
	for (i = 0; i < args.kernels.nr; i++) {
		if (testbed__kernel_resolve(pkgs[i], args.suite, &name,
					    &version, &err)) {
			pr_err("%s", err ? err : pkgs[i]);
			free(err);
			failed = true;
			continue;
		}
		if (global.json)
			json_array_append_new(
				out,
				json_pack("{s:s, s:s, s:s, s:s?}", "asked",
					  pkgs[i], "suite", args.suite,
					  "package", name, "version", version));
		else
			printf("%s in %s: %s %s\n", pkgs[i], args.suite, name,
			       version ? version : "(no version)");
		free(name);
		free(version);
	}
	return testbed_done(out, failed);
}

static int testbed_path(void)
{
	char *dir = NULL;
	int err;

	if (args.kernels.nr || args.force || args.arch || args.suite)
		usage_error(
			testbed_usage, testbed_options,
			"testbed path takes no --kernel, --suite, --arch or "
			"--force");
	err = cache__dir(TESTBED_CACHE_SUB, &dir);
	return global__cache_path(err, dir);
}

static const struct subcommand subcommands[] = {
	{ "build", "testbed build", testbed_build },
	{ "resolve", "testbed resolve", testbed_resolve },
	{ "path", "testbed path", testbed_path },
};

int cmd_testbed(int argc, const char **argv)
{
	int ret;

	ret = run_subcommand(argc, argv, subcommands, ARRAY_SIZE(subcommands),
			     testbed_options, testbed_usage, "testbed");
	strvec__release(&args.kernels);
	return ret;
}
