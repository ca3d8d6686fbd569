// SPDX-License-Identifier: GPL-2.0-only
/*
 * A Debian kernel package put on a lab machine (an ssh host) and
 * installed there by its own dpkg: the machine's initramfs tool, kernel
 * hooks and grub generator make its boot files, as they would for its
 * administrator. The .debs are the very version the testbed cache
 * unpacked (what the store records), sent over the agent's connection
 * once they pass the machine's checks (its dpkg's arch, room in /boot
 * and for the modules), so that a package that cannot go there costs no
 * transfer and leaves nothing half-installed. What the run installed is
 * removed when it ends, after a reboot back to the kernel it found if
 * the machine runs the package then; a kernel with keep = true stays.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench/run/run-install.h"
#include "bench/testbed/testbed.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "util.h"

#define CHECK_TIMEOUT_MS 60000
/*
 * dpkg unpacks the modules and runs the machine's initramfs tool: the
 * agent's own limits (its dpkg, and a killed run's dpkg waited for)
 * come first.
 */
#define PKG_INSTALL_TIMEOUT_MS (40 * 60 * 1000)
#define PKG_REMOVE_TIMEOUT_MS (10 * 60 * 1000)

/* The arguments every kernel.pkg_* call takes. */
static json_t *pkg_args(const struct run_host *h, const struct matrix_kernel *k)
{
	const struct arch *a = arch__of_package(k->fetched);

	return json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s?}", "dir",
			 h->h.m->kernel_dir, "name", k->fetched, "package",
			 k->fetched, "version", k->version, "release",
			 k->release, "arch", a ? a->deb : NULL);
}

static void pkg__remember(struct run_host *h, const struct matrix_kernel *k)
{
	struct run_pkg *p;
	size_t i;

	if (k->keep)
		return;
	for (i = 0; i < h->nr_pkgs; i++)
		if (!strcmp(h->pkgs[i].package, k->fetched))
			return;
	h->pkgs = xrealloc(h->pkgs, (h->nr_pkgs + 1) * sizeof(*h->pkgs));
	p = &h->pkgs[h->nr_pkgs++];
	p->package = xstrdup(k->fetched);
	p->release = xstrdup(k->release);
	p->name = xstrdup(k->fetched);
}

static void take_paths(const json_t *res, char **image, char **initrd)
{
	const char *i = json_string_value(json_object_get(res, "image"));
	const char *r = json_string_value(json_object_get(res, "initrd"));

	*image = i ? xstrdup(i) : NULL;
	*initrd = r ? xstrdup(r) : NULL;
}

