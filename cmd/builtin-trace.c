// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench trace: live call counts and latency histograms of the
 * IOMMU DMA paths, like bcc's funclatency for them, through the bpf
 * collector. Tracing ends when CMD exits, after -d, or on Ctrl-C; in
 * every case the maps are read and everything is detached.
 *
 * Exit status: 0 when tracing worked, whatever it counted; 2 for bad
 * usage, an event that names nothing on this kernel, or a CMD that
 * cannot be run; 1 when tracing failed, or when CMD failed (exit status
 * other than 0, or killed by a signal it was not sent by trace): the
 * workload did not do what was asked, so its numbers are suspect. The
 * results are printed all the same.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "clock.h"
#include "collectors/bpf/bpf-probes.h"
#include "collectors/collector.h"
#include "log.h"
#include "parse-options.h"
#include "strvec.h"
#include "subprocess.h"
#include "units.h"
#include "util.h"

/* How long CMD has to end after our SIGTERM or SIGINT before SIGKILL. */
#define END_GRACE_MS 3000

static const char *const trace_usage[] = {
	"iommu-bench trace [-d SECS] [-e EVENT]... [--device DEV] [--json] "
	"[--] [CMD [ARGS...]]",
	NULL,
};

static const char *duration_arg, *device_arg;
static struct strvec events;

static int add_event(const struct option *opt, const char *arg)
{
	(void)opt;
	strvec__push(&events, arg);
	return 0;
}

static const struct option trace_options[] = {
	OPT_GLOBALS(),
	OPT_JSON(),
	OPT_STRING('d', "duration", &duration_arg, "SECS",
		   "stop after SECS seconds (or 500ms, 2m)"),
	OPT_CALLBACK('e', "event", NULL, "EVENT",
		     "probe EVENT (repeatable; default: the IOMMU DMA set): "
		     "a probe name, 'default', fn:FUNCTION, "
		     "tp:CATEGORY:NAME or tp:CATEGORY:BEGIN:END",
		     add_event),
	OPT_STRING(0, "device", &device_arg, "DEV",
		   "count only DMA of DEV (PCI address or interface)"),
	OPT_GROUP("Runs until CMD exits, SECS pass, or Ctrl-C. Probes: map, "
		  "unmap, map_sg,\nunmap_sg, sync_cpu, sync_device, "
		  "sync_sg_cpu, sync_sg_device, iotlb_sync,\nfq_flush, "
		  "hw_flush (the default set), flush_all, iova_alloc, "
		  "iova_free,\nunmap_core. See docs/trace.md."),
	OPT_END(),
};

struct run {
	struct spawn child; /* pid 0: none */
	bool signalled_by_us, interrupted;
	double limit_s; /* 0: none */
};

static int parse_duration(const char *s, double *secs)
{
	char err[UNITS_ERR_MAX], *end;
	uint64_t ms;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && !*end && !errno) {
		if (!(v > 0) || v > 86400 * 7) {
			pr_err("trace: -d '%s': expected seconds in (0, "
			       "604800]",
			       s);
			return -EINVAL;
		}
		*secs = v;
		return 0;
	}
	if (units__parse_duration(s, &ms, err, sizeof(err)) || !ms) {
		pr_err("trace: -d '%s': expected a number of seconds or a "
		       "duration like 500ms",
		       s);
		return -EINVAL;
	}
	*secs = (double)ms / 1e3;
	return 0;
}

static json_t *trace_config(void)
{
	json_t *cfg = json_object(), *probes = json_array();
	size_t i;

	for (i = 0; i < events.nr; i++)
		json_array_append_new(probes, json_string(events.v[i]));
	if (!events.nr)
		json_array_append_new(probes, json_string("default"));
	json_object_set_new(cfg, "probes", probes);
	if (device_arg)
		json_object_set_new(cfg, "device", json_string(device_arg));
	return cfg;
}

/*
 * CMD runs with the signal mask and handlers it would have had without
 * us, and our stdin. With --json its standard output goes to standard
 * error, so that ours is the JSON alone.
 */
static int spawn_cmd(const char **argv, struct spawn *sp)
{
	struct spawn_opts o = { .flags = SPAWN_INHERIT_IN };

	if (global.json)
		o.out_to_fd = STDERR_FILENO;
	return spawn__argv(sp, argv, &o);
}

/* Reap the child if it has exited; true when it has (or there is none). */
static bool reap(struct run *r)
{
	return !r->child.pid || !spawn__wait(&r->child, 0);
}

