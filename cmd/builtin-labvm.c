// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench labvm build | start | reset | stop | status | path: a lab
 * machine in a VM, a whole Debian system that a matrix reaches over ssh
 * exactly as it would a server in a lab (bench/labvm/labvm.h).
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench/labvm/labvm.h"
#include "builtin.h"
#include "cache.h"
#include "log.h"
#include "output.h"
#include "parse-options.h"
#include "suggest.h"
#include "util.h"

#define DEFAULT_WAIT_S 600

static const char *const labvm_usage[] = {
	"iommu-bench labvm build [--arch <ARCH>] [--force] [--json]",
	"iommu-bench labvm start <NAME> [--arch <ARCH>] [--subnet <N>] "
	"[--cpus <N>] [--memory <MIB>] [--wait <SECS>] [--json]",
	"iommu-bench labvm reset <NAME>",
	"iommu-bench labvm stop <NAME>",
	"iommu-bench labvm status [<NAME>] [--json]",
	"iommu-bench labvm path [--json]",
	NULL,
};

static struct {
	const char *arch;
	bool force;
	int subnet, cpus, memory, wait;
} args = { .subnet = -1, .wait = DEFAULT_WAIT_S };

static const struct option labvm_options[] = {
	OPT_GLOBALS(),
	OPT_JSON(),
	OPT_STRING(0, "arch", &args.arch, "ARCH",
		   "the lab machine's arch: x86_64 (Debian 12, BIOS, Intel "
		   "vIOMMU; the default) or arm64 (Debian 13, UEFI, SMMUv3)"),
	OPT_BOOLEAN(0, "force", &args.force,
		    "build: make the image again even when the cache has it"),
	OPT_INTEGER(0, "subnet", &args.subnet, "N",
		    "start: the link's 10.91.N.0/24 (default: the first one "
		    "free here)"),
	OPT_INTEGER(0, "cpus", &args.cpus, "N", "start: vCPUs (default 2)"),
	OPT_INTEGER(0, "memory", &args.memory, "MIB",
		    "start: memory (default 1024)"),
	OPT_INTEGER(0, "wait", &args.wait, "SECS",
		    "start: wait this long for ssh to answer (0: do not "
		    "wait; default 600)"),
	OPT_GROUP(
		"build: the image, from Debian's mirror (debootstrap; arm64's\n"
		"unpacked here, then configured in one boot of an arm64 VM),\n"
		"once per recipe, into the cache ($IOMMU_BENCH_CACHE or\n"
		"~/.cache/iommu-bench, then labvm/). start: the VM on an overlay\n"
		"of its own, a tap link and DHCP from this machine; prints the\n"
		"[hosts.NAME] stanza a matrix needs. reset: its power cycle\n"
		"(QEMU's system_reset). stop: power off, remove its link and\n"
		"overlay."),
	OPT_END(),
};

static volatile sig_atomic_t stop_asked;

