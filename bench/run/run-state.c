// SPDX-License-Identifier: GPL-2.0-only
/*
 * A trial's IOMMU mode put in place on its SUT and then verified: the
 * effective mode is what the host reports, not what was asked for, and
 * a mismatch (caching-mode forcing strict, say) fails the trial loudly
 * with the host's own evidence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run/run-install.h"
#include "bench/run/run.h"
#include "errmsg.h"
#include "iommu-mode.h"
#include "log.h"
#include "util.h"

#define SYSFS_TIMEOUT_MS 60000
#define POLICY_TIMEOUT_MS 30000
#define REBOOT_TIMEOUT_MS 60000

const char *run_state__expected_mode(const struct matrix_mode *md)
{
	int mode = group_type__mode(md->group_type);

	if (mode >= 0)
		return iommu_mode__info(mode)->name;
	if (iommu_mode__by_name(md->name) >= 0)
		return md->name;
	return NULL;
}

/* The old boot is gone: a trial failing now is on no boot. */
static void run_host__forget_boot(struct run_host *h)
{
	if (h->agent) {
		agent_conn__close(h->agent);
		h->agent = NULL;
	}
	h->boot_row = 0;
	free(h->applied_mode);
	h->applied_mode = NULL;
	h->booted_kernel = h->booted_mode = -1;
}

static int apply_sysfs(struct run_ctx *ctx, struct run_host *h,
		       const struct matrix_mode *md, char **err)
{
	json_t *args, *res = NULL;
	int ret;

	args = json_pack("{s:s, s:s}", "nic", h->h.m->nic ? h->h.m->nic : "",
			 "type", group_type__name(md->group_type));
	if (h->h.m->transport == HOST_SSH)
		json_object_set_new(args, "guard",
				    json_pack("{s:[s]}", "refuse_if_carries",
					      "ssh"));
	ret = run_host__call(h, "mode.sysfs", args, SYSFS_TIMEOUT_MS, &res,
			     err);
	if (!ret)
		run_progress__msg(
			ctx,
			"host %s: group %lld %s -> %s by sysfs in %lld ms%s",
			h->h.m->name,
			(long long)json_integer_value(
				json_object_get(res, "group")),
			json_string_value(json_object_get(res, "before")) ?:
									    "?",
			json_string_value(json_object_get(res, "after")) ?: "?",
			(long long)json_integer_value(
				json_object_get(res, "elapsed_ms")),
			json_is_true(json_object_get(res, "unbound")) ?
				" (unbound and rebound)" :
				"");
	json_decref(res);
	return ret;
}

/* The kernel's arguments, then the mode's (@md NULL: none). */
static json_t *boot_cmdline(const struct matrix_kernel *k,
			    const struct matrix_mode *md)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < k->nr_cmdline; i++)
		json_array_append_new(a, json_string(k->cmdline[i]));
	for (i = 0; md && i < md->nr_cmdline; i++)
		json_array_append_new(a, json_string(md->cmdline[i]));
	return a;
}

/*
 * Where the image and initrd to boot are on the host: the kernel's own
 * paths there, or those of the copy sent now (a build, or any kernel
 * on a VM that kexecs).
 */
static int boot_files(struct run_ctx *ctx, struct run_host *h,
		      const struct matrix_kernel *k, json_t *args, char **err)
{
	char *image = NULL, *initrd = NULL;
	int ret;

	if (k->kind == KERNEL_RUNNING) {
		/* Back to the kernel the run found: the agent's default
		 * files are the running release's, which is another now. */
		if (h->found_release)
			json_object_set_new(args, "release",
					    json_string(h->found_release));
		return 0;
	}
	if (!run_install__needed(h, k)) {
		if (k->image)
			json_object_set_new(args, "image",
					    json_string(k->image));
		if (k->initrd)
			json_object_set_new(args, "initrd",
					    json_string(k->initrd));
		return 0;
	}
	ret = run_install__kernel(ctx, h, k, &image, &initrd, err);
	if (ret)
		return ret;
	json_object_set_new(args, "image", json_string(image));
	/* false: none, rather than the running kernel's default one. */
	json_object_set_new(args, "initrd",
			    initrd ? json_string(initrd) : json_false());
	free(image);
	free(initrd);
	return 0;
}

