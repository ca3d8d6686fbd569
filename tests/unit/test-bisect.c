// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bisect's parts that need no kernel: the search, driven to the end for
 * every position of the first bad commit in histories of 1 to 40
 * candidates (found, and in at most ceil(log2(n)) steps), with skipped
 * commits in the way, and with verdicts that contradict; and the git
 * questions, on a scratch repository of real commits; the judging of
 * steps against the ends, both ways; the state file, written and read
 * back whole, and refused when it is not one.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bisect/bisect.h"
#include "log.h"
#include "scratch-files.h"
#include "subprocess.h"
#include "tap.h"
#include "util.h"

/* Bisect @n candidates whose first bad is @bad; skip those in @skip. */
static int drive(size_t n, size_t bad, const bool *skip, unsigned int *steps,
		 enum bisect_next *end, size_t *at, size_t *to)
{
	struct bisect_search s = { n, xcalloc(n, sizeof(*s.v)) };
	int ret;

	*steps = 0;
	s.v[n - 1] = BISECT_BAD;
	for (;;) {
		ret = bisect_search__next(&s, end, at, to);
		if (ret || *end != BISECT_TEST)
			break;
		if (s.v[*at] != BISECT_UNKNOWN || ++*steps > n) {
			ret = -ELOOP; /* asked twice, or never ends */
			break;
		}
		s.v[*at] = skip && skip[*at] ? BISECT_SKIP :
			   *at >= bad	     ? BISECT_BAD :
					       BISECT_GOOD;
	}
	free(s.v);
	return ret;
}

static void test_search(void)
{
	bool all_found = true, within = true;
	enum bisect_next end;
	unsigned int steps, worst = 0;
	size_t n, bad, at = 0, to = 0;
	bool skip[9] = { 0 };
	int ret;

	for (n = 1; n <= 40; n++) {
		for (bad = 0; bad < n; bad++) {
			if (drive(n, bad, NULL, &steps, &end, &at, &to) ||
			    end != BISECT_FOUND || at != bad)
				all_found = false;
			if (steps > bisect_search__max_steps(n))
				within = false;
			if (n == 8 && steps > worst)
				worst = steps;
		}
	}
	ok(all_found, "the first bad commit is found wherever it is (1..40)");
	ok(within, "in at most ceil(log2(n)) steps");
	is_int(worst, 3, "8 candidates: 3 steps, at worst");
	is_int(bisect_search__max_steps(8), 3, "max_steps(8) = 3");
	is_int(bisect_search__max_steps(9), 4, "max_steps(9) = 4");
	is_int(bisect_search__max_steps(1), 0,
	       "one candidate: nothing to test");

	/* Skipped commits beside the first bad: still found... */
	skip[7] = true;
	ret = drive(9, 5, skip, &steps, &end, &at, &to);
	ok(!ret && end == BISECT_FOUND && at == 5,
	   "a skipped commit away from it: found (%zu)", at);
	/* ... unless skipped ones stand right before it: the range. */
	skip[3] = skip[4] = true;
	ret = drive(9, 5, skip, &steps, &end, &at, &to);
	ok(!ret && end == BISECT_AMBIGUOUS && at == 3 && to == 5,
	   "3 and 4 skipped, 2 good, 5 bad: somewhere in [3, 5] "
	   "([%zu, %zu])",
	   at, to);

	{
		enum bisect_verdict v[] = { BISECT_BAD, BISECT_GOOD,
					    BISECT_BAD };
		struct bisect_search s = { 3, v };

		is_int(bisect_search__next(&s, &end, &at, &to), -EINVAL,
		       "a good after a bad contradicts: -EINVAL");
		v[2] = BISECT_GOOD;
		v[0] = BISECT_GOOD;
		is_int(bisect_search__next(&s, &end, &at, &to), -EINVAL,
		       "no bad end: -EINVAL");
	}
}

static char tmp[] = "/tmp/iommu-bench-test-bisect.XXXXXX";

