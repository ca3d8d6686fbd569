// SPDX-License-Identifier: GPL-2.0-only
/*
 * The nights' regressions as KCIDB issues, and their incidents: each
 * regression a night found on an exported run and confirmed (new,
 * reported, fixed or ignored since; an improvement is no issue, and one
 * that did not reproduce was never believed) is an issue of version 1
 * whose culprit is the code, its id the hash of the regression's
 * unique key (series, culprit, host, workload, mode, metric); each test
 * of that run that measured it, in the night's kernel, an incident.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "kcidb/kcidb-priv.h"
#include "store/store-query.h"
#include "store/store.h"
#include "util.h"

enum {
	G_SERIES,
	G_CULPRIT,
	G_HOST,
	G_WORKLOAD,
	G_MODE,
	G_METRIC,
	G_BASE,
	G_HEAD,
	G_BASE_MEDIAN,
	G_HEAD_MEDIAN,
	G_CHANGE,
	G_FIRST_BAD,
	G_NO_COMMIT,
	G_STATE,
	G_PAIRS,
	G_REPRODUCED,
	G_KERNEL,
	G_CELL,
};

#define S(col) store_rows__str(r, (col))

static char *issue_id(const struct kcidb_ctx *c, const struct store_rows *r)
{
	return kcidb__id(c->origin, "issue", S(G_SERIES), S(G_CULPRIT),
			 S(G_HOST), S(G_WORKLOAD), S(G_MODE), S(G_METRIC),
			 NULL);
}

/* As the robot's mail says it: the change, the ends, the culprit. */
static char *issue_comment(const struct store_rows *r)
{
	const char *why = *S(G_NO_COMMIT) ? S(G_NO_COMMIT) : "no commit named";

	return xasprintf("%s.%s in %s on %s, kernel %s: %g -> %g (%+.1f%%) "
			 "from %.12s to %.12s; %s %s; confirmed in %lld of "
			 "%lld interleaved pairs; %s",
			 S(G_WORKLOAD), S(G_METRIC), S(G_MODE), S(G_HOST),
			 S(G_KERNEL), store_rows__real(r, G_BASE_MEDIAN),
			 store_rows__real(r, G_HEAD_MEDIAN),
			 store_rows__real(r, G_CHANGE), S(G_BASE), S(G_HEAD),
			 *S(G_FIRST_BAD) ? "first bad commit" : "culprit",
			 *S(G_FIRST_BAD) ? S(G_FIRST_BAD) : S(G_CULPRIT),
			 (long long)store_rows__int(r, G_REPRODUCED),
			 (long long)store_rows__int(r, G_PAIRS),
			 *S(G_FIRST_BAD) ? "bisected" : why);
}

static json_t *issue_misc(const struct store_rows *r)
{
	json_t *m = json_object();
	int col;
	static const char *const keys[] = {
		[G_SERIES] = "series",	     [G_CULPRIT] = "culprit",
		[G_HOST] = "host",	     [G_WORKLOAD] = "workload",
		[G_MODE] = "mode",	     [G_METRIC] = "metric",
		[G_BASE] = "base",	     [G_HEAD] = "head",
		[G_FIRST_BAD] = "first_bad", [G_NO_COMMIT] = "no_commit",
		[G_STATE] = "state",	     [G_KERNEL] = "kernel",
	};

	for (col = 0; col <= G_KERNEL; col++)
		if (col < (int)ARRAY_SIZE(keys) && keys[col])
			kcidb__set_known(m, keys[col], S(col));
	json_object_set_new(m, "base_median",
			    kcidb__real(store_rows__real(r, G_BASE_MEDIAN)));
	json_object_set_new(m, "head_median",
			    kcidb__real(store_rows__real(r, G_HEAD_MEDIAN)));
	json_object_set_new(m, "change_pct",
			    kcidb__real(store_rows__real(r, G_CHANGE)));
	return m;
}

static void issue_add(struct kcidb_ctx *c, const struct store_rows *r,
		      const char *id)
{
	json_t *o = json_object();
	char *subject, *comment = issue_comment(r);

	subject = xasprintf("[iommu-bench] %.12s: %s.%s %.1f%% regression "
			    "(%s, %s)",
			    S(G_CULPRIT), S(G_WORKLOAD), S(G_METRIC),
			    fabs(store_rows__real(r, G_CHANGE)), S(G_MODE),
			    S(G_HOST));
	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "origin", json_string(c->origin));
	kcidb__set_str(o, "report_subject", subject);
	json_object_set_new(o, "culprit",
			    json_pack("{s:b, s:b, s:b}", "code", 1, "tool", 0,
				      "harness", 0));
	kcidb__set_str(o, "comment", comment);
	json_object_set_new(o, "misc", issue_misc(r));
	json_array_append_new(c->issues, o);
	free_all(subject, comment);
}

/* The incident of @issue on the test of the row's cell, where there is one. */
static void incident_add(struct kcidb_ctx *c, const struct kcidb_run *run,
			 const struct store_rows *r, const char *issue)
{
	char *test, *id;
	json_t *o;

	if (!*S(G_CELL))
		return;
	test = kcidb__test_id(c, run, S(G_CELL), S(G_METRIC));
	/* A test the report lacks (no figure) has no incident to carry. */
	if (!json_object_get(c->seen, test)) {
		free(test);
		return;
	}
	id = kcidb__id(c->origin, "incident", issue, test, NULL);
	o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:b}", "id", id, "origin",
		      c->origin, "issue_id", issue, "issue_version", 1,
		      "test_id", test, "present", 1);
	if (!kcidb__seen(c, id))
		json_array_append(c->incidents, o);
	json_decref(o);
	free_all(test, id);
}

static void regression_add(struct kcidb_ctx *c, struct kcidb_run *run,
			   const struct store_rows *r, void *arg)
{
	char *id = issue_id(c, r);

	(void)arg;
	if (!kcidb__seen(c, id))
		issue_add(c, r, id);
	incident_add(c, run, r, id);
	free(id);
}

int kcidb__issues(struct kcidb_ctx *c, struct kcidb_run *run, char **err)
{
	int ret = kcidb__each(c, &store_q_kcidb_regressions, run,
			      regression_add, NULL);

	if (ret < 0)
		return errmsg__set(err, ret,
				   "%s: run %lld: reading its regressions",
				   store__path(c->st), (long long)run->id);
	return 0;
}
