// SPDX-License-Identifier: GPL-2.0-only
/*
 * What bisect asks of the user's tree, read-only: revisions resolved,
 * ancestry, the first-parent list between the ends, subjects, and
 * whether the checkout has changes a build would not contain. git runs
 * as an argument vector with the user's hooks off, never in a shell.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bisect/bisect.h"
#include "bench/kbuild/kbuild.h"
#include "errmsg.h"
#include "strvec.h"
#include "util.h"

#define GIT_MS (5 * 60 * 1000)

/* git ARGS... in @tree: 0 and its stdout, or -EIO and git's words. */
static int git(const char *tree, const char *const *args, char **out,
	       char **err)
{
	char *why = NULL;
	int ret;

	*out = NULL;
	ret = kbuild__git(tree, args, GIT_MS, out, &why);
	if (ret)
		return why ? errmsg__move(err, -EIO, why) :
			     errmsg__set(err, -EIO, "git failed");
	free(why);
	return 0;
}

int bisect_git__resolve(const char *tree, const char *rev, char **sha,
			char **err)
{
	char *spec, *out = NULL, *why = NULL;
	int ret;

	ret = kbuild__check_revision(rev, err);
	if (ret)
		return ret;
	spec = xasprintf("%s^{commit}", rev);
	ret = git(tree,
		  (const char *[]){ "rev-parse", "--verify", "--quiet", spec,
				    NULL },
		  &out, &why);
	free(spec);
	if (ret) {
		errmsg__set(err, 0, "'%s' is not a commit in %s", rev, tree);
		free(why);
		free(out);
		return -EINVAL;
	}
	*sha = xstrdup(kbuild__chomp(out));
	free(out);
	return 0;
}

int bisect_git__is_ancestor(const char *tree, const char *a, const char *b,
			    char **err)
{
	char *range = xasprintf("%s..%s", b, a), *out = NULL, *why = NULL;
	int ret;

	/* Exit 1 is the answer "no", not a failure: ask rev-list. */
	ret = kbuild__git(
		tree, (const char *[]){ "rev-list", "--count", range, NULL },
		GIT_MS, &out, &why);
	free(range);
	if (ret) {
		free(out);
		return why ? errmsg__move(err, -EIO, why) :
			     errmsg__set(err, -EIO, "git rev-list failed");
	}
	free(why);
	/* a is an ancestor of b when nothing of a is outside b. */
	ret = atoi(out) == 0;
	free(out);
	return ret;
}

int bisect_git__first_parent(const char *tree, const char *good,
			     const char *bad, char ***shas, size_t *n,
			     char **err)
{
	char *range = xasprintf("%s..%s", good, bad), *out = NULL, *line,
	     *save = NULL;
	struct strvec v = { 0 };
	int ret;

	ret = git(tree,
		  (const char *[]){ "rev-list", "--first-parent", "--reverse",
				    range, NULL },
		  &out, err);
	free(range);
	if (ret)
		return ret;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		strvec__push(&v, line);
	free(out);
	*shas = v.v;
	*n = v.nr;
	return 0;
}

int bisect_git__subject(const char *tree, const char *sha, char **subject,
			char **err)
{
	char *out = NULL;
	int ret;

	ret = git(tree,
		  (const char *[]){ "log", "-1", "--format=%s", sha, NULL },
		  &out, err);
	if (ret)
		return ret;
	*subject = xstrdup(kbuild__chomp(out));
	free(out);
	return 0;
}

int bisect_git__run(const char *tree, const char *const *args, char **out,
		    char **err)
{
	int ret = git(tree, args, out, err);

	if (!ret)
		kbuild__chomp(*out);
	return ret;
}

int bisect_git__author(const char *tree, const char *sha, char **author,
		       char **err)
{
	return bisect_git__run(tree,
			       (const char *[]){ "log", "-1",
						 "--format=%an <%ae>", sha,
						 NULL },
			       author, err);
}

int bisect_git__dirty(const char *tree, char **err)
{
	char *out = NULL;
	int ret;

	/* A bare repository has no checkout to be dirty. */
	ret = git(tree,
		  (const char *[]){ "rev-parse", "--is-bare-repository", NULL },
		  &out, err);
	if (ret)
		return ret;
	ret = !strcmp(kbuild__chomp(out), "true");
	free(out);
	out = NULL;
	if (ret)
		return 0;
	ret = git(tree,
		  (const char *[]){ "status", "--porcelain",
				    "--untracked-files=no", NULL },
		  &out, err);
	if (ret)
		return ret;
	ret = out && *out;
	free(out);
	return ret;
}
