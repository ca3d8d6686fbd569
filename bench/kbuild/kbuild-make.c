// SPDX-License-Identifier: GPL-2.0-only
/*
 * The build proper: the image, the modules staged with modules_install
 * and packed, and the files a host needs copied into the entry-to-be,
 * with the release and build id that identify the kernel once booted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/kbuild/kbuild.h"
#include "errmsg.h"
#include "log.h"
#include "strvec.h"
#include "util.h"

#define BUILD_MS (8 * 60 * 60 * 1000)
#define INSTALL_MS (60 * 60 * 1000)
#define QUICK_MS (2 * 60 * 1000)
#define ERROR_TAIL_LINES 20

static int make_step(struct kbuild_ctx *c, const char *const *targets,
		     bool parallel, int timeout_ms, char **err)
{
	struct strvec a = { 0 };
	char *output = NULL;
	size_t i;
	int ret;

	kbuild__make_argv(c, &a);
	if (parallel)
		strvec__pushf(&a, "-j%d", c->jobs);
	for (i = 0; targets[i]; i++)
		strvec__push(&a, targets[i]);
	ret = kbuild__run(strvec__argv(&a), timeout_ms, c->log_fd, &c->progress,
			  &output);
	strvec__release(&a);
	if (ret) {
		c->failed_in_make = true;
		errmsg__set(err, 0, "make %s failed%s; the end of the log:\n%s",
			    targets[0], ret == -ETIMEDOUT ? " (timed out)" : "",
			    kbuild__tail(output, ERROR_TAIL_LINES));
	}
	free(output);
	return ret;
}

static int copy_out(struct kbuild_ctx *c, const char *from_rel,
		    const char *name, char **err)
{
	char *from = xasprintf("%s/%s", c->obj, from_rel);
	char *to = xasprintf("%s/%s", c->out, name);
	int ret = kbuild__copy_file(from, to, err);

	free(from);
	free(to);
	return ret;
}

static int kernel_release(struct kbuild_ctx *c, char **err)
{
	struct strvec a = { 0 };
	char *out = NULL, *why = NULL;
	size_t len;
	int ret;

	kbuild__make_argv(c, &a);
	strvec__push(&a, "-s");
	strvec__push(&a, "kernelrelease");
	ret = kbuild__capture(strvec__argv(&a), QUICK_MS, &out, &why);
	strvec__release(&a);
	if (ret) {
		errmsg__set(err, 0, "make kernelrelease: %s", why);
		goto out;
	}
	len = strlen(out);
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = '\0';
	if (!len || strchr(out, '\n') || strchr(out, '/')) {
		ret = -EIO;
		errmsg__set(err, 0,
			    "make kernelrelease printed '%s', not a "
			    "release",
			    out);
		goto out;
	}
	c->release = out;
	out = NULL;
out:
	free(out);
	free(why);
	return ret;
}

/*
 * modules_install leaves build and source links to our temporary
 * folders, which would dangle once they are gone.
 */
static void drop_links(struct kbuild_ctx *c)
{
	static const char *const links[] = { "build", "source" };
	char *path;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(links); i++) {
		path = xasprintf("%s/modules/lib/modules/%s/%s", c->out,
				 c->release, links[i]);
		unlink(path);
		free(path);
	}
}

static int pack_modules(struct kbuild_ctx *c, char **err)
{
	char *dir = xasprintf("%s/modules", c->out),
	     *tar = xasprintf("%s/modules.tar", c->out), *output = NULL;
	/* Sorted, owned by 0: the same tree packs to the same bytes. */
	const char *const argv[] = { "tar",
				     "--sort=name",
				     "--owner=0",
				     "--group=0",
				     "--numeric-owner",
				     "-C",
				     dir,
				     "-cf",
				     tar,
				     ".",
				     NULL };
	int ret;

	drop_links(c);
	ret = kbuild__run(argv, INSTALL_MS, c->log_fd, &c->progress, &output);
	if (ret)
		ret = errmsg__set(err, ret, "packing the modules failed: %s",
				  kbuild__tail(output, 3));
	free_all(dir, tar, output);
	return ret;
}

int kbuild__compile(struct kbuild_ctx *c, char **err)
{
	/*
	 * The image and the modules in one make: a second one would walk
	 * the whole tree again to find nothing to do (10 s of an
	 * incremental build on two cores), as kbuild's own "all" does not.
	 */
	const char *build[] = { c->arch->image, c->modules ? "modules" : NULL,
				NULL };
	char *install[3] = { "modules_install", NULL, NULL };
	char *path;
	int ret;

	kbuild_progress__phase(&c->progress, KBUILD_BUILD);
	ret = make_step(c, build, true, BUILD_MS, err);
	if (ret)
		return ret;
	if (c->modules) {
		kbuild_progress__phase(&c->progress, KBUILD_MODULES);
		install[1] = xasprintf("INSTALL_MOD_PATH=%s/modules", c->out);
		ret = make_step(c, (const char *const *)install, false,
				INSTALL_MS, err);
		free(install[1]);
		if (ret)
			return ret;
	}
	kbuild_progress__phase(&c->progress, KBUILD_PACK);
	path = xasprintf("arch/%s/boot/%s", c->arch->srcarch, c->arch->image);
	ret = copy_out(c, path, c->arch->image, err);
	free(path);
	if (!ret)
		ret = copy_out(c, "System.map", "System.map", err);
	if (ret)
		return ret;
	path = xasprintf("%s/vmlinux", c->obj);
	ret = kbuild__elf_build_id(path, &c->build_id);
	if (ret) {
		errmsg__set(err, 0, "no build id in %s: %s", path,
			    ret == -ENOENT ? "the kernel was linked "
					     "without --build-id" :
					     strerror(-ret));
		free(path);
		return ret == -EINVAL ? -EIO : ret;
	}
	free(path);
	ret = kernel_release(c, err);
	if (ret)
		return ret;
	if (c->modules)
		ret = pack_modules(c, err);
	return ret;
}