/* Commit @n files "fN" on the current branch of the scratch repo. */
static int commit(const char *msg, const char *file)
{
	char *path = xasprintf("%s/%s", tmp, file);
	FILE *f = fopen(path, "a");
	int err;

	if (!f) {
		free(path);
		return -errno;
	}
	fprintf(f, "%s\n", msg);
	fclose(f);
	free(path);
	err = scratch__run((const char *const[]){ "git", "-C", tmp, "add", file,
						  NULL },
			   NULL);
	if (!err)
		err = scratch__run(
			(const char *const[]){ "git", "-C", tmp, "-c",
					       "user.name=t", "-c",
					       "user.email=t@t", "commit", "-q",
					       "-m", msg, NULL },
			NULL);
	return err;
}

static void test_git(void)
{
	char *good = NULL, *bad = NULL, *err = NULL, **shas = NULL, *s = NULL;
	char name[16];
	size_t n = 0, i;
	int ret;

	if (!mkdtemp(tmp) ||
	    scratch__run((const char *const[]){ "git", "init", "-q", tmp,
						NULL },
			 NULL)) {
		ok(0, "a scratch git repository");
		return;
	}
	for (i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "step %zu", i);
		if (commit(name, i == 5 ? "broken" : "f")) {
			ok(0, "commit %zu", i);
			goto out;
		}
	}
	ok(!bisect_git__resolve(tmp, "HEAD~8", &good, &err) &&
		   !bisect_git__resolve(tmp, "HEAD", &bad, &err) &&
		   strlen(good) == 40,
	   "revisions resolve to commit ids");
	ret = bisect_git__resolve(tmp, "nosuchrev", &s, &err);
	is_int(ret, -EINVAL, "an unknown revision: -EINVAL");
	has_str(err, "'nosuchrev' is not a commit", "saying which");
	free(err);
	err = NULL;
	is_int(bisect_git__resolve(tmp, "--upload-pack=x", &s, &err), -EINVAL,
	       "a revision like an option is refused before git sees it");
	free(err);
	err = NULL;
	is_int(bisect_git__is_ancestor(tmp, good, bad, &err), 1,
	       "good is an ancestor of bad");
	is_int(bisect_git__is_ancestor(tmp, bad, good, &err), 0,
	       "bad is not one of good (swapped ends)");
	ok(!bisect_git__first_parent(tmp, good, bad, &shas, &n, &err) &&
		   n == 8 && !strcmp(shas[7], bad),
	   "8 candidates after good, oldest first, bad last");
	ok(n == 8 && !bisect_git__subject(tmp, shas[4], &s, &err) &&
		   !strcmp(s, "step 5"),
	   "the subject of the fifth: 'step 5'");
	free(s);
	s = NULL;
	is_int(bisect_git__dirty(tmp, &err), 0, "a clean checkout");
	commit("uncommitted", "f");
	scratch__run((const char *const[]){ "git", "-C", tmp, "reset", "-q",
					    "--soft", "HEAD~1", NULL },
		     NULL);
	is_int(bisect_git__dirty(tmp, &err), 1,
	       "a change to a tracked file: dirty");
out:
	for (i = 0; i < n; i++)
		free(shas[i]);
	free_all(shas, good, bad, err);
	scratch__remove(tmp);
}

