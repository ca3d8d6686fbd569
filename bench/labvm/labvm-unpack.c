// SPDX-License-Identifier: GPL-2.0-only
/*
 * A foreign arch's root, unpacked by this machine: every deb extracted
 * natively (dpkg-deb | tar), then registered and unpacked by this
 * machine's dpkg with --root, so that no decompression is emulated.
 * Only the preinsts run in the root's arch, chrooted, through
 * binfmt_misc and qemu-user; the packages stay unpacked, configured
 * later in a VM of their arch (labvm-stage2.c). Measured by hand: 68 s
 * here, where configuring under qemu-user took 332 s more.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "bench/labvm/labvm-priv.h"
#include "errmsg.h"
#include "strvec.h"
#include "subprocess.h"
#include "util.h"

#define BINFMT "/proc/sys/fs/binfmt_misc"
#define CMD_TIMEOUT_MS 120000
#define DPKG_TIMEOUT_MS (30 * 60 * 1000)
#define EXTRACT_TIMEOUT_MS 300000
#define COPY_BUF (128 * 1024)

/* binfmt_misc's entry of each arch a lab image may be. */
static const char *binfmt_entry(const struct arch *a)
{
	return !strcmp(a->name, "arm64")  ? "qemu-aarch64" :
	       !strcmp(a->name, "x86_64") ? "qemu-x86_64" :
					    NULL;
}

int labvm_unpack__binfmt(struct labvm_build *b, const struct labvm_recipe *r,
			 char **err)
{
	const struct arch *a = arch__find(r->arch);
	const char *name = binfmt_entry(a);
	char *path, *text = NULL, *e = NULL, *flags;
	size_t len;
	int ret = 0;

	if (a == arch__native())
		return 0; /* its scripts run as they are */
	if (!name)
		return errmsg__set(err, -EOPNOTSUPP,
				   "no emulation known for %s", r->arch);
	if (access(BINFMT "/register", F_OK) &&
	    mount("binfmt_misc", BINFMT, "binfmt_misc", 0, NULL))
		return errmsg__set(err, -errno,
				   "cannot mount binfmt_misc on " BINFMT
				   ": %s; the %s image's package scripts "
				   "cannot run here",
				   strerror(errno), r->arch);
	path = xasprintf(BINFMT "/%s", name);
	if (access(path, F_OK)) {
		/* Registered from qemu-user-static's binfmt-support file. */
		labvm_build__run(b,
				 (const char *const[]){ "update-binfmts",
							"--enable", name,
							NULL },
				 CMD_TIMEOUT_MS, NULL, &e);
		free(e);
	}
	if (read_file(path, &text, &len) || !strstr(text, "enabled"))
		ret = errmsg__set(
			err, -ENOEXEC,
			"%s binaries cannot run here: binfmt_misc "
			"has no enabled %s (install qemu-user-static "
			"and binfmt-support: scripts/install-deps.sh)",
			r->arch, name);
	else if (!(flags = strstr(text, "\nflags:")) ||
		 !memchr(flags + 7, 'F', strcspn(flags + 7, "\n")))
		/*
		 * Without F the interpreter is looked up in the chroot,
		 * where it is not.
		 */
		ret = errmsg__set(err, -ENOEXEC,
				  "binfmt_misc's %s is registered without "
				  "the F flag: in the image's chroot its "
				  "interpreter would not be found (use "
				  "qemu-user-static's registration)",
				  name);
	free_all(path, text);
	return ret;
}

/* A folder made and every folder above it, under @root. */
static int mkdirs(const char *root, const char *sub, char **err)
{
	char *p = xasprintf("%s/%s", root, sub), *s;
	int ret = 0;

	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		ret = errmsg__set(err, -errno, "cannot make %s: %s", p,
				  strerror(errno));
	free(p);
	return ret;
}

/*
 * Trixie is merged-/usr: /bin, /sbin and /lib are links into /usr, made
 * before anything is extracted so that every deb's files land in /usr.
 */
