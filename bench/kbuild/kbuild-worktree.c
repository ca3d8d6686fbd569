// SPDX-License-Identifier: GPL-2.0-only
/*
 * The source a build compiles: a detached git worktree of the user's
 * tree at the base commit, with the patches committed on top. The
 * user's checkout, its index and its branches are never touched; only
 * the worktree's bookkeeping in the tree's .git comes and goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/kbuild/kbuild.h"
#include "cache.h"
#include "errmsg.h"
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

char *kbuild__chomp(char *s)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		s[--len] = '\0';
	return s;
}

int kbuild__git(const char *dir, const char *const *args, int timeout_ms,
		char **out, char **err)
{
	struct strvec a = { 0 };
	int ret;

	kbuild__git_argv(&a, dir);
	for (; *args; args++)
		strvec__push(&a, *args);
	ret = kbuild__capture(strvec__argv(&a), timeout_ms, out, err);
	strvec__release(&a);
	return ret;
}

/* git ARGS... in @dir, into the build's log (kbuild__run). */
static int git_log(const struct kbuild_ctx *c, const char *dir,
		   const char *const *args, int timeout_ms,
		   struct kbuild_progress *p, char **output)
{
	struct strvec a = { 0 };
	int ret;

	kbuild__git_argv(&a, dir);
	for (; *args; args++)
		strvec__push(&a, *args);
	ret = kbuild__run(strvec__argv(&a), timeout_ms, c->log_fd, p, output);
	strvec__release(&a);
	return ret;
}

int kbuild__resolve_base(const char *tree, const char *base, char **commit,
			 char **err)
{
	char *out = NULL, *why = NULL, *rev;
	int ret;

	ret = kbuild__git(tree,
			  (const char *[]){ "rev-parse", "--git-dir", NULL },
			  GIT_QUICK_MS, &out, &why);
	free(out);
	out = NULL;
	if (ret) {
		ret = errmsg__set(err, -EINVAL, "%s is not a git tree: %s",
				  tree, why);
		goto out;
	}
	free(why);
	why = NULL;
	rev = xasprintf("%s^{commit}", base);
	ret = kbuild__git(tree,
			  (const char *[]){ "rev-parse", "--verify", "--quiet",
					    rev, NULL },
			  GIT_QUICK_MS, &out, &why);
	free(rev);
	if (ret) {
		ret = errmsg__set(err, -EINVAL, "'%s' is not a commit in %s",
				  base, tree);
		goto out;
	}
	*commit = xstrdup(kbuild__chomp(out));
out:
	free(out);
	free(why);
	return ret;
}

/*
 * git's worktree bookkeeping of one tree, one build at a time: `git
 * worktree prune` forgets an admin folder (.git/worktrees/NAME) that has
 * no gitdir file yet, and that is what another build's `worktree add`
 * has between its mkdir and its lock file; the add then fails ("could not
 * open '.git/worktrees/linux/locked'"), as two builds of one tree at once
 * showed. flock on the tree's own folder, which nothing else locks; -1
 * where it cannot be opened (git then says what is wrong with it).
 */
static int tree_lock(const char *tree)
{
	int fd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
	return fd;
}

static void tree_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

static void prune_locked(const char *tree)
{
	char *out = NULL, *why = NULL;

	if (kbuild__git(tree, (const char *[]){ "worktree", "prune", NULL },
			GIT_QUICK_MS, &out, &why))
		pr_warn("kernel build: %s", why);
	free(out);
	free(why);
}

int kbuild__worktree_add(struct kbuild_ctx *c, char **err)
{
	char *output = NULL;
	int ret, lock = tree_lock(c->tree);

	/* --quiet: no "Updating files" progress for 80k files in the log. */
	ret = git_log(c, c->tree,
		      (const char *[]){ "worktree", "add", "--quiet",
					"--detach", c->src, c->commit, NULL },
		      WORKTREE_MS, &c->progress, &output);
	tree_unlock(lock);
	/* Even a failed add may have registered it: always clean up. */
	c->worktree_added = true;
	if (ret)
		errmsg__set(err, 0,
			    "git worktree add of %s at %.12s failed: %s",
			    c->tree, c->commit,
			    kbuild__chomp((char *)kbuild__tail(output, 3)));
	free(output);
	return ret;
}

