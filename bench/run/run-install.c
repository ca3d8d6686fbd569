// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel the controller holds, put on the host that boots it by kexec:
 * a build on a lab host, or any kernel on a testbed VM that kexecs
 * (reboot = "kexec"). The files travel over the agent's own connection
 * (kernel.stage, a chunk at a time), are checked by sha256 and put in
 * place there (kernel.install: modules into /lib/modules, an initrd
 * from the host's own tool when the controller has none to give), and
 * are found again by build id on the next run (kernel.find), so a host
 * is sent a kernel once. A host that boots by grub also gets the kernel
 * in /boot and its grub.cfg regenerated, since grub-reboot can only pick
 * an entry the distribution's generator made.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base64.h"
#include "bench/agent/agent-kernel.h"
#include "bench/run/run-install.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "util.h"

#define STAGE_TIMEOUT_MS 60000
/* Generating an initrd runs the host's mkinitramfs over its modules. */
#define INSTALL_TIMEOUT_MS (11 * 60 * 1000)

struct install_file {
	const char *name; /* as kernel.stage knows it */
	const char *path; /* on the controller; NULL: not sent */
	char sha[SHA256_HEX_SIZE];
	uint64_t size;
};

bool run_install__needed(const struct run_host *h,
			 const struct matrix_kernel *k)
{
	/* A VM that kexecs sees none of the controller's cache by design:
	 * it is the stand-in for a lab host. */
	if (matrix_host__is_vm(h->h.m))
		return h->h.m->reboot == REBOOT_KEXEC;
	return h->h.m->transport == HOST_SSH &&
	       (k->kind == KERNEL_BUILD || k->kind == KERNEL_PACKAGE);
}

static int send_file(struct run_host *h, const char *dir, const char *name,
		     const struct install_file *f, char **err)
{
	unsigned char *buf = xmalloc(AGENT_KERNEL_STAGE_MAX);
	uint64_t off = 0;
	int fd, ret = 0;

	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		errmsg__set(err, 0, "%s: %s", f->path, strerror(errno));
		goto out;
	}
	do {
		ssize_t n = read(fd, buf, AGENT_KERNEL_STAGE_MAX);
		json_t *res = NULL;
		char *b64;

		if (n < 0) {
			ret = -errno;
			errmsg__set(err, 0, "%s: %s", f->path, strerror(errno));
			break;
		}
		/* An empty file still needs its one (empty) chunk. */
		if (!n && off)
			break;
		b64 = base64__encode(buf, (size_t)n);
		ret = run_host__call(h, "kernel.stage",
				     json_pack("{s:s, s:s, s:s, s:I, s:s}",
					       "dir", dir, "name", name, "file",
					       f->name, "offset",
					       (json_int_t)off, "data", b64),
				     STAGE_TIMEOUT_MS, &res, err);
		free(b64);
		json_decref(res);
		off += (uint64_t)n;
		if (!n)
			break;
	} while (!ret);
	if (!ret && off != f->size) {
		ret = errmsg__set(err, -EAGAIN,
				  "%s changed while it was sent (%llu bytes, "
				  "%llu when hashed)",
				  f->path, (unsigned long long)off,
				  (unsigned long long)f->size);
	}
	close(fd);
out:
	free(buf);
	return ret;
}

int run_install__stage_file(struct run_host *h, const char *dir,
			    const char *name, const char *file,
			    const char *path, char *sha, char **err)
{
	struct install_file f = { .name = file, .path = path };
	int ret;

	ret = sha256__file(path, f.sha, &f.size);
	if (ret)
		return errmsg__set(err, ret, "%s: %s", path, strerror(-ret));
	ret = send_file(h, dir, name, &f, err);
	if (!ret)
		memcpy(sha, f.sha, SHA256_HEX_SIZE);
	return ret;
}

/*
 * The install name: the release, for a person looking at the host, and
 * the build id (or the image's hash, for kernels that have none), for
 * two builds of one release.
 */
static char *install_name(const struct matrix_kernel *k, const char *id)
{
	return xasprintf("%s-%.12s", k->release ? k->release : "kernel", id);
}

/* Where the boot loader finds it: /boot for grub, else the install. */
static void take_paths(json_t *res, bool grub, char **image, char **initrd)
{
	const char *i = json_string_value(
		json_object_get(res, grub ? "boot_image" : "image"));
	const char *r = json_string_value(
		json_object_get(res, grub ? "boot_initrd" : "initrd"));

	*image = i ? xstrdup(i) : NULL;
	*initrd = r ? xstrdup(r) : NULL;
}

int run_install__said(const struct run_host *h, const struct matrix_kernel *k,
		      int ret, const char *image, char **err)
{
	if (ret && *err)
		errmsg__set(err, 0, "host %s: installing kernel '%s': %s",
			    h->h.m->name, k->name, *err);
	if (!ret && !image) {
		ret = errmsg__set(err, -EPROTO,
				  "host %s: installing kernel '%s' named no "
				  "image to boot",
				  h->h.m->name, k->name);
	}
	return ret;
}

/* One kernel on its way to one host. */
struct install {
	struct run_ctx *ctx;
	struct run_host *h;
	const struct matrix_kernel *k;
	const char *dir, *id;
	char *name;
	bool grub;
	struct install_file files[3];
};