static void test_judge(void)
{
	double good[] = { 0, 1, 0 }, bad[] = { 250000, 252000, 251000 };
	double mid[] = { 120000 }, high[] = { 130000 }, low[] = { 3 };
	double g8[] = { 9.1, 9.3, 9.2, 9.4, 9.0, 9.35 };
	double b8[] = { 6.1, 6.3, 6.2, 6.0, 6.25, 6.15 };
	double like_b[] = { 6.2, 6.1, 6.3, 6.05, 6.22, 6.18 };
	double between[] = { 7.6, 7.7, 7.65, 7.55, 7.7, 7.6 };
	double same[] = { 9.2, 9.1, 9.3, 9.25, 9.15, 9.2 };
	double overlap[] = { 0, 250000, 1 };
	struct bisect_ends e;
	double pg, pb;

	is_int(bisect_judge__kind("iotlb_sync_per_gb"), BISECT_BY_THRESHOLD,
	       "a probe's calls per GB: by threshold");
	is_int(bisect_judge__kind("throughput"), BISECT_BY_TEST,
	       "throughput: by test");
	is_int(bisect_judge__kind("_per_gb"), BISECT_BY_TEST,
	       "the bare suffix names no probe");
	is_int(bisect_judge__min_trials(0.05), 4,
	       "4 trials a side are the fewest that reach p < 0.05");

	is_int(bisect_judge__ends(BISECT_BY_THRESHOLD, good, 3, bad, 3, 50,
				  0.05, &e),
	       0, "threshold ends judged");
	ok(e.differ && e.good == 0 && e.bad == 251000 && e.boundary == 125500,
	   "they differ; medians 0 and 251000, the line at 125500 (%g)",
	   e.boundary);
	is_int(bisect_judge__step(BISECT_BY_THRESHOLD, &e, good, 3, bad, 3, mid,
				  1, 0.05, &pg, &pb),
	       BISECT_GOOD, "120000 is on the good side of 125500");
	ok(isnan(pg) && isnan(pb), "no p-values by threshold");
	is_int(bisect_judge__step(BISECT_BY_THRESHOLD, &e, good, 3, bad, 3,
				  high, 1, 0.05, &pg, &pb),
	       BISECT_BAD, "130000 is past it");
	bisect_judge__ends(BISECT_BY_THRESHOLD, good, 3, bad, 3, 10, 0.05, &e);
	is_int(bisect_judge__step(BISECT_BY_THRESHOLD, &e, good, 3, bad, 3, mid,
				  1, 0.05, &pg, &pb),
	       BISECT_BAD, "--threshold 10: 120000 is bad");
	bisect_judge__ends(BISECT_BY_THRESHOLD, bad, 3, good, 3, 50, 0.05, &e);
	ok(e.differ, "a figure that falls differs too");
	is_int(bisect_judge__step(BISECT_BY_THRESHOLD, &e, bad, 3, good, 3, low,
				  1, 0.05, &pg, &pb),
	       BISECT_BAD, "falling: 3 is on the bad side");
	bisect_judge__ends(BISECT_BY_THRESHOLD, good, 3, overlap, 3, 50, 0.05,
			   &e);
	ok(!e.differ, "ends whose trials overlap do not differ");
	bisect_judge__ends(BISECT_BY_THRESHOLD, (double[]){ 100, 101 }, 2,
			   (double[]){ 105, 106 }, 2, 50, 0.05, &e);
	ok(!e.differ, "nor ends 5%% apart (under %g%%)", BISECT_MIN_CHANGE_PCT);
	is_int(bisect_judge__ends(BISECT_BY_TEST, good, 0, bad, 3, 50, 0.05,
				  &e),
	       -EDOM, "an end without values: -EDOM");

	bisect_judge__ends(BISECT_BY_TEST, g8, 6, b8, 6, 50, 0.05, &e);
	ok(e.differ && e.p < 0.01, "6 trials a side 30%% apart differ (p %g)",
	   e.p);
	is_int(bisect_judge__step(BISECT_BY_TEST, &e, g8, 6, b8, 6, like_b, 6,
				  0.05, &pg, &pb),
	       BISECT_BAD, "a step like the bad end is bad (p %.3g / %.3g)", pg,
	       pb);
	is_int(bisect_judge__step(BISECT_BY_TEST, &e, g8, 6, b8, 6, same, 6,
				  0.05, &pg, &pb),
	       BISECT_GOOD, "one like the good end is good");
	is_int(bisect_judge__step(BISECT_BY_TEST, &e, g8, 6, b8, 6, between, 6,
				  0.05, &pg, &pb),
	       BISECT_UNKNOWN, "one unlike both cannot be told");
	is_int(bisect_judge__step(BISECT_BY_TEST, &e, g8, 6, b8, 6, like_b, 2,
				  0.05, &pg, &pb),
	       BISECT_UNKNOWN, "nor can two trials");
	bisect_judge__ends(BISECT_BY_TEST, g8, 6, same, 6, 50, 0.05, &e);
	ok(!e.differ, "throughput ends alike do not differ (p %.3g)", e.p);
}

/* @text in @file is a state bisect_state__load() refuses, saying @says. */
static void refused_state(const char *file, const char *text, const char *what,
			  const char *says, const char *how)
{
	struct bisect_state r;
	char *err = NULL;

	scratch__write_text(file, text);
	is_int(bisect_state__load(file, &r, &err), -EINVAL, "%s", what);
	has_str(err, says, "%s", how);
	free(err);
}

