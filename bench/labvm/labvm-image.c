// SPDX-License-Identifier: GPL-2.0-only
/*
 * A lab machine's image, built from Debian's mirror alone and cached
 * under the key of its recipe (labvm-recipe.c), by the recipe's route:
 * debootstrap into a loop-mounted disk, the recipe's files, systemd's
 * units, grub for the firmware, then the disk as it is; or, for a
 * foreign arch, labvm-foreign.c's. The build runs once; every start
 * runs on an overlay of it.
 *
 *   $cache/labvm/key/id_ed25519{,.pub}   the controller's key for root
 *   $cache/labvm/debs/SUITE-ARCH/        the downloads, kept
 *   $cache/labvm/images/NAME-KEY/        disk.raw, image.json,
 *                                        known_hosts, build.log
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "bench/labvm/labvm-priv.h"
#include "cache.h"
#include "clock.h"
#include "debian-suite.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

#define LOCK_TIMEOUT_MS (30 * 60 * 1000)
#define DEBOOTSTRAP_TIMEOUT_MS (40 * 60 * 1000)
#define CHROOT_TIMEOUT_MS (10 * 60 * 1000)
#define KEY_NAME "id_ed25519"

char *labvm__dir(const char *sub, char **err)
{
	char *sfx = xasprintf("labvm%s%s", sub ? "/" : "", sub ? sub : "");
	char *dir = NULL;
	int ret = cache__dir(sfx, &dir);

	free(sfx);
	if (ret)
		errmsg__set(err, ret, "no cache folder: %s", strerror(-ret));
	return dir;
}

int labvm_key__get(char **priv, char **pub_text, char **err)
{
	char *dir = labvm__dir("key", err), *pub = NULL, *text = NULL;
	struct spawn sp;
	size_t len;
	int ret;

	*priv = NULL;
	if (!dir)
		return -ENOENT;
	ret = cache__mkdirs(dir, err);
	if (ret)
		goto out;
	*priv = xasprintf("%s/" KEY_NAME, dir);
	pub = xasprintf("%s.pub", *priv);
	if (access(*priv, R_OK) || access(pub, R_OK)) {
		unlink(*priv);
		unlink(pub);
		ret = spawn__run(
			&sp,
			(const char *const[]){
				"ssh-keygen", "-q", "-t", "ed25519", "-N", "",
				"-C", "iommu-bench-labvm", "-f", *priv, NULL },
			&(struct spawn_opts){ .flags = SPAWN_NULL_OUT |
						       SPAWN_CAPTURE_ERR },
			30000);
		if (!ret && !spawn__succeeded(&sp))
			ret = -EIO;
		if (ret)
			errmsg__set(err, ret,
				    "ssh-keygen could not make %s: %s", *priv,
				    sp.err ? sp.err : strerror(-ret));
		spawn__release(&sp);
		if (ret)
			goto out;
	}
	ret = read_file(pub, &text, &len);
	if (ret) {
		errmsg__set(err, ret, "cannot read %s: %s", pub,
			    strerror(-ret));
		goto out;
	}
	text[strcspn(text, "\n")] = '\0';
	*pub_text = text;
out:
	if (ret) {
		free(*priv);
		*priv = NULL;
	}
	free_all(pub, dir);
	return ret;
}

static int mkdirs_in(const char *root, const char *path, unsigned int mode,
		     char **err)
{
	char *p = xasprintf("%s%s", root, path), *s;
	int ret = 0;

	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (mkdir(p, mode) && errno != EEXIST)
		ret = errmsg__set(err, -errno, "cannot make %s: %s", p,
				  strerror(errno));
	free(p);
	return ret;
}

int labvm__write_in(const char *root, const char *path, unsigned int mode,
		    const char *content, char **err)
{
	char *p = xasprintf("%s%s", root, path), *dir = xstrdup(path), *slash;
	int fd, ret = 0;

	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		ret = mkdirs_in(root, dir,
				strncmp(dir, "/root", 5) ? 0755 : 0700, err);
	}
	/* Replaces what a package put there (/etc/default/kexec). */
	unlink(p);
	fd = ret ? -1 :
		   open(p,
			O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			mode);
	if (!ret && (fd < 0 || write_all(fd, content, strlen(content)) ||
		     fchmod(fd, mode)))
		ret = errmsg__set(err, -errno, "cannot write %s: %s", p,
				  strerror(errno));
	if (fd >= 0)
		close(fd);
	free_all(p, dir);
	return ret;
}

static int chroot_run(struct labvm_build *b, const struct labvm_disk *d,
		      const char *const *words, char **err)
{
	const char *argv[16] = { "chroot", d->mnt };
	size_t i;

	for (i = 0; words[i] && i + 3 < ARRAY_SIZE(argv); i++)
		argv[i + 2] = words[i];
	return labvm_build__run(b, argv, CHROOT_TIMEOUT_MS, NULL, err);
}

