// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel.pkg_check, kernel.pkg_install, kernel.pkg_remove: a Debian
 * kernel package installed on a lab machine by its own dpkg, so that its
 * own initramfs tool, kernel hooks and grub generator run as they would
 * for its administrator. The .debs come through kernel.stage into
 * DIR/NAME.staging; DIR/NAME/package.json records that this tool
 * installed the package (and so may remove it) and whether the install
 * finished, so that a controller killed during dpkg finds, on resume,
 * what to finish: dpkg --configure -a, or the install again.
 *
 * A package that was on the machine before the tool came is never
 * installed over, nor removed; the running kernel is never removed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "atomic-file.h"
#include "bench/agent/agent-file.h"
#include "bench/agent/agent-kernel-priv.h"
#include "bench/agent/agent.h"
#include "clock.h"
#include "errmsg.h"
#include "sha256.h"
#include "util.h"

#define PKG_RECORD "package.json"
#define PKG_MAX_DEBS 8
/*
 * Unpacking 400 MB of modules and an initramfs of most of them: a
 * minute on a server, over fifteen under TCG on two loaded cores.
 */
#define DPKG_TIMEOUT_MS (25 * 60 * 1000)
#define QUERY_TIMEOUT_MS 30000
/* How long a dpkg left running by a killed controller is waited for. */
#define LOCK_WAIT_MS (10 * 60 * 1000)
#define LOCK_POLL_MS 3000
/* An initramfs when the running kernel has none to go by. */
#define INITRD_GUESS (64ull << 20)

struct pkg_args {
	const char *verb;
	const char *package, *version, *release, *arch;
	uint64_t need_installed, need_boot;
};

/* A Debian package name or version as dpkg writes them. */
static bool pkg_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n >= 2 && n <= 100 && s[0] >= 'a' && s[0] <= 'z' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789.+-") == n;
}

static bool pkg_version_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n >= 1 && n <= 100 && s[0] >= '0' && s[0] <= '9' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+~:-") == n;
}

static int bad(char **err, const char *verb, const char *key, const char *v,
	       const char *expect)
{
	return errmsg__set(err, -EINVAL,
			   "%s: bad \"%s\" '%.100s' (expected %s)", verb, key,
			   v ? v : "(missing)", expect);
}

static int pkg_args__get(struct pkg_args *a, json_t *args, char **err)
{
	json_t *need = json_object_get(args, "need");

	a->package = json_string_value(json_object_get(args, "package"));
	a->version = json_string_value(json_object_get(args, "version"));
	a->release = json_string_value(json_object_get(args, "release"));
	a->arch = json_string_value(json_object_get(args, "arch"));
	if (!pkg_name_ok(a->package) || strncmp(a->package, "linux-", 6))
		return bad(err, a->verb, "package", a->package,
			   "a Debian kernel package name, linux-...");
	if (a->version && !pkg_version_ok(a->version))
		return bad(err, a->verb, "version", a->version,
			   "a Debian version");
	if (!agent_kernel__name_is_safe(a->release))
		return bad(err, a->verb, "release", a->release,
			   "a kernel release, [A-Za-z0-9._+-]");
	if (a->arch && !pkg_name_ok(a->arch))
		return bad(err, a->verb, "arch", a->arch,
			   "a Debian architecture");
	a->need_installed = (uint64_t)json_integer_value(
		json_object_get(need, "installed"));
	a->need_boot =
		(uint64_t)json_integer_value(json_object_get(need, "boot"));
	return 0;
}

/* DEBIAN_FRONTEND for every dpkg child: nobody answers its questions. */
static void dpkg_env(void)
{
	setenv("DEBIAN_FRONTEND", "noninteractive", 1);
}

/*
 * dpkg's state of @package: "ii" installed, "" not there, else the
 * two letters of a half-done one ("iU" unpacked, "iF" half-configured);
 * its version in *@version when there.
 */