/*
 * The boot of trial @t hung and a power cycle brought the machine back
 * on its default boot: that boot fails the trial (and, at once, every
 * other trial that asks for it), the machine takes the next trials. It
 * runs the kernel the run found if the agent says so; if not, the next
 * trial boots whatever it needs.
 */
static int boot_recovered(struct run_ctx *ctx, struct run_host *h,
			  const struct plan_trial *t, long mode, char **err)
{
	free(h->failed_boot);
	h->failed_boot = xstrdup(*err);
	h->failed_kernel = (long)t->kernel;
	h->failed_mode = mode;
	if (run_host__connect(ctx, h)) {
		free(h->lost);
		h->lost = xasprintf("%s, but its agent does not answer", *err);
		return -EHOSTDOWN;
	}
	h->booted_mode = -1;
	h->booted_kernel =
		h->found_release && h->kernel_release &&
				!strcmp(h->found_release, h->kernel_release) &&
				(!h->found_build_id || !h->build_id ||
				 !strcmp(h->found_build_id, h->build_id)) ?
			-1 :
			RUN_KERNEL_UNKNOWN;
	return -EHOSTDOWN;
}

/*
 * reboot.now by @method, then the new boot waited for (wait_boot's
 * answer: 0, HOST_BOOT_RECOVERED or a negative errno).
 */
static int reboot__now(struct run_host *h, const char *method, char **err)
{
	json_t *res = NULL;
	char *old;
	int ret;

	ret = run_host__call(h, "reboot.now",
			     json_pack("{s:s}", "method", method),
			     REBOOT_TIMEOUT_MS, &res, err);
	json_decref(res);
	if (ret)
		return ret;
	run_host__forget_boot(h);
	old = xstrdup(h->boot_id ? h->boot_id : "");
	ret = h->h.ops->wait_boot(&h->h, old, h->h.m->boot_timeout_ms, err);
	free(old);
	return ret;
}

/*
 * Boot trial @t's kernel through the host's own agent (kexec or grub),
 * with the mode's cmdline when @with_mode, else with none of it (the
 * mode is put in place on the new boot by sysfs, or not at all).
 */
static int apply_boot(struct run_ctx *ctx, struct run_host *h,
		      const struct plan_trial *t, bool with_mode, char **err)
{
	const struct matrix_kernel *k = &ctx->m->kernels[t->kernel];
	const struct matrix_mode *md = &ctx->m->modes[t->mode];
	enum mode_apply how = with_mode ? t->apply :
					  matrix__boot_method(h->h.m);
	const char *method = how == APPLY_GRUB ? "grub" : "kexec";
	json_t *args, *res = NULL;
	int ret;

	/* That very boot hung before: its trials fail without another. */
	if (h->failed_boot && h->failed_kernel == (long)t->kernel &&
	    h->failed_mode == (with_mode ? (long)t->mode : -1)) {
		return errmsg__set(err, -EHOSTDOWN,
				   "%s (that boot failed earlier in this run)",
				   h->failed_boot);
	}

	args = json_pack("{s:s, s:o}", "method", method, "cmdline",
			 boot_cmdline(k, with_mode ? md : NULL));
	ret = boot_files(ctx, h, k, args, err);
	if (ret) {
		json_decref(args);
		return ret;
	}
	ret = run_host__call(h, "reboot.prepare", args, REBOOT_TIMEOUT_MS, &res,
			     err);
	json_decref(res);
	if (ret)
		return ret;
	run_progress__msg(ctx, "host %s: rebooting (%s) into %s%s%s",
			  h->h.m->name, method, k->name,
			  with_mode ? ", mode " : "",
			  with_mode ? md->name : "");
	ret = reboot__now(h, method, err);
	if (ret == HOST_BOOT_RECOVERED)
		return boot_recovered(ctx, h, t, with_mode ? (long)t->mode : -1,
				      err);
	if (ret) {
		if (!*err)
			errmsg__set(err, 0,
				    "host %s: no new boot within its "
				    "boot_timeout (%llu ms): %s",
				    h->h.m->name,
				    (unsigned long long)h->h.m->boot_timeout_ms,
				    strerror(-ret));
		/* Nothing more can run there: its other trials fail fast.
		 * A VM is started afresh by the next trial instead. */
		if (!h->h.ops->restart) {
			free(h->lost);
			h->lost = xstrdup(*err);
		}
		return ret;
	}
	ret = run_host__connect(ctx, h);
	if (ret)
		return errmsg__set(err, ret,
				   "host %s: no agent after the reboot",
				   h->h.m->name);
	h->booted_kernel = t->kernel;
	h->booted_mode = with_mode ? (long)t->mode : -1;
	return 0;
}