static void on_signal(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static int interrupted(void)
{
	return stop_asked;
}

static const struct labvm_recipe *recipe(void)
{
	const struct labvm_recipe *r;
	const char *names[8];
	const char *best;
	size_t i;

	r = labvm_recipe__find(args.arch ? args.arch : "x86_64");
	if (r)
		return r;
	for (i = 0; i < labvm_nr_recipes && i + 1 < ARRAY_SIZE(names); i++)
		names[i] = labvm_recipes[i].arch;
	names[i] = NULL;
	best = suggest__best(args.arch, names);
	if (!best && arch__by_machine(args.arch))
		best = arch__by_machine(args.arch)->name;
	usage_error(labvm_usage, labvm_options,
		    "--arch %s: lab machines are x86_64 or arm64%s%s%s",
		    args.arch, best ? " (did you mean '" : "", best ? best : "",
		    best ? "'?)" : "");
}

static int image(bool build, struct labvm_image *img)
{
	const struct labvm_recipe *r = recipe();
	struct sigaction sa = { .sa_handler = on_signal };
	char *err = NULL;
	int ret;

	/* Stopped by Ctrl-C, a build unmounts and detaches what it made. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	labvm_interrupted = interrupted;
	if (log_verbosity < LOG_INFO)
		log_verbosity = LOG_INFO;
	ret = labvm_image__get(r, build, args.force, img, &err);
	if (ret) {
		pr_err("%s", err ? err : strerror(-ret));
		free(err);
	}
	return ret;
}

static int labvm_build(const char *name)
{
	struct labvm_image img;

	if (name)
		usage_error(labvm_usage, labvm_options,
			    "labvm build takes no name");
	if (image(true, &img))
		return stop_asked ? EXIT_INTERRUPTED : EXIT_WORK_FAILED;
	if (global.json)
		output__json(labvm_image__json(&img));
	else
		printf("%s: %s\n  disk %s (%.0f MiB allocated; built in "
		       "%.0f s)\n  kernel %s\n",
		       img.recipe->name, img.dir, img.disk,
		       img.allocated / 1048576.0, img.build_s, img.release);
	labvm_image__release(&img);
	return EXIT_OK;
}

static int labvm_start(const char *name)
{
	struct labvm_start_opts o = { .name = name };
	struct labvm_image img;
	json_t *state = NULL;
	char *err = NULL, *stanza;
	int ret;

	if (!name)
		usage_error(labvm_usage, labvm_options,
			    "labvm start needs the machine's name");
	if (args.wait < 0 || args.cpus < 0 || args.memory < 0 ||
	    (args.memory && args.memory < 256))
		usage_error(labvm_usage, labvm_options,
			    "--wait, --cpus and --memory are counts (memory "
			    "at least 256 MiB)");
	/* Built here if missing: a first start is a first build. */
	if (image(true, &img))
		return EXIT_WORK_FAILED;
	o.img = &img;
	o.subnet = args.subnet < 0 ? -1u : (unsigned int)args.subnet;
	o.cpus = (unsigned int)args.cpus;
	o.mem_mib = (unsigned int)args.memory;
	o.wait_ms = args.wait * 1000;
	ret = labvm__start(&o, &state, &err);
	labvm_image__release(&img);
	if (ret) {
		pr_err("%s", err ? err : strerror(-ret));
		free(err);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
	}
	stanza = labvm__stanza(state, self_exe());
	if (global.json) {
		json_object_set_new(state, "stanza", json_string(stanza));
		output__json(state);
	} else {
		printf("%s", stanza);
		json_decref(state);
	}
	free(stanza);
	return EXIT_OK;
}

static int labvm_simple(const char *name, int (*fn)(const char *, char **),
			const char *what)
{
	char *err = NULL;
	int ret;

	if (!name)
		usage_error(labvm_usage, labvm_options,
			    "labvm %s needs the machine's name", what);
	ret = fn(name, &err);
	if (ret) {
		pr_err("%s", err ? err : strerror(-ret));
		free(err);
	}
	return ret == -EINVAL ? EXIT_USAGE : ret ? EXIT_WORK_FAILED : EXIT_OK;
}

static int labvm_reset(const char *name)
{
	return labvm_simple(name, labvm__reset, "reset");
}

static int labvm_stop(const char *name)
{
	return labvm_simple(name, labvm__stop, "stop");
}

static int labvm_status(const char *name)
{
	json_t *out = NULL, *s;
	char *err = NULL;
	size_t i;
	int ret;

	ret = name ? labvm__status(name, &out, &err) : labvm__list(&out, &err);
	if (ret) {
		pr_err("%s", err ? err : strerror(-ret));
		free(err);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
	}
	if (global.json) {
		output__json(out);
		return EXIT_OK;
	}
	if (name) {
		s = out;
		out = json_array();
		json_array_append_new(out, s);
	}
	json_array_foreach(out, i, s)
		printf("%s\t%s\t%s\t%s\n",
		       json_string_value(json_object_get(s, "name")),
		       json_is_true(json_object_get(s, "running")) ? "running" :
								     "dead",
		       json_string_value(json_object_get(s, "address")),
		       json_string_value(json_object_get(s, "recipe")));
	json_decref(out);
	return EXIT_OK;
}

static int labvm_path(const char *name)
{
	char *dir = NULL;
	int err;

	if (name)
		usage_error(labvm_usage, labvm_options,
			    "labvm path takes no name");
	/* Two statements: C leaves the order of a call's arguments open. */
	err = cache__dir("labvm", &dir);
	return global__cache_path(err, dir);
}

static const struct {
	const char *name;
	const char *cmd; /* for parse-options' "see --help" hints */
	int (*fn)(const char *name);
} subcommands[] = {
	{ "build", "labvm build", labvm_build },
	{ "start", "labvm start", labvm_start },
	{ "reset", "labvm reset", labvm_reset },
	{ "stop", "labvm stop", labvm_stop },
	{ "status", "labvm status", labvm_status },
	{ "path", "labvm path", labvm_path },
};

int cmd_labvm(int argc, const char **argv)
{
	const char *best;
	size_t i;

	argc = parse_options(argc, argv, labvm_options, labvm_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_error(labvm_usage, labvm_options,
			    "which labvm subcommand?");
	for (i = 0; i < ARRAY_SIZE(subcommands); i++) {
		if (strcmp(argv[0], subcommands[i].name))
			continue;
		/* Options may follow the subcommand as well as precede it. */
		argv[0] = subcommands[i].cmd;
		argc = parse_options(argc, argv, labvm_options, labvm_usage, 0);
		if (argc > 1)
			usage_error(labvm_usage, labvm_options,
				    "unexpected argument '%s'", argv[1]);
		return subcommands[i].fn(argc ? argv[0] : NULL);
	}
	best = SUGGEST_BEST(argv[0], subcommands, ARRAY_SIZE(subcommands),
			    name);
	return global__unknown_subcommand("labvm", argv[0], best);
}