static int pkg_status(const char *verb, const char *package, char st[3],
		      char **version, char **err)
{
	const char *argv[] = { "dpkg-query", "-W",
			       "-f=${db:Status-Abbrev}\t${Version}\n", package,
			       NULL };
	char *out = NULL, *tab;
	int ret;

	st[0] = '\0';
	*version = NULL;
	ret = agent_kernel__run_argv(verb, argv, QUERY_TIMEOUT_MS, NULL, &out,
				     err);
	if (ret) {
		/* dpkg-query exits 1 for a package it never heard of. */
		errmsg__clear(err);
		return 0;
	}
	tab = strchr(out, '\t');
	if (tab && tab - out >= 2 && out[1] != 'n') {
		st[0] = out[0];
		st[1] = out[1];
		st[2] = '\0';
		*version = xstrndup(tab + 1, strcspn(tab + 1, "\n"));
	}
	free(out);
	return 0;
}

static int dpkg_arch(const char *verb, char **arch, char **err)
{
	const char *argv[] = { "dpkg", "--print-architecture", NULL };
	int ret;

	ret = agent_kernel__run_argv(verb, argv, QUERY_TIMEOUT_MS, NULL, arch,
				     err);
	if (!ret)
		(*arch)[strcspn(*arch, "\n")] = '\0';
	return ret;
}

static uint64_t file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? 0 : (uint64_t)sb.st_size;
}

/* Free bytes for root on @path's file system, and which one it is. */
static int fs_free(const char *path, uint64_t *avail, dev_t *dev)
{
	struct statvfs vf;
	struct stat sb;

	if (statvfs(path, &vf) || stat(path, &sb))
		return -errno;
	*avail = (uint64_t)vf.f_bavail * vf.f_frsize;
	*dev = sb.st_dev;
	return 0;
}

/*
 * Room for the package before dpkg starts, so that a full /boot refuses
 * it with nothing half-installed: its image and files in /boot plus an
 * initramfs like the running kernel's, and its modules, on whichever
 * file systems hold them (the same one, often), with a tenth to spare.
 */
static int pkg_room(const struct pkg_args *a, json_t *res, char **err)
{
	struct utsname u;
	uint64_t initrd = 0, boot, mods, bfree, mfree;
	dev_t bdev, mdev;
	char *p;
	int ret;

	if (!uname(&u)) {
		p = xasprintf("/boot/initrd.img-%s", u.release);
		initrd = file_size(p);
		free(p);
	}
	if (!initrd)
		initrd = INITRD_GUESS;
	boot = (a->need_boot + initrd) / 10 * 11;
	mods = (a->need_installed > a->need_boot ?
			a->need_installed - a->need_boot :
			0) /
	       10 * 11;
	ret = fs_free("/boot", &bfree, &bdev);
	if (!ret)
		ret = fs_free(AGENT_KERNEL_MODULES_ROOT, &mfree, &mdev);
	if (ret)
		return errmsg__set(err, ret, "%s: statvfs: %s", a->verb,
				   strerror(-ret));
	if (bdev == mdev) {
		boot += mods;
		mods = 0;
	}
	json_object_set_new(res, "boot_free", json_integer((json_int_t)bfree));
	json_object_set_new(res, "boot_need", json_integer((json_int_t)boot));
	if (bfree < boot)
		return errmsg__set(
			err, -ENOSPC,
			"%s: /boot has %.0f MB free, %s needs %.0f MB there "
			"(its image, config and System.map, an initramfs like "
			"the running kernel's (%.0f MB)%s, and a tenth to "
			"spare); nothing was installed",
			a->verb, bfree / 1e6, a->package, boot / 1e6,
			initrd / 1e6, bdev == mdev ? ", its modules" : "");
	if (mfree < mods)
		return errmsg__set(err, -ENOSPC,
				   "%s: %s has %.0f MB free, the modules of "
				   "%s need %.0f MB; nothing was installed",
				   a->verb, AGENT_KERNEL_MODULES_ROOT,
				   mfree / 1e6, a->package, mods / 1e6);
	return 0;
}

