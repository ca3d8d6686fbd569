// SPDX-License-Identifier: GPL-2.0-only
/*
 * The measured trials that gave no figure, one test each, beside their
 * cell's figures (path iommu_bench.WORKLOAD.MODE, no metric). KCIDB's
 * FAIL says the tested code is at fault, ERROR that the test did not
 * complete: a trial that ran on a booted kernel in the mode asked for
 * and failed is FAIL (the workload failed on that kernel); one without
 * a boot, or whose mode was not in effect, is ERROR (the harness did
 * not get as far as the kernel under test); one the run skipped, SKIP.
 * The trial's own words are the comment.
 */
#include <stdlib.h>
#include <string.h>

#include "kcidb/kcidb-priv.h"
#include "store/store-query.h"
#include "util.h"

enum {
	T_REP = 5,
	T_STATUS,
	T_ERROR,
	T_BOOTED,
	T_MISMATCH,
	T_EFFECTIVE,
	T_EXPECTED,
	T_STARTED,
	T_FINISHED,
};

static const char *trial_status(const struct store_rows *r)
{
	if (!strcmp(store_rows__str(r, T_STATUS), "skipped"))
		return "SKIP";
	if (store_rows__int(r, T_MISMATCH) || !store_rows__int(r, T_BOOTED))
		return "ERROR";
	return "FAIL";
}

/* What the trial said, or why it is not a figure. */
static char *trial_comment(const struct store_rows *r)
{
	const char *error = store_rows__str(r, T_ERROR);

	if (store_rows__int(r, T_MISMATCH))
		return xasprintf("mode %s asked for, the host reported %s: "
				 "left out of the figures",
				 store_rows__str(r, T_EXPECTED),
				 store_rows__str(r, T_EFFECTIVE));
	if (*error)
		return xstrdup(error);
	return xasprintf("the trial %s without saying why",
			 store_rows__str(r, T_STATUS));
}

static json_t *trial_misc(const struct store_rows *r, const char *comment,
			  const char *run_name)
{
	json_t *misc = json_object();

	json_object_set_new(misc, "repetition",
			    json_integer(store_rows__int(r, T_REP)));
	kcidb__set_str(misc, "trial_status", store_rows__str(r, T_STATUS));
	kcidb__set_str(misc, "reason", comment);
	json_object_set_new(misc, "booted",
			    json_boolean(store_rows__int(r, T_BOOTED)));
	kcidb__set_known(misc, "effective_mode",
			 store_rows__str(r, T_EFFECTIVE));
	kcidb__set_str(misc, "host", store_rows__str(r, 1));
	kcidb__set_str(misc, "cell", store_rows__str(r, 0));
	kcidb__set_str(misc, "run", run_name);
	return misc;
}

static void trial_emit(struct kcidb_ctx *c, struct kcidb_run *run,
		       const struct store_rows *r, void *arg)
{
	struct kcidb_cell cell = {
		store_rows__str(r, 0), store_rows__str(r, 1),
		store_rows__str(r, 2), store_rows__str(r, 3),
		store_rows__int(r, 4),
	};
	char rep[24], *id, *comment = trial_comment(r);
	json_t *o;

	(void)arg;
	snprintf(rep, sizeof(rep), "%lld",
		 (long long)store_rows__int(r, T_REP));
	id = kcidb__id(c->origin, "trial", run->ident, cell.key, rep, NULL);
	o = kcidb__test_new(c, run, &cell, NULL, id);
	json_object_set_new(o, "status", json_string(trial_status(r)));
	kcidb__set_str(o, "comment", comment);
	kcidb__set_known(o, "start_time", store_rows__str(r, T_STARTED));
	kcidb__set_duration(o, store_rows__str(r, T_STARTED),
			    store_rows__str(r, T_FINISHED));
	json_object_set_new(o, "misc", trial_misc(r, comment, run->name));
	if (!kcidb__seen(c, id))
		json_array_append(c->tests, o);
	json_decref(o);
	free_all(id, comment);
}

int kcidb__trials(struct kcidb_ctx *c, struct kcidb_run *run)
{
	return kcidb__each(c, &store_q_kcidb_trials, run, trial_emit, NULL);
}
