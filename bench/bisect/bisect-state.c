// SPDX-License-Identifier: GPL-2.0-only
/*
 * A bisection's state: what was asked, the candidates, and every step
 * measured so far with its run, figure and verdict. Written whole after
 * each change (temp, fsync, rename), so that a killed bisection resumes
 * from its last finished step and `bisect log` can read it at any time.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "atomic-file.h"
#include "bench/bisect/bisect.h"
#include "errmsg.h"
#include "json-util.h"
#include "strvec.h"
#include "util.h"

#define STATE_VERSION 1

static const char *const verdict_names[] = {
	[BISECT_UNKNOWN] = "unknown",
	[BISECT_GOOD] = "good",
	[BISECT_BAD] = "bad",
	[BISECT_SKIP] = "skip",
};

static const char *const status_names[] = {
	[BISECT_STATUS_RUNNING] = "running",
	[BISECT_STATUS_FOUND] = "found",
	[BISECT_STATUS_NO_DIFFERENCE] = "no-difference",
	[BISECT_STATUS_AMBIGUOUS] = "ambiguous",
};

const char *bisect_verdict__name(enum bisect_verdict v)
{
	return verdict_names[v];
}

const char *bisect_status__name(enum bisect_status s)
{
	return status_names[s];
}

/* The state's strings, each under its own name in the file. */
#define STATE_STR(f)                                               \
	{                                                          \
		.key = #f, .off = offsetof(struct bisect_state, f) \
	}
static const struct {
	const char *key;
	size_t off;
} state_strs[] = {
	STATE_STR(matrix),   STATE_STR(matrix_sha256), STATE_STR(tree),
	STATE_STR(good),     STATE_STR(bad),	       STATE_STR(good_arg),
	STATE_STR(bad_arg),  STATE_STR(metric),	       STATE_STR(mode),
	STATE_STR(workload), STATE_STR(kernel),	       STATE_STR(run_name),
	STATE_STR(workdir),  STATE_STR(first_bad),     STATE_STR(started_at),
};
#undef STATE_STR

static char **state_str(struct bisect_state *s, size_t i)
{
	return (char **)((char *)s + state_strs[i].off);
}

static int name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

char *bisect_state__path(const char *db_path)
{
	return xasprintf("%s-bisect.json", db_path);
}

struct bisect_step *bisect_state__step(struct bisect_state *s,
				       const char *commit)
{
	return TABLE_FIND(s->steps, s->nr_steps, commit, commit);
}

/* NaN is no JSON number: null instead. */
static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *step_json(const struct bisect_step *st)
{
	json_t *o, *v = json_array();
	size_t i;

	for (i = 0; i < st->n; i++)
		json_array_append_new(v, json_real(st->values[i]));
	o = json_pack("{s:s, s:s, s:o, s:i, s:I, s:f, s:b, s:b, s:i, s:o, "
		      "s:o, s:o}",
		      "commit", st->commit, "verdict",
		      bisect_verdict__name(st->verdict), "values", v,
		      "repetitions", (int)st->repetitions, "run",
		      (json_int_t)st->run_id, "build_s", st->build_s, "cached",
		      st->cached, "booted", st->booted, "boots", (int)st->boots,
		      "p_good", num_or_null(st->p_good), "p_bad",
		      num_or_null(st->p_bad), "why",
		      json_string_or_null(st->why));
	return o;
}

static json_t *state_json_base(const struct bisect_state *s)
{
	json_t *steps = json_array();
	size_t i;

	for (i = 0; i < s->nr_steps; i++)
		json_array_append_new(steps, step_json(&s->steps[i]));
	return json_pack(
		"{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, "
		"s:f, s:f, s:i, s:i, s:s, s:s, s:o, s:o, s:s, s:o, s:s}",
		"version", STATE_VERSION, "matrix", s->matrix, "matrix_sha256",
		s->matrix_sha256, "tree", s->tree, "good", s->good, "bad",
		s->bad, "good_arg", s->good_arg, "bad_arg", s->bad_arg,
		"metric", s->metric, "mode", s->mode, "workload", s->workload,
		"judged_by",
		s->kind == BISECT_BY_THRESHOLD ? "threshold" : "mann-whitney",
		"threshold_pct", s->threshold_pct, "alpha", s->alpha,
		"repetitions", (int)s->repetitions, "max_repetitions",
		(int)s->max_repetitions, "run_name", s->run_name, "workdir",
		s->workdir, "candidates",
		json_strings(s->candidates, s->nr_candidates), "steps", steps,
		"status", bisect_status__name(s->status), "first_bad",
		json_string_or_null(s->first_bad), "started_at", s->started_at);
}

/* The kernel, where the matrix has more than the one bisected. */
json_t *bisect_state__json(const struct bisect_state *s)
{
	json_t *j = state_json_base(s);

	if (s->kernel)
		json_object_set_new(j, "kernel", json_string(s->kernel));
	return j;
}

