// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench triage: the regressions the robot found, with the state a
 * person moves them to. A regression is new until its mail is written,
 * reported after, fixed when a later night's figure came back; ignored
 * is a person's word that its series must not fail the gate again (a
 * change that was meant, a machine that changed), with a note saying
 * why, kept beside it.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "log.h"
#include "output.h"
#include "parse-options.h"
#include "store/store.h"
#include "strvec.h"
#include "suggest.h"
#include "util.h"

static const char *const triage_usage[] = {
	"iommu-bench triage [list] [--series NAME] [--json]",
	"iommu-bench triage show ID [--json]",
	"iommu-bench triage ignore ID [--note TEXT]",
	"iommu-bench triage reopen ID [--note TEXT]",
	"iommu-bench triage note ID TEXT",
	NULL,
};

static const char *series;
static const char *note_text;

static const struct option triage_options[] = {
	OPT_GLOBALS(),
	OPT_JSON(),
	OPT_STRING(0, "series", &series, "NAME",
		   "list: only this series (the matrix's [run] name)"),
	OPT_STRING(0, "note", &note_text, "TEXT",
		   "ignore, reopen: why, kept as the regression's note"),
	OPT_GROUP("A regression is new until its mail is written, reported\n"
		  "after, fixed once a later night's figure came back;\n"
		  "ignored ones never fail a night's gate again, until\n"
		  "reopened."),
	OPT_END(),
};

static json_t *reg_json(const struct store_regression *r)
{
	/* s? is null where the string is NULL. */
	return json_pack(
		"{s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:s, s:s, "
		"s:o, s:s?, s:s?, s:o, s:s?, s:s?}",
		"id", (json_int_t)r->id, "night", (json_int_t)r->night_id,
		"series", r->series, "host", r->host, "workload", r->workload,
		"mode", r->mode, "metric", r->metric, "improvement",
		r->improvement, "base", r->base, "head", r->head, "culprit",
		r->culprit, "state", r->state, "change_pct",
		isfinite(r->change_pct) ? json_real(r->change_pct) :
					  json_null(),
		"first_bad", r->first_bad, "no_commit", r->no_commit,
		"reproduced",
		r->pairs ? json_pack("{s:i, s:i}", "of", r->pairs, "in",
				     r->reproduced) :
			   json_null(),
		"mail", r->mail, "fixed_by", r->fixed_by);
}

/* "0123456789ab" of a commit; a version as it is. */
static int abbrev(const char *rev)
{
	return rev && strlen(rev) == 40 ? 12 : 64;
}

static void reg_line(const struct store_regression *r)
{
	printf("%4lld  %-10s night %-4lld %-12s %s/%s/%s %s %+.1f%%  %.*s",
	       (long long)r->id, r->state, (long long)r->night_id, r->series,
	       r->host, r->workload, r->mode, r->metric, r->change_pct,
	       abbrev(r->culprit), r->culprit);
	if (r->fixed_by)
		printf(" (fixed by %.*s)", abbrev(r->fixed_by), r->fixed_by);
	putchar('\n');
}

static int open_store(unsigned int flags, struct store **st)
{
	int err = store__open(global__db_path(), flags, st);

	if (err)
		global__db_advice(global__db_path(), err);
	return err ? EXIT_WORK_FAILED : EXIT_OK;
}

static int triage_list(void)
{
	struct store_regression *v;
	struct store *st;
	size_t n, i;
	json_t *a;
	int ret;

	ret = open_store(STORE_READONLY, &st);
	if (ret)
		return ret;
	if (store__regressions(st, series, 0, &v, &n)) {
		store__close(st);
		return EXIT_WORK_FAILED;
	}
	if (global.json) {
		a = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(a, reg_json(&v[i]));
		output__json(json_pack("{s:o}", "regressions", a));
	} else if (!n) {
		printf("no regressions%s%s\n", series ? " in " : "",
		       series ? series : "");
	} else {
		printf("%4s  %-10s %-10s %-12s %s\n", "id", "state", "night",
		       "series", "cell, metric, change, culprit");
		for (i = 0; i < n; i++)
			reg_line(&v[i]);
	}
	store_regressions__free(v, n);
	store__close(st);
	return EXIT_OK;
}

/* "ID": a regression's number, said clearly when it is not one. */
static int parse_id(const char *s, int64_t *id)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v <= 0) {
		pr_err("'%s' is not a regression's id (a number, as "
		       "'iommu-bench triage' lists them)",
		       s);
		return EXIT_USAGE;
	}
	*id = v;
	return EXIT_OK;
}

/*
 * The store, and the regression @id in it, or the words that say there
 * is none (and the store closed again).
 */
static int open_reg(unsigned int flags, int64_t id, struct store **st,
		    struct store_regression *r)
{
	int err, ret;

	ret = open_store(flags, st);
	if (ret)
		return ret;
	err = store__regression_get(*st, id, r);
	if (err == -ENOENT)
		pr_err("no regression %lld in %s (see 'iommu-bench triage')",
		       (long long)id, global__db_path());
	if (err)
		store__close(*st);
	return err ? EXIT_WORK_FAILED : EXIT_OK;
}