static int debootstrap(struct labvm_build *b, const struct labvm_recipe *r,
		       const struct labvm_disk *d, char **err)
{
	const struct arch *a = arch__find(r->arch);
	char *mirror = NULL, *debs = NULL, *sub, *arch_opt, *inc, *cache_opt;
	int ret;

	ret = debian__mirror(&mirror, err);
	if (ret)
		return ret;
	sub = xasprintf("debs/%s-%s", r->suite, a->deb);
	debs = labvm__dir(sub, err);
	free(sub);
	ret = debs ? cache__mkdirs(debs, err) : -ENOENT;
	if (ret)
		goto out;
	arch_opt = xasprintf("--arch=%s", a->deb);
	inc = xasprintf("--include=%s", r->packages);
	cache_opt = xasprintf("--cache-dir=%s", debs);
	ret = labvm_build__run(
		b,
		(const char *const[]){ "env", "DEBIAN_FRONTEND=noninteractive",
				       "debootstrap", "--variant=minbase",
				       arch_opt, inc, cache_opt, r->suite,
				       d->mnt, mirror, NULL },
		DEBOOTSTRAP_TIMEOUT_MS, NULL, err);
	free_all(arch_opt, inc, cache_opt);
out:
	free_all(mirror, debs);
	return ret;
}

static int configure(struct labvm_build *b, const struct labvm_recipe *r,
		     const struct labvm_disk *d, const char *pubkey, char **err)
{
	struct labvm_file *f;
	size_t nr, i;
	char *fstab;
	int ret = 0;

	labvm_recipe__files(r, pubkey, &f, &nr);
	for (i = 0; i < nr && !ret; i++)
		ret = labvm__write_in(d->mnt, f[i].path, f[i].mode,
				      f[i].content, err);
	labvm_files__free(f, nr);
	if (ret)
		return ret;
	fstab = d->esp_dev ?
			xasprintf("UUID=%s / ext4 errors=remount-ro 0 1\n"
				  "UUID=%s /boot/efi vfat umask=0077 0 1\n",
				  d->root_uuid, d->esp_serial) :
			xasprintf("UUID=%s / ext4 errors=remount-ro 0 1\n",
				  d->root_uuid);
	ret = labvm__write_in(d->mnt, "/etc/fstab", 0644, fstab, err);
	free(fstab);
	if (ret)
		return ret;
	ret = chroot_run(b, d,
			 (const char *const[]){ "systemctl", "enable",
						"systemd-networkd", "ssh",
						NULL },
			 err);
	if (ret)
		return ret;
	/*
	 * A benchmark host runs nothing on a timer: apt's downloads and
	 * the file systems' scrubs would land in the middle of trials.
	 */
	return chroot_run(b, d,
			  (const char *const[]){
				  "systemctl", "mask", "apt-daily.timer",
				  "apt-daily-upgrade.timer",
				  "e2scrub_all.timer", "fstrim.timer", NULL },
			  err);
}

static int grub(struct labvm_build *b, const struct labvm_recipe *r,
		struct labvm_disk *d, char **err)
{
	char *target = xasprintf("--target=%s", r->grub_target), *cfg = NULL,
	     *want, *path;
	size_t len;
	int ret;

	ret = labvm_disk__uuid_link(d, err);
	if (!ret && r->firmware == LABVM_UEFI)
		/*
		 * The firmware has no NVRAM that lasts (-bios, no
		 * pflash): only the removable path EFI/BOOT/ is found.
		 */
		ret = chroot_run(b, d,
				 (const char *const[]){
					 "grub-install", target,
					 "--efi-directory=/boot/efi",
					 "--removable", "--no-nvram", NULL },
				 err);
	else if (!ret)
		ret = chroot_run(
			b, d,
			(const char *const[]){ "grub-install", target,
					       "--boot-directory=/boot",
					       "--modules=part_msdos ext2",
					       d->loop, NULL },
			err);
	if (!ret)
		ret = chroot_run(b, d,
				 (const char *const[]){ "update-grub", NULL },
				 err);
	free(target);
	if (ret)
		return ret;
	path = xasprintf("%s/boot/grub/grub.cfg", d->mnt);
	want = xasprintf("root=UUID=%s", d->root_uuid);
	ret = read_file(path, &cfg, &len);
	if (ret)
		errmsg__set(err, ret, "update-grub wrote no %s: %s", path,
			    strerror(-ret));
	else if (!strstr(cfg, want))
		ret = errmsg__set(err, -EIO,
				  "%s boots no %s: the machine would not find "
				  "its root",
				  path, want);
	free_all(path, want, cfg);
	return ret;
}

