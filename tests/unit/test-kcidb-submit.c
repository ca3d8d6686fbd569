// SPDX-License-Identifier: GPL-2.0-only
/*
 * A report submitted to kcidb-ng's REST service: against the stand-in
 * tests/cli/kcidb-submit.t starts (tests/kcidb/kcidb-standin.py), which
 * it describes in the environment: KCIDB_URL (it drops the first
 * connection), KCIDB_STORM_URL (it answers 503 to everything),
 * KCIDB_STALL_URL (never a verdict), KCIDB_FORGET_URL (notfound),
 * KCIDB_TOKEN_FILE, KCIDB_LOG (the first one's log of requests) and
 * KCIDB_FIXTURES (the reports). Run on its own it checks the URL and
 * the token files only.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "kcidb/kcidb.h"
#include "tap.h"
#include "util.h"

static char tmpdir[] = "/tmp/test-kcidb-submit.XXXXXX";

/* The progress lines of one submission, joined. */
struct said {
	char *lines;
};

static void on_progress(void *arg, const char *line)
{
	struct said *s = arg;
	char *old = s->lines;

	s->lines = xasprintf("%s%s\n", old ? old : "", line);
	free(old);
}

/* Short waits, so that a retry or a poll costs milliseconds. */
static struct kcidb_submit_opts opts(const char *url, const char *token_file,
				     struct said *said)
{
	struct kcidb_submit_opts o = { url, token_file };

	o.tries = 4;
	o.backoff_ms = 20;
	o.backoff_max_ms = o.poll_ms = 40;
	o.timeout_s = 10;
	o.request_ms = 5000;
	o.progress = on_progress;
	o.progress_arg = said;
	return o;
}