static int skeleton(const struct labvm_recipe *r, const char *root, char **err)
{
	static const char *const dirs[] = {
		"usr/bin",
		"usr/sbin",
		"usr/lib",
		"var/lib/dpkg/info",
		"var/lib/dpkg/updates",
		"var/lib/dpkg/triggers",
		"var/log",
		"etc/apt",
	};
	static const char *const links[] = { "bin", "sbin", "lib" };
	char *path, *target;
	size_t i;
	int ret = 0;

	if (mkdir(root, 0755))
		return errmsg__set(err, -errno, "cannot make %s: %s", root,
				   strerror(errno));
	for (i = 0; i < ARRAY_SIZE(dirs) && !ret; i++)
		ret = mkdirs(root, dirs[i], err);
	for (i = 0; i < ARRAY_SIZE(links) && !ret; i++) {
		path = xasprintf("%s/%s", root, links[i]);
		target = xasprintf("usr/%s", links[i]);
		if (symlink(target, path))
			ret = errmsg__set(err, -errno, "cannot link %s: %s",
					  path, strerror(errno));
		free_all(path, target);
	}
	if (!ret)
		ret = labvm__write_in(root, "/var/lib/dpkg/status", 0644, "",
				      err);
	if (!ret)
		ret = labvm__write_in(root, "/var/lib/dpkg/available", 0644, "",
				      err);
	if (!ret) {
		target = xasprintf("%s\n", arch__find(r->arch)->deb);
		ret = labvm__write_in(root, "/var/lib/dpkg/arch", 0644, target,
				      err);
		free(target);
	}
	return ret;
}

/*
 * Copy everything from @in to @out until EOF. SIGPIPE, which would kill
 * us for a tar that died early, is held meanwhile: that is -EPIPE.
 */
static int copy_fd(int in, int out)
{
	static const struct timespec now;
	char *buf = xmalloc(COPY_BUF);
	sigset_t pipe, old;
	ssize_t n, w, off;
	int ret = 0;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);

	while ((n = read(in, buf, COPY_BUF)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, n - off);
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0) {
				ret = w < 0 ? -errno : -EIO;
				goto out;
			}
		}
	}
out:
	if (ret == -EPIPE)
		sigtimedwait(&pipe, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(buf);
	return ret;
}

/*
 * `dpkg-deb --fsys-tarfile DEB | tar -x`, the two spawned as argument
 * vectors and the pipe between them ours: --keep-directory-symlink
 * keeps /bin a link where a deb still ships files there.
 */
static int extract(struct labvm_build *b, const char *deb, const char *root,
		   char **err)
{
	struct spawn src = { 0 }, dst = { 0 };
	char how[96], last[256];
	int ret, copied;

	ret = spawn__argv(&src,
			  (const char *const[]){ "dpkg-deb", "--fsys-tarfile",
						 deb, NULL },
			  &(struct spawn_opts){ .flags = SPAWN_PIPE_OUT |
							 SPAWN_CAPTURE_ERR });
	if (ret)
		return errmsg__set(err, ret, "cannot run dpkg-deb: %s",
				   strerror(-ret));
	ret = spawn__argv(
		&dst,
		(const char *const[]){ "tar", "-C", root, "-x",
				       "--keep-directory-symlink", NULL },
		&(struct spawn_opts){ .flags = SPAWN_PIPE_IN | SPAWN_NULL_OUT |
					       SPAWN_CAPTURE_ERR });
	if (ret) {
		spawn__release(&src);
		return errmsg__set(err, ret, "cannot run tar: %s",
				   strerror(-ret));
	}
	copied = copy_fd(src.stdout_fd, dst.stdin_fd);
	close(dst.stdin_fd);
	dst.stdin_fd = -1;
	ret = spawn__wait(&src, EXTRACT_TIMEOUT_MS);
	if (!ret)
		ret = spawn__wait(&dst, EXTRACT_TIMEOUT_MS);
	if (src.err)
		write_all(b->log_fd, src.err, src.err_len);
	if (dst.err)
		write_all(b->log_fd, dst.err, dst.err_len);
	if (ret || copied || !spawn__succeeded(&src) || !spawn__succeeded(&dst))
		ret = errmsg__set(
			err, ret ? ret : -EIO,
			"extracting %s into %s failed: dpkg-deb %s, tar %s: %s",
			deb, root, spawn__describe(&src, how, sizeof(how)),
			spawn__succeeded(&dst) ? "ok" : "failed",
			spawn__last_line(dst.err ? dst.err : src.err, last,
					 sizeof(last)));
	spawn__release(&src);
	spawn__release(&dst);
	return ret;
}

/* The host's dpkg on the root: @from..@to of @debs, unpacked. */
static int dpkg_unpack(struct labvm_build *b, const char *root,
		       const struct labvm_debs *debs, enum labvm_deb_rank from,
		       enum labvm_deb_rank to, char **err)
{
	struct strvec a = { 0 };
	size_t i, n = 0;
	int ret;