static int arch_matches(const struct pkg_args *a, char **err)
{
	char *mine = NULL;
	int ret;

	if (!a->arch)
		return 0;
	ret = dpkg_arch(a->verb, &mine, err);
	if (!ret && strcmp(mine, a->arch) && strcmp(a->arch, "all"))
		ret = errmsg__set(err, -ENOEXEC,
				  "%s: %s is a kernel for %s, but this "
				  "machine's dpkg is for %s; nothing was sent "
				  "or installed",
				  a->verb, a->package, a->arch, mine);
	free(mine);
	return ret;
}

/* DIR/NAME/package.json, or NULL. */
static json_t *record_read(const struct kernel_paths *kp)
{
	char *p = xasprintf("%s/%s", kp->final, PKG_RECORD);
	json_t *j = json_load_file(p, JSON_REJECT_DUPLICATES, NULL);

	free(p);
	if (j && !json_is_object(j)) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

static int record_write(const char *verb, const struct kernel_paths *kp,
			const struct pkg_args *a, const char *state, char **err)
{
	char *p = xasprintf("%s/%s", kp->final, PKG_RECORD), *text = NULL;
	json_t *j;
	int ret;

	ret = agent_kernel__dir_make(verb, kp->final, 0700, err);
	if (ret)
		goto out;
	j = json_pack("{s:s, s:s?, s:s, s:s}", "package", a->package, "version",
		      a->version, "release", a->release, "state", state);
	text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	json_decref(j);
	ret = text ? atomic_file__write(
			     p, &(struct iovec){ text, strlen(text) }, 1) :
		     -ENOMEM;
	if (ret)
		ret = errmsg__set(err, ret, "%s: cannot write %s: %s", verb, p,
				  strerror(-ret));
out:
	free(text);
	free(p);
	return ret;
}

static bool record_is(const json_t *r, const struct pkg_args *a)
{
	const char *p = json_string_value(json_object_get(r, "package"));

	return p && !strcmp(p, a->package);
}

/* Where grub, kexec and the controller find what dpkg put in /boot. */
static void boot_paths(const struct pkg_args *a, json_t *res)
{
	char *img = xasprintf("/boot/vmlinuz-%s", a->release);
	char *rd = xasprintf("/boot/initrd.img-%s", a->release);

	json_object_set_new(res, "image", json_string(img));
	json_object_set_new(res, "initrd",
			    access(rd, R_OK) ? json_null() : json_string(rd));
	free(img);
	free(rd);
}

/* What every call but pkg_remove begins with: its words, then dpkg's. */
static int pkg_begin(struct pkg_args *a, json_t *args, struct kernel_paths *kp,
		     char st[3], char **have, char **err)
{
	int ret;

	ret = pkg_args__get(a, args, err);
	if (!ret)
		ret = agent_kernel__paths(a->verb, args, kp, err);
	if (!ret)
		ret = arch_matches(a, err);
	if (!ret)
		ret = pkg_status(a->verb, a->package, st, have, err);
	return ret;
}

int agent_verb__kernel_pkg_check(struct agent *ag, json_t *args, json_t **res,
				 char **err)
{
	struct pkg_args a = { .verb = "kernel.pkg_check" };
	struct kernel_paths kp = { 0 };
	char st[3], *have = NULL;
	json_t *rec = NULL;
	bool ours;
	int ret;

	(void)ag;
	ret = pkg_begin(&a, args, &kp, st, &have, err);
	if (ret)
		goto out;
	rec = record_read(&kp);
	ours = record_is(rec, &a);
	*res = json_pack("{s:s, s:s?, s:b}", "status", st, "version", have,
			 "ours", ours);
	if (!strcmp(st, "ii") && a.version && have && strcmp(have, a.version))
		ret = errmsg__set(err, -EEXIST,
				  "%s: %s %s is installed here, not %s; "
				  "the tool installs over no package it did "
				  "not put there",
				  a.verb, a.package, have, a.version);
	else if (!strcmp(st, "ii"))
		boot_paths(&a, *res);
	else if (*st && !ours)
		ret = errmsg__set(err, -EEXIST,
				  "%s: %s is half-installed here (dpkg state "
				  "'%s') by someone else; left alone",
				  a.verb, a.package, st);
	else if (!*st && a.need_installed)
		/* A half-installed one of ours is finished, not sized. */
		ret = pkg_room(&a, *res, err);
out:
	if (ret) {
		json_decref(*res);
		*res = NULL;
	}
	json_decref(rec);
	free(have);
	agent_kernel__paths_release(&kp);
	return ret;
}

/* The staged .debs, each checked against its sha256, in @debs. */
static int staged_debs(const char *verb, const struct kernel_paths *kp,
		       json_t *sums, const char **debs, size_t *nr, char **err)
{
	char got[SHA256_HEX_SIZE];
	const char *file;
	uint64_t size;
	json_t *v;
	int ret;

	*nr = 0;
	if (!json_is_object(sums) || !json_object_size(sums) ||
	    json_object_size(sums) > PKG_MAX_DEBS)
		return errmsg__set(err, -EINVAL,
				   "%s: bad \"debs\" (expected an object of 1 "
				   "to %d .deb names and their sha256)",
				   verb, PKG_MAX_DEBS);
	json_object_foreach(sums, file, v) {
		char *p;

		if (!agent_kernel__deb_is_safe(file) || !json_is_string(v))
			return errmsg__set(err, -EINVAL,
					   "%s: bad .deb name '%.100s'", verb,
					   file);
		p = xasprintf("%s/%s", kp->staging, file);
		ret = sha256__file(p, got, &size);
		if (!ret && strcmp(got, json_string_value(v)))
			ret = -EBADMSG;
		if (ret) {
			ret = errmsg__set(err, ret,
					  "%s: %s: %s; stage it again", verb, p,
					  ret == -EBADMSG ?
						  "its sha256 does not match" :
						  strerror(-ret));
			free(p);
			return ret;
		}
		debs[(*nr)++] = p; /* freed by the caller */
	}
	return 0;
}

/*
 * dpkg with @argv, waiting while another dpkg holds its lock: the one a
 * killed controller's install left running finishes first.
 */
static int dpkg_run(const char *verb, const char *const *argv, char **err)
{
	uint64_t t0 = mono_ms();
	int ret;

	for (;;) {
		ret = agent_kernel__run_argv(verb, argv, DPKG_TIMEOUT_MS, NULL,
					     NULL, err);
		if (ret == -ETIMEDOUT) {
			free(*err);
			return errmsg__set(err, ret,
					   "%s: dpkg did not finish within "
					   "%d min; killed (the next run "
					   "finishes it with dpkg --configure "
					   "-a)",
					   verb, DPKG_TIMEOUT_MS / 60000);
		}
		if (!ret || !*err || !strstr(*err, "lock") ||
		    mono_ms() - t0 > LOCK_WAIT_MS)
			return ret;
		errmsg__clear(err);
		usleep(LOCK_POLL_MS * 1000);
	}
}

int agent_verb__kernel_pkg_install(struct agent *ag, json_t *args, json_t **res,
				   char **err)
{
	struct pkg_args a = { .verb = "kernel.pkg_install" };
	const char *debs[PKG_MAX_DEBS + 1] = { 0 };
	const char *argv[PKG_MAX_DEBS + 6];
	const char *configure[] = { "dpkg", "--configure", "-a", NULL };
	struct kernel_paths kp = { 0 };
	uint64_t t0 = mono_ms();
	char st[3], *have = NULL;
	json_t *rec = NULL, *dummy = json_object();
	bool resumed = false;
	size_t i, n = 0, nr = 0;
	int ret;

	(void)ag;
	dpkg_env();
	ret = pkg_begin(&a, args, &kp, st, &have, err);
	if (ret)
		goto out;
	rec = record_read(&kp);
	if (*st && !record_is(rec, &a)) {
		ret = errmsg__set(err, -EEXIST,
				  "%s: %s is on this machine already (%s %s), "
				  "put there by someone else: the tool "
				  "installs over no package it did not put "
				  "there",
				  a.verb, a.package, st, have ? have : "");
		goto out;
	}
	/* A controller killed while dpkg ran: finish what it began. */
	if (*st && strcmp(st, "ii")) {
		resumed = true;
		ret = dpkg_run(a.verb, configure, err);
		free(have);
		have = NULL;
		if (!ret)
			ret = pkg_status(a.verb, a.package, st, &have, err);
		if (ret)
			goto out;
	}
	/* Asked to finish only: the staged .debs may be a killed dpkg's. */
	if (strcmp(st, "ii") && !json_object_get(args, "debs")) {
		ret = errmsg__set(err, -ENODATA,
				  "%s: %s is '%s' after dpkg --configure -a; "
				  "it needs its .debs again",
				  a.verb, a.package, *st ? st : "not there");
		goto out;
	}
	if (strcmp(st, "ii")) {
		ret = pkg_room(&a, dummy, err);
		if (!ret)
			ret = staged_debs(a.verb, &kp,
					  json_object_get(args, "debs"), debs,
					  &nr, err);
		if (!ret)
			ret = record_write(a.verb, &kp, &a, "installing", err);
		if (ret)
			goto out;
		argv[n++] = "dpkg";
		argv[n++] = "--force-confold";
		argv[n++] = "--force-confdef";
		argv[n++] = "-i";
		for (i = 0; i < nr; i++)
			argv[n++] = debs[i];
		argv[n] = NULL;
		ret = dpkg_run(a.verb, argv, err);
		free(have);
		have = NULL;
		if (!ret)
			ret = pkg_status(a.verb, a.package, st, &have, err);
		if (!ret && strcmp(st, "ii"))
			ret = errmsg__set(err, -EIO,
					  "%s: dpkg -i left %s in state '%s'",
					  a.verb, a.package, st);
		if (ret)
			goto out;
	} else {
		resumed = true;
	}
	ret = record_write(a.verb, &kp, &a, "installed", err);
	if (ret)
		goto out;
	/* The .debs are in dpkg's hands now. */
	agent_file__remove_tree(kp.staging, NULL);
	*res = json_pack("{s:s, s:s?, s:b, s:I}", "package", a.package,
			 "version", have, "resumed", resumed, "elapsed_ms",
			 (json_int_t)(mono_ms() - t0));
	boot_paths(&a, *res);
out:
	for (i = 0; i < nr; i++)
		free((char *)debs[i]);
	json_decref(rec);
	json_decref(dummy);
	free(have);
	agent_kernel__paths_release(&kp);
	return ret;
}

int agent_verb__kernel_pkg_remove(struct agent *ag, json_t *args, json_t **res,
				  char **err)
{
	struct pkg_args a = { .verb = "kernel.pkg_remove" };
	const char *purge[] = { "dpkg", "--purge", NULL, NULL };
	struct kernel_paths kp = { 0 };
	struct utsname u;
	char st[3], *have = NULL, *rec_path = NULL;
	json_t *rec = NULL;
	int ret;

	(void)ag;
	dpkg_env();
	ret = pkg_args__get(&a, args, err);
	if (!ret)
		ret = agent_kernel__paths(a.verb, args, &kp, err);
	if (ret)
		goto out;
	rec = record_read(&kp);
	if (!record_is(rec, &a)) {
		ret = errmsg__set(err, -EPERM,
				  "%s: %s was not installed by this tool (no "
				  "record in %s); left alone",
				  a.verb, a.package, kp.final);
		goto out;
	}
	if (!uname(&u) && !strcmp(u.release, a.release)) {
		ret = errmsg__set(err, -EBUSY,
				  "%s: %s runs now; boot another kernel first",
				  a.verb, a.release);
		goto out;
	}
	ret = pkg_status(a.verb, a.package, st, &have, err);
	if (!ret && *st) {
		purge[2] = a.package;
		ret = dpkg_run(a.verb, purge, err);
	}
	if (ret)
		goto out;
	rec_path = xasprintf("%s/%s", kp.final, PKG_RECORD);
	unlink(rec_path);
	rmdir(kp.final);
	agent_file__remove_tree(kp.staging, NULL);
	*res = json_pack("{s:s, s:b}", "package", a.package, "removed",
			 *st != '\0');
out:
	json_decref(rec);
	free_all(have, rec_path);
	agent_kernel__paths_release(&kp);
	return ret;
}
