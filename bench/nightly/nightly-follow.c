// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the robot follows, tonight: the head of a remote's branch,
 * fetched into the user's tree (only the remote-tracking ref moves; the
 * checkout is never touched), or what a Debian meta-package resolves to
 * in its suite now. And what only the tree or the machine can say about
 * the [nightly] table (the remote is there, the sendmail command runs),
 * asked before any fetch, build or boot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/bisect/bisect.h"
#include "bench/kbuild/kbuild.h"
#include "bench/nightly/nightly-priv.h"
#include "bench/testbed/testbed.h"
#include "log.h"
#include "util.h"

/* Whether @word is one of @text's lines. */
static bool has_line(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

static int check_remote(const struct night *nt)
{
	const char *tree = nt->k->build.tree;
	char *out = NULL, *err = NULL;
	int ret;

	ret = bisect_git__run(tree, (const char *[]){ "remote", NULL }, &out,
			      &err);
	if (ret) {
		pr_err("nightly: %s is not a git tree git can read: %s", tree,
		       err ? err : "git failed");
		goto out;
	}
	if (!has_line(out, nt->cfg->remote)) {
		pr_err("nightly: follow.remote: the tree %s has no remote "
		       "'%s' (it has: %s)",
		       tree, nt->cfg->remote, *out ? out : "none");
		ret = -EINVAL;
	}
out:
	free(out);
	free(err);
	return ret;
}

/*
 * Without [nightly] there is nobody to tell and no branch to follow: the
 * night watches this machine, whose running kernel is the one thing that
 * moves (a package upgrade and a reboot, firmware, the machine itself).
 * Only a matrix that runs nothing but that kernel, on hosts that are
 * this machine, has it as its kernel.
 */
int night__watch(struct night *nt)
{
	/* What a matrix without the table gets: bisect off, 30 nights. */
	static const struct matrix_nightly watch = { .history = 30 };
	const struct matrix *m = nt->m;
	size_t i;

	nt->cfg = &watch;
	for (i = 0; i < m->nr_hosts; i++)
		if (m->hosts[i].role == ROLE_SUT &&
		    !m->hosts[i].ops->never_reboots) {
			pr_err("nightly: %s has no [nightly] table, and its "
			       "host '%s' is not this machine: a night "
			       "without one follows this machine's running "
			       "kernel; to follow a branch or a package, "
			       "add [nightly] (docs/nightly.md)",
			       nt->o->matrix, m->hosts[i].name);
			return -EINVAL;
		}
	if (m->nr_kernels != 1 || m->kernels[0].kind != KERNEL_RUNNING) {
		pr_err("nightly: %s has no [nightly] table to say which of "
		       "its [[kernels]] the robot follows: follow = { kernel "
		       "= NAME, ... } (docs/nightly.md)",
		       nt->o->matrix);
		return -EINVAL;
	}
	nt->k = &m->kernels[0];
	return 0;
}

int night__abbrev(const char *head)
{
	size_t n = strlen(head);

	return n == 40 && strspn(head, "0123456789abcdef") == n ? NIGHT_ABBREV :
								  (int)n;
}

int night__check(struct night *nt)
{
	const char *sm = nt->cfg->mail.nr_sendmail ? nt->cfg->mail.sendmail[0] :
						     NULL;

	/* --send, as a unit passes it, sends nothing where nobody is named. */
	if (!nt->cfg->present)
		return night__kcidb_check(nt) ? -EINVAL : 0;
	if (nt->o->send && !sm) {
		pr_err("nightly: --send: [nightly.mail] names no sendmail "
		       "command (sendmail = [\"/usr/bin/msmtp\", \"-t\"])");
		return -EINVAL;
	}
	if (nt->o->send && access(sm, X_OK)) {
		pr_err("nightly: --send: the sendmail command %s is not there "
		       "(%s)",
		       sm, strerror(errno));
		return -EINVAL;
	}
	if (night__kcidb_check(nt))
		return -EINVAL;
	if (nt->k->kind == KERNEL_BUILD)
		return check_remote(nt) ? -EINVAL : 0;
	return 0;
}

static int follow_branch(const struct night *nt, struct night_head *h)
{
	const char *tree = nt->k->build.tree;
	char *refspec, *ref, *spec, *err = NULL, *out = NULL;
	int ret;

	if (!kbuild__revision_is_valid(nt->cfg->branch)) {
		pr_err("nightly: follow.branch: '%s' is not a branch name",
		       nt->cfg->branch);
		return -EINVAL;
	}
	ref = xasprintf("refs/remotes/%s/%s", nt->cfg->remote, nt->cfg->branch);
	refspec = xasprintf("+refs/heads/%s:%s", nt->cfg->branch, ref);
	ret = bisect_git__run(tree,
			      (const char *[]){ "fetch", "--quiet", "--no-tags",
						nt->cfg->remote, refspec,
						NULL },
			      &out, &err);
	free(out);
	out = NULL;
	if (ret) {
		pr_err("nightly: fetching %s of %s into %s failed: %s",
		       nt->cfg->branch, nt->cfg->remote, tree,
		       err ? err : "git failed");
		ret = strstr(err ? err : "", "couldn't find remote ref") ?
			      -EINVAL :
			      -EIO;
		goto out;
	}
	spec = xasprintf("%s^{commit}", ref);
	ret = bisect_git__run(tree,
			      (const char *[]){ "rev-parse", "--verify",
						"--quiet", spec, NULL },
			      &out, &err);
	free(spec);
	if (ret) {
		pr_err("nightly: %s has no %s after the fetch", tree, ref);
		goto out;
	}
	h->head = out;
	out = NULL;
	bisect_git__subject(tree, h->head, &h->subject, &err);
out:
	free_all(ref, refspec, err, out);
	return ret;
}

static int follow_package(const struct night *nt, struct night_head *h)
{
	char *err = NULL;
	int ret;

	ret = testbed__kernel_resolve(nt->k->package, nt->k->suite, &h->package,
				      &h->head, &err);
	if (ret) {
		pr_err("nightly: what %s is in %s now: %s", nt->k->package,
		       nt->k->suite ? nt->k->suite : "this machine's apt",
		       err ? err : strerror(-ret));
		free(err);
	}
	return ret;
}

/* The release and the build line that `uname -rv` prints. */
static int follow_running(struct night_head *h)
{
	struct utsname u;

	if (uname(&u)) {
		pr_err("nightly: uname: %s", strerror(errno));
		return -errno;
	}
	h->head = xstrdup(u.release);
	h->subject = xstrdup(u.version);
	return 0;
}

int night__follow(struct night *nt, struct night_head *h)
{
	if (nt->k->kind == KERNEL_RUNNING)
		return follow_running(h);
	if (nt->k->kind == KERNEL_BUILD)
		return follow_branch(nt, h);
	return follow_package(nt, h);
}

void night_head__release(struct night_head *h)
{
	free_all(h->head, h->subject, h->package);
	memset(h, 0, sizeof(*h));
}

long night__range(const struct night *nt, const char *base, const char *head)
{
	char **shas = NULL, *err = NULL;
	size_t n = 0;
	int ret;

	if (nt->k->kind != KERNEL_BUILD)
		return -EINVAL;
	ret = bisect_git__first_parent(nt->k->build.tree, base, head, &shas, &n,
				       &err);
	if (ret) {
		pr_err("nightly: the commits %.12s..%.12s: %s", base, head,
		       err ? err : "git failed");
		free(err);
		return ret;
	}
	strv_free(shas, n);
	return (long)n;
}

void night__commit_words(const struct night *nt, const char *rev,
			 char **subject, char **author)
{
	char *err = NULL;

	*subject = *author = NULL;
	if (nt->k->kind != KERNEL_BUILD)
		return;
	if (bisect_git__subject(nt->k->build.tree, rev, subject, &err)) {
		free(err);
		err = NULL;
	}
	if (bisect_git__author(nt->k->build.tree, rev, author, &err))
		free(err);
}