int bisect_state__save(const struct bisect_state *s, char **err)
{
	json_t *j = bisect_state__json(s);
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	struct iovec iov[2];
	int ret;

	json_decref(j);
	if (!text)
		return -ENOMEM;
	iov[0] = (struct iovec){ text, strlen(text) };
	iov[1] = (struct iovec){ "\n", 1 };
	ret = atomic_file__write(s->path, iov, 2);
	if (ret)
		errmsg__set(err, 0, "cannot write %s: %s", s->path,
			    strerror(-ret));
	free(text);
	return ret;
}

static char *str_of(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? xstrdup(v) : NULL;
}

static double num_of(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int step_load(const json_t *o, struct bisect_step *st)
{
	const json_t *v = json_object_get(o, "values"), *x;
	int verdict =
		name_index(verdict_names, ARRAY_SIZE(verdict_names),
			   json_string_value(json_object_get(o, "verdict")));
	size_t i;

	st->commit = str_of(o, "commit");
	if (!st->commit || verdict < 0 || !json_is_array(v))
		return -EINVAL;
	st->verdict = verdict;
	st->n = json_array_size(v);
	st->values = xcalloc(st->n ? st->n : 1, sizeof(double));
	json_array_foreach(v, i, x) {
		if (!json_is_number(x))
			return -EINVAL;
		st->values[i] = json_number_value(x);
	}
	st->repetitions = (unsigned int)json_integer_value(
		json_object_get(o, "repetitions"));
	st->run_id = json_integer_value(json_object_get(o, "run"));
	st->build_s = num_of(o, "build_s");
	st->cached = json_is_true(json_object_get(o, "cached"));
	st->booted = json_is_true(json_object_get(o, "booted"));
	st->boots =
		(unsigned int)json_integer_value(json_object_get(o, "boots"));
	st->p_good = num_of(o, "p_good");
	st->p_bad = num_of(o, "p_bad");
	st->why = str_of(o, "why");
	return 0;
}

static int state_load(const json_t *j, struct bisect_state *s)
{
	const json_t *c = json_object_get(j, "candidates"), *steps, *x;
	int status =
		name_index(status_names, ARRAY_SIZE(status_names),
			   json_string_value(json_object_get(j, "status")));
	size_t i;

	if (json_integer_value(json_object_get(j, "version")) != STATE_VERSION)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(state_strs); i++)
		*state_str(s, i) = str_of(j, state_strs[i].key);
	s->kind =
		strcmp(json_string_value(json_object_get(j, "judged_by")) ?: "",
		       "threshold") ?
			BISECT_BY_TEST :
			BISECT_BY_THRESHOLD;
	s->threshold_pct = num_of(j, "threshold_pct");
	s->alpha = num_of(j, "alpha");
	s->repetitions = (unsigned int)json_integer_value(
		json_object_get(j, "repetitions"));
	s->max_repetitions = (unsigned int)json_integer_value(
		json_object_get(j, "max_repetitions"));
	if (!s->matrix || !s->matrix_sha256 || !s->tree || !s->good ||
	    !s->bad || !s->metric || !s->mode || !s->workload || !s->run_name ||
	    !s->workdir || status < 0 || !json_is_array(c) ||
	    !json_array_size(c) || !s->repetitions)
		return -EINVAL;
	s->status = status;
	s->nr_candidates = json_array_size(c);
	s->candidates = xcalloc(s->nr_candidates, sizeof(char *));
	json_array_foreach(c, i, x) {
		if (!json_is_string(x))
			return -EINVAL;
		s->candidates[i] = xstrdup(json_string_value(x));
	}
	steps = json_object_get(j, "steps");
	if (!json_is_array(steps))
		return -EINVAL;
	s->nr_steps = json_array_size(steps);
	s->steps = xcalloc(s->nr_steps + 1, sizeof(*s->steps));
	json_array_foreach(steps, i, x)
		if (step_load(x, &s->steps[i]))
			return -EINVAL;
	return 0;
}

int bisect_state__load(const char *path, struct bisect_state *s, char **err)
{
	json_error_t jerr;
	json_t *j;
	int ret;

	memset(s, 0, sizeof(*s));
	j = json_load_file(path, 0, &jerr);
	if (!j) {
		FILE *f = fopen(path, "r");

		if (!f)
			return -errno;
		fclose(f);
		return errmsg__set(err, -EINVAL, "%s:%d: %s", path, jerr.line,
				   jerr.text);
	}
	ret = state_load(j, s);
	json_decref(j);
	s->path = xstrdup(path);
	if (ret) {
		errmsg__set(err, 0,
			    "%s: not a bisection state this version of "
			    "iommu-bench wrote",
			    path);
		bisect_state__release(s);
	}
	return ret;
}

void bisect_state__release(struct bisect_state *s)
{
	size_t i;

	for (i = 0; i < s->nr_steps; i++)
		free_all(s->steps[i].commit, s->steps[i].values,
			 s->steps[i].why);
	free(s->steps);
	strv_free(s->candidates, s->nr_candidates);
	for (i = 0; i < ARRAY_SIZE(state_strs); i++)
		free(*state_str(s, i));
	free(s->path);
	memset(s, 0, sizeof(*s));
}
