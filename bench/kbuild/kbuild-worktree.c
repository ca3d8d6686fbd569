// SPDX-License-Identifier: GPL-2.0-only
/*
 * The source a build compiles: a detached git worktree of the user's
 * tree at the base commit, with the patches committed on top. The
 * user's checkout, its index and its branches are never touched; only
 * the worktree's bookkeeping in the tree's .git comes and goes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/kbuild/kbuild.h"
#include "cache.h"
#include "log.h"
#include "strvec.h"
#include "util.h"

#define GIT_QUICK_MS (60 * 1000)
#define WORKTREE_MS (30 * 60 * 1000)
#define PATCH_MS (10 * 60 * 1000)
/* Lines of git's own words kept in a failed patch's message. */
#define PATCH_ERROR_LINES 8
/* Lines of a hunk that did not apply shown in the message. */
#define HUNK_LINES 12
#define SEARCHING "error: while searching for:"

/*
 * git with the user's hooks off (a post-checkout hook has no business
 * running on our worktree) and an identity of our own for the commits
 * of the patches, so that a tree without user.email works too.
 */
void kbuild__git_argv(struct strvec *a, const char *dir)
{
	strvec__push(a, "git");
	strvec__push(a, "-c");
	strvec__push(a, "core.hooksPath=/dev/null");
	strvec__push(a, "-c");
	strvec__push(a, "user.name=iommu-bench");
	strvec__push(a, "-c");
	strvec__push(a, "user.email=iommu-bench@localhost");
	strvec__push(a, "-c");
	strvec__push(a, "commit.gpgsign=false");
	strvec__push(a, "-c");
	strvec__push(a, "advice.detachedHead=false");
	strvec__push(a, "-C");
	strvec__push(a, dir);
}

static char *trim(char *s)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		s[--len] = '\0';
	return s;
}

int kbuild__resolve_base(const char *tree, const char *base, char **commit,
			 char **err)
{
	struct strvec a = { 0 };
	char *out = NULL, *why = NULL, *rev;
	int ret;

	kbuild__git_argv(&a, tree);
	strvec__push(&a, "rev-parse");
	strvec__push(&a, "--git-dir");
	ret = kbuild__capture(strvec__argv(&a), GIT_QUICK_MS, &out, &why);
	strvec__release(&a);
	free(out);
	out = NULL;
	if (ret) {
		*err = xasprintf("%s is not a git tree: %s", tree, why);
		ret = -EINVAL;
		goto out;
	}
	free(why);
	why = NULL;
	rev = xasprintf("%s^{commit}", base);
	kbuild__git_argv(&a, tree);
	strvec__push(&a, "rev-parse");
	strvec__push(&a, "--verify");
	strvec__push(&a, "--quiet");
	strvec__push(&a, rev);
	ret = kbuild__capture(strvec__argv(&a), GIT_QUICK_MS, &out, &why);
	strvec__release(&a);
	free(rev);
	if (ret) {
		*err = xasprintf("'%s' is not a commit in %s", base, tree);
		ret = -EINVAL;
		goto out;
	}
	*commit = xstrdup(trim(out));
out:
	free(out);
	free(why);
	return ret;
}

int kbuild__worktree_add(struct kbuild_ctx *c, char **err)
{
	struct strvec a = { 0 };
	char *output = NULL;
	int ret;

	kbuild__git_argv(&a, c->tree);
	strvec__push(&a, "worktree");
	strvec__push(&a, "add");
	/* No "Updating files" progress for 80k files in the log. */
	strvec__push(&a, "--quiet");
	strvec__push(&a, "--detach");
	strvec__push(&a, c->src);
	strvec__push(&a, c->commit);
	ret = kbuild__run(strvec__argv(&a), WORKTREE_MS, c->log_fd,
			  &c->progress, &output);
	strvec__release(&a);
	/* Even a failed add may have registered it: always clean up. */
	c->worktree_added = true;
	if (ret)
		*err = xasprintf("git worktree add of %s at %.12s failed: %s",
				 c->tree, c->commit,
				 trim((char *)kbuild__tail(output, 3)));
	free(output);
	return ret;
}