/* What is sent, each file hashed: the sums name the install. */
static int install__hash(struct install *in, char **err)
{
	struct run_host *h = in->h;
	const struct matrix_kernel *k = in->k;
	const char *img = k->image, *rd = NULL;
	struct install_file *f = in->files;
	size_t i;
	int ret;

	f[0].name = AGENT_KERNEL_IMAGE;
	f[1].name = AGENT_KERNEL_INITRD;
	f[2].name = AGENT_KERNEL_MODULES;
	if (h->h.ops->kernel_files) {
		ret = h->h.ops->kernel_files(&h->h, k, &img, &rd);
		if (ret)
			return errmsg__set(err, ret,
					   "host %s: no files to send for "
					   "kernel '%s'",
					   h->h.m->name, k->name);
	} else if (k->kind == KERNEL_BUILD) {
		/* A lab host gets the modules; the testbed's initramfs
		 * carries its own. */
		f[2].path = k->modules_tar;
	}
	f[0].path = img;
	f[1].path = rd;
	if (!img)
		return errmsg__set(err, -ENOENT,
				   "host %s: kernel '%s' has no image to send",
				   h->h.m->name, k->name);
	for (i = 0; i < ARRAY_SIZE(in->files); i++) {
		if (!f[i].path)
			continue;
		ret = sha256__file(f[i].path, f[i].sha, &f[i].size);
		if (ret)
			return errmsg__set(err, ret, "%s: %s", f[i].path,
					   strerror(-ret));
	}
	return 0;
}

/* 1 when the host holds this build already (its paths taken), else 0. */
static int install__find(struct install *in, char **image, char **initrd,
			 char **err)
{
	json_t *res = NULL, *args;
	int ret;

	args = json_pack("{s:s, s:s, s:s}", "dir", in->dir, "name", in->name,
			 "build_id", in->id);
	if (in->grub)
		json_object_set_new(args, "boot_dir", json_string("/boot"));
	ret = run_host__call(in->h, "kernel.find", args, STAGE_TIMEOUT_MS, &res,
			     err);
	if (!ret && json_is_true(json_object_get(res, "installed"))) {
		take_paths(res, in->grub, image, initrd);
		run_progress__msg(in->ctx,
				  "host %s: kernel %s is there already "
				  "(%s/%s)",
				  in->h->h.m->name, in->k->name, in->dir,
				  in->name);
		ret = 1;
	}
	json_decref(res);
	return ret;
}

/* Each file staged; their sums into @sums for kernel.install to check. */
static int install__send(struct install *in, json_t *sums, char **err)
{
	struct install_file *f = in->files;
	uint64_t sent = 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(in->files); i++)
		sent += f[i].path ? f[i].size : 0;
	run_progress__msg(in->ctx,
			  "host %s: sending kernel %s (%.1f MB) to %s/%s",
			  in->h->h.m->name, in->k->name, (double)sent / 1e6,
			  in->dir, in->name);
	for (i = 0; i < ARRAY_SIZE(in->files) && !ret; i++) {
		if (!f[i].path)
			continue;
		ret = send_file(in->h, in->dir, in->name, &f[i], err);
		json_object_set_new(sums, f[i].name, json_string(f[i].sha));
	}
	return ret;
}

/* The staged files put in place, and grub told where they are. */
static int install__put(struct install *in, json_t *sums, uint64_t t0,
			char **image, char **initrd, char **err)
{
	json_t *res = NULL, *args;
	int ret;

	args = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s}", "dir", in->dir,
			 "name", in->name, "release",
			 in->k->release ? in->k->release : "unknown",
			 "build_id", in->id, "sha256", sums, "initrd",
			 in->files[1].path ? "staged" : "generate");
	if (in->grub)
		json_object_set_new(args, "boot",
				    json_pack("{s:s, s:b}", "dir", "/boot",
					      "grub", true));
	ret = run_host__call(in->h, "kernel.install", args, INSTALL_TIMEOUT_MS,
			     &res, err);
	if (!ret) {
		take_paths(res, in->grub, image, initrd);
		run_progress__msg(
			in->ctx,
			"host %s: kernel %s installed in %.1f s (initrd: %s)",
			in->h->h.m->name, in->k->name,
			(double)(mono_ms() - t0) / 1000.0,
			json_string_value(json_object_get(res, "initrd_by")) ?:
				"none");
	}
	json_decref(res);
	return ret;
}

int run_install__kernel(struct run_ctx *ctx, struct run_host *h,
			const struct matrix_kernel *k, char **image,
			char **initrd, char **err)
{
	struct install in = { .ctx = ctx,
			      .h = h,
			      .k = k,
			      .dir = h->h.m->kernel_dir,
			      .grub = h->h.m->reboot == REBOOT_GRUB };
	uint64_t t0 = mono_ms();
	json_t *sums;
	int ret;

	*image = *initrd = NULL;
	/* A VM that kexecs is sent the unpacked kernel, as a build. */
	if (k->kind == KERNEL_PACKAGE && !matrix_host__is_vm(h->h.m))
		return run_install__package(ctx, h, k, image, initrd, err);
	ret = install__hash(&in, err);
	if (ret)
		return ret;
	in.id = k->build_id ? k->build_id : in.files[0].sha;
	in.name = install_name(k, in.id);
	ret = install__find(&in, image, initrd, err);
	if (ret) {
		ret = ret < 0 ? ret : 0;
		goto out;
	}
	sums = json_object();
	ret = install__send(&in, sums, err);
	if (ret) {
		json_decref(sums);
		goto out;
	}
	ret = install__put(&in, sums, t0, image, initrd, err);
out:
	ret = run_install__said(h, k, ret, *image, err);
	free(in.name);
	return ret;
}