static int triage_show(int64_t id)
{
	struct store_regression r;
	struct store *st;
	char **notes = NULL;
	size_t n = 0, i;
	json_t *o;
	int ret;

	ret = open_reg(STORE_READONLY, id, &st, &r);
	if (ret)
		return ret;
	if (store__regression_notes(st, id, &notes, &n)) {
		ret = EXIT_WORK_FAILED;
		goto out;
	}
	if (global.json) {
		json_t *a = json_array();

		o = reg_json(&r);
		for (i = 0; i < n; i++)
			json_array_append_new(a, json_string(notes[i]));
		json_object_set_new(o, "notes", a);
		output__json(o);
	} else {
		reg_line(&r);
		printf("      %s -> %s", r.base, r.head);
		if (r.pairs)
			printf(", reproduced in %d of %d interleaved pairs",
			       r.reproduced, r.pairs);
		putchar('\n');
		if (r.first_bad)
			printf("      first bad commit: %s\n", r.first_bad);
		if (r.no_commit)
			printf("      no commit: %s\n", r.no_commit);
		if (r.mail)
			printf("      mail: %s\n", r.mail);
		for (i = 0; i < n; i++)
			printf("      note %s\n", notes[i]);
	}
	strv_free(notes, n);
out:
	store_regression__release(&r);
	store__close(st);
	return ret;
}

/* A person's word on a regression: a note, ignore, or its undo. */
enum triage_word { WORD_NOTE, WORD_IGNORE, WORD_REOPEN };

/*
 * Reopened, an ignored regression is open again as its mail left it:
 * reported where one was written (a night that still sees it fails and
 * says so, not mailing it twice), else new.
 */
static const char *reopened_state(const struct store_regression *r)
{
	return r->mail ? "reported" : "new";
}

/* @w, with @text as its note where given: a person's word, kept. */
static int triage_mark(int64_t id, enum triage_word w, const char *text)
{
	struct store_regression r, set = { .id = id, .state = "ignored" };
	struct store *st;
	int ret;

	ret = open_reg(STORE_MIGRATE, id, &st, &r);
	if (ret)
		return ret;
	if (w == WORD_REOPEN && strcmp(r.state, "ignored")) {
		pr_err("triage: regression %lld is %s, not ignored: nothing to "
		       "reopen",
		       (long long)id, r.state);
		ret = EXIT_WORK_FAILED;
		goto out;
	}
	if (w == WORD_REOPEN)
		set.state = (char *)reopened_state(&r);
	if ((w != WORD_NOTE && store__regression_set(st, &set)) ||
	    (text && store__regression_note(st, id, text)))
		ret = EXIT_WORK_FAILED;
	else if (w == WORD_IGNORE)
		printf("regression %lld ignored: %s/%s/%s %s no longer fails "
		       "a night of %s (it was %s)\n",
		       (long long)id, r.host, r.workload, r.mode, r.metric,
		       r.series, r.state);
	else if (w == WORD_REOPEN)
		printf("regression %lld reopened (%s): %s/%s/%s %s fails a "
		       "night of %s again while it stays regressed\n",
		       (long long)id, set.state, r.host, r.workload, r.mode,
		       r.metric, r.series);
	else
		printf("regression %lld: note kept\n", (long long)id);
out:
	store_regression__release(&r);
	store__close(st);
	return ret;
}

int cmd_triage(int argc, const char **argv)
{
	static const char *const subs[] = { "list", "show",   "ignore",
					    "note", "reopen", NULL };
	const char *best;
	int64_t id;
	int ret;

	argc = parse_options(argc, argv, triage_options, triage_usage, 0);
	if (!argc || !strcmp(argv[0], "list")) {
		if (argc > 1)
			usage_error(triage_usage, triage_options,
				    "unexpected argument '%s'", argv[1]);
		return triage_list();
	}
	if (!strcmp(argv[0], "show") || !strcmp(argv[0], "ignore") ||
	    !strcmp(argv[0], "reopen")) {
		if (argc != 2)
			usage_error(triage_usage, triage_options,
				    "%s takes one regression id", argv[0]);
		ret = parse_id(argv[1], &id);
		if (ret)
			return ret;
		if (!strcmp(argv[0], "show"))
			return triage_show(id);
		return triage_mark(id,
				   strcmp(argv[0], "ignore") ? WORD_REOPEN :
							       WORD_IGNORE,
				   note_text);
	}
	if (!strcmp(argv[0], "note")) {
		if (argc != 3 || !*argv[2])
			usage_error(triage_usage, triage_options,
				    "note takes a regression id and the text");
		ret = parse_id(argv[1], &id);
		return ret ? ret : triage_mark(id, WORD_NOTE, argv[2]);
	}
	best = suggest__best(argv[0], subs);
	return global__unknown_subcommand("triage", argv[0], best);
}