int kbuild__worktree_checkout(struct kbuild_ctx *c, char **err)
{
	struct strvec a = { 0 };
	char *output = NULL;
	struct stat sb;
	int ret;

	if (lstat(c->src, &sb))
		return kbuild__worktree_add(c, err);
	/* Whatever an earlier build left (patches committed) goes. */
	kbuild__git_argv(&a, c->src);
	strvec__push(&a, "checkout");
	strvec__push(&a, "--quiet");
	strvec__push(&a, "--force");
	strvec__push(&a, "--detach");
	strvec__push(&a, c->commit);
	ret = kbuild__run(strvec__argv(&a), WORKTREE_MS, c->log_fd,
			  &c->progress, &output);
	strvec__release(&a);
	free(output);
	if (!ret)
		return 0;
	/* Not a worktree git knows any more: start it again. */
	pr_info("kernel build: %s is no worktree of %s: made again", c->src,
		c->tree);
	cache__remove(c->src);
	kbuild__worktree_prune(c->tree);
	return kbuild__worktree_add(c, err);
}

void kbuild__worktree_prune(const char *tree)
{
	struct strvec a = { 0 };
	char *out = NULL, *why = NULL;

	kbuild__git_argv(&a, tree);
	strvec__push(&a, "worktree");
	strvec__push(&a, "prune");
	if (kbuild__capture(strvec__argv(&a), GIT_QUICK_MS, &out, &why))
		pr_warn("kernel build: %s", why);
	strvec__release(&a);
	free(out);
	free(why);
}

void kbuild__worktree_remove(struct kbuild_ctx *c)
{
	struct strvec a = { 0 };
	char *out = NULL, *why = NULL;
	struct stat sb;

	if (!c->worktree_added)
		return;
	kbuild__git_argv(&a, c->tree);
	strvec__push(&a, "worktree");
	strvec__push(&a, "remove");
	strvec__push(&a, "--force");
	strvec__push(&a, "--force"); /* twice: even if it is locked */
	strvec__push(&a, c->src);
	if (kbuild__capture(strvec__argv(&a), WORKTREE_MS, &out, &why))
		pr_debug("kernel build: %s", why);
	strvec__release(&a);
	free(out);
	free(why);
	/* What git would not remove goes by hand; prune then forgets it. */
	if (!lstat(c->src, &sb))
		cache__remove(c->src);
	kbuild__worktree_prune(c->tree);
	c->worktree_added = false;
}

/* An mbox (git format-patch, a mail) rather than a bare diff. */
static bool is_mbox(const char *text)
{
	static const char *const heads[] = { "From ", "From: ", "Subject: ",
					     "Date: ", NULL };
	size_t i;

	for (i = 0; heads[i]; i++)
		if (!strncmp(text, heads[i], strlen(heads[i])))
			return true;
	return false;
}

/* git's own lines that say what failed, joined, for the error message. */
static char *git_errors(const char *output, char *text)
{
	static const char *const keep[] = { "error: ", "CONFLICT ",
					    "Patch failed at ", NULL };
	const char *line = output, *nl;
	int n = 0;
	size_t i;
	char *more;

	for (; *line && n < PATCH_ERROR_LINES; line = nl ? nl + 1 : "") {
		nl = strchr(line, '\n');
		for (i = 0; keep[i]; i++)
			if (!strncmp(line, keep[i], strlen(keep[i])))
				break;
		/* The hunk's text comes on its own, below. */
		if (!keep[i] || !strncmp(line, SEARCHING, strlen(SEARCHING)))
			continue;
		more = xasprintf("%s%s%.*s", text, *text ? "; " : "",
				 (int)(nl ? nl - line : (long)strlen(line)),
				 line);
		free(text);
		text = more;
		n++;
	}
	return text;
}

/* The lines `git apply -v` searched for and did not find: the hunk. */
static char *hunk_text(const char *output)
{
	const char *p = strstr(output, SEARCHING "\n"), *end;
	int lines = 0;

	if (!p)
		return NULL;
	p += strlen(SEARCHING) + 1;
	for (end = p; *end && strncmp(end, "error: ", 7) && lines < HUNK_LINES;
	     lines++) {
		end = strchr(end, '\n');
		if (!end)
			break;
		end++;
	}
	if (!end)
		end = p + strlen(p);
	while (end > p && end[-1] == '\n')
		end--;
	return xstrndup(p, end - p);
}

