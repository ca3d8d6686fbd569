// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the agent's end of the protocol: the lines a
 * controller sends to `agent serve`, which may come from a broken or
 * compromised host. Each line is decoded as agent__handle_line() does
 * (agent__parse_request()), and answered by agent__dispatch() when its
 * verb changes nothing on the machine that fuzzes: file.read and
 * file.remove under a scratch artifact folder, kernel.find, reboot.*
 * as dry runs, collect.stop, bye and any unknown verb. Every answer
 * must be one JSON line with the request's id, "ok" and a result
 * object or an error with its errno, as the controller expects.
 *
 * "@ROOT@" in the input stands for the artifact folder, whose name is
 * per process, so that seeds can name the files in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/agent/agent-file.h"
#include "bench/agent/agent.h"
#include "fuzz/fuzz-util.h"

#define ROOT_MARK "@ROOT@"
/* Lines answered per input: enough for a session, bounded per run. */
#define MAX_LINES 64

static char *artifacts; /* TMPDIR/iommu-bench-artifacts */

/* Verbs whose work, given the args fixed below, stays in the scratch. */
static const char *const safe_verbs[] = {
	"bye",	       "collect.stop", "file.read",	 "file.remove",
	"kernel.find", "reboot.now",   "reboot.prepare", NULL,
};

static bool is_safe(const char *verb)
{
	const char *const *v;

	if (!agent_verb__find(verb))
		return true; /* answered "unknown verb", nothing run */
	for (v = safe_verbs; *v; v++)
		if (!strcmp(*v, verb))
			return true;
	return false;
}

/* What a file.read or file.remove may find: put back for every input. */
static void artifacts_make(void)
{
	char *dir = xasprintf("%s/trial-1", artifacts);
	char *file = xasprintf("%s/perf.data", dir);
	int fd;

	mkdir(artifacts, 0700);
	mkdir(dir, 0700);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		CHECK(write(fd, "PERFILE2 and then some", 22) == 22);
		close(fd);
	}
	free(file);
	free(dir);
}

/* The agent's artifact root is $TMPDIR/ARTIFACT_DIR_NAME. */
static void set_artifacts(void)
{
	const char *tmp = fuzz_need_tmpdir();

	setenv("TMPDIR", tmp, 1);
	artifacts = xasprintf("%s/%s", tmp, ARTIFACT_DIR_NAME);
}

FUZZ_INITIALIZE(set_artifacts())

/* @text with every ROOT_MARK replaced by the artifact folder. */
static char *expand_root(const char *text)
{
	size_t n = 0, len = strlen(text), rlen = strlen(artifacts);
	const char *p;
	char *out, *o;

	for (p = text; (p = strstr(p, ROOT_MARK)); p += strlen(ROOT_MARK))
		n++;
	out = o = xmalloc(len + n * rlen + 1);
	for (p = text; *p;) {
		if (!strncmp(p, ROOT_MARK, strlen(ROOT_MARK))) {
			memcpy(o, artifacts, rlen);
			o += rlen;
			p += strlen(ROOT_MARK);
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* The reply contract of bench/agent/agent-proto.h. */
static void check_reply(json_t *o, json_int_t id)
{
	json_t *ok = json_object_get(o, "ok"), *idj = json_object_get(o, "id");
	char *s;

	CHECK(json_is_object(o) && json_is_boolean(ok));
	if (id < 0)
		CHECK(json_is_null(idj) || json_is_integer(idj));
	else
		CHECK(json_integer_value(idj) == id);
	if (json_is_true(ok)) {
		CHECK(json_is_object(json_object_get(o, "result")));
	} else {
		CHECK(json_is_string(json_object_get(o, "error")));
		CHECK(json_integer_value(json_object_get(o, "errno")) > 0);
	}
	/* One line on the wire, whatever the request held. */
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	CHECK(s && !strchr(s, '\n'));
	free(s);
}

static void one_line(struct agent *a, const char *line)
{
	json_t *req, *args, *o;
	const char *verb;
	json_int_t id;

	o = agent__parse_request(line, &req, &id, &verb, &args);
	if (o) {
		CHECK(!req);
		check_reply(o, -1);
		json_decref(o);
		return;
	}
	CHECK(req && json_is_object(args) && id >= 0 && verb);
	if (is_safe(verb)) {
		/* A dry run only says what it would run; a grub.cfg named
		 * in args could be any file of this machine. */
		if (!strncmp(verb, "reboot.", 7)) {
			json_object_set_new(args, "dry_run", json_true());
			json_object_del(args, "grub_cfg");
		}
		o = agent__dispatch(a, id, verb, args);
		check_reply(o, id);
		json_decref(o);
	}
	json_decref(args);
	json_decref(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent a = { 0 };
	char *text = fuzz_str(data, size), *all, *line, *save = NULL;
	int n = 0;

	artifacts_make();
	all = expand_root(text);
	/* As agent__serve() reads: lines, a trailing \r dropped, blank
	 * ones skipped, until bye. */
	for (line = strtok_r(all, "\n", &save);
	     line && !a.quit && n < MAX_LINES;
	     line = strtok_r(NULL, "\n", &save), n++) {
		size_t len = strlen(line);

		while (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len)
			one_line(&a, line);
	}
	agent__release(&a);
	free(all);
	free(text);
	return 0;
}
