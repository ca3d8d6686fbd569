// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel.install's "boot": the build copied into BOOTDIR under the
 * names grub's /etc/grub.d/10_linux looks for (vmlinuz-RELEASE,
 * initrd.img-RELEASE), then grub's menu made again, since grub-reboot
 * can only pick an entry that menu has. BOOTDIR holds the
 * distribution's own kernels: a file there is replaced only when an
 * installed.json of ours records those very bytes at that path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/agent/agent-file.h"
#include "bench/agent/agent-kernel-priv.h"
#include "bench/agent/agent.h"
#include "errmsg.h"
#include "util.h"

/* update-grub probes every disk for other systems: give it time. */
#define GRUB_TIMEOUT_MS (5 * 60 * 1000)

/*
 * All of @src to its end, hashed into @hex and, when @dst >= 0, written
 * there: the bytes hashed are the bytes copied.
 */
static int hash_copy(int src, int dst, char hex[SHA256_HEX_SIZE])
{
	uint8_t buf[65536], d[SHA256_DIGEST_SIZE];
	struct sha256 s;
	ssize_t n;
	size_t i;
	int ret = 0;

	sha256__init(&s);
	while (!ret && (n = read(src, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		sha256__update(&s, buf, (size_t)n);
		if (dst >= 0)
			ret = write_all(dst, buf, (size_t)n);
	}
	if (ret)
		return ret;
	sha256__final(&s, d);
	for (i = 0; i < sizeof(d); i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return 0;
}

/*
 * @path's sha256 in @out, "" when there is none. Never followed nor
 * waited on (a FIFO): -EINVAL for anything but a regular file.
 */
static int hash_at(const char *path, char out[SHA256_HEX_SIZE])
{
	struct stat sb;
	int fd, ret;

	out[0] = '\0';
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : errno == ELOOP ? -EINVAL : -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	ret = hash_copy(fd, -1, out);
	close(fd);
	return ret;
}

/* Whether @j records @sha at @path as its @key copy, @file's bytes. */
static bool records(json_t *j, const char *key, const char *file,
		    const char *path, const char *sha)
{
	const char *p = json_string_value(json_object_get(j, key));
	json_t *sums = json_object_get(j, "boot_sha256");
	const char *s = json_string_value(json_object_get(sums, file));

	return p && s && !strcmp(p, path) && !strcmp(s, sha);
}

/*
 * Whether an install in @dir put @sha at @path. Every DIR/NAME counts,
 * NAME.staging too: an install that failed after its copy keeps its
 * record there until the next try.
 */
static bool recorded(const char *dir, const char *path, const char *sha)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat sb;
	bool yes = false;

	if (!d)
		return false;
	while (!yes && (e = readdir(d))) {
		char *p;
		json_t *j = NULL;

		if (!agent_kernel__name_is_safe(e->d_name))
			continue;
		p = xasprintf("%s/%s/%s", dir, e->d_name,
			      AGENT_KERNEL_INSTALLED);
		if (!lstat(p, &sb) && S_ISREG(sb.st_mode))
			j = json_load_file(p, JSON_REJECT_DUPLICATES, NULL);
		yes = records(j, "boot_image", AGENT_KERNEL_IMAGE, path, sha) ||
		      records(j, "boot_initrd", AGENT_KERNEL_INITRD, path, sha);
		json_decref(j);
		free(p);
	}
	closedir(d);
	return yes;
}

/*
 * Refused unless @f's path is free, holds this build's bytes, or holds
 * bytes an install of ours recorded there.
 */
static int check_target(struct kernel_install *in,
			const struct kernel_boot_file *f, char **err)
{
	char now[SHA256_HEX_SIZE];
	int ret;

	ret = hash_at(f->path, now);
	if (ret == -EINVAL)
		return errmsg__set(err, -EEXIST,
				   "%s: %s is not a regular file (a symlink?) "
				   "and was not placed by iommu-bench; "
				   "refusing to replace it",
				   in->verb, f->path);
	if (ret)
		return errmsg__set(err, ret, "%s: %s: %s", in->verb, f->path,
				   strerror(-ret));
	if (!now[0] || !strcmp(now, f->sha) ||
	    recorded(in->kp.dir, f->path, now))
		return 0;
	return errmsg__set(
		err, -EEXIST,
		"%s: %s exists and was not placed by iommu-bench "
		"(no %s/*/%s records its sha256 %s); refusing to "
		"replace it%s",
		in->verb, f->path, in->kp.dir, AGENT_KERNEL_INSTALLED, now,
		f == &in->boot.initrd && !strcmp(in->initrd, "none") ?
			", which grub would boot with this build" :
			"");
}

/* The first of the distributions' grub.cfg generators in $PATH. */
static int find_grub(struct kernel_install *in, char **err)
{
	static const char *const tools[] = { "update-grub", "grub-mkconfig",
					     "grub2-mkconfig", NULL };
	struct kernel_boot *b = &in->boot;

	return agent_kernel__find_tool(in->verb, tools, "grub config generator",
				       "", &b->grub, &b->grub_name, err);
}

/*
 * Everything that can refuse the copies, checked before any of the
 * install happens: the generator, BOOTDIR, and what the two names
 * hold now. A generated initrd's bytes are not known yet, so one there
 * must already be ours.
 */
int agent_kernel__boot_prepare(struct kernel_install *in, char **err)
{
	struct kernel_boot *b = &in->boot;
	const char *sha;
	int ret;

	ret = find_grub(in, err);
	if (!ret)
		ret = agent_file__check_private(in->verb, "", b->dir, err);
	if (ret)
		return ret;
	b->image.file = AGENT_KERNEL_IMAGE;
	b->image.path = xasprintf("%s/vmlinuz-%s", b->dir, in->release);
	b->initrd.file = AGENT_KERNEL_INITRD;
	b->initrd.path = xasprintf("%s/initrd.img-%s", b->dir, in->release);
	sha = json_string_value(
		json_object_get(in->sha256, AGENT_KERNEL_IMAGE));
	snprintf(b->image.sha, sizeof(b->image.sha), "%s", sha ? sha : "");
	sha = json_string_value(
		json_object_get(in->sha256, AGENT_KERNEL_INITRD));
	snprintf(b->initrd.sha, sizeof(b->initrd.sha), "%s", sha ? sha : "");
	ret = check_target(in, &b->image, err);
	if (!ret)
		ret = check_target(in, &b->initrd, err);
	return ret;
}

/* A generated initrd's sha256, for installed.json's record. */
int agent_kernel__boot_hash(struct kernel_install *in, char **err)
{
	char *p;
	int ret;

	if (strcmp(in->initrd, "generate"))
		return 0;
	p = xasprintf("%s/%s", in->kp.staging, AGENT_KERNEL_INITRD);
	ret = hash_at(p, in->boot.initrd.sha);
	if (!ret && !in->boot.initrd.sha[0])
		ret = -ENOENT;
	if (ret)
		ret = errmsg__set(err, ret, "%s: %s: %s", in->verb, p,
				  strerror(-ret));
	free(p);
	return ret;
}

/*
 * @from to @f->path through a hidden name in BOOTDIR (10_linux's
 * vmlinuz-* does not match it), synced before the rename so that a
 * crash leaves the old file or the whole new one.
 */
static int copy_in(struct kernel_install *in, const struct kernel_boot_file *f,
		   const char *from, char **err)
{
	const char *base = strrchr(f->path, '/') + 1;
	char *tmp = xasprintf("%s/.%s.iommu-bench", in->boot.dir, base);
	char got[SHA256_HEX_SIZE];
	int src = -1, dst = -1, ret = 0;

	src = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0) {
		ret = errmsg__set(err, -errno, "%s: %s: %s", in->verb, from,
				  strerror(errno));
		goto out;
	}
	if (unlink(tmp) && errno != ENOENT) {
		ret = errmsg__set(err, -errno, "%s: %s: %s", in->verb, tmp,
				  strerror(errno));
		goto out;
	}
	dst = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   0644);
	if (dst < 0 || fchmod(dst, 0644)) {
		ret = errmsg__set(err, -errno, "%s: %s: %s", in->verb, tmp,
				  strerror(errno));
		goto out;
	}
	ret = hash_copy(src, dst, got);
	if (!ret && fsync(dst))
		ret = -errno;
	if (close(dst) && !ret)
		ret = -errno;
	dst = -1;
	if (ret) {
		ret = errmsg__set(err, ret, "%s: cannot copy %s to %s: %s",
				  in->verb, from, tmp, strerror(-ret));
		goto out;
	}
	/* installed.json already vouches for these bytes: nothing else. */
	if (strcmp(got, f->sha)) {
		ret = errmsg__set(err, -EBADMSG,
				  "%s: %s changed while it was copied (sha256 "
				  "%s, not %s)",
				  in->verb, from, got, f->sha);
		goto out;
	}
	if (rename(tmp, f->path))
		ret = errmsg__set(err, -errno, "%s: cannot move %s to %s: %s",
				  in->verb, tmp, f->path, strerror(errno));
out:
	if (dst >= 0)
		close(dst);
	if (src >= 0)
		close(src);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* @f in place: copied, left as it is, or (no initrd) removed. */
static int place(struct kernel_install *in, const struct kernel_boot_file *f,
		 bool *changed, char **err)
{
	char now[SHA256_HEX_SIZE], *from;
	int ret;

	ret = hash_at(f->path, now);
	if (ret)
		return errmsg__set(err, ret == -EINVAL ? -EEXIST : ret,
				   "%s: %s: %s", in->verb, f->path,
				   ret == -EINVAL ? "no longer a regular file" :
						    strerror(-ret));
	if (!strcmp(now, f->sha))
		return 0;
	*changed = true;
	/* boot_prepare found it ours: 10_linux would pair it with ours. */
	if (!f->sha[0])
		return unlink(f->path) && errno != ENOENT ?
			       errmsg__set(err, -errno, "%s: %s: %s", in->verb,
					   f->path, strerror(errno)) :
			       0;
	from = xasprintf("%s/%s", in->kp.staging, f->file);
	ret = copy_in(in, f, from, err);
	free(from);
	return ret;
}

int agent_kernel__boot_place(struct kernel_install *in, char **err)
{
	struct kernel_boot *b = &in->boot;
	bool changed = false;
	int fd, ret;

	ret = place(in, &b->image, &changed, err);
	if (!ret)
		ret = place(in, &b->initrd, &changed, err);
	if (ret || !changed)
		return ret;
	/* The renames themselves, before grub's menu names the files. */
	fd = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		ret = errmsg__set(err, -errno, "%s: %s: %s", in->verb, b->dir,
				  strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * Run even when the copies were there already: the menu may predate
 * them, after a generator that failed. grub.cfg is where the host's
 * grub reads it, whatever BOOTDIR is.
 */
int agent_kernel__boot_grub(struct kernel_install *in, char **err)
{
	struct kernel_boot *b = &in->boot;
	const char *update[] = { b->grub, NULL };
	const char *mkconfig[] = { b->grub, "-o", "/boot/grub/grub.cfg", NULL };
	const char *mkconfig2[] = { b->grub, "-o", "/boot/grub2/grub.cfg",
				    NULL };
	const char *const *argv =
		!strcmp(b->grub_name, "grub-mkconfig")	? mkconfig :
		!strcmp(b->grub_name, "grub2-mkconfig") ? mkconfig2 :
							  update;
	int ret;

	ret = agent_kernel__run_argv(in->verb, argv, GRUB_TIMEOUT_MS, NULL,
				     NULL, err);
	if (!ret)
		b->grub_by = b->grub_name;
	return ret;
}

void agent_kernel__boot_json(const struct kernel_install *in, json_t *o,
			     bool record)
{
	const struct kernel_boot *b = &in->boot;
	bool rd = b->dir && b->initrd.sha[0];
	json_t *sums;

	json_object_set_new(o, "boot_image",
			    b->dir ? json_string(b->image.path) : json_null());
	json_object_set_new(o, "boot_initrd",
			    rd ? json_string(b->initrd.path) : json_null());
	json_object_set_new(o, "grub_by",
			    b->grub_by ? json_string(b->grub_by) : json_null());
	if (!record || !b->dir)
		return;
	sums = json_pack("{s:s}", AGENT_KERNEL_IMAGE, b->image.sha);
	if (rd)
		json_object_set_new(sums, AGENT_KERNEL_INITRD,
				    json_string(b->initrd.sha));
	json_object_set_new(o, "boot_sha256", sums);
}

void agent_kernel__boot_release(struct kernel_boot *b)
{
	free_all(b->dir, b->grub, b->image.path, b->initrd.path);
}

/* Why the copy @path no longer holds @want; NULL when it does. */
static char *file_why(const char *path, const char *want)
{
	char now[SHA256_HEX_SIZE];

	if (!agent_kernel__dir_is_safe(path))
		return xasprintf("installed.json names %.200s", path);
	if (hash_at(path, now))
		return xasprintf("%s is not a regular file", path);
	if (!now[0])
		return xasprintf("%s is missing", path);
	if (!want || strcmp(now, want))
		return xasprintf("%s no longer holds this build (sha256 %s)",
				 path, now);
	return NULL;
}

char *agent_kernel__boot_why(const char *boot_dir, json_t *installed)
{
	const char *img =
		json_string_value(json_object_get(installed, "boot_image"));
	const char *rd =
		json_string_value(json_object_get(installed, "boot_initrd"));
	json_t *sums = json_object_get(installed, "boot_sha256");
	size_t n = strlen(boot_dir);
	char *why;

	if (!img)
		return xasprintf("it was installed without \"boot\", so grub "
				 "cannot boot it from %s",
				 boot_dir);
	if (strncmp(img, boot_dir, n) || img[n] != '/' ||
	    strchr(img + n + 1, '/'))
		return xasprintf("its copy for grub is %s, not in %s", img,
				 boot_dir);
	why = file_why(img, json_string_value(
				    json_object_get(sums, AGENT_KERNEL_IMAGE)));
	if (!why && rd)
		why = file_why(rd, json_string_value(json_object_get(
					   sums, AGENT_KERNEL_INITRD)));
	if (!why && !json_string_value(json_object_get(installed, "grub_by")))
		why = xasprintf("grub's menu was not made again after %s was "
				"placed (the generator failed?)",
				img);
	return why;
}