static void test_state(void)
{
	char path[] = "/tmp/iommu-bench-test-bisect-state.XXXXXX", *err = NULL;
	char *file;
	struct bisect_state s = { 0 }, r;
	int fd = mkstemp(path);

	close(fd);
	unlink(path);
	file = bisect_state__path(path);
	is_str(file + strlen(path), "-bisect.json", "the state beside the db");
	s.path = file;
	s.matrix = xstrdup("/m.toml");
	s.matrix_sha256 = xstrdup("ab");
	s.tree = xstrdup("/t");
	s.good = xstrdup("1111");
	s.bad = xstrdup("2222");
	s.good_arg = xstrdup("v1");
	s.bad_arg = xstrdup("v2");
	s.metric = xstrdup("iotlb_sync_per_gb");
	s.mode = xstrdup("lazy");
	s.workload = xstrdup("rx");
	s.run_name = xstrdup("x-bisect");
	s.workdir = xstrdup("/w");
	s.started_at = xstrdup("2026-12-02T00:00:00Z");
	s.kind = BISECT_BY_THRESHOLD;
	s.threshold_pct = 50;
	s.alpha = 0.05;
	s.repetitions = s.max_repetitions = 1;
	s.nr_candidates = 2;
	s.candidates = xcalloc(2, sizeof(char *));
	s.candidates[0] = xstrdup("1a1a");
	s.candidates[1] = xstrdup("2222");
	s.nr_steps = 2;
	s.steps = xcalloc(2, sizeof(*s.steps));
	s.steps[0] = (struct bisect_step){ .commit = xstrdup("1111"),
					   .verdict = BISECT_GOOD,
					   .values = xcalloc(1, sizeof(double)),
					   .n = 1,
					   .repetitions = 1,
					   .run_id = 3,
					   .build_s = 753.5,
					   .booted = true,
					   .boots = 1,
					   .p_good = NAN,
					   .p_bad = NAN };
	s.steps[1] = (struct bisect_step){ .commit = xstrdup("2222"),
					   .verdict = BISECT_SKIP,
					   .why = xstrdup("does not build: x"),
					   .p_good = 0.5,
					   .p_bad = NAN };
	s.status = BISECT_STATUS_FOUND;
	s.first_bad = xstrdup("2222");
	is_int(bisect_state__save(&s, &err), 0, "saved");
	is_int(bisect_state__load(file, &r, &err), 0, "and read back");
	ok(r.nr_steps == 2 && r.nr_candidates == 2 &&
		   !strcmp(r.candidates[0], "1a1a") &&
		   r.steps[0].verdict == BISECT_GOOD &&
		   r.steps[0].run_id == 3 && r.steps[0].build_s == 753.5 &&
		   r.steps[0].n == 1 && r.steps[0].boots == 1 &&
		   isnan(r.steps[0].p_good) &&
		   r.steps[1].verdict == BISECT_SKIP &&
		   !strcmp(r.steps[1].why, "does not build: x") &&
		   r.steps[1].p_good == 0.5 &&
		   r.status == BISECT_STATUS_FOUND &&
		   !strcmp(r.first_bad, "2222") &&
		   r.kind == BISECT_BY_THRESHOLD && !strcmp(r.mode, "lazy"),
	   "every field as written");
	ok(bisect_state__step(&r, "2222") == &r.steps[1] &&
		   !bisect_state__step(&r, "3333"),
	   "a step found by its commit");
	bisect_state__release(&r);
	refused_state(file, "{\"version\": 1, \"matrix\": 3}\n",
		      "a state of another shape is refused",
		      "not a bisection state", "saying so");
	refused_state(file, "{\"version\": ", "so is broken JSON",
		      ":1:", "with its line");
	unlink(file);
	is_int(bisect_state__load(file, &r, &err), -ENOENT, "none: -ENOENT");
	bisect_state__release(&s);
}

int main(void)
{
	log_verbosity = -1;
	test_search();
	test_git();
	test_judge();
	test_state();
	return tap_done();
}