int run_state__boot(struct run_ctx *ctx, struct run_host *h, size_t kernel,
		    long mode, char **err)
{
	const struct matrix_kernel *k = &ctx->m->kernels[kernel];
	const struct matrix_mode *md = mode >= 0 ? &ctx->m->modes[mode] : NULL;
	struct run_host *mate;
	const char **args;
	size_t nr = 0, i;
	int ret;

	errmsg__reset(err);
	/* The same boot failed before: its trials fail at once, not after
	 * another boot timeout each. Another kernel or mode may work. */
	if (h->failed_boot && h->failed_kernel == (long)kernel &&
	    h->failed_mode == mode) {
		return errmsg__set(err, -EHOSTDOWN,
				   "%s (that boot failed earlier in this run)",
				   h->failed_boot);
	}
	args = xcalloc(k->nr_cmdline + (md ? md->nr_cmdline : 0) + 1,
		       sizeof(*args));
	for (i = 0; i < k->nr_cmdline; i++)
		args[nr++] = k->cmdline[i];
	for (i = 0; md && i < md->nr_cmdline; i++)
		args[nr++] = md->cmdline[i];
	run_host__forget_boot(h);
	/* A LAVA multinode job's peer device is booted with its SUT. */
	mate = h->h.mate ? &ctx->hosts[h->h.m->mate] : NULL;
	if (mate)
		run_host__forget_boot(mate);
	run_progress__msg(ctx, "host %s: booting kernel %s%s%s", h->h.m->name,
			  k->name, md ? ", mode " : "", md ? md->name : "");
	ret = h->h.ops->restart(&h->h, k, args, nr, err);
	free(args);
	/*
	 * The host came up and its mate did not (-ENOLINK): the host's
	 * boot is recorded (a store row for the trials that fail on it),
	 * and it failed.
	 */
	if (ret == -ENOLINK && run_host__connect(ctx, h))
		pr_debug("host %s: no agent either", h->h.m->name);
	if (!ret) {
		ret = run_host__connect(ctx, h);
		if (ret)
			errmsg__set(err, 0, "host %s: no agent after the boot",
				    h->h.m->name);
	}
	if (!ret && mate) {
		ret = run_host__connect(ctx, mate);
		if (ret)
			errmsg__set(err, 0,
				    "host %s: no agent on its peer device "
				    "%s after the boot",
				    h->h.m->name, mate->h.m->name);
	}
	if (ret) {
		free(h->failed_boot);
		h->failed_boot = xstrdup(*err ? *err : strerror(-ret));
		h->failed_kernel = kernel;
		h->failed_mode = mode;
		return ret;
	}
	h->booted_kernel = kernel;
	h->booted_mode = mode;
	h->fresh_boot = true;
	if (md)
		h->applied_mode = xstrdup(md->name);
	return 0;
}

/*
 * A host the tool boots itself: boot when it has no VM, another kernel
 * runs, or the trial's mode is a boot of another cmdline (or the plan
 * asks for a fresh boot, unless no trial ran on the current one yet).
 */
