// SPDX-License-Identifier: GPL-2.0-only
/*
 * The culprit of each confirmed regression. A branch that moved one
 * commit names it; one that moved more is bisected by bisect itself
 * (its kept worktree, its judging, its state file), on the regressed
 * cell and metric alone, with its state in the regression's materials
 * folder so that a night killed mid-bisection resumes it there. A
 * Debian package's versions are not commits: the report names both
 * and says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bisect/bisect.h"
#include "bench/nightly/nightly-priv.h"
#include "cache.h"
#include "log.h"
#include "util.h"

/* The regression's folder under the night's: its mail and materials. */
char *night__reg_dir(const struct night *nt, int64_t id)
{
	return xasprintf("%s/night-%lld/regression-%lld", nt->out,
			 (long long)nt->n.id, (long long)id);
}

/* What an ended bisection found, into @set and the night's lines. */
static void bisect_result(struct night *nt, const struct store_regression *r,
			  const struct bisect_state *s,
			  struct store_regression *set)
{
	if (s->status == BISECT_STATUS_FOUND && s->first_bad) {
		set->first_bad = xstrdup(s->first_bad);
		night__say(nt, "regression %lld: the first bad commit is %s",
			   (long long)r->id, s->first_bad);
		return;
	}
	set->no_commit = xasprintf("the bisection of %.*s..%.*s ended %s: see "
				   "bisect.json",
				   NIGHT_ABBREV, r->base, NIGHT_ABBREV, r->head,
				   bisect_status__name(s->status));
	night__say(nt, "regression %lld: %s", (long long)r->id, set->no_commit);
}

static int bisect_range(struct night *nt, struct store_regression *r,
			struct store_regression *set)
{
	char *dir = night__reg_dir(nt, r->id);
	char *path = xasprintf("%s/bisect.json", dir), *err = NULL;
	struct bisect_state s = { 0 };
	struct bisect_opts o = {
		.matrix = nt->o->matrix,
		.good = r->base,
		.bad = r->head,
		.metric = r->metric,
		.workload = r->workload,
		.mode = r->mode,
		.kernel = nt->k->name,
		.state_path = path,
		.threshold_pct = -1,
		/* A probe's count tells in one trial a step (bisect.h). */
		.repetitions = bisect_judge__kind(r->metric) ==
					       BISECT_BY_THRESHOLD ?
				       1 :
				       0,
		.workdir = nt->workdir,
		.jobs = nt->o->jobs,
		.db_path = nt->o->db_path,
		.quiet = nt->o->quiet,
	};
	struct stat sb;
	int ret;

	ret = cache__mkdirs(dir, &err);
	if (ret) {
		pr_err("nightly: %s", err);
		goto out;
	}
	if (!stat(path, &sb)) {
		ret = bisect_state__load(path, &s, &err);
		if (!ret && s.status == BISECT_STATUS_RUNNING)
			o.resume = true;
		else if (!ret)
			goto result;
		bisect_state__release(&s);
		free(err);
		err = NULL;
	}
	night__say(nt, "regression %lld: bisecting %.*s..%.*s on %s/%s %s",
		   (long long)r->id, NIGHT_ABBREV, r->base, NIGHT_ABBREV,
		   r->head, r->workload, r->mode, r->metric);
	ret = bisect__main(&o);
	if (ret == EXIT_INTERRUPTED) {
		ret = -EINTR;
		goto out;
	}
	ret = bisect_state__load(path, &s, &err);
	if (ret) {
		/* bisect said why it would not start; the night goes on. */
		set->no_commit =
			xasprintf("bisect refused the range %.*s..%.*s "
				  "(its words are in the night's log)",
				  NIGHT_ABBREV, r->base, NIGHT_ABBREV, r->head);
		night__say(nt, "regression %lld: %s", (long long)r->id,
			   set->no_commit);
		ret = 0;
		goto out;
	}
result:
	bisect_result(nt, r, &s, set);
	bisect_state__release(&s);
out:
	free_all(dir, path, err);
	return ret;
}

static int culprit(struct night *nt, struct store_regression *r)
{
	struct store_regression set = { .id = r->id, .state = (char *)"new" };
	long n;
	int ret = 0;

	/* Only what confirm measured again has two ends to bisect between. */
	if (!r->pairs)
		return 0;
	if (nt->k->kind != KERNEL_BUILD) {
		set.no_commit = xasprintf(
			"the Debian package %s moved from %s to %s: its "
			"versions are builds of many commits each, not "
			"commits, so there is nothing to bisect",
			nt->k->package, r->base, r->head);
	} else if ((n = night__range(nt, r->base, r->head)) < 0) {
		return (int)n;
	} else if (n == 1) {
		set.first_bad = xstrdup(r->head);
		night__say(nt,
			   "regression %lld: the branch moved one commit, "
			   "%.*s",
			   (long long)r->id, NIGHT_ABBREV, r->head);
	} else if (!nt->cfg->bisect) {
		set.no_commit = xasprintf("%ld commits moved and bisect = "
					  "false",
					  n);
	} else {
		ret = bisect_range(nt, r, &set);
	}
	if (!ret) {
		set.culprit = set.first_bad;
		ret = store__regression_set(nt->st, &set);
	}
	free_all(set.first_bad, set.no_commit);
	return ret;
}

int night__bisect(struct night *nt)
{
	return night__each(nt, "confirming", culprit);
}
