// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernels of the matrix that are recipes, built (or found in the build
 * cache) before any host is touched: a run that would fail on a patch
 * that does not apply should fail before the first reboot, not after.
 * A built kernel then boots like an image, and its release and build id
 * are what each boot is verified against. Debian package kernels are
 * fetched here too, for the same reason and so that a meta-package is
 * settled to one version for the whole run, and a kernel a dma_map
 * workload needs the benchmark in is refused here without it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/kbuild/kbuild.h"
#include "bench/run/run.h"
#include "bench/testbed/testbed.h"
#include "dma-map-opts.h"
#include "errmsg.h"
#include "log.h"
#include "store/store.h"
#include "util.h"

static bool kernel__selected(struct run_ctx *ctx, size_t k)
{
	size_t i;

	for (i = 0; i < ctx->plan.nr_trials; i++)
		if (ctx->plan.trials[i].kernel == k &&
		    run_filter__match(&ctx->filter, ctx->m,
				      &ctx->plan.trials[i]))
			return true;
	return false;
}

/* A dma_map workload runs on kernel @k in a selected trial: its name. */
static const char *kernel__dma_map(struct run_ctx *ctx, size_t k)
{
	const struct plan_trial *t;
	size_t i;

	for (i = 0; i < ctx->plan.nr_trials; i++) {
		t = &ctx->plan.trials[i];
		if (t->kernel == k &&
		    ctx->m->workloads[t->workload].type == WORKLOAD_DMA_MAP &&
		    run_filter__match(&ctx->filter, ctx->m, t))
			return ctx->m->workloads[t->workload].name;
	}
	return NULL;
}

/*
 * The kernel a dma_map workload would run on has the benchmark, from
 * its config, before it boots: a build's .config, a package's
 * /boot/config-RELEASE. An image or a lab machine's own kernel has no
 * config here; the agent answers for those, at their trials.
 */
static int dma_map__check(struct run_ctx *ctx, size_t i, const char *config)
{
	const char *w = kernel__dma_map(ctx, i);
	char *why = NULL;
	int ret;

	if (!w || !config)
		return 0;
	ret = dma_map__config_check(config, &why);
	if (ret)
		pr_err("kernel '%s': workload '%s': %s",
		       ctx->m->kernels[i].name, w, why);
	free(why);
	return ret;
}

void run_kernels__recipe(const struct matrix_build *b, struct kbuild_recipe *r)
{
	*r = (struct kbuild_recipe){
		.tree = b->tree,
		.base = b->base,
		.patches = b->patches,
		.nr_patches = b->nr_patches,
		.config = b->config,
		.fragments = b->fragments,
		.nr_fragments = b->nr_fragments,
		.arch = b->arch,
		.cross_compile = b->cross_compile,
	};
}

/* 0 when the matrix names no release or @got's; -EINVAL and the words. */
static int release_is(const struct matrix_kernel *k, const char *got,
		      const char *what, char **err)
{
	if (!k->release || !strcmp(k->release, got))
		return 0;
	return errmsg__set(err, -EINVAL,
			   "the matrix expects release %s, %s boots as %s",
			   k->release, what, got);
}

static int kernel__build(struct run_ctx *ctx, struct matrix_kernel *k)
{
	struct kbuild_result res = { 0 };
	struct kbuild_recipe r;
	char *err = NULL;
	int ret, saved;

	run_kernels__recipe(&k->build, &r);
	r.workdir = ctx->build_workdir;
	run_progress__msg(ctx,
			  "kernel %s: building (or finding the build "
			  "in the cache)",
			  k->name);
	/* A build is minutes of work: its phases show, as kernel build's. */
	saved = log_verbosity;
	if (!ctx->progress.json && !ctx->progress.quiet &&
	    log_verbosity < LOG_INFO)
		log_verbosity = LOG_INFO;
	ret = kbuild__build(&r, NULL, &res, &err);
	log_verbosity = saved;
	if (!ret)
		ret = release_is(k, res.release, "the build", &err);
	if (ret) {
		pr_err("kernel '%s': %s", k->name, err ? err : strerror(-ret));
		goto out;
	}
	free(k->image);
	k->image = xstrdup(res.image);
	if (!k->release)
		k->release = xstrdup(res.release);
	k->modules_dir = res.modules_dir ? xstrdup(res.modules_dir) : NULL;
	k->build_id = res.build_id ? xstrdup(res.build_id) : NULL;
	k->built_config = res.config ? xstrdup(res.config) : NULL;
	k->modules_tar = res.modules_tar ? xstrdup(res.modules_tar) : NULL;
	k->recipe = kbuild_result__recipe(&res);
	run_progress__msg(ctx, "kernel %s: %s %s, build id %s (%s)", k->name,
			  res.cached ? "cached" : "built", res.release,
			  res.build_id ? res.build_id : "unknown", res.dir);
out:
	free(err);
	kbuild_result__release(&res);
	return ret;
}

/*
 * A package kernel fetched into the testbed cache now, so that what it
 * is (a meta-package moves) is settled once, before any host, and the
 * store can say which version each trial measured.
 */
static int kernel__fetch(struct run_ctx *ctx, struct matrix_kernel *k,
			 char **config)
{
	struct testbed_kernel tk = { 0 };
	char *err = NULL, *was = NULL, *version = NULL;
	int ret;

	/* A resumed run goes on with the build it measured, in the cache. */
	if (ctx->resumed)
		store__run_kernel_package(ctx->st, ctx->run_id, k->name, &was,
					  &version);
	ret = testbed__kernel(was ? was : k->package, k->suite, true, &tk,
			      &err);
	if (!ret && version && strcmp(version, tk.version))
		ret = errmsg__set(&err, -ESTALE,
				  "the run measured %s %s before it stopped, "
				  "and the cache now holds %s",
				  was, version, tk.version);
	if (!ret)
		ret = release_is(k, tk.release, tk.package, &err);
	if (ret) {
		pr_err("kernel '%s': %s", k->name, err ? err : strerror(-ret));
		goto out;
	}
	if (!k->release)
		k->release = xstrdup(tk.release);
	k->fetched = xstrdup(tk.package);
	k->version = xstrdup(tk.version);
	*config = tk.config ? xstrdup(tk.config) : NULL;
	run_progress__msg(ctx, "kernel %s: %s%s%s %s%s%s, release %s", k->name,
			  tk.asked ? tk.asked : "", tk.asked ? " is " : "",
			  tk.package, tk.version, tk.suite ? " from " : "",
			  tk.suite ? tk.suite : "", tk.release);
out:
	testbed_kernel__release(&tk);
	free_all(err, was, version);
	return ret;
}

int run_kernels__build(struct run_ctx *ctx)
{
	char *config = NULL;
	size_t i;
	int ret;

	for (i = 0; i < ctx->m->nr_kernels; i++) {
		struct matrix_kernel *k = &ctx->m->kernels[i];

		if (!kernel__selected(ctx, i))
			continue;
		if (k->kind == KERNEL_BUILD)
			ret = kernel__build(ctx, k);
		else if (k->kind == KERNEL_PACKAGE)
			ret = kernel__fetch(ctx, k, &config);
		else
			continue;
		if (!ret)
			ret = dma_map__check(ctx, i,
					     config ? config : k->built_config);
		free(config);
		config = NULL;
		if (ret)
			return ret;
	}
	return 0;
}
