// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running perf(1): record over a window, evlist, report, --version.
 * See perf-record.h.
 */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/perf/perf-record.h"
#include "log.h"
#include "util.h"

/*
 * perf record -a needs a while to set up on big machines, and in a TCG
 * guest, which loads perf's 24 MB of libraries over 9p, 20 s and more
 * on a loaded host: the ack of "enable" waits for that.
 */
#define PERF_ACK_TIMEOUT_MS 120000
/* After SIGINT it writes perf.data and collects build ids. */
#define PERF_STOP_TIMEOUT_MS 120000
#define PERF_REPORT_TIMEOUT_MS 300000
#define PERF_QUICK_TIMEOUT_MS 30000

static const char *perf_bin(const char *perf)
{
	return perf ? perf : "perf";
}

bool perf_record__event_ok(const char *event)
{
	const char *p;

	if (!event || !*event || *event == '-' || strlen(event) > 256)
		return false;
	for (p = event; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-:./=,@", *p))
			return false;
	return true;
}

bool perf_record__cpus_ok(const char *cpus)
{
	const char *p;

	if (!cpus || !*cpus || strlen(cpus) > 1024)
		return false;
	for (p = cpus; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != ',' && *p != '-')
			return false;
	return isdigit((unsigned char)*cpus);
}

/*
 * What to quote from perf's log: the first line that says what went
 * wrong (perf follows errors with its usage text), else the last line.
 */
static const char *log_tail(const char *path, char *buf, size_t size)
{
	static const char *const cues[] = { "rror",	     "ailed",
					    "not supported", "ermission",
					    "Invalid",	     "No such" };
	char *text = NULL, *line;
	size_t len, i;

	buf[0] = '\0';
	if (!path || read_file(path, &text, &len))
		return buf;
	for (line = text; *line; line += strcspn(line, "\n"), line += !!*line) {
		size_t n = strcspn(line, "\n");

		for (i = 0; i < ARRAY_SIZE(cues); i++)
			if (memmem(line, n, cues[i], strlen(cues[i]))) {
				snprintf(buf, size, "%.*s", (int)n, line);
				free(text);
				return buf;
			}
	}
	spawn__last_line(text, buf, size);
	free(text);
	return buf;
}

static int send_cmd(struct perf_record *r, const char *cmd)
{
	size_t len = strlen(cmd);
	char ack[16] = "";
	int waited = 0;
	ssize_t n;

	if (send(r->ctl, cmd, len, MSG_NOSIGNAL) != (ssize_t)len) {
		pr_err("perf record: cannot send '%.*s': %s", (int)len - 1, cmd,
		       strerror(errno));
		return -EIO;
	}
	/* Watch perf itself too: it may die instead of answering. */
	while (waited < PERF_ACK_TIMEOUT_MS) {
		struct pollfd pfd = { .fd = r->ctl, .events = POLLIN };

		if (poll(&pfd, 1, 100) > 0) {
			n = recv(r->ctl, ack, sizeof(ack) - 1, 0);
			if (n > 0 && !strncmp(ack, "ack", 3))
				return 0;
			break;
		}
		waited += 100;
		if (!spawn__wait(&r->sp, 0))
			break;
	}
	if (waited >= PERF_ACK_TIMEOUT_MS)
		pr_err("perf record did not acknowledge '%.*s' within %d ms",
		       (int)len - 1, cmd, PERF_ACK_TIMEOUT_MS);
	return -EIO;
}

static void record_argv(const struct perf_record_opts *o, char *freq, char *ctl,
			const char **argv)
{
	size_t n = 0;

	argv[n++] = perf_bin(o->perf);
	argv[n++] = "record";
	argv[n++] = "-e";
	argv[n++] = o->event;
	argv[n++] = "-F";
	argv[n++] = freq;
	if (o->cpus) {
		argv[n++] = "-C";
		argv[n++] = o->cpus;
	} else {
		argv[n++] = "-a";
	}
	if (o->callgraph && !strcmp(o->callgraph, "fp")) {
		argv[n++] = "-g";
	} else if (o->callgraph && strcmp(o->callgraph, "none")) {
		argv[n++] = "--call-graph";
		argv[n++] = o->callgraph;
	}
	if (o->no_buildid) {
		argv[n++] = "--no-buildid";
		argv[n++] = "--no-buildid-cache";
	}
	/* Start disabled: the window opens at our "enable". */
	argv[n++] = "-D";
	argv[n++] = "-1";
	argv[n++] = "--control";
	argv[n++] = ctl;
	argv[n++] = "-o";
	argv[n++] = o->output;
	argv[n] = NULL;
}

int perf_record__start(struct perf_record *r, const struct perf_record_opts *o)
{
	char freq[16], ctl[48], tail[256];
	const char *argv[24];
	int sv[2], err;

	memset(r, 0, sizeof(*r));
	r->active = true;
	r->ctl = -1;
	r->sp.out_fd = r->sp.err_fd = r->sp.pidfd = -1;
	if (!perf_record__event_ok(o->event) ||
	    (o->cpus && !perf_record__cpus_ok(o->cpus))) {
		pr_err("perf record: bad event '%s' or CPU list '%s'",
		       o->event ? o->event : "", o->cpus ? o->cpus : "");
		return -EINVAL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		pr_err("perf record: socketpair: %s", strerror(errno));
		return -errno;
	}
	snprintf(freq, sizeof(freq), "%u", o->freq);
	/* One socket carries commands and acks both ways. */
	snprintf(ctl, sizeof(ctl), "fd:%d,%d", sv[1], sv[1]);
	record_argv(o, freq, ctl, argv);
	r->log = o->log ? xstrdup(o->log) : NULL;
	err = spawn__argv(
		&r->sp, argv,
		&(struct spawn_opts){
			.out_file = o->log,
			.err_file = o->log,
			.flags = o->log ? 0 : SPAWN_NULL_OUT | SPAWN_NULL_ERR,
			.pdeathsig = SIGINT,
			.keep_fds = &sv[1],
			.nr_keep_fds = 1,
		});
	close(sv[1]);
	r->ctl = sv[0];
	if (err)
		return err; /* spawn said why */
	err = send_cmd(r, "enable\n");
	if (err) {
		spawn__stop(&r->sp, SIGKILL, 5000);
		pr_err("perf record failed to start: %s",
		       *log_tail(r->log, tail, sizeof(tail)) ?
			       tail :
			       spawn__describe(&r->sp, tail, sizeof(tail)));
	}
	return err;
}

static bool stopped_ok(const struct spawn *sp)
{
	int st = sp->status;

	/* perf re-raises the SIGINT it caught, once perf.data is written. */
	return sp->reaped &&
	       ((WIFEXITED(st) &&
		 (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 128 + SIGINT)) ||
		(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT));
}

int perf_record__stop(struct perf_record *r)
{
	char tail[256], how[96];
	int err;

	if (!r->sp.pid)
		return -EINVAL;
	if (!r->sp.reaped)
		send_cmd(r, "disable\n");
	spawn__signal(&r->sp, SIGINT);
	err = spawn__wait(&r->sp, PERF_STOP_TIMEOUT_MS);
	if (err) {
		pr_err("perf record did not exit %d ms after SIGINT; killed",
		       PERF_STOP_TIMEOUT_MS);
		spawn__stop(&r->sp, SIGKILL, 5000);
		return err;
	}
	if (!stopped_ok(&r->sp)) {
		pr_err("perf record failed (%s): %s",
		       spawn__describe(&r->sp, how, sizeof(how)),
		       log_tail(r->log, tail, sizeof(tail)));
		return -EIO;
	}
	return 0;
}

void perf_record__release(struct perf_record *r)
{
	if (!r->active)
		return;
	r->active = false;
	spawn__release(&r->sp);
	if (r->ctl >= 0)
		close(r->ctl);
	r->ctl = -1;
	free(r->log);
	r->log = NULL;
}

/* Run a quick perf subcommand, stdout and stderr captured. */
static int perf_quick(struct spawn *sp, const char *const *argv, int tmo)
{
	char how[96], line[256];
	int err;

	err = spawn__run(sp, argv,
			 &(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT |
							SPAWN_CAPTURE_ERR },
			 tmo);
	if (err == -ETIMEDOUT)
		pr_err("%s %s did not finish within %d s; killed", argv[0],
		       argv[1], tmo / 1000);
	if (!err && !spawn__succeeded(sp)) {
		pr_err("%s %s failed (%s): %s", argv[0], argv[1],
		       spawn__describe(sp, how, sizeof(how)),
		       spawn__last_line(sp->err, line, sizeof(line)));
		err = -EIO;
	}
	return err;
}

int perf_record__evlist(const char *perf, const char *data, char **event)
{
	const char *argv[] = { perf_bin(perf), "evlist", "-i", data, NULL };
	struct spawn sp;
	const char *p;
	int err;

	*event = NULL;
	err = perf_quick(&sp, argv, PERF_QUICK_TIMEOUT_MS);
	for (p = sp.out; !err && p && *p; p += strcspn(p, "\n"), p += !!*p) {
		size_t len = strcspn(p, "\n");

		if (!len || *p == '#' || !strncmp(p, "dummy", 5))
			continue;
		*event = xstrndup(p, len);
		break;
	}
	if (!err && !*event) {
		pr_err("perf evlist -i %s: no event in its output", data);
		err = -EINVAL;
	}
	spawn__release(&sp);
	return err;
}

int perf_record__report(const char *perf, const char *data,
			double percent_limit, struct perf_report *rep)
{
	return perf_record__report_with(perf, data, NULL, percent_limit, rep);
}

int perf_record__report_with(const char *perf, const char *data,
			     const char *kallsyms, double percent_limit,
			     struct perf_report *rep)
{
	char sep[2] = { PERF_REPORT_SEP, '\0' };
	/* No --percent-limit: the rows below it still count as samples. */
	const char *argv[] = {
		perf_bin(perf),
		"report",
		"-i",
		data,
		"--stdio",
		"--no-children",
		"--sort",
		PERF_REPORT_SORT,
		"-g",
		"none",
		"-n",
		"--show-total-period",
		"-t",
		sep,
		kallsyms ? "--kallsyms" : NULL,
		kallsyms,
		NULL,
	};
	struct spawn sp;
	int err;

	err = perf_quick(&sp, argv, PERF_REPORT_TIMEOUT_MS);
	if (!err && ((sp.out && strstr(sp.out, "has no samples")) ||
		     (sp.err && strstr(sp.err, "has no samples")))) {
		pr_warn("perf report: %s has no samples", data);
	} else if (!err) {
		err = perf_report__parse(sp.out ? sp.out : "", rep);
		if (!err)
			perf_report__limit(rep, percent_limit);
	}
	spawn__release(&sp);
	return err;
}

char *perf_record__version(const char *perf)
{
	const char *argv[] = { perf_bin(perf), "--version", NULL };
	char line[128], *v = NULL;
	struct spawn sp;

	if (!spawn__run(&sp, argv,
			&(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT |
						       SPAWN_NULL_ERR },
			PERF_QUICK_TIMEOUT_MS) &&
	    spawn__succeeded(&sp))
		v = xstrdup(spawn__last_line(sp.out, line, sizeof(line)));
	spawn__release(&sp);
	return v;
}
