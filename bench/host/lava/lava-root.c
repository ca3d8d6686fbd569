// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's whole root, as an initramfs part, for a device that shares
 * nothing with the controller: no 9p from our root, so whatever the agent
 * runs on must travel with the job. The testbed's /init chroots into
 * /host; this part puts there the agent for the device's arch, every
 * library it needs with the C library and loader (a lab's device has
 * none of ours), and the folders /init mounts over. iperf3 is libiperf,
 * linked into the agent; fio is not carried, since a LAVA device's VM
 * takes no disks to run it on (and Debian's fio pulls 70 MB of storage
 * libraries: ceph, gluster).
 *
 * The part is cached by a hash of what went in, so that a changed agent
 * is a new file and an unchanged one is not rebuilt per boot.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bench/agent-client/agent-bundle.h"
#include "bench/agent-client/agent-exe.h"
#include "bench/host/host.h"
#include "bench/host/lava/lava.h"
#include "cpio.h"
#include "bench/testbed/testbed.h"
#include "cache.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "strvec.h"
#include "util.h"

/* The agent's path inside the device: what iommu_bench.exe= says. */

static const char *const root_dirs[] = {
	"host",	     "host/usr",     "host/usr/bin", "host/lib",  "host/etc",
	"host/proc", "host/sys",     "host/dev",     "host/tmp",  "host/run",
	"host/var",  "host/var/tmp", "host/boot",    "host/root",
};

struct root_file {
	char *name; /* in the archive */
	char *path; /* here */
	unsigned int mode;
};

/* Every file the root holds, in a stable order: names sorted by push. */
struct root_files {
	struct root_file *v;
	size_t nr;
};

static void files_push(struct root_files *f, const char *name, const char *path,
		       unsigned int mode)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (!strcmp(f->v[i].name, name))
			return;
	f->v = xrealloc(f->v, (f->nr + 1) * sizeof(*f->v));
	f->v[f->nr].name = xstrdup(name);
	f->v[f->nr].path = xstrdup(path);
	f->v[f->nr].mode = mode;
	f->nr++;
}

