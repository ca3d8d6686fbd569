// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bisect's parts that need no kernel: the search, driven to the end for
 * every position of the first bad commit in histories of 1 to 40
 * candidates (found, and in at most ceil(log2(n)) steps), with skipped
 * commits in the way, and with verdicts that contradict; and the git
 * questions, on a scratch repository of real commits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bisect/bisect.h"
#include "log.h"
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

static int sh(const char *const *argv)
{
	struct spawn sp;
	int err = spawn__run(&sp, argv,
			     &(struct spawn_opts){
				     .flags = SPAWN_CAPTURE_OUT |
					      SPAWN_CAPTURE_ERR,
			     },
			     20000);

	if (!err && !spawn__succeeded(&sp))
		err = -EIO;
	spawn__release(&sp);
	return err;
}

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
	err = sh((const char *const[]){ "git", "-C", tmp, "add", file, NULL });
	if (!err)
		err = sh((const char *const[]){
			"git", "-C", tmp, "-c", "user.name=t", "-c",
			"user.email=t@t", "commit", "-q", "-m", msg, NULL });
	return err;
}

static void test_git(void)
{
	char *good = NULL, *bad = NULL, *err = NULL, **shas = NULL, *s = NULL;
	char name[16];
	size_t n = 0, i;
	int ret;

	if (!mkdtemp(tmp) ||
	    sh((const char *const[]){ "git", "init", "-q", tmp, NULL })) {
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
	sh((const char *const[]){ "git", "-C", tmp, "reset", "-q", "--soft",
				  "HEAD~1", NULL });
	is_int(bisect_git__dirty(tmp, &err), 1,
	       "a change to a tracked file: dirty");
out:
	for (i = 0; i < n; i++)
		free(shas[i]);
	free(shas);
	free(good);
	free(bad);
	free(err);
	sh((const char *const[]){ "rm", "-rf", "--", tmp, NULL });
}

int main(void)
{
	log_verbosity = -1;
	test_search();
	test_git();
	return tap_done();
}