	strvec__push(&a, "env");
	strvec__push(&a, "DEBIAN_FRONTEND=noninteractive");
	strvec__push(&a, "DEBCONF_NONINTERACTIVE_SEEN=true");
	strvec__push(&a, "LC_ALL=C.UTF-8");
	strvec__push(&a, "dpkg");
	strvec__pushf(&a, "--root=%s", root);
	/* Dependencies are the whole set's, configured in stage 2. */
	strvec__push(&a, "--force-depends");
	strvec__push(&a, "--force-unsafe-io");
	strvec__push(&a, "--no-triggers");
	strvec__pushf(&a, "--log=%s/var/log/dpkg.log", root);
	strvec__push(&a, "--unpack");
	for (i = 0; i < debs->nr; i++) {
		if (debs->v[i].rank < from || debs->v[i].rank > to)
			continue;
		strvec__push(&a, debs->v[i].file);
		n++;
	}
	ret = n ? labvm_build__run(b, strvec__argv(&a), DPKG_TIMEOUT_MS, NULL,
				   err) :
		  0;
	strvec__release(&a);
	return ret;
}

/*
 * No service starts while packages are configured (there is no init
 * to start it), and the initramfs is made once, in stage 2, after all
 * of them: dpkg's triggers would make it for each kernel package.
 */
static int hold_back(struct labvm_build *b, const char *root, char **err)
{
	char *opt = xasprintf("--root=%s", root);
	int ret;

	ret = labvm__write_in(root, "/usr/sbin/policy-rc.d", 0755,
			      "#!/bin/sh\nexit 101\n", err);
	if (!ret)
		ret = labvm_build__run(
			b,
			(const char *const[]){
				"dpkg-divert", opt, "--local", "--rename",
				"--add", "/usr/sbin/update-initramfs", NULL },
			CMD_TIMEOUT_MS, NULL, err);
	if (!ret)
		ret = labvm__write_in(
			root, "/usr/sbin/update-initramfs", 0755,
			"#!/bin/sh\n"
			"echo \"update-initramfs: diverted until stage 2\"\n",
			err);
	free(opt);
	return ret;
}

int labvm_unpack__root(struct labvm_build *b, const struct labvm_recipe *r,
		       const struct labvm_debs *debs, const char *root,
		       char **err)
{
	static const char *const mounts[] = { "proc", "sys", "dev", "run",
					      "tmp" };
	struct stat sb;
	char *path, *text;
	size_t i;
	int ret;

	ret = skeleton(r, root, err);
	/*
	 * Every deb's files first: the preinsts dpkg runs next need the
	 * loader and the libraries, which are not all essential.
	 */
	for (i = 0; i < debs->nr && !ret; i++) {
		dprintf(b->log_fd, "extracting %zu/%zu: %s\n", i + 1, debs->nr,
			debs->v[i].name);
		ret = extract(b, debs->v[i].file, root, err);
		labvm_build__tick(b);
		if (!ret && labvm_interrupted && labvm_interrupted())
			ret = errmsg__set(err, -EINTR,
					  "extracting stopped: interrupted");
	}
	if (ret)
		return ret;
	dprintf(b->log_fd, "extracted %zu debs into %s\n", debs->nr, root);
	/* The users and the tree first; then the essential set. */
	ret = dpkg_unpack(b, root, debs, LABVM_DEB_PASSWD, LABVM_DEB_FILES,
			  err);
	if (!ret)
		ret = dpkg_unpack(b, root, debs, LABVM_DEB_ESSENTIAL,
				  LABVM_DEB_ESSENTIAL, err);
	if (!ret)
		ret = dpkg_unpack(b, root, debs, LABVM_DEB_REST, LABVM_DEB_REST,
				  err);
	if (ret)
		return ret;
	/* This machine's dpkg wrote its own arch there. */
	text = xasprintf("%s\n", arch__find(r->arch)->deb);
	ret = labvm__write_in(root, "/var/lib/dpkg/arch", 0644, text, err);
	free(text);
	/*
	 * Mount points as real folders: debootstrap, on a machine with
	 * /.dockerenv, makes proc a link to /proc, which in the VM loops.
	 */
	for (i = 0; i < ARRAY_SIZE(mounts) && !ret; i++) {
		path = xasprintf("%s/%s", root, mounts[i]);
		if (!lstat(path, &sb) && !S_ISDIR(sb.st_mode))
			unlink(path);
		if ((mkdir(path, 0755) && errno != EEXIST) ||
		    (!strcmp(mounts[i], "tmp") && chmod(path, 01777)))
			ret = errmsg__set(err, -errno, "cannot make %s: %s",
					  path, strerror(errno));
		free(path);
	}
	if (!ret)
		ret = hold_back(b, root, err);
	return ret;
}