/*
 * git am --3way does not say which hunk failed when the patch's blobs
 * are not in the tree (a patch for another kernel): a dry run of
 * `git apply --check -v` does.
 */
static char *diagnose(struct kbuild_ctx *c, const char *patch, char *text)
{
	struct strvec a = { 0 };
	char *output = NULL, *hunk, *more;

	kbuild__git_argv(&a, c->src);
	strvec__push(&a, "apply");
	strvec__push(&a, "--check");
	strvec__push(&a, "--verbose");
	strvec__push(&a, patch);
	if (!kbuild__run(strvec__argv(&a), PATCH_MS, c->log_fd, NULL,
			 &output) ||
	    !output)
		goto out;
	text = git_errors(output, text);
	hunk = hunk_text(output);
	if (hunk) {
		more = xasprintf("%s\nthe hunk, not found:\n%s", text, hunk);
		free(text);
		text = more;
		free(hunk);
	}
out:
	strvec__release(&a);
	free(output);
	return text;
}

static int apply_one(struct kbuild_ctx *c, const char *patch, char **err)
{
	struct strvec a = { 0 };
	char *text = NULL, *output = NULL, *why, *msg, *out = NULL;
	const char *slash;
	bool mbox;
	size_t len;
	int ret;

	ret = read_file(patch, &text, &len);
	if (ret) {
		*err = xasprintf("cannot read the patch %s: %s", patch,
				 strerror(-ret));
		return ret;
	}
	mbox = is_mbox(text);
	free(text);
	kbuild__git_argv(&a, c->src);
	if (mbox) {
		strvec__push(&a, "am");
		strvec__push(&a, "--3way");
	} else {
		strvec__push(&a, "apply");
		strvec__push(&a, "--3way");
	}
	strvec__push(&a, patch);
	ret = kbuild__run(strvec__argv(&a), PATCH_MS, c->log_fd, &c->progress,
			  &output);
	strvec__release(&a);
	if (ret) {
		why = git_errors(output ? output : "", xstrdup(""));
		if (mbox)
			why = diagnose(c, patch, why);
		if (!*why) {
			free(why);
			why = trim(
				xstrdup(kbuild__tail(output ? output : "", 3)));
		}
		*err = xasprintf("patch %s does not apply to %.12s (git %s "
				 "--3way): %s",
				 patch, c->commit, mbox ? "am" : "apply", why);
		free(why);
		/* Nothing half-applied stays, should the worktree outlive us. */
		kbuild__git_argv(&a, c->src);
		strvec__push(&a, mbox ? "am" : "reset");
		strvec__push(&a, mbox ? "--abort" : "--hard");
		kbuild__run(strvec__argv(&a), PATCH_MS, c->log_fd, NULL, NULL);
		strvec__release(&a);
		goto out;
	}
	if (mbox)
		goto out;
	/* A plain diff has no commit of its own: make one, named after it. */
	slash = strrchr(patch, '/');
	msg = xasprintf("iommu-bench: %s", slash ? slash + 1 : patch);
	kbuild__git_argv(&a, c->src);
	strvec__push(&a, "commit");
	strvec__push(&a, "--quiet");
	strvec__push(&a, "--allow-empty");
	strvec__push(&a, "-m");
	strvec__push(&a, msg);
	ret = kbuild__run(strvec__argv(&a), PATCH_MS, c->log_fd, &c->progress,
			  &out);
	strvec__release(&a);
	free(msg);
	if (ret)
		*err = xasprintf("cannot commit the patch %s: %s", patch,
				 trim((char *)kbuild__tail(out, 3)));
out:
	free(output);
	free(out);
	return ret;
}

int kbuild__apply_patches(struct kbuild_ctx *c, char **err)
{
	size_t i;
	int ret;

	for (i = 0; i < c->r->nr_patches; i++) {
		ret = apply_one(c, c->r->patches[i], err);
		if (ret)
			return ret;
	}
	return 0;
}
