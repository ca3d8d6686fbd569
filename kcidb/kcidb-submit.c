// SPDX-License-Identifier: GPL-2.0-only
/*
 * A report handed to kcidb-ng's REST service (docs/kcidb.md): POST
 * /submit with the bearer token, then GET /status until the ingester's
 * verdict. The service validates fully only after it accepted, so a 200
 * on submit is not success: the verdict is. Connection loss and 5xx are
 * the network's or the service's passing trouble, retried with a
 * doubling wait; a 4xx is about what we sent, which sending again would
 * not change.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "errmsg.h"
#include "http.h"
#include "kcidb/kcidb.h"
#include "util.h"

struct submit {
	const struct kcidb_submit_opts *o;
	struct http *http;
	char *base; /* the URL without its trailing '/' */
	char *auth; /* the Authorization line: wiped, never said */
	int tries, backoff_ms, backoff_max_ms, poll_ms, timeout_s, request_ms;
};

/* What /status may say, in the order of the documented API. */
enum kcidb_status {
	ST_INPROGRESS,
	ST_READY,
	ST_PROCESSED,
	ST_FAILED,
	ST_NR,
};

static const char *const status_names[ST_NR] = {
	[ST_INPROGRESS] = "inprogress",
	[ST_READY] = "ready",
	[ST_PROCESSED] = "processed",
	[ST_FAILED] = "failed",
};

const char *kcidb_outcome__name(enum kcidb_outcome outcome)
{
	return outcome == KCIDB_PROCESSED ? "processed" : "failed";
}

