// SPDX-License-Identifier: GPL-2.0-only
/*
 * LAVA's REST API over libcurl: the token goes in a header of our own
 * (never a URL, a command line or a message), answers are JSON, and an
 * answer that is not 2xx becomes an error in words with LAVA's own.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/lava/lava.h"
#include "errmsg.h"
#include "util.h"

#define ANSWER_MAX (64u << 20)

struct answer {
	char *buf;
	size_t len;
	bool too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t len = size * n;

	if (a->len + len > ANSWER_MAX) {
		a->too_big = true;
		return 0;
	}
	a->buf = xrealloc(a->buf, a->len + len + 1);
	memcpy(a->buf + a->len, p, len);
	a->len += len;
	a->buf[a->len] = '\0';
	return len;
}

int lava_api__init(struct lava_api *a, const char *server, const char *token)
{
	size_t n = strlen(server);

	memset(a, 0, sizeof(*a));
	while (n && server[n - 1] == '/')
		n--;
	a->server = xstrndup(server, n);
	a->token = xstrdup(token);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	a->curl = curl_easy_init();
	return a->curl ? 0 : -ENOMEM;
}

void lava_api__release(struct lava_api *a)
{
	if (a->curl)
		curl_easy_cleanup(a->curl);
	if (a->token) {
		explicit_bzero(a->token, strlen(a->token));
		free(a->token);
	}
	free(a->server);
	memset(a, 0, sizeof(*a));
}

/* LAVA's words for a refusal: {"detail": ...} or {"message": ...}. */
static char *lava_words(const struct answer *ans)
{
	json_t *j = ans->buf ? json_loads(ans->buf, 0, NULL) : NULL;
	const char *s = NULL;
	char *out;

	if (j)
		s = json_string_value(json_object_get(j, "message")) ?:
			    json_string_value(json_object_get(j, "detail"));
	if (s)
		out = xstrdup(s);
	else if (ans->buf && ans->len && ans->len < 200)
		out = xstrdup(ans->buf);
	else
		out = xstrdup("no words");
	json_decref(j);
	/* One line, whatever the server sent. */
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return out;
}

/* An answer outside 2xx, in the words of what LAVA refused. */
static int refused(const struct lava_api *a, const char *method,
		   const char *path, long status, const struct answer *ans,
		   char **err)
{
	char *words = lava_words(ans);
	int ret;

	switch (status) {
	case 401:
	case 403:
		ret = errmsg__set(err, -EACCES,
				  "LAVA at %s refused the token (HTTP %ld: %s)",
				  a->server, status, words);
		break;
	case 404:
		ret = errmsg__set(err, -ENOENT,
				  "LAVA at %s has no %s (HTTP 404: %s)",
				  a->server, path, words);
		break;
	case 400:
		ret = errmsg__set(err, -EINVAL,
				  "LAVA at %s refused the request: %s",
				  a->server, words);
		break;
	default:
		ret = errmsg__set(err, -EIO,
				  "LAVA at %s answered %s %s with HTTP %ld: %s",
				  a->server, method, path, status, words);
		break;
	}
	free(words);
	return ret;
}

/* One request; the answer as JSON in *@out, or, with @text, as text. */
static int call(struct lava_api *a, const char *method, const char *path,
		const char *body, int timeout_ms, json_t **out, char **text,
		char **err)
{
	struct curl_slist *hdr = NULL;
	struct answer ans = { 0 };
	char curl_err[CURL_ERROR_SIZE] = "";
	char *url, *auth;
	json_error_t jerr;
	long status = 0;
	CURLcode rc;
	int ret = 0;

	if (out)
		*out = NULL;
	if (text)
		*text = NULL;
	errmsg__reset(err);
	url = xasprintf("%s%s", a->server, path);
	auth = xasprintf("Authorization: Token %s", a->token);
	hdr = curl_slist_append(hdr, auth);
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (body)
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
	curl_easy_reset(a->curl);
	curl_easy_setopt(a->curl, CURLOPT_URL, url);
	curl_easy_setopt(a->curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(a->curl, CURLOPT_CUSTOMREQUEST, method);
	if (body)
		curl_easy_setopt(a->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(a->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(a->curl, CURLOPT_WRITEDATA, &ans);
	curl_easy_setopt(a->curl, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(a->curl, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(a->curl, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(timeout_ms < 10000 ? timeout_ms : 10000));
	curl_easy_setopt(a->curl, CURLOPT_NOSIGNAL, 1L);
	/* A redirect would carry the token elsewhere. */
	curl_easy_setopt(a->curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(a->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	rc = curl_easy_perform(a->curl);
	explicit_bzero(auth, strlen(auth));
	free(auth);
	curl_slist_free_all(hdr);
	if (rc != CURLE_OK) {
		errmsg__set(err, 0, "cannot reach LAVA at %s: %s", a->server,
			    ans.too_big ? "its answer is over 64 MiB" :
			    *curl_err	? curl_err :
					  curl_easy_strerror(rc));
		ret = ans.too_big ? -EFBIG : -EHOSTUNREACH;
		goto out;
	}
	curl_easy_getinfo(a->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299) {
		ret = refused(a, method, path, status, &ans, err);
		goto out;
	}
	if (text) {
		*text = xstrndup(ans.buf ? ans.buf : "", ans.len);
	} else if (ans.len) {
		*out = json_loadb(ans.buf, ans.len, 0, &jerr);
		if (!*out) {
			ret = errmsg__set(err, -EPROTO,
					  "LAVA at %s answered %s %s with "
					  "something not JSON: %s",
					  a->server, method, path, jerr.text);
		}
	}
out:
	free(ans.buf);
	free(url);
	return ret;
}

int lava_api__call(struct lava_api *a, const char *method, const char *path,
		   const char *body, int timeout_ms, json_t **out, char **err)
{
	return call(a, method, path, body, timeout_ms, out, NULL, err);
}

int lava_api__text(struct lava_api *a, const char *path, int timeout_ms,
		   char **text, char **err)
{
	return call(a, "GET", path, NULL, timeout_ms, NULL, text, err);
}