/* kernel.pkg_check, with the sizes once the .debs are here. */
static int pkg_check(struct run_host *h, const struct matrix_kernel *k,
		     uint64_t installed, uint64_t boot, json_t **res,
		     char **err)
{
	json_t *args = pkg_args(h, k);

	if (installed)
		json_object_set_new(args, "need",
				    json_pack("{s:I, s:I}", "installed",
					      (json_int_t)installed, "boot",
					      (json_int_t)boot));
	return run_host__call(h, "kernel.pkg_check", args, CHECK_TIMEOUT_MS,
			      res, err);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int pkg_send(struct run_ctx *ctx, struct run_host *h,
		    const struct matrix_kernel *k, const struct strvec *debs,
		    json_t *sums, char **err)
{
	char sha[SHA256_HEX_SIZE];
	size_t i;
	int ret = 0;

	run_progress__msg(ctx, "host %s: sending %s %s (%zu .deb%s)",
			  h->h.m->name, k->fetched, k->version, debs->nr,
			  debs->nr == 1 ? "" : "s");
	for (i = 0; i < debs->nr && !ret; i++) {
		ret = run_install__stage_file(h, h->h.m->kernel_dir, k->fetched,
					      base_name(debs->v[i]), debs->v[i],
					      sha, err);
		if (!ret)
			json_object_set_new(sums, base_name(debs->v[i]),
					    json_string(sha));
	}
	return ret;
}

/* kernel.pkg_install; with no @sums, only to finish a killed install. */
static int pkg_install(struct run_ctx *ctx, struct run_host *h,
		       const struct matrix_kernel *k, json_t *sums,
		       uint64_t installed, uint64_t boot, json_t **res,
		       char **err)
{
	json_t *args = pkg_args(h, k);

	if (sums) {
		json_object_set_new(args, "debs", sums);
		json_object_set_new(args, "need",
				    json_pack("{s:I, s:I}", "installed",
					      (json_int_t)installed, "boot",
					      (json_int_t)boot));
	}
	/* Recorded before dpkg starts: a kill now still removes it later. */
	pkg__remember(h, k);
	run_progress__msg(ctx, "host %s: %s %s with its dpkg", h->h.m->name,
			  sums ? "installing" : "finishing the install of",
			  k->fetched);
	return run_host__call(h, "kernel.pkg_install", args,
			      PKG_INSTALL_TIMEOUT_MS, res, err);
}

int run_install__package(struct run_ctx *ctx, struct run_host *h,
			 const struct matrix_kernel *k, char **image,
			 char **initrd, char **err)
{
	struct testbed_kernel tk = { 0 };
	struct strvec debs = { 0 };
	uint64_t installed = 0, boot = 0, t0 = mono_ms();
	json_t *res = NULL, *sums;
	int ret;

	*image = *initrd = NULL;
	/* Its arch, and whether it is there already: before any download. */
	ret = pkg_check(h, k, 0, 0, &res, err);
	if (ret)
		goto out;
	if (!strcmp(json_string_value(json_object_get(res, "status")) ?: "",
		    "ii")) {
		take_paths(res, image, initrd);
		if (json_is_true(json_object_get(res, "ours")))
			pkg__remember(h, k);
		run_progress__msg(ctx, "host %s: %s %s is installed there%s",
				  h->h.m->name, k->fetched, k->version,
				  json_is_true(json_object_get(res, "ours")) ?
					  "" :
					  " (not by this tool: it stays)");
		goto out;
	}
	/*
	 * Half-installed by a run killed during dpkg: finished first, with
	 * no .debs sent, since that dpkg may still read the staged ones.
	 */
	if (*(json_string_value(json_object_get(res, "status")) ?: "") &&
	    json_is_true(json_object_get(res, "ours"))) {
		json_decref(res);
		res = NULL;
		ret = pkg_install(ctx, h, k, NULL, 0, 0, &res, err);
		if (ret != -ENODATA)
			goto done;
		errmsg__clear(err);
	}
	json_decref(res);
	res = NULL;
	ret = testbed__kernel(k->fetched, k->suite, false, &tk, err);
	if (!ret)
		ret = testbed__kernel_debs(&tk, &debs, err);
	if (!ret)
		ret = testbed__debs_sizes(&tk, &debs, &installed, &boot, err);
	if (!ret)
		ret = pkg_check(h, k, installed, boot, &res, err);
	if (ret)
		goto out;
	json_decref(res);
	res = NULL;
	sums = json_object();
	ret = pkg_send(ctx, h, k, &debs, sums, err);
	if (ret) {
		json_decref(sums);
		goto out;
	}
	ret = pkg_install(ctx, h, k, sums, installed, boot, &res, err);
done:
	if (ret)
		goto out;
	take_paths(res, image, initrd);
	run_progress__msg(ctx, "host %s: %s installed in %.1f s%s",
			  h->h.m->name, k->fetched,
			  (double)(mono_ms() - t0) / 1000.0,
			  json_is_true(json_object_get(res, "resumed")) ?
				  " (an install a killed run began, finished)" :
				  "");
out:
	ret = run_install__said(h, k, ret, *image, err);
	json_decref(res);
	strvec__release(&debs);
	testbed_kernel__release(&tk);
	return ret;
}

static bool runs_one(const struct run_host *h)
{
	size_t i;

	for (i = 0; i < h->nr_pkgs; i++)
		if (h->kernel_release &&
		    !strcmp(h->kernel_release, h->pkgs[i].release))
			return true;
	return false;
}

/* Every package of @h's list removed; a warning for each that stays. */
static void host__remove_pkgs(struct run_ctx *ctx, struct run_host *h)
{
	char *err = NULL;
	json_t *res;
	size_t i;

	if (runs_one(h) && run_state__boot_found(ctx, h, &err)) {
		pr_warn("host %s: %s; the packages this run installed stay",
			h->h.m->name, err);
		free(err);
		return;
	}
	for (i = 0; i < h->nr_pkgs; i++) {
		const struct run_pkg *p = &h->pkgs[i];

		res = NULL;
		err = NULL;
		if (run_host__call(h, "kernel.pkg_remove",
				   json_pack("{s:s, s:s, s:s, s:s}", "dir",
					     h->h.m->kernel_dir, "name",
					     p->name, "package", p->package,
					     "release", p->release),
				   PKG_REMOVE_TIMEOUT_MS, &res, &err))
			pr_warn("host %s: %s stays: %s", h->h.m->name,
				p->package, err);
		else
			run_progress__msg(ctx, "host %s: %s removed again",
					  h->h.m->name, p->package);
		json_decref(res);
		free(err);
	}
}

void run_install__cleanup(struct run_ctx *ctx, bool remove)
{
	size_t i, j;

	for (i = 0; ctx->hosts && i < ctx->m->nr_hosts; i++) {
		struct run_host *h = &ctx->hosts[i];

		if (remove && h->nr_pkgs && h->agent && !h->lost)
			host__remove_pkgs(ctx, h);
		for (j = 0; j < h->nr_pkgs; j++)
			free_all(h->pkgs[j].package, h->pkgs[j].release,
				 h->pkgs[j].name);
		free(h->pkgs);
		h->pkgs = NULL;
		h->nr_pkgs = 0;
	}
}
