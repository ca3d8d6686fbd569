// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tonight's run handed to KCIDB, where the matrix names a service
 * ([kcidb]): the same report as `export --kcidb`, kept in the night's
 * folder, submitted, and the service's verdict said. It is the mail
 * stage's last step, so that a night killed while it submits sends it
 * again when it resumes: the ids are the store's, and the database
 * merges a report sent twice. A service that refuses or cannot be
 * reached does not hold the robot's next night back: the night ends,
 * says so, and fails its exit status, its report kept for a later
 * `export --kcidb --submit`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/nightly/nightly-priv.h"
#include "cache.h"
#include "errmsg.h"
#include "kcidb/kcidb.h"
#include "log.h"
#include "util.h"

static void progress(void *arg, const char *line)
{
	const struct night *nt = arg;

	if (!nt->o->quiet && !nt->o->json)
		printf("night %lld: kcidb: %s\n", (long long)nt->n.id, line);
}

/* The report of tonight's run, its text in *@text. */
static int night_report(struct night *nt, char **text, char **err)
{
	const struct kcidb_opts o = { .origin = nt->m->kcidb.origin,
				      .runs = &nt->n.run_id,
				      .nr_runs = 1 };
	json_t *report = NULL;
	int ret;

	ret = kcidb__report(nt->st, &o, &report, err);
	if (ret)
		return ret;
	*text = kcidb__text(report);
	json_decref(report);
	return *text ? 0 : errmsg__set(err, -ENOMEM, "%s", strerror(ENOMEM));
}

static void night_sent(struct night *nt, const struct kcidb_sent *sent,
		       const char *keep, const char *err)
{
	if (sent->outcome == KCIDB_PROCESSED) {
		night__say(nt, "KCIDB: processed, id %s", sent->id);
		return;
	}
	nt->untold = true;
	night__say(nt, "KCIDB: failed, id %s: %s; %s%s", sent->id,
		   sent->message ? sent->message : "",
		   sent->kept ? "the report is kept at " : "",
		   sent->kept ? keep : err);
}

/*
 * The token's file read before the night builds or boots anything: a
 * secret that is not there is found out now, not after the night.
 */
int night__kcidb_check(const struct night *nt)
{
	const struct matrix_kcidb *k = &nt->m->kcidb;
	char *token = NULL, *err = NULL;
	int ret;

	if (!k->present)
		return 0;
	ret = kcidb__token_read(k->token_file, &token, &err);
	if (ret)
		pr_err("nightly: [kcidb] token_file: %s", err);
	if (token)
		explicit_bzero(token, strlen(token));
	free(token);
	free(err);
	return ret;
}

int night__kcidb(struct night *nt)
{
	const struct matrix_kcidb *k = &nt->m->kcidb;
	const struct kcidb_submit_opts so = { .url = k->url,
					      .token_file = k->token_file,
					      .progress = progress,
					      .progress_arg = nt };
	char *dir, *keep = NULL, *text = NULL, *err = NULL;
	struct kcidb_sent sent = { 0 };
	int ret;

	if (!k->present || !nt->n.run_id)
		return 0;
	dir = xasprintf("%s/night-%lld", nt->out, (long long)nt->n.id);
	keep = xasprintf("%s/kcidb.json", dir);
	ret = cache__mkdirs(dir, &err);
	if (!ret)
		ret = night_report(nt, &text, &err);
	if (!ret)
		ret = kcidb__send(&so, text, keep, &sent, &err);
	if (ret) {
		nt->untold = true;
		night__say(nt, "KCIDB: not submitted: %s", err);
	} else {
		night_sent(nt, &sent, keep, err);
	}
	kcidb_sent__release(&sent);
	free(err);
	free(text);
	free(keep);
	free(dir);
	return 0;
}
