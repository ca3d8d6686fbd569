// SPDX-License-Identifier: GPL-2.0-only
/*
 * A report's way out, the same for `export --kcidb` and the nightly:
 * its text as the export writes it, written where asked, then handed to
 * the service; a report the service did not take stays on disk, since
 * exporting it again later may not find the same database.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "atomic-file.h"
#include "errmsg.h"
#include "kcidb/kcidb.h"
#include "util.h"

char *kcidb__text(const json_t *report)
{
	char *body, *text;

	body = json_dumps(report, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
					  JSON_REAL_PRECISION(17));
	if (!body)
		return NULL;
	text = xasprintf("%s\n", body);
	free(body);
	return text;
}

int kcidb__keep(const char *path, const char *text, char **err)
{
	struct iovec iov = { .iov_base = (void *)text,
			     .iov_len = strlen(text) };
	int ret;

	ret = atomic_file__write(path, &iov, 1);
	if (ret)
		return errmsg__set(err, ret, "%s: %s", path, strerror(-ret));
	return 0;
}

int kcidb__send(const struct kcidb_submit_opts *o, const char *text,
		const char *keep, struct kcidb_sent *sent, char **err)
{
	char *words = NULL;
	int ret, kept;

	memset(sent, 0, sizeof(*sent));
	ret = kcidb__submit(o, text, strlen(text), &sent->outcome, &sent->id,
			    &sent->message, err);
	if (!ret && sent->outcome == KCIDB_PROCESSED)
		return 0;
	kept = kcidb__keep(keep, text, &words);
	sent->kept = !kept;
	if (!ret)
		return errmsg__move(err, kept, words);
	if (!kept)
		return errmsg__set(err, ret, "%s; the report is kept at %s",
				   *err, keep);
	ret = errmsg__set(err, ret, "%s; nor could the report be kept: %s",
			  *err, words);
	free(words);
	return ret;
}

void kcidb_sent__release(struct kcidb_sent *sent)
{
	free(sent->id);
	free(sent->message);
	memset(sent, 0, sizeof(*sent));
}