/* Ask a running child to end, then insist: it must not outlive us. */
static void end_child(struct run *r, int sig)
{
	if (reap(r))
		return;
	r->signalled_by_us = true;
	spawn__stop(&r->child, sig, END_GRACE_MS);
}

/* Until the child exits, the time is up, or SIGINT/SIGTERM. */
static void wait_loop(struct run *r, const sigset_t *set)
{
	double deadline = r->limit_s > 0 ? mono_ns() / 1e9 + r->limit_s : 0;
	bool had_child = r->child.pid != 0;

	for (;;) {
		struct timespec ts = { .tv_sec = 3600 };
		double left;
		int sig;

		if (had_child && reap(r))
			return;
		if (deadline) {
			left = deadline - mono_ns() / 1e9;
			if (left <= 0)
				break;
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		}
		sig = sigtimedwait(set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM) {
			r->interrupted = true;
			end_child(r, sig);
			return;
		}
	}
	end_child(r, SIGTERM);
}

/*
 * 1 when the workload failed on its own, with the reason printed. A
 * Ctrl-C reaches CMD from the terminal as well as us, so dying of
 * SIGINT is being interrupted, not failing.
 */
static int child_verdict(const struct run *r, const char *cmd)
{
	int status = r->child.status;

	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		pr_err("trace: '%s' exited with status %d", cmd,
		       WEXITSTATUS(status));
		return 1;
	}
	if (WIFSIGNALED(status) && !r->signalled_by_us &&
	    WTERMSIG(status) != SIGINT) {
		pr_err("trace: '%s' was killed by signal %d (%s)", cmd,
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 1;
	}
	return 0;
}

static void add_run_json(json_t *res, const struct run *r, int argc,
			 const char **argv, bool ran)
{
	json_t *cmd = json_array();
	int i;

	for (i = 0; i < argc; i++)
		json_array_append_new(cmd, json_string(argv[i]));
	json_object_set_new(res, "command", argc ? cmd : json_null());
	if (!argc)
		json_decref(cmd);
	if (ran && WIFEXITED(r->child.status))
		json_object_set_new(res, "exit_status",
				    json_integer(WEXITSTATUS(r->child.status)));
	else if (ran)
		json_object_set_new(res, "signal",
				    json_integer(WTERMSIG(r->child.status)));
	json_object_set_new(res, "interrupted", json_boolean(r->interrupted));
}

static int trace_report(struct collector *c, const struct run *r, int argc,
			const char **argv)
{
	json_t *res;
	int err;

	err = c->ops->results(c, &res);
	if (err)
		return EXIT_WORK_FAILED;
	add_run_json(res, r, argc, argv, argc > 0);
	if (global.json) {
		json_dumpf(res, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else {
		bpf_results__print(stdout, res);
	}
	json_decref(res);
	return argc ? child_verdict(r, argv[0]) : EXIT_OK;
}

static int trace_run(struct collector *c, struct run *r, int argc,
		     const char **argv, const sigset_t *set)
{
	int err;

	err = c->ops->start(c);
	if (err)
		return EXIT_WORK_FAILED;
	if (argc) {
		err = spawn_cmd(argv, &r->child);
		if (err) {
			pr_err("trace: cannot run '%s': %s", argv[0],
			       strerror(-err));
			c->ops->stop(c);
			return EXIT_USAGE;
		}
	}
	if (!global.json && isatty(STDERR_FILENO))
		fprintf(stderr, "Tracing... %s\n",
			argc ? "until the command exits" : "Ctrl-C to end");
	wait_loop(r, set);
	err = c->ops->stop(c);
	return err ? EXIT_WORK_FAILED : trace_report(c, r, argc, argv);
}

int cmd_trace(int argc, const char **argv)
{
	struct collector_opts opts = { 0 };
	struct run r = { 0 };
	struct collector *c;
	sigset_t set, old;
	int err, ret;

	argc = parse_options(argc, argv, trace_options, trace_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	/*
	 * Held from here on and taken with sigtimedwait(): a Ctrl-C while
	 * the probes attach still ends in maps read and all detached.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (duration_arg && parse_duration(duration_arg, &r.limit_s))
		return EXIT_USAGE;
	if (geteuid()) {
		pr_err("trace: loading BPF programs needs root");
		return EXIT_WORK_FAILED;
	}
	opts.config = trace_config();
	err = bpf_collector_ops.create(&opts, &c);
	json_decref((json_t *)opts.config);
	strvec__release(&events);
	if (err)
		return err == -EINVAL || err == -ENOENT ? EXIT_USAGE :
							  EXIT_WORK_FAILED;
	ret = trace_run(c, &r, argc, argv, &set);
	spawn__release(&r.child);
	c->ops->destroy(c);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