static int ensure_booted(struct run_ctx *ctx, struct run_host *h,
			 const struct plan_trial *t, char **err)
{
	/* A VM that kexecs is started with the mode it first needs. */
	bool by_boot = t->apply == APPLY_RESTART || t->apply == APPLY_KEXEC;
	long mode = by_boot ? (long)t->mode : -1;
	bool need;

	int ret = 0;

	need = !h->agent || h->booted_kernel != (long)t->kernel ||
	       (by_boot && (h->booted_mode != mode ||
			    (t->reboot_before && !h->fresh_boot)));
	if (need)
		ret = run_state__boot(ctx, h, t->kernel, mode, err);
	return ret;
}

/*
 * What runs is trial @t's kernel, booted for it with its mode when the
 * mode is a boot's: a boot just made (the VM's first, or a fresh VM)
 * that no other trial ran on yet, so the first kexec trial of a VM does
 * not kexec again into what it already runs.
 */
static bool boot_is_fresh_for(const struct run_host *h,
			      const struct plan_trial *t)
{
	bool by_boot = t->apply == APPLY_RESTART || t->apply == APPLY_KEXEC ||
		       t->apply == APPLY_GRUB;

	return h->fresh_boot && h->booted_kernel == (long)t->kernel &&
	       (!by_boot || h->booted_mode == (long)t->mode);
}

/*
 * A kernel to boot that is not the one running (for non-boot modes):
 * another than the run booted last, or the one the run found when it
 * booted away from it.
 */
static bool kernel_changes(struct run_ctx *ctx, const struct run_host *h,
			   const struct plan_trial *t)
{
	if (ctx->m->kernels[t->kernel].kind == KERNEL_RUNNING)
		return h->booted_kernel >= 0 &&
		       h->booted_kernel != (long)t->kernel;
	return h->booted_kernel != (long)t->kernel;
}

static int verify(struct run_host *h, const struct matrix_mode *md,
		  char **effective, char **err)
{
	const char *want = run_state__expected_mode(md), *got;
	json_t *args = json_object(), *res = NULL;
	char *ev;
	int ret;

	if (h->h.m->nic)
		json_object_set_new(args, "nic", json_string(h->h.m->nic));
	ret = run_host__call(h, "policy", args, POLICY_TIMEOUT_MS, &res, err);
	if (ret)
		return ret;
	/*
	 * The device under test decides: after a sysfs switch of its group
	 * alone, the other groups keep the boot's type and the host as a
	 * whole is "mixed".
	 */
	got = json_string_value(json_object_get(res, "nic_mode"));
	if (!got || !strcmp(got, "unknown"))
		got = json_string_value(json_object_get(res, "mode"));
	*effective = xstrdup(got ? got : "unknown");
	if (want && strcmp(want, *effective)) {
		ev = json_dumps(json_object_get(res, "evidence"), JSON_COMPACT);
		errmsg__set(
			err, 0,
			"host %s: mode '%s' asked for, but '%s' is in "
			"effect (%s; evidence: %s)",
			h->h.m->name, md->name, *effective,
			json_string_value(json_object_get(res, "summary")) ?:
				"no summary",
			ev ? ev : "none");
		free(ev);
		ret = -EPROTO;
	}
	json_decref(res);
	return ret;
}

/*
 * The kernel the cell asks for is the one running: a kexec that fell
 * back to the old kernel, or a grub default that won, must not pass as
 * the new one. The release comes from the agent's hello after each boot.
 */
static int verify_kernel(struct run_host *h, const struct matrix_kernel *k,
			 char **err)
{
	if (k->kind == KERNEL_RUNNING && h->found_release &&
	    (strcmp(h->found_release, h->kernel_release ?: "") ||
	     (h->found_build_id && h->build_id &&
	      strcmp(h->found_build_id, h->build_id)))) {
		return errmsg__set(
			err, -EPROTO,
			"host %s: kernel '%s' is the one the run found "
			"(release %s, build %s), but release %s, "
			"build %s is running (boot %s)",
			h->h.m->name, k->name, h->found_release,
			h->found_build_id ?: "unknown",
			h->kernel_release ?: "?", h->build_id ?: "unknown",
			h->boot_id ? h->boot_id : "unknown");
	}
	/* Two builds of one release differ by their build id only. */
	if (k->build_id && h->build_id && strcmp(k->build_id, h->build_id))
		return errmsg__set(
			err, -EPROTO,
			"host %s: kernel '%s' is build %s, but build "
			"%s is running (release %s, boot %s)",
			h->h.m->name, k->name, k->build_id, h->build_id,
			h->kernel_release ? h->kernel_release : "?",
			h->boot_id ? h->boot_id : "unknown");
	if (!k->release || !h->kernel_release ||
	    !strcmp(k->release, h->kernel_release))
		return 0;
	return errmsg__set(err, -EPROTO,
			   "host %s: kernel '%s' expects release %s, but %s is "
			   "running (boot %s)",
			   h->h.m->name, k->name, k->release, h->kernel_release,
			   h->boot_id ? h->boot_id : "unknown");
}