static void files_release(struct root_files *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free_all(f->v[i].name, f->v[i].path);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/*
 * @exe as @name, its libraries in lib/TRIPLET (the first folder that
 * arch's loader searches) and the loader where @exe asks for it.
 */
static int add_program(const struct arch *arch, const char *exe,
		       const char *name, struct root_files *f, char **err)
{
	struct strvec libs = { 0 };
	char *interp = NULL, *s;
	size_t i;
	int ret;

	ret = agent_bundle__closure(arch, exe, &libs, &interp, err);
	if (ret)
		goto out;
	files_push(f, name, exe, 0755);
	for (i = 0; i < libs.nr; i++) {
		s = xasprintf("host/lib/%s/%s", arch->triplet,
			      strrchr(libs.v[i], '/') + 1);
		files_push(f, s, libs.v[i], 0755);
		free(s);
	}
	s = xasprintf("host%s", interp);
	if (!cpio__name_is_valid(s)) {
		ret = errmsg__set(err, -EINVAL,
				  "%s: its loader's path '%s' cannot go in "
				  "an initramfs",
				  exe, interp);
	} else {
		char *lib = xasprintf("/lib/%s%s", arch->triplet,
				      strrchr(interp, '/'));

		/* The loader's file itself is the one in lib/TRIPLET. */
		files_push(f, s, access(lib, R_OK) ? interp : lib, 0755);
		free(lib);
	}
	free(s);
out:
	strvec__release(&libs);
	free(interp);
	return ret;
}

/* The folders a file's name needs, each once, before the file. */
static int add_parents(struct cpio *c, struct strvec *made, const char *name)
{
	char *dir = xstrdup(name), *slash;
	int ret = 0;

	for (slash = strchr(dir, '/'); slash && !ret;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (!strvec__contains(made, dir)) {
			strvec__push(made, dir);
			ret = cpio__add_dir(c, dir, 0755);
		}
		*slash = '/';
	}
	free(dir);
	return ret;
}

static int write_root(const struct root_files *f, const char *path, char **err)
{
	struct strvec made = { 0 };
	struct cpio c;
	struct iovec iov;
	size_t i;
	int ret = 0;

	cpio__init(&c);
	for (i = 0; !ret && i < ARRAY_SIZE(root_dirs); i++) {
		strvec__push(&made, root_dirs[i]);
		ret = cpio__add_dir(&c, root_dirs[i],
				    strstr(root_dirs[i], "tmp") ? 01777 : 0755);
	}
	/* /init's sign that this root is the initramfs's own, not 9p's. */
	if (!ret)
		ret = cpio__add_file(&c, "host/" TESTBED_OWN_ROOT, 0644, "", 0);
	/* Bound over by /init with the guest's own machine-id. */
	if (!ret)
		ret = cpio__add_file(&c, "host/etc/machine-id", 0444, "", 0);
	for (i = 0; !ret && i < f->nr; i++) {
		ret = add_parents(&c, &made, f->v[i].name);
		if (!ret)
			ret = cpio__add_file_from(&c, f->v[i].name,
						  f->v[i].mode, f->v[i].path);
	}
	if (!ret)
		ret = cpio__finish(&c);
	if (ret) {
		errmsg__set(err, ret,
			    "cannot put the agent's root together: %s",
			    strerror(-ret));
		goto out;
	}
	iov.iov_base = c.buf;
	iov.iov_len = c.len;
	ret = cache__write(path, &iov, 1, err);
out:
	strvec__release(&made);
	cpio__release(&c);
	return ret;
}

/* The roots of agents this one replaced: 30 MB each, never fetched again. */
static void sweep(const char *dir, const struct arch *arch, const char *keep)
{
	char *pattern = xasprintf("%s/root-%s-*.cpio", dir, arch->name);
	glob_t g;
	size_t i;

	if (!glob(pattern, 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			if (strcmp(g.gl_pathv[i], keep))
				unlink(g.gl_pathv[i]);
		globfree(&g);
	}
	free(pattern);
}

int lava_root__make(const struct arch *arch, char **out, char **err)
{
	struct root_files f = { 0 };
	char sha[SHA256_HEX_SIZE], *exe = NULL, *dir = NULL, *why = NULL;
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256 key;
	struct stat sb;
	char id[17];
	size_t i;
	int ret;

	*out = NULL;
	ret = agent_exe__find(arch, &exe, &why);
	if (ret) {
		errmsg__set(err, ret, "%s", why);
		goto out;
	}
	ret = add_program(arch, exe, "host" LAVA_ROOT_AGENT, &f, err);
	if (ret)
		goto out;
	sha256__init(&key);
	for (i = 0; i < f.nr; i++) {
		ret = sha256__file(f.v[i].path, sha, NULL);
		if (ret) {
			errmsg__set(err, ret, "cannot read %s: %s", f.v[i].path,
				    strerror(-ret));
			goto out;
		}
		sha256__update(&key, f.v[i].name, strlen(f.v[i].name) + 1);
		sha256__update(&key, sha, strlen(sha));
	}
	sha256__final(&key, digest);
	for (i = 0; i < 8; i++)
		snprintf(id + 2 * i, 3, "%02x", digest[i]);
	ret = cache__dir("lava", &dir);
	if (!ret)
		ret = cache__mkdirs(dir, err);
	else
		errmsg__set(err, ret, "no cache folder for the agent's root");
	if (ret)
		goto out;
	*out = xasprintf("%s/root-%s-%s.cpio", dir, arch->name, id);
	if (!stat(*out, &sb))
		goto out;
	pr_info("lava: the agent's root for %s (%zu files): %s", arch->name,
		f.nr, *out);
	ret = write_root(&f, *out, err);
	if (!ret)
		sweep(dir, arch, *out);
out:
	if (ret) {
		free(*out);
		*out = NULL;
	}
	files_release(&f);
	free_all(exe, dir, why);
	return ret;
}
