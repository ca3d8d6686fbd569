// SPDX-License-Identifier: GPL-2.0-only
/*
 * libcurl behind src/http.h: one easy handle per client, reset before
 * each request so that nothing of the last one (a body, a verb) leaks
 * into the next, and kept so that its connections are reused.
 */
#include <curl/curl.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "http.h"
#include "util.h"

struct http {
	CURL *curl;
};

struct sink {
	struct http_answer *ans;
	bool too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct sink *s = arg;
	struct http_answer *a = s->ans;
	size_t len = size * n;

	if (a->len + len > HTTP_ANSWER_MAX) {
		s->too_big = true;
		return 0;
	}
	a->body = xrealloc(a->body, a->len + len + 1);
	memcpy(a->body + a->len, p, len);
	a->len += len;
	a->body[a->len] = '\0';
	return len;
}

int http__open(struct http **hp)
{
	struct http *h = xcalloc(1, sizeof(*h));

	*hp = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h->curl = curl_easy_init();
	if (!h->curl) {
		free(h);
		return -ENOMEM;
	}
	*hp = h;
	return 0;
}

void http__close(struct http *h)
{
	if (h)
		curl_easy_cleanup(h->curl);
	free(h);
}

void http_answer__release(struct http_answer *ans)
{
	free(ans->body);
	memset(ans, 0, sizeof(*ans));
}

/* The headers' copies may hold a token: wiped before they are freed. */
static void headers_free(struct curl_slist *hdr)
{
	for (struct curl_slist *l = hdr; l; l = l->next)
		explicit_bzero(l->data, strlen(l->data));
	curl_slist_free_all(hdr);
}

static void set_options(CURL *c, const struct http_request *req,
			struct curl_slist *hdr, struct sink *sink,
			char *curl_err)
{
	int ms = req->timeout_ms;

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	if (req->body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
	if (req->body && req->body_len)
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)req->body_len);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(ms < 10000 ? ms : 10000));
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* A redirect would carry the token elsewhere. */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
}

int http__request(struct http *h, const struct http_request *req,
		  struct http_answer *ans, char **err)
{
	struct curl_slist *hdr = NULL;
	char curl_err[CURL_ERROR_SIZE] = "";
	struct sink sink = { .ans = ans };
	CURLcode rc;

	memset(ans, 0, sizeof(*ans));
	errmsg__reset(err);
	for (size_t i = 0; req->headers && req->headers[i]; i++)
		hdr = curl_slist_append(hdr, req->headers[i]);
	set_options(h->curl, req, hdr, &sink, curl_err);
	rc = curl_easy_perform(h->curl);
	headers_free(hdr);
	if (rc != CURLE_OK) {
		http_answer__release(ans);
		if (sink.too_big)
			return errmsg__set(err, -EFBIG,
					   "its answer is over 64 MiB");
		return errmsg__set(err, -EHOSTUNREACH, "%s",
				   *curl_err ? curl_err :
					       curl_easy_strerror(rc));
	}
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &ans->status);
	return 0;
}

char *http_answer__words(const struct http_answer *ans)
{
	json_t *j = ans->body ? json_loads(ans->body, 0, NULL) : NULL;
	const char *s = NULL;
	char *out;

	if (j)
		s = json_string_value(json_object_get(j, "message")) ?:
			    json_string_value(json_object_get(j, "detail"));
	if (s)
		out = xstrdup(s);
	else if (ans->body && ans->len && ans->len < 200)
		out = xstrdup(ans->body);
	else
		out = xstrdup("no words");
	json_decref(j);
	/* One line, whatever the server sent. */
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return out;
}

const char *http__url_host(const char *url)
{
	static const char *const schemes[] = { "http://", "https://" };

	for (size_t i = 0; i < ARRAY_SIZE(schemes); i++)
		if (!strncmp(url, schemes[i], strlen(schemes[i])))
			return url + strlen(schemes[i]);
	return NULL;
}

int http__url_check(const char *url, char **err)
{
	const char *host = http__url_host(url), *p;

	if (!host)
		return errmsg__set(err, -EINVAL,
				   "expected an http(s) URL, got '%s'", url);
	for (p = url; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p) ||
		    *p == '?' || *p == '#')
			return errmsg__set(err, -EINVAL,
					   "expected an http(s) URL without "
					   "spaces, a query or a fragment, "
					   "got '%s'",
					   url);
	p = host + strcspn(host, "/");
	if (p == host || *host == ':')
		return errmsg__set(err, -EINVAL,
				   "expected an http(s) URL with a host, "
				   "got '%s'",
				   url);
	if (memchr(host, '@', p - host))
		return errmsg__set(err, -EINVAL,
				   "expected an http(s) URL without a user or "
				   "a password (a token goes in its file), "
				   "got '%s'",
				   url);
	return 0;
}
