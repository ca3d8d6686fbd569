// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a submission checks before it sends anything: the service's URL
 * and the bearer token's file. The token is read from a file only: argv
 * and the environment are world-readable in /proc.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "http.h"
#include "kcidb/kcidb.h"
#include "util.h"

int kcidb__url_check(const char *url, char **err)
{
	return http__url_check(url, err);
}

/* The first line of @buf, without the blanks around it. */
static char *first_line(char *buf)
{
	char *s = buf, *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strcspn(s, "\r\n");
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	return s;
}

int kcidb__token_read(const char *path, char **token, char **err)
{
	size_t len = 0;
	char *buf = NULL, *t;
	int ret;

	*token = NULL;
	ret = read_file(path, &buf, &len);
	if (ret)
		return errmsg__set(err, ret,
				   "cannot read the token file %s: %s", path,
				   strerror(-ret));
	t = first_line(buf);
	if (!*t) {
		ret = errmsg__set(err, -EINVAL,
				  "the token file %s is empty: its first line "
				  "is the token",
				  path);
		goto out;
	}
	for (const char *p = t; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			ret = errmsg__set(err, -EINVAL,
					  "the token in %s holds a space or a "
					  "control character: its first line "
					  "is the token alone",
					  path);
			goto out;
		}
	*token = xstrdup(t);
out:
	explicit_bzero(buf, len);
	free(buf);
	return ret;
}
