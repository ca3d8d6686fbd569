/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one HTTP client the REST clients share (LAVA's API, a kcidb-ng
 * service), over libcurl: http and https only, no redirect followed (it
 * would carry a token to another server), no signals (libcurl's own
 * resolver timeouts would otherwise reach the tool's handlers).
 */
#ifndef IOMMU_BENCH_HTTP_H
#define IOMMU_BENCH_HTTP_H

#include <stddef.h>

/* An answer's body is refused beyond this: -EFBIG. */
#define HTTP_ANSWER_MAX (64u << 20)

struct http;

struct http_request {
	const char *method; /* "GET", "POST" */
	const char *url;
	/* "Name: value" lines, NULL-terminated; NULL: none */
	const char *const *headers;
	const char *body; /* NULL: none */
	size_t body_len;  /* 0: strlen(body) */
	int timeout_ms;	  /* the whole exchange */
};

struct http_answer {
	long status; /* the HTTP status */
	char *body;  /* NUL-terminated; NULL when the answer had none */
	size_t len;
};

/* 0 and a client in *@hp, or -ENOMEM. */
int http__open(struct http **hp);
void http__close(struct http *h);

/*
 * One exchange. 0 with *@ans filled whenever an answer came, whatever
 * its status; else a negative errno with curl's words in *@err:
 * -EHOSTUNREACH (not reached, the connection lost, no answer in time)
 * or -EFBIG (an answer over HTTP_ANSWER_MAX). The headers' copies are
 * wiped once sent: they may hold a token.
 */
int http__request(struct http *h, const struct http_request *req,
		  struct http_answer *ans, char **err);
void http_answer__release(struct http_answer *ans);

/*
 * What a server said with a refusal, on one line: its JSON's "message"
 * or "detail", else a short body as it came, else "no words". A new
 * string.
 */
char *http_answer__words(const struct http_answer *ans);

/* What follows "http://" or "https://" in @url; NULL for another scheme. */
const char *http__url_host(const char *url);

/*
 * 0 where @url is http:// or https:// with a host, and none of what
 * would make it something else once a path is added (a user or a
 * password, a query, a fragment, a space); else -EINVAL and the words.
 */
int http__url_check(const char *url, char **err);

#endif
