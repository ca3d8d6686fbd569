// SPDX-License-Identifier: GPL-2.0-only
/*
 * LAVA's REST API over libcurl: the token goes in a header of our own
 * (never a URL, a command line or a message), answers are JSON, and an
 * answer that is not 2xx becomes an error in words with LAVA's own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/lava/lava.h"
#include "errmsg.h"
#include "http.h"
#include "util.h"

int lava_api__init(struct lava_api *a, const char *server, const char *token)
{
	size_t n = strlen(server);

	memset(a, 0, sizeof(*a));
	while (n && server[n - 1] == '/')
		n--;
	a->server = xstrndup(server, n);
	a->token = xstrdup(token);
	return http__open(&a->http);
}

void lava_api__release(struct lava_api *a)
{
	http__close(a->http);
	if (a->token) {
		explicit_bzero(a->token, strlen(a->token));
		free(a->token);
	}
	free(a->server);
	memset(a, 0, sizeof(*a));
}

/* An answer outside 2xx, in the words of what LAVA refused. */
static int refused(const struct lava_api *a, const char *method,
		   const char *path, long status, const struct http_answer *ans,
		   char **err)
{
	char *words = http_answer__words(ans);
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
	struct http_answer ans = { 0 };
	const char *hdr[4] = { NULL };
	json_error_t jerr;
	char *url, *auth;
	int ret;

	if (out)
		*out = NULL;
	if (text)
		*text = NULL;
	errmsg__reset(err);
	url = xasprintf("%s%s", a->server, path);
	auth = xasprintf("Authorization: Token %s", a->token);
	hdr[0] = auth;
	hdr[1] = "Accept: application/json";
	if (body)
		hdr[2] = "Content-Type: application/json";
	ret = http__request(a->http,
			    &(struct http_request){ .method = method,
						    .url = url,
						    .headers = hdr,
						    .body = body,
						    .timeout_ms = timeout_ms },
			    &ans, err);
	explicit_bzero(auth, strlen(auth));
	free(auth);
	if (ret) {
		ret = errmsg__set(err, ret, "cannot reach LAVA at %s: %s",
				  a->server, *err);
		goto out;
	}
	if (ans.status < 200 || ans.status > 299) {
		ret = refused(a, method, path, ans.status, &ans, err);
		goto out;
	}
	if (text) {
		*text = xstrndup(ans.body ? ans.body : "", ans.len);
	} else if (ans.len) {
		*out = json_loadb(ans.body, ans.len, 0, &jerr);
		if (!*out) {
			ret = errmsg__set(err, -EPROTO,
					  "LAVA at %s answered %s %s with "
					  "something not JSON: %s",
					  a->server, method, path, jerr.text);
		}
	}
out:
	http_answer__release(&ans);
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