char *labvm__image_release(const char *root)
{
	char *boot = xasprintf("%s/boot", root), *rel = NULL;
	struct dirent *de;
	DIR *dir = opendir(boot);

	while (dir && (de = readdir(dir)))
		if (!strncmp(de->d_name, "vmlinuz-", 8) && !rel)
			rel = xstrdup(de->d_name + 8);
	if (dir)
		closedir(dir);
	free(boot);
	return rel;
}

/*
 * known_hosts for the image's host keys, whatever address the machine
 * is given: the file is named by the stanza of this image alone.
 */
int labvm__known_hosts(const char *root, const char *out, char **err)
{
	static const char *const keys[] = { "ed25519", "ecdsa", "rsa" };
	char *all = xstrdup(""), *text, *p, *more;
	struct iovec iov;
	size_t i, len;
	int ret;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		p = xasprintf("%s/etc/ssh/ssh_host_%s_key.pub", root, keys[i]);
		if (!read_file(p, &text, &len)) {
			text[strcspn(text, "\n")] = '\0';
			more = xasprintf("%s* %s\n", all, text);
			free(all);
			all = more;
			free(text);
		}
		free(p);
	}
	if (!*all) {
		free(all);
		return errmsg__set(err, -ENOENT,
				   "the image has no ssh host key (was "
				   "openssh-server installed?)");
	}
	iov = (struct iovec){ all, strlen(all) };
	ret = cache__write(out, &iov, 1, err);
	free(all);
	return ret;
}

static int write_json(const char *path, json_t *j, char **err)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	struct iovec iov[2] = { { text, strlen(text) }, { "\n", 1 } };
	int ret = cache__write(path, iov, 2, err);

	free(text);
	return ret;
}

/* debootstrap's route: a loop-mounted disk, configured in a chroot. */
static int build_debootstrap(struct labvm_build *b,
			     const struct labvm_recipe *r, const char *tmp,
			     const char *pubkey, struct labvm_built *out,
			     char **err)
{
	struct labvm_disk d = { 0 };
	char *disk = xasprintf("%s/disk.raw", tmp);
	char *mnt = xasprintf("%s/mnt", tmp), *kh;
	int ret;

	labvm_build__phase(b, "disk");
	ret = labvm_disk__create(b, r, disk, &d, err);
	if (!ret)
		ret = labvm_disk__mount_root(b, &d, mnt, err);
	if (ret)
		goto out;
	labvm_build__phase(b, "debootstrap");
	ret = debootstrap(b, r, &d, err);
	if (ret)
		goto out;
	labvm_build__phase(b, "configure");
	ret = labvm_disk__bind(&d, err);
	if (!ret && d.esp_dev)
		ret = labvm_disk__mount_esp(b, &d, err);
	if (!ret)
		ret = configure(b, r, &d, pubkey, err);
	if (ret)
		goto out;
	labvm_build__phase(b, "grub");
	ret = grub(b, r, &d, err);
	if (ret)
		goto out;
	labvm_build__phase(b, "finish");
	ret = chroot_run(
		b, &d, (const char *const[]){ "apt-get", "clean", NULL }, err);
	kh = xasprintf("%s/known_hosts", tmp);
	if (!ret)
		ret = labvm__known_hosts(d.mnt, kh, err);
	free(kh);
	out->release = labvm__image_release(d.mnt);
	if (!ret && !out->release)
		ret = errmsg__set(err, -ENOENT,
				  "the image has no kernel in /boot");
	memcpy(out->root_uuid, d.root_uuid, sizeof(out->root_uuid));
out:
	labvm_disk__teardown(&d);
	rmdir(mnt);
	free_all(disk, mnt);
	return ret;
}

/* The whole build into folder @tmp. */
static int build(const struct labvm_recipe *r, const char *tmp, const char *log,
		 const char *pubkey, const char *key_hex, char **err)
{
	struct labvm_build b = { 0 };
	struct labvm_built got = { 0 };
	char *disk = xasprintf("%s/disk.raw", tmp), *path;
	double t0 = mono_ns() / 1e9;
	struct stat sb;
	json_t *j;
	int ret;

	b.log_path = xstrdup(log);
	b.log_fd = open(b.log_path,
			O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
			0644);
	if (b.log_fd < 0) {
		ret = errmsg__set(err, -errno, "cannot write %s: %s",
				  b.log_path, strerror(errno));
		goto out;
	}
	if (r->route == LABVM_UNPACK_VM)
		ret = labvm_foreign__build(&b, r, tmp, pubkey, &got, err);
	else
		ret = build_debootstrap(&b, r, tmp, pubkey, &got, err);
	if (ret)
		goto out;
	stat(disk, &sb);
	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:I, s:I, s:I}",
		      "recipe", r->name, "arch", r->arch, "suite", r->suite,
		      "key", key_hex, "release", got.release, "root_uuid",
		      got.root_uuid, "build_s", mono_ns() / 1e9 - t0, "size",
		      (json_int_t)sb.st_size, "allocated",
		      (json_int_t)sb.st_blocks * 512, "built",
		      (json_int_t)time(NULL));
	path = xasprintf("%s/image.json", tmp);
	ret = write_json(path, j, err);
	free(path);
	json_decref(j);