static char *write_tmp(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static void check_urls(void)
{
	static const char *const bad[] = {
		"ftp://x", "http://", "localhost:80", "https:///path", "", NULL
	};
	static const char *const good[] = { "http://127.0.0.1:8000",
					    "https://kcidb.example/api/",
					    "http://[::1]:80", NULL };
	char *err = NULL;

	for (size_t i = 0; bad[i]; i++) {
		is_int(kcidb__url_check(bad[i], &err), -EINVAL,
		       "'%s' is not a service's URL", bad[i]);
		has_str(err, "expected an http(s) URL", "said in words: %s",
			err);
		errmsg__clear(&err);
	}
	for (size_t i = 0; good[i]; i++)
		is_int(kcidb__url_check(good[i], NULL), 0, "'%s' is one",
		       good[i]);
	is_int(kcidb__url_check("http://user:pw@kcidb.example", &err), -EINVAL,
	       "a URL with a password is refused");
	has_str(err, "a token goes in its file", "the token's place said");
	errmsg__clear(&err);
}

static void check_tokens(void)
{
	char *dir = xasprintf("%s/dir", tmpdir), *missing, *p;
	char *token = NULL, *err = NULL;

	p = write_tmp("t1", "  s3cret-token_1 \nsecond line\n");
	is_int(kcidb__token_read(p, &token, &err), 0, "a token file is read");
	is_str(token, "s3cret-token_1", "its first line, trimmed");
	free(token);
	free(p);
	p = write_tmp("t2", "\n");
	is_int(kcidb__token_read(p, &token, &err), -EINVAL,
	       "an empty one: refused");
	has_str(err, "is empty", "said: %s", err);
	free(p);
	p = write_tmp("t3", "two words\n");
	is_int(kcidb__token_read(p, &token, &err), -EINVAL,
	       "a space in the token: refused (a header it would break)");
	ok(err && !strstr(err, "two"), "the words do not quote the token");
	free(p);
	missing = xasprintf("%s/none", tmpdir);
	is_int(kcidb__token_read(missing, &token, &err), -ENOENT,
	       "a missing file: its errno");
	has_str(err, missing, "the words name the file");
	has_str(err, "No such file", "and the errno: %s", err);
	mkdir(dir, 0700);
	is_int(kcidb__token_read(dir, &token, &err), -EISDIR,
	       "a directory: its errno");
	has_str(err, "Is a directory", "said: %s", err);
	ok(token == NULL, "no token on failure");
	errmsg__clear(&err);
	free(missing);
	free(dir);
}

static size_t log_lines(const char *log, char **last)
{
	char *buf = NULL, *p, *start;
	size_t len, n = 0;

	if (last)
		*last = NULL;
	if (read_file(log, &buf, &len))
		return 0;
	for (p = start = buf; *p; p++) {
		if (*p != '\n')
			continue;
		n++;
		if (last) {
			free(*last);
			*last = xstrndup(start, p - start);
		}
		start = p + 1;
	}
	free(buf);
	return n;
}

static char *fixture(const char *name, size_t *len)
{
	char *path = xasprintf("%s/%s", getenv("KCIDB_FIXTURES"), name);
	char *buf = NULL;

	if (read_file(path, &buf, len)) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	free(path);
	return buf;
}

struct result {
	int ret;
	enum kcidb_outcome outcome;
	char *id, *message, *err;
	struct said said;
};

static void submit(const struct kcidb_submit_opts *o, const char *report,
		   struct result *r)
{
	size_t len;
	char *body = fixture(report, &len);

	memset(r, 0, sizeof(*r));
	r->outcome = -1;
	r->ret = kcidb__submit(o, body, len, &r->outcome, &r->id, &r->message,
			       &r->err);
	free(body);
}

static void result_free(struct result *r)
{
	free_all(r->id, r->message, r->err, r->said.lines);
}

static bool id_ok(const char *id)
{
	return id && strlen(id) == 32 &&
	       strspn(id, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "0123456789") == 32;
}

/* (a) the valid report, after the dropped first connection. */
static void check_processed(const char *url, const char *token, const char *log)
{
	struct result r;
	struct kcidb_submit_opts o = opts(url, token, &r.said);
	char *buf = NULL;
	size_t len;

	submit(&o, "minimal-report.json", &r);
	o.progress_arg = NULL;
	is_int(r.ret, 0, "the minimal report is submitted (%s)",
	       r.err ? r.err : "no error");
	is_int(r.outcome, KCIDB_PROCESSED, "and ends processed");
	ok(id_ok(r.id), "with the service's id, 32 alphanumerics (%s)", r.id);
	is_str(r.message, "ingested and archived", "and its message");
	has_str(r.said.lines, "retrying in 0.02 s: Empty reply from server",
		"the dropped connection is retried, said with its wait");
	has_str(r.said.lines, "submitted, id ", "the id is said");
	has_str(r.said.lines, "ready: waiting for the ingester",
		"and the service's ready");
	read_file(log, &buf, &len);
	has_str(buf,
		"POST /submit auth=ok dropped\nPOST /submit auth=ok submitted ",
		"the stand-in saw the first connection dropped, then the report");
	ok(buf && strstr(buf, " valid\nGET /status?id=") &&
		   strstr(buf, "auth=ok ready\nGET /status?id=") &&
		   strstr(buf, "auth=ok processed\n"),
	   "and polled: ready, then processed");
	free(buf);
	result_free(&r);
}

/* (b) a report the schema refuses: accepted, then failed by the ingester. */
static void check_failed(const char *url, const char *token)
{
	struct result r;
	struct kcidb_submit_opts o = opts(url, token, &r.said);

	submit(&o, "invalid-report.json", &r);
	is_int(r.ret, 0, "an invalid report gets a verdict (%s)",
	       r.err ? r.err : "no error");
	is_int(r.outcome, KCIDB_FAILED, "which is failed");
	is_str(kcidb_outcome__name(r.outcome), "failed", "said 'failed'");
	has_str(r.message, "schema validation failed",
		"the service's message says why");
	has_str(r.message, "'iommu-bench' does not match",
		"naming the first errors");
	result_free(&r);
}

/* (c) a wrong token: 401, said, not retried. */
static void check_wrong_token(const char *url, const char *log)
{
	char *wrong = write_tmp("wrong", "not-the-token\n"), *last;
	size_t before = log_lines(log, NULL);
	struct result r;
	struct kcidb_submit_opts o = opts(url, wrong, &r.said);

	submit(&o, "minimal-report.json", &r);
	is_int(r.ret, -EACCES, "a wrong token: -EACCES");
	has_str(r.err, "refused the token (HTTP 401: Invalid or missing token)",
		"with the 401's words: %s", r.err);
	ok(!r.err || !strstr(r.err, "not-the-token"), "never the token");
	ok(!r.said.lines || !strstr(r.said.lines, "retrying"), "no retry said");
	is_int(log_lines(log, &last) - before, 1, "one request, not retried");
	has_str(last, "POST /submit auth=bad 401", "refused for its auth");
	free(last);
	free(wrong);
	result_free(&r);
}

/* (d), (e) through kcidb__submit: refused before anything is sent. */
static void check_refused_early(const char *url, const char *token,
				const char *log)
{
	char *dir = xasprintf("%s/dir", tmpdir);
	char *missing = xasprintf("%s/none", tmpdir);
	size_t before = log_lines(log, NULL);
	struct {
		const char *url, *token, *words;
		int ret;
	} cases[] = {
		{ "ftp://127.0.0.1", token,
		  "expected an http(s) URL, got 'ftp://", -EINVAL },
		{ url, missing, "cannot read the token file", -ENOENT },
		{ url, dir, "Is a directory", -EISDIR },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct result r;
		struct kcidb_submit_opts o =
			opts(cases[i].url, cases[i].token, &r.said);

		submit(&o, "minimal-report.json", &r);
		is_int(r.ret, cases[i].ret, "refused: %s", cases[i].words);
		has_str(r.err, cases[i].words, "in words: %s", r.err);
		result_free(&r);
	}
	is_int(log_lines(log, NULL), before,
	       "the stand-in saw no request from any of them");
	free(dir);
	free(missing);
}

/* (f) 5xx every time: the tries spent, the last status named. */
static void check_storm(const char *storm, const char *token)
{
	struct result r;
	struct kcidb_submit_opts o = opts(storm, token, &r.said);
	size_t n = 0;

	o.tries = 3;
	submit(&o, "minimal-report.json", &r);
	is_int(r.ret, -EIO, "a 5xx storm: the tries spent, -EIO");
	has_str(r.err,
		"POST /submit failed 3 times, the last with HTTP 503: the "
		"stand-in is unavailable",
		"said with the last status: %s", r.err);
	for (const char *p = r.said.lines; p && (p = strstr(p, "retrying"));
	     p++)
		n++;
	is_int(n, 2, "two retries said between three tries");
	has_str(r.said.lines, "retrying in 0.04 s", "the wait doubles");
	result_free(&r);
}

/*
 * No verdict within timeout_s, the last status said; a submission the
 * service lost (notfound), in its words. No id or message either way.
 */
static void check_no_verdict(const char *stall, const char *forget,
			     const char *token)
{
	const struct {
		const char *url, *what, *words;
		int ret;
	} cases[] = {
		{ stall, "no verdict within timeout_s: -ETIMEDOUT",
		  "within 1 s; its last status was 'ready' (waiting for the "
		  "ingester)",
		  -ETIMEDOUT },
		{ forget, "a submission the service lost: -ENOENT",
		  "(notfound: no submission with this id)", -ENOENT },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct result r;
		struct kcidb_submit_opts o = opts(cases[i].url, token, &r.said);

		o.timeout_s = 1;
		submit(&o, "minimal-report.json", &r);
		is_int(r.ret, cases[i].ret, "%s", cases[i].what);
		has_str(r.err, cases[i].words, "said: %s", r.err);
		ok(!r.id && !r.message, "no id or message handed back");
		result_free(&r);
	}
}

/* A port nothing listens on: connection refused, every try. */
static void check_unreachable(const char *token)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct result r;
	struct kcidb_submit_opts o;
	char *url;

	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &alen);
	close(fd);
	url = xasprintf("http://127.0.0.1:%d", ntohs(a.sin_port));
	o = opts(url, token, &r.said);
	o.tries = 2;
	submit(&o, "minimal-report.json", &r);
	is_int(r.ret, -EHOSTUNREACH, "nothing listening: -EHOSTUNREACH");
	has_str(r.err, "failed 2 times, the last with Failed to connect",
		"curl's words: %s", r.err);
	result_free(&r);
	free(url);
}

int main(void)
{
	const char *url = getenv("KCIDB_URL"),
		   *storm = getenv("KCIDB_STORM_URL");
	const char *token = getenv("KCIDB_TOKEN_FILE"),
		   *log = getenv("KCIDB_LOG");
	char *rm;

	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	check_urls();
	check_tokens();
	if (url && storm && token && log && getenv("KCIDB_FIXTURES") &&
	    getenv("KCIDB_STALL_URL") && getenv("KCIDB_FORGET_URL")) {
		check_processed(url, token, log);
		check_failed(url, token);
		check_wrong_token(url, log);
		check_refused_early(url, token, log);
		check_storm(storm, token);
		check_unreachable(token);
		check_no_verdict(getenv("KCIDB_STALL_URL"),
				 getenv("KCIDB_FORGET_URL"), token);
	} else {
		printf("# no stand-in (tests/cli/kcidb-submit.t starts one): "
		       "the URL and token checks only\n");
	}
	rm = xasprintf("rm -rf '%s'", tmpdir);
	if (system(rm))
		printf("# cannot remove %s\n", tmpdir);
	free(rm);
	return tap_done();
}