int kbuild__worktree_checkout(struct kbuild_ctx *c, char **err)
{
	char *output = NULL;
	struct stat sb;
	int ret;

	if (lstat(c->src, &sb))
		return kbuild__worktree_add(c, err);
	/* Whatever an earlier build left (patches committed) goes. */
	ret = git_log(c, c->src,
		      (const char *[]){ "checkout", "--quiet", "--force",
					"--detach", c->commit, NULL },
		      WORKTREE_MS, &c->progress, &output);
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
	int lock = tree_lock(tree);

	prune_locked(tree);
	tree_unlock(lock);
}

void kbuild__worktree_remove(struct kbuild_ctx *c)
{
	char *out = NULL, *why = NULL;
	struct stat sb;
	int lock;

	if (!c->worktree_added)
		return;
	lock = tree_lock(c->tree);
	/* --force twice: even if it is locked. */
	if (kbuild__git(c->tree,
			(const char *[]){ "worktree", "remove", "--force",
					  "--force", c->src, NULL },
			WORKTREE_MS, &out, &why))
		pr_debug("kernel build: %s", why);
	free(out);
	free(why);
	/* What git would not remove goes by hand; prune then forgets it. */
	if (!lstat(c->src, &sb))
		cache__remove(c->src);
	prune_locked(c->tree);
	tree_unlock(lock);
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
	char *output = NULL, *hunk, *more;

	if (!git_log(c, c->src,
		     (const char *[]){ "apply", "--check", "--verbose", patch,
				       NULL },
		     PATCH_MS, NULL, &output) ||
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
	free(output);
	return text;
}

static int apply_one(struct kbuild_ctx *c, const char *patch, char **err)
{
	char *text = NULL, *output = NULL, *why, *msg, *out = NULL;
	const char *slash;
	bool mbox;
	size_t len;
	int ret;

	ret = read_file(patch, &text, &len);
	if (ret)
		return errmsg__set(err, ret, "cannot read the patch %s: %s",
				   patch, strerror(-ret));
	mbox = is_mbox(text);
	free(text);
	ret = git_log(c, c->src,
		      (const char *[]){ mbox ? "am" : "apply", "--3way", patch,
					NULL },
		      PATCH_MS, &c->progress, &output);
	if (ret) {
		why = git_errors(output ? output : "", xstrdup(""));
		if (mbox)
			why = diagnose(c, patch, why);
		if (!*why) {
			free(why);
			why = kbuild__chomp(
				xstrdup(kbuild__tail(output ? output : "", 3)));
		}
		errmsg__set(err, 0,
			    "patch %s does not apply to %.12s (git %s "
			    "--3way): %s",
			    patch, c->commit, mbox ? "am" : "apply", why);
		free(why);
		/* Nothing half-applied stays, should the worktree outlive us. */
		git_log(c, c->src,
			(const char *[]){ mbox ? "am" : "reset",
					  mbox ? "--abort" : "--hard", NULL },
			PATCH_MS, NULL, NULL);
		goto out;
	}
	if (mbox)
		goto out;
	/* A plain diff has no commit of its own: make one, named after it. */
	slash = strrchr(patch, '/');
	msg = xasprintf("iommu-bench: %s", slash ? slash + 1 : patch);
	ret = git_log(c, c->src,
		      (const char *[]){ "commit", "--quiet", "--allow-empty",
					"-m", msg, NULL },
		      PATCH_MS, &c->progress, &out);
	free(msg);
	if (ret)
		errmsg__set(err, 0, "cannot commit the patch %s: %s", patch,
			    kbuild__chomp((char *)kbuild__tail(out, 3)));
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