out:
	if (b.log_fd >= 0)
		close(b.log_fd);
	free_all(disk, got.release, b.log_path);
	return ret;
}

static int image_load(struct labvm_image *img, char **err)
{
	char *path = xasprintf("%s/image.json", img->dir);
	json_error_t jerr;
	json_t *j;
	int ret = 0;

	j = json_load_file(path, 0, &jerr);
	if (!j) {
		ret = errmsg__set(err, -ENOENT, "%s: %s", path, jerr.text);
		goto out;
	}
	img->disk = xasprintf("%s/disk.raw", img->dir);
	img->known_hosts = xasprintf("%s/known_hosts", img->dir);
	img->release =
		xstrdup(json_string_value(json_object_get(j, "release")) ?: "");
	img->build_s = json_number_value(json_object_get(j, "build_s"));
	img->allocated = json_integer_value(json_object_get(j, "allocated"));
	if (!cache__has_file(img->disk))
		ret = errmsg__set(err, -ENOENT, "%s is missing", img->disk);
out:
	json_decref(j);
	free(path);
	return ret;
}

int labvm_image__get(const struct labvm_recipe *r, bool build_it, bool force,
		     struct labvm_image *img, char **err)
{
	char hex[SHA256_HEX_SIZE], *images = NULL, *pub = NULL, *tmp = NULL,
				   *lock = NULL, *log = NULL, *kept;
	int ret, fd = -1;

	memset(img, 0, sizeof(*img));
	img->recipe = r;
	ret = labvm_key__get(&img->key, &pub, err);
	if (ret)
		return ret;
	labvm_recipe__key(r, pub, hex);
	images = labvm__dir("images", err);
	if (!images) {
		ret = -ENOENT;
		goto out;
	}
	img->dir = xasprintf("%s/%s-%.12s", images, r->name, hex);
	if (!force && !image_load(img, NULL))
		goto out;
	if (!build_it) {
		ret = errmsg__set(err, -ENOENT,
				  "no %s lab image for this recipe in %s yet: "
				  "build it with `iommu-bench labvm build "
				  "--arch %s` (minutes, once)",
				  r->name, images, r->arch);
		goto out;
	}
	ret = cache__mkdirs(images, err);
	if (ret)
		goto out;
	lock = xasprintf("%s/.lock", images);
	ret = cache__lock_file(lock, LOCK_TIMEOUT_MS, "labvm build", &fd, err);
	if (ret)
		goto out;
	/* Another build may have made it while we waited. */
	if (!force && !image_load(img, NULL))
		goto out;
	labvm_disk__sweep(images);
	cache__sweep(images, 0);
	ret = cache__mkdtemp(images, &tmp, err);
	if (ret)
		goto out;
	pr_info("labvm build: %s (Debian %s, %s) into %s", r->name, r->suite,
		r->arch, img->dir);
	/* Beside the image, not in it: a failed build's log stays. */
	log = xasprintf("%s.build.log", img->dir);
	ret = build(r, tmp, log, pub, hex, err);
	if (!ret) {
		kept = xasprintf("%s/build.log", tmp);
		rename(log, kept);
		free(kept);
		ret = cache__commit(tmp, img->dir, err);
	} else {
		cache__remove(tmp);
	}
	if (!ret)
		ret = image_load(img, err);
	if (!ret)
		pr_info("labvm build: %s done in %.0f s, %.0f MiB on disk",
			r->name, img->build_s, img->allocated / 1048576.0);
out:
	cache__unlock(fd);
	free_all(images, pub, tmp, lock, log);
	return ret;
}

void labvm_image__release(struct labvm_image *img)
{
	free_all(img->dir, img->disk, img->key, img->known_hosts, img->release);
	memset(img, 0, sizeof(*img));
}

json_t *labvm_image__json(const struct labvm_image *img)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:I}",
			 "recipe", img->recipe->name, "arch", img->recipe->arch,
			 "dir", img->dir, "disk", img->disk, "key", img->key,
			 "known_hosts", img->known_hosts, "release",
			 img->release, "build_s", img->build_s, "allocated",
			 (json_int_t)img->allocated);
}
