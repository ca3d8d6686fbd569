// SPDX-License-Identifier: GPL-2.0-only
/*
 * [nightly]: what the robot (iommu-bench nightly) follows, how it
 * confirms and bisects what it sees, and whom its mail is for. Checked
 * with the rest of the matrix, so that a robot misconfigured says so
 * before its first build or boot; what only the tree or the machine can
 * answer (a remote, a branch, the sendmail command) the night checks
 * next, still before any build.
 */
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "suggest.h"
#include "util.h"

void matrix_nightly__release(struct matrix_nightly *n)
{
	free_all(n->kernel, n->remote, n->branch, n->pinned, n->output, n->url,
		 n->mail.from, n->mail.reported_by);
	strv_free(n->mail.to, n->mail.nr_to);
	strv_free(n->mail.cc, n->mail.nr_cc);
	strv_free(n->mail.sendmail, n->mail.nr_sendmail);
	memset(n, 0, sizeof(*n));
}

/* A kernel of the matrix by @key's name; its index, or -1 said. */
static long kernel_ref(struct mx *mx, const struct toml_value *tab,
		       const char *key, const char *where)
{
	const struct toml_value *v = toml_table__get(tab, key);
	const struct matrix *m = mx->m;
	const char **names, *best;
	long k;
	size_t i;

	if (!mx_is(mx, v, TOML_STRING, key))
		return -1;
	k = matrix__find_kernel(m, v->u.str.ptr);
	if (k >= 0)
		return k;
	names = xcalloc(m->nr_kernels + 1, sizeof(*names));
	for (i = 0; i < m->nr_kernels; i++)
		names[i] = m->kernels[i].name;
	best = suggest__best(v->u.str.ptr, names);
	mx_err(mx, v->pos, "%s: no kernel named '%s' in [[kernels]]%s%s%s",
	       where, v->u.str.ptr, best ? "; did you mean '" : "",
	       best ? best : "", best ? "'?" : "");
	free(names);
	return -1;
}

static void parse_follow(struct mx *mx, struct matrix_nightly *n,
			 const struct toml_value *tab)
{
	static const char *const keys[] = { "kernel", "remote", "branch",
					    NULL };
	const struct matrix_kernel *k;
	long i;

	if (!tab) {
		mx_err(mx, n->pos,
		       "[nightly]: missing key 'follow' (what the robot "
		       "follows: follow = { kernel = NAME, remote = NAME, "
		       "branch = NAME } for a build kernel, follow = "
		       "{ kernel = NAME } for a Debian package)");
		return;
	}
	if (!mx_is(mx, tab, TOML_TABLE, "follow"))
		return;
	mx_check_keys(mx, tab, keys, "[nightly] follow");
	if (!toml_table__get(tab, "kernel")) {
		mx_err(mx, tab->pos,
		       "follow: missing key 'kernel' (one of the matrix's "
		       "[[kernels]], by name)");
		return;
	}
	i = kernel_ref(mx, tab, "kernel", "follow.kernel");
	if (i < 0)
		return;
	k = &mx->m->kernels[i];
	n->kernel = xstrdup(k->name);
	mx_string(mx, tab, "remote", MX_NAME, &n->remote);
	mx_string(mx, tab, "branch", MX_REVISION, &n->branch);
	if (k->kind == KERNEL_BUILD) {
		if (!n->remote || !n->branch)
			mx_err(mx, tab->pos,
			       "follow: kernel '%s' is built from %s: name "
			       "the remote and the branch the robot follows "
			       "(follow = { kernel = \"%s\", remote = "
			       "\"origin\", branch = \"master\" })",
			       k->name, k->build.tree, k->name);
		return;
	}
	if (k->kind == KERNEL_PACKAGE) {
		if (n->remote || n->branch)
			mx_err(mx, tab->pos,
			       "follow: kernel '%s' is the Debian package "
			       "%s, which has no remote or branch: the robot "
			       "follows what the package resolves to",
			       k->name, k->package);
		return;
	}
	mx_err(mx, mx_val_pos(tab, "kernel", tab->pos),
	       "follow.kernel: '%s' is an image file, which does not move: "
	       "the robot follows a kernel built from a git branch "
	       "([kernels.build]) or a Debian package (package = ...)",
	       k->name);
}

static void parse_mail(struct mx *mx, struct matrix_nightly *n,
		       const struct toml_value *tab)
{
	static const char *const keys[] = { "from",	   "to",       "cc",
					    "reported_by", "sendmail", NULL };
	struct matrix_nightly_mail *m = &n->mail;
	size_t i;

	if (!tab || !mx_is(mx, tab, TOML_TABLE, "mail"))
		return;
	mx_check_keys(mx, tab, keys, "[nightly.mail]");
	mx_text(mx, tab, "from", &m->from);
	mx_text(mx, tab, "reported_by", &m->reported_by);
	mx_strings(mx, tab, "to", MX_ARGV, &m->to, &m->nr_to);
	mx_strings(mx, tab, "cc", MX_ARGV, &m->cc, &m->nr_cc);
	for (i = 0; i < m->nr_to + m->nr_cc; i++) {
		const char *a = i < m->nr_to ? m->to[i] : m->cc[i - m->nr_to];

		if (strcmp(a, "author") && !strchr(a, '@'))
			mx_err(mx, tab->pos,
			       "[nightly.mail]: '%s' is not an address "
			       "(expected 'Name <user@host>', 'user@host' "
			       "or \"author\", the commit's author)",
			       a);
	}
	if (mx_strings(mx, tab, "sendmail", MX_ARGV, &m->sendmail,
		       &m->nr_sendmail) > 0 &&
	    (!m->nr_sendmail || m->sendmail[0][0] != '/'))
		mx_err(mx, mx_val_pos(tab, "sendmail", tab->pos),
		       "sendmail: expected the command as a list whose first "
		       "element is an absolute path (sendmail = "
		       "[\"/usr/bin/msmtp\", \"-t\"])");
}

void matrix__parse_nightly(struct mx *mx, const struct toml_value *tab)
{
	static const char *const keys[] = {
		"follow", "pinned",	  "history", "confirm_repetitions",
		"bisect", "improvements", "output",  "url",
		"mail",	  NULL,
	};
	struct matrix_nightly *n = &mx->m->nightly;
	long p;

	if (!tab || !mx_is(mx, tab, TOML_TABLE, "nightly"))
		return;
	n->present = true;
	n->pos = tab->pos;
	n->history = 30;
	n->bisect = true;
	mx_check_keys(mx, tab, keys, "[nightly]");
	parse_follow(mx, n, toml_table__get(tab, "follow"));
	if (toml_table__get(tab, "pinned")) {
		p = kernel_ref(mx, tab, "pinned", "pinned");
		if (p >= 0)
			n->pinned = xstrdup(mx->m->kernels[p].name);
		if (n->pinned && n->kernel && !strcmp(n->pinned, n->kernel))
			mx_err(mx, mx_val_pos(tab, "pinned", tab->pos),
			       "pinned: '%s' is the kernel the robot "
			       "follows; the pinned one stays put beside it",
			       n->pinned);
	}
	mx_uint32(mx, tab, "history", 2, 1000, &n->history);
	mx_uint32(mx, tab, "confirm_repetitions", 2, 1000,
		  &n->confirm_repetitions);
	mx_bool(mx, tab, "bisect", &n->bisect);
	mx_bool(mx, tab, "improvements", &n->improvements);
	mx_string(mx, tab, "output", MX_PATH, &n->output);
	mx_string(mx, tab, "url", MX_URL, &n->url);
	parse_mail(mx, n, toml_table__get(tab, "mail"));
}