static void say(const struct submit *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct submit *s, const char *fmt, ...)
{
	va_list ap;
	char *line;

	if (!s->o->progress)
		return;
	va_start(ap, fmt);
	line = xvasprintf(fmt, ap);
	va_end(ap);
	s->o->progress(s->o->progress_arg, line);
	free(line);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A 4xx: what we sent is refused, and sending it again would not help. */
static int refused(const struct submit *s, const char *what,
		   const struct http_answer *ans, char **err)
{
	char *words = http_answer__words(ans);
	int ret;

	if (ans->status == 401 || ans->status == 403)
		ret = errmsg__set(
			err, -EACCES,
			"kcidb at %s refused the token (HTTP %ld: %s)", s->base,
			ans->status, words);
	else
		ret = errmsg__set(err, -EINVAL,
				  "kcidb at %s refused %s (HTTP %ld: %s)",
				  s->base, what, ans->status, words);
	free(words);
	return ret;
}

/* Why an attempt failed, for the retry's line and the last error. */
static char *attempt_why(int ret, const struct http_answer *ans,
			 const char *curl_words)
{
	char *words, *why;

	if (ret)
		return xstrdup(curl_words);
	words = http_answer__words(ans);
	why = xasprintf("HTTP %ld: %s", ans->status, words);
	free(words);
	return why;
}

/*
 * One request, sent again on connection loss and 5xx, s->tries times in
 * all, each wait twice the last. 0 with *@ans, an answer below 500; or
 * the tries spent, in words naming the last failure.
 */
static int exchange(struct submit *s, const char *method, const char *url,
		    const char *body, size_t len, struct http_answer *ans,
		    char **err)
{
	const char *hdr[] = { s->auth, "Accept: application/json",
			      body ? "Content-Type: application/json" : NULL,
			      NULL };
	struct http_request req = { .method = method,
				    .url = url,
				    .headers = hdr,
				    .body = body,
				    .body_len = len,
				    .timeout_ms = s->request_ms };
	int delay = s->backoff_ms, ret;
	char *curl_words = NULL, *why;

	for (int i = 1;; i++) {
		ret = http__request(s->http, &req, ans, &curl_words);
		if (!ret && ans->status < 500)
			return 0;
		why = attempt_why(ret, ans, curl_words);
		errmsg__clear(&curl_words);
		http_answer__release(ans);
		if (ret == -EFBIG || i >= s->tries) {
			/* http__request's own errno, or a 5xx's. */
			ret = errmsg__set(
				err, ret ? ret : -EIO,
				"kcidb at %s: %s %s failed %d time%s, "
				"the last with %s",
				s->base, method, url + strlen(s->base), i,
				i == 1 ? "" : "s", why);
			free(why);
			return ret;
		}
		say(s, "retrying in %g s: %s", delay / 1000.0, why);
		free(why);
		sleep_ms(delay);
		delay = delay > s->backoff_max_ms / 2 ? s->backoff_max_ms :
							2 * delay;
	}
}

/* An answer's JSON {"id", "status", "message"}, as the API documents it. */
static int answer_json(const struct submit *s, const char *what,
		       const struct http_answer *ans, json_t **j, char **err)
{
	json_error_t jerr;

	*j = json_loadb(ans->body ? ans->body : "", ans->len, 0, &jerr);
	if (!*j || !json_is_object(*j)) {
		json_decref(*j);
		*j = NULL;
		return errmsg__set(err, -EPROTO,
				   "kcidb at %s answered %s with something "
				   "not a JSON object: %s",
				   s->base, what, jerr.text);
	}
	return 0;
}

static bool id_is_valid(const char *id)
{
	if (!id || !*id)
		return false;
	for (; *id; id++)
		if (!isalnum((unsigned char)*id))
			return false;
	return true;
}

/* /status's words for a submission it does not know, or an id it refuses. */
static int lost(const struct submit *s, const char *id,
		const struct http_answer *ans, char **err)
{
	char *words = http_answer__words(ans);
	int ret;

	if (ans->status == 404)
		ret = errmsg__set(err, -ENOENT,
				  "kcidb at %s knows no submission %s "
				  "(notfound: %s)",
				  s->base, id, words);
	else
		ret = errmsg__set(err, -EINVAL,
				  "kcidb at %s refused the id %s (error: %s)",
				  s->base, id, words);
	free(words);
	return ret;
}

/*
 * One call of the API: 0 with its JSON object in *@j; a 4xx in words
 * (with @id, the status of that submission: 404 notfound, 400 error).
 */
static int call(struct submit *s, const char *path, const char *body,
		size_t len, const char *what, const char *id, json_t **j,
		char **err)
{
	char *url = xasprintf("%s%s", s->base, path);
	struct http_answer ans;
	int ret;

	*j = NULL;
	ret = exchange(s, body ? "POST" : "GET", url, body, len, &ans, err);
	if (ret)
		goto out;
	if (id && (ans.status == 404 || ans.status == 400))
		ret = lost(s, id, &ans, err);
	else if (ans.status < 200 || ans.status > 299)
		ret = refused(s, what, &ans, err);
	else
		ret = answer_json(s, what, &ans, j, err);
out:
	http_answer__release(&ans);
	free(url);
	return ret;
}

/* POST /submit: 0 and the id the service gave the report. */
static int post(struct submit *s, const char *body, size_t len, char **id,
		char **err)
{
	const char *got;
	json_t *j;
	int ret;

	ret = call(s, "/submit", body, len, "the report", NULL, &j, err);
	if (ret)
		return ret;
	got = json_string_value(json_object_get(j, "id"));
	if (id_is_valid(got)) {
		*id = xstrdup(got);
		say(s, "submitted, id %s; waiting for the ingester", *id);
	} else {
		ret = errmsg__set(err, -EPROTO,
				  "kcidb at %s accepted the report without an "
				  "id of letters and digits",
				  s->base);
	}
	json_decref(j);
	return ret;
}

/* One GET /status: 0 with the status and the service's message. */
static int status_get(struct submit *s, const char *id, enum kcidb_status *st,
		      char **message, char **err)
{
	char *path = xasprintf("/status?id=%s", id);
	const char *name, *msg;
	json_t *j;
	int ret, i;

	ret = call(s, path, NULL, 0, "the status request", id, &j, err);
	free(path);
	if (ret)
		return ret;
	name = json_string_value(json_object_get(j, "status"));
	msg = json_string_value(json_object_get(j, "message"));
	for (i = 0; i < ST_NR && name; i++)
		if (!strcmp(name, status_names[i]))
			break;
	if (!name || i == ST_NR) {
		ret = errmsg__set(err, -EPROTO,
				  "kcidb at %s answered the status of %s with "
				  "'%s', which its API does not name",
				  s->base, id, name ? name : "(no status)");
	} else {
		*st = i;
		free(*message);
		*message = xstrdup(msg ? msg : "");
	}
	json_decref(j);
	return ret;
}

/* /status every poll_ms until processed or failed, or timeout_s. */
static int await_verdict(struct submit *s, const char *id,
			 enum kcidb_outcome *outcome, char **message,
			 char **err)
{
	int64_t deadline = mono_ms() + (int64_t)s->timeout_s * 1000;
	enum kcidb_status st = ST_NR, last = ST_NR;
	int ret;

	for (;;) {
		ret = status_get(s, id, &st, message, err);
		if (ret)
			return ret;
		if (st == ST_PROCESSED || st == ST_FAILED) {
			*outcome = st == ST_PROCESSED ? KCIDB_PROCESSED :
							KCIDB_FAILED;
			return 0;
		}
		if (st != last)
			say(s, "%s: %s", status_names[st],
			    **message ? *message : "no words");
		last = st;
		if (mono_ms() + s->poll_ms > deadline)
			return errmsg__set(err, -ETIMEDOUT,
					   "kcidb at %s gave no verdict on %s "
					   "within %d s; its last status was "
					   "'%s' (%s)",
					   s->base, id, s->timeout_s,
					   status_names[st], *message);
		sleep_ms(s->poll_ms);
	}
}

static int or_default(int v, int def)
{
	return v > 0 ? v : def;
}

/* The URL and the token checked, the client opened: nothing sent yet. */
static int submit_open(struct submit *s, const struct kcidb_submit_opts *o,
		       char **err)
{
	char *token = NULL;
	size_t n;
	int ret;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->tries = or_default(o->tries, 5);
	s->backoff_ms = or_default(o->backoff_ms, 1000);
	s->backoff_max_ms = or_default(o->backoff_max_ms, 30000);
	s->poll_ms = or_default(o->poll_ms, 1000);
	s->timeout_s = or_default(o->timeout_s, 600);
	s->request_ms = or_default(o->request_ms, 30000);
	ret = kcidb__url_check(o->url ? o->url : "", err);
	if (ret)
		return ret;
	if (!o->token_file)
		return errmsg__set(err, -EINVAL,
				   "no token file: kcidb-ng takes a token "
				   "issued by the KernelCI team, kept in a "
				   "file");
	ret = kcidb__token_read(o->token_file, &token, err);
	if (ret)
		return ret;
	s->auth = xasprintf("Authorization: Bearer %s", token);
	explicit_bzero(token, strlen(token));
	free(token);
	n = strlen(o->url);
	while (n && o->url[n - 1] == '/')
		n--;
	s->base = xstrndup(o->url, n);
	ret = http__open(&s->http);
	return ret ? errmsg__set(err, ret, "cannot start libcurl: %s",
				 strerror(-ret)) :
		     0;
}

static void submit_close(struct submit *s)
{
	http__close(s->http);
	if (s->auth) {
		explicit_bzero(s->auth, strlen(s->auth));
		free(s->auth);
	}
	free(s->base);
}

int kcidb__submit(const struct kcidb_submit_opts *o, const char *body,
		  size_t len, enum kcidb_outcome *outcome, char **id,
		  char **message, char **err)
{
	struct submit s;
	int ret;

	*id = NULL;
	*message = NULL;
	errmsg__reset(err);
	ret = submit_open(&s, o, err);
	if (!ret)
		ret = post(&s, body, len, id, err);
	if (!ret)
		ret = await_verdict(&s, *id, outcome, message, err);
	submit_close(&s);
	if (ret) {
		free(*id);
		free(*message);
		*id = NULL;
		*message = NULL;
	}
	return ret;
}
