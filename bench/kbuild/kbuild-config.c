// SPDX-License-Identifier: GPL-2.0-only
/*
 * The .config of a build: a base (a file put through olddefconfig, or a
 * make target such as defconfig), the fragments merged over it and
 * olddefconfig again, then every option a fragment set looked up in the
 * result. Kconfig resolves dependencies as it likes; only the check
 * tells the user that the option under test is not in the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bench/kbuild/kbuild.h"
#include "cache.h"
#include "errmsg.h"
#include "kernel-target.h"
#include "log.h"
#include "strvec.h"
#include "util.h"

#define CONFIG_MS (15 * 60 * 1000)
/* Lines of the log in the message of a failed make. */
#define ERROR_TAIL_LINES 20

/* ccache on the PATH, looked up once. */
static bool have_ccache(void)
{
	static int have = -1;
	char *p;

	if (have < 0) {
		p = path__which("ccache");
		have = p != NULL;
		free(p);
	}
	return have;
}

void kbuild__make_argv(const struct kbuild_ctx *c, struct strvec *a)
{
	strvec__push(a, "make");
	strvec__push(a, "-C");
	strvec__push(a, c->src);
	strvec__pushf(a, "O=%s", c->obj);
	strvec__pushf(a, "ARCH=%s", c->arch->name);
	if (c->r->cross_compile)
		strvec__pushf(a, "CROSS_COMPILE=%s", c->r->cross_compile);
	/*
	 * A kept worktree goes back and forth between commits (bisect):
	 * a file that is back to a content compiled before is a ccache
	 * hit. The output is the compiler's own, so the key is unchanged.
	 */
	if (c->kept && have_ccache())
		strvec__pushf(a, "CC=ccache %sgcc",
			      c->r->cross_compile ? c->r->cross_compile : "");
}

static int make_target(struct kbuild_ctx *c, const char *target, char **err)
{
	struct strvec a = { 0 };
	char *output = NULL;
	int ret;

	kbuild__make_argv(c, &a);
	strvec__push(&a, target);
	ret = kbuild__run(strvec__argv(&a), CONFIG_MS, c->log_fd, &c->progress,
			  &output);
	strvec__release(&a);
	if (ret) {
		c->failed_in_make = true;
		errmsg__set(err, 0,
			    "make %s failed (ARCH=%s%s%s); the end of "
			    "its output:\n%s",
			    target, c->arch->name,
			    c->r->cross_compile ? " CROSS_COMPILE=" : "",
			    c->r->cross_compile ? c->r->cross_compile : "",
			    kbuild__tail(output, ERROR_TAIL_LINES));
	}
	free(output);
	return ret;
}

static int write_text(const char *path, const char *text, char **err)
{
	struct iovec iov = { (void *)text, strlen(text) };

	return cache__write(path, &iov, 1, err);
}

/* The fragments merged over the current .config, then olddefconfig. */
static int merge_fragments(struct kbuild_ctx *c,
			   const struct kconfig_tree *tree,
			   struct kconfig *wanted, char **err)
{
	const struct kbuild_recipe *r = c->r;
	char **texts = xcalloc(r->nr_fragments + 1, sizeof(*texts));
	char *path = xasprintf("%s/.config", c->obj), *base = NULL;
	char *merged = NULL;
	size_t i, len;
	int ret;

	ret = read_file(path, &base, &len);
	if (ret) {
		errmsg__set(err, 0, "cannot read %s: %s", path, strerror(-ret));
		goto out;
	}
	for (i = 0; i < r->nr_fragments; i++) {
		ret = read_file(r->fragments[i], &texts[i], &len);
		if (ret) {
			errmsg__set(err, 0, "cannot read the fragment %s: %s",
				    r->fragments[i], strerror(-ret));
			goto out;
		}
	}
	ret = kconfig__merge(base, (const char *const *)texts,
			     (const char *const *)r->fragments, r->nr_fragments,
			     tree, &merged, wanted, err);
	if (ret)
		goto out;
	ret = write_text(path, merged, err);
	if (ret)
		goto out;
	ret = make_target(c, "olddefconfig", err);
out:
	for (i = 0; i < r->nr_fragments; i++)
		free(texts[i]);
	free_all(texts, path, base, merged);
	return ret;
}

static int check_final(struct kbuild_ctx *c, const struct kconfig_tree *tree,
		       const struct kconfig *wanted, char **err)
{
	char *path = xasprintf("%s/.config", c->obj), *text = NULL, *list;
	struct kconfig final = { 0 };
	const struct kconfig_opt *o;
	size_t len;
	int ret;

	ret = read_file(path, &text, &len);
	if (ret) {
		errmsg__set(err, 0, "cannot read %s: %s", path, strerror(-ret));
		goto out;
	}
	kconfig__parse(&final, text, path, false, err);
	o = kconfig__get(&final, "CONFIG_MODULES");
	c->modules = o && o->value && !strcmp(o->value, "y");
	kconfig__verify(wanted, &final, tree, &c->missing, &c->nr_missing);
	if (!c->nr_missing)
		goto out;
	list = kbuild_missing__describe(c->missing, c->nr_missing);
	if (c->r->allow_missing_config) {
		pr_warn("kernel build: %zu option%s from the fragments did "
			"not land in .config (allowed):\n%s",
			c->nr_missing, c->nr_missing == 1 ? "" : "s", list);
		free(list);
		goto out;
	}
	/* -EDOM: the config is not what was asked for; not a usage error. */
	ret = -EDOM;
	errmsg__set(err, 0,
		    "%zu option%s from the fragments did not land in "
		    "the final .config:\n%s\n(allow it with "
		    "--allow-missing-config to build anyway)",
		    c->nr_missing, c->nr_missing == 1 ? "" : "s", list);
	free(list);
out:
	kconfig__release(&final);
	free(path);
	free(text);
	return ret;
}

int kbuild__configure(struct kbuild_ctx *c, char **err)
{
	const char *config = c->r->config ? c->r->config : "defconfig";
	struct kconfig_tree tree = { 0 };
	struct kconfig wanted = { 0 };
	char *dot = NULL, *to = NULL;
	int ret;

	kbuild_progress__phase(&c->progress, KBUILD_CONFIG);
	if (mkdir(c->obj, 0755) && errno != EEXIST) {
		ret = -errno;
		return errmsg__set(err, ret, "cannot create %s: %s", c->obj,
				   strerror(errno));
	}
	if (kernel_target__is_config(config)) {
		ret = make_target(c, config, err);
	} else {
		dot = xasprintf("%s/.config", c->obj);
		ret = kbuild__copy_file(config, dot, err);
		if (!ret)
			ret = make_target(c, "olddefconfig", err);
	}
	if (ret)
		goto out;
	if (c->r->nr_fragments) {
		ret = kconfig_tree__load(&tree, c->src, c->arch->srcarch, err);
		if (!ret)
			ret = merge_fragments(c, &tree, &wanted, err);
		if (ret)
			goto out;
	}
	ret = check_final(c, &tree, &wanted, err);
	if (ret)
		goto out;
	free(dot);
	dot = xasprintf("%s/.config", c->obj);
	to = xasprintf("%s/config", c->out);
	ret = kbuild__copy_file(dot, to, err);
out:
	kconfig_tree__release(&tree);
	kconfig__release(&wanted);
	free(dot);
	free(to);
	return ret;
}