int run_state__ensure(struct run_ctx *ctx, const struct plan_trial *t,
		      char **effective, char **err)
{
	struct run_host *h = &ctx->hosts[t->host];
	const struct matrix_mode *md = &ctx->m->modes[t->mode];
	bool in_place, fresh;
	int ret = 0;

	*effective = NULL;
	/* A VM per boot is always booted by the tool; one that kexecs,
	 * only when it has no VM (the first boot, or after a failed one). */
	if (h->h.ops->restart &&
	    (h->h.m->reboot != REBOOT_KEXEC || !h->agent)) {
		ret = ensure_booted(ctx, h, t, err);
		if (ret)
			return ret;
	}
	fresh = boot_is_fresh_for(h, t);
	/* This trial runs on it: the next one asking for a boot gets one. */
	h->fresh_boot = false;
	in_place = h->applied_mode && !strcmp(h->applied_mode, md->name);
	switch (t->apply) {
	case APPLY_NONE:
		if (!fresh && kernel_changes(ctx, h, t))
			ret = apply_boot(ctx, h, t, false, err);
		break;
	case APPLY_SYSFS:
		if (!fresh && kernel_changes(ctx, h, t)) {
			ret = apply_boot(ctx, h, t, false, err);
			if (ret)
				break;
			in_place = false;
		}
		if (!in_place) {
			ret = apply_sysfs(ctx, h, md, err);
			/* The boot's own mode is no longer what runs. */
			h->booted_mode = -1;
		}
		break;
	case APPLY_KEXEC:
	case APPLY_GRUB:
		if (!fresh && (!in_place || t->reboot_before ||
			       kernel_changes(ctx, h, t)))
			ret = apply_boot(ctx, h, t, true, err);
		break;
	case APPLY_RESTART:
		break; /* booted above */
	}
	if (!ret)
		ret = verify_kernel(h, &ctx->m->kernels[t->kernel], err);
	if (ret)
		return ret;
	free(h->applied_mode);
	h->applied_mode = xstrdup(md->name);
	return verify(h, md, effective, err);
}

int run_state__boot_found(struct run_ctx *ctx, struct run_host *h, char **err)
{
	const char *method =
		matrix__boot_method(h->h.m) == APPLY_GRUB ? "grub" : "kexec";
	json_t *res = NULL;
	int ret;

	errmsg__reset(err);
	ret = run_host__call(h, "reboot.prepare",
			     json_pack("{s:s, s:[], s:s}", "method", method,
				       "cmdline", "release", h->found_release),
			     REBOOT_TIMEOUT_MS, &res, err);
	json_decref(res);
	if (ret)
		return ret;
	run_progress__msg(ctx,
			  "host %s: rebooting (%s) back into %s, as the "
			  "run found it",
			  h->h.m->name, method, h->found_release);
	ret = reboot__now(h, method, err);
	h->booted_kernel = RUN_KERNEL_UNKNOWN;
	h->booted_mode = -1;
	if (ret == HOST_BOOT_RECOVERED)
		ret = -EHOSTDOWN; /* back on its default, whatever that is */
	if (!ret)
		ret = run_host__connect(ctx, h);
	if (ret && !*err)
		errmsg__set(err, 0, "host %s: not back on %s: %s", h->h.m->name,
			    h->found_release, strerror(-ret));
	return ret;
}
