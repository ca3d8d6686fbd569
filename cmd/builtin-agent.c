// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench agent: what the controller runs on each host (see
 * bench/agent/agent-proto.h). `serve` answers JSON lines on stdin/stdout;
 * `connect` dials the controller over TCP, proves the job's secret and
 * answers the same lines on that socket (a LAVA device that shares
 * nothing with the controller); `agent VERB [--args JSON]` runs one verb
 * and prints its result, for people debugging a host and for the ssh
 * transport's staleness check.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent-client/agent-bundle.h"
#include "bench/agent/agent-dial.h"
#include "bench/agent/agent.h"
#include "builtin.h"
#include "chan-auth.h"
#include "parse-options.h"
#include "suggest.h"
#include "util.h"

static const char *const agent_usage[] = {
	"iommu-bench agent serve",
	"iommu-bench agent connect ADDR:PORT --secret-file FILE "
	"[--give-up SECONDS]",
	"iommu-bench agent VERB [--args JSON]",
	NULL,
};

/*
 * The protocol owns the real stdout; fd 1 becomes stderr, so that what
 * libraries and children print (libiperf does) cannot corrupt a reply.
 */
static int take_stdout(void)
{
	int fd;

	fflush(stdout);
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int agent_serve(void)
{
	struct agent a = { 0 };
	int out, ret;

	/* A controller gone away is seen as EPIPE, and the collectors
	 * still get stopped. */
	signal(SIGPIPE, SIG_IGN);
	out = take_stdout();
	if (out < 0) {
		pr_err("agent: cannot set up stdout: %s", strerror(-out));
		return EXIT_WORK_FAILED;
	}
	ret = agent__serve(&a, STDIN_FILENO, out);
	agent__release(&a);
	close(out);
	return ret < 0 ? EXIT_WORK_FAILED : EXIT_OK;
}

/* The words of `agent connect` on its way to the controller. */
static void say(void *arg, const char *words)
{
	(void)arg;
	fprintf(stderr, "iommu-bench agent: %s\n", words);
}

/*
 * fds 0 to 2 open, on /dev/null where they were not (an init may start
 * the agent without them): else the socket could be fd 1, and whatever
 * prints on stdout would write into the channel.
 */
static int std_fds_open(void)
{
	int fd;

	for (;;) {
		fd = open("/dev/null", O_RDWR);
		if (fd < 0)
			return -errno;
		if (fd > STDERR_FILENO) {
			close(fd);
			return 0;
		}
	}
}

static int agent_connect(const char *target, const char *secret_file,
			 long give_up)
{
	uint8_t secret[CHAN_SECRET_SIZE];
	struct agent a = { 0 };
	char *err = NULL;
	int fd = -1, ret;

	/* A controller gone away is seen as EPIPE, as under serve. */
	signal(SIGPIPE, SIG_IGN);
	ret = std_fds_open();
	if (!ret)
		ret = take_stdout();
	if (ret < 0) {
		pr_err("agent: cannot set up stdout: %s", strerror(-ret));
		return EXIT_WORK_FAILED;
	}
	/* Only fd 1 moved to stderr was wanted: the channel is the socket. */
	close(ret);
	if (chan_secret__read(secret_file, secret, &err)) {
		pr_err("agent: %s", err);
		ret = EXIT_USAGE;
		goto out;
	}
	fd = agent_dial__connect(target, (int)give_up, say, NULL, &err);
	if (fd < 0) {
		pr_err("agent: %s", err);
		ret = fd == -EINVAL ? EXIT_USAGE : EXIT_WORK_FAILED;
		goto out;
	}
	ret = chan_auth__agent(fd, target, secret, sizeof(secret),
			       AGENT_DIAL_HANDSHAKE_MS, &err);
	explicit_bzero(secret, sizeof(secret));
	if (ret) {
		/* Refused is final: the same secret would be refused again. */
		pr_err("agent: %s", err);
		ret = ret == -EACCES ? EXIT_REFUSED : EXIT_WORK_FAILED;
		goto out;
	}
	ret = agent__serve(&a, fd, fd) < 0 ? EXIT_WORK_FAILED : EXIT_OK;
	agent__release(&a);
out:
	explicit_bzero(secret, sizeof(secret));
	if (fd >= 0)
		close(fd);
	free(err);
	return ret;
}

static int agent_oneshot(const char *verb, const char *args_text)
{
	struct agent a = { 0 };
	json_error_t jerr;
	json_t *args, *o, *res;
	FILE *fp;
	int out, ret = EXIT_OK;

	args = args_text ? json_loads(args_text, 0, &jerr) : json_object();
	if (!json_is_object(args)) {
		pr_err("agent: --args '%s' is not a JSON object%s%s", args_text,
		       args ? "" : ": ", args ? "" : jerr.text);
		json_decref(args);
		return EXIT_USAGE;
	}
	out = take_stdout();
	if (out < 0 || !(fp = fdopen(out, "w"))) {
		pr_err("agent: cannot set up stdout");
		json_decref(args);
		return EXIT_WORK_FAILED;
	}
	o = agent__dispatch(&a, 0, verb, args);
	res = json_object_get(o, "result");
	if (json_is_true(json_object_get(o, "ok"))) {
		json_dumpf(res, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', fp);
	} else {
		pr_err("agent: %s",
		       json_string_value(json_object_get(o, "error")));
		ret = json_integer_value(json_object_get(o, "errno")) ==
				      ENOSYS ?
			      EXIT_USAGE :
			      EXIT_WORK_FAILED;
	}
	fclose(fp);
	json_decref(o);
	if (a.after_reply)
		agent__run_after_reply(&a);
	agent__release(&a);
	json_decref(args);
	return ret;
}

/*
 * Sent to a machine with its libraries (agent-bundle.h), the agent was
 * started with them first in LD_LIBRARY_PATH: loaded now, they must not
 * reach what it runs there (kexec, grub-reboot, dpkg, perf).
 */
static void drop_bundle_env(void)
{
	const char *libs = getenv(AGENT_LIBS_ENV);
	const char *path = getenv("LD_LIBRARY_PATH");

	if (libs && path && !strcmp(libs, path))
		unsetenv("LD_LIBRARY_PATH");
	unsetenv(AGENT_LIBS_ENV);
}

int cmd_agent(int argc, const char **argv)
{
	const char *args = NULL, *secret_file = NULL;
	struct sockaddr_storage ss;
	long give_up = 0;
	char *err = NULL;
	socklen_t len;
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_STRING(0, "args", &args, "JSON",
			   "the verb's arguments, a JSON object"),
		OPT_STRING(0, "secret-file", &secret_file, "FILE",
			   "connect: the job's secret, 64 hex digits in a "
			   "file of mode 0600"),
		OPT_INTEGER(0, "give-up", &give_up, "SECONDS",
			    "connect: stop trying to reach the controller "
			    "after this long (default: never)"),
		OPT_END(),
	};

	drop_bundle_env();
	argc = parse_options(argc, argv, opts, agent_usage, 0);
	if (argc && !strcmp(argv[0], "connect")) {
		if (argc != 2)
			usage_error(agent_usage, opts, "%s",
				    "connect takes the controller's "
				    "ADDR:PORT");
		if (args)
			usage_error(agent_usage, opts,
				    "connect reads its requests from the "
				    "controller, not --args");
		if (!secret_file)
			usage_error(agent_usage, opts,
				    "connect needs --secret-file FILE, the "
				    "job's secret");
		if (give_up < 0 || give_up > 24 * 3600)
			usage_error(agent_usage, opts,
				    "--give-up takes 0 (never) to 86400 "
				    "seconds");
		if (chan_addr__parse(argv[1], &ss, &len, &err))
			usage_error(agent_usage, opts, "%s", err);
		return agent_connect(argv[1], secret_file, give_up);
	}
	if (secret_file || give_up)
		usage_error(agent_usage, opts,
			    "--secret-file and --give-up are for connect");
	if (argc != 1)
		usage_error(agent_usage, opts, "%s",
			    argc ? "one verb, please" : "a verb is needed");
	if (!strcmp(argv[0], "serve")) {
		if (args)
			usage_error(agent_usage, opts,
				    "serve reads its requests from stdin, "
				    "not --args");
		return agent_serve();
	}
	return agent_oneshot(argv[0], args);
}
