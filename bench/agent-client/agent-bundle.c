// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent and the closure of its DT_NEEDED libraries, found as the
 * dynamic loader of that arch would find them on this machine, less the
 * C library's own (the machine has one, and a loader mixed with another
 * C library does not run).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bench/agent-client/agent-bundle.h"
#include "bench/agent-client/agent-elf.h"
#include "bench/agent-client/agent-exe.h"
#include "errmsg.h"
#include "util.h"

#define MAX_LIBS 256

bool agent_bundle__is_libc(const char *soname)
{
	/* glibc's own objects, which come and go only together. */
	static const char *const glibc[] = {
		"libc.so.",
		"libm.so.",
		"libpthread.so.",
		"libdl.so.",
		"librt.so.",
		"libresolv.so.",
		"libutil.so.",
		"libanl.so.",
		"libmvec.so.",
		"libnss_",
		"libBrokenLocale.so.",
		"libthread_db.so.",
		"libc_malloc_debug.so.",
		"ld-linux",
		"ld64.so.",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(glibc); i++)
		if (!strncmp(soname, glibc[i], strlen(glibc[i])))
			return true;
	return false;
}

/* A library's name as a file name: libstdc++'s '+' included. */
static bool soname_is_safe(const char *soname)
{
	size_t n = strspn(soname, "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-");

	return n && !soname[n] && n <= 255 && soname[0] != '-' &&
	       soname[0] != '.';
}

/*
 * Where that arch's loader looks on a Debian machine, in its order, then
 * the RUNPATHs of what needed @soname (@runpath; NULL: none).
 */
static char *find_lib(const struct arch *a, const char *soname,
		      const struct strvec *runpath)
{
	const char *const dirs[] = { "/lib/%s", "/usr/lib/%s", "/lib",
				     "/usr/lib" };
	size_t i, nr = ARRAY_SIZE(dirs) + (runpath ? runpath->nr : 0);

	if (!soname_is_safe(soname))
		return NULL;
	for (i = 0; i < nr; i++) {
		char *dir = i < ARRAY_SIZE(dirs) ?
				    xasprintf(dirs[i], a->triplet) :
				    xstrdup(runpath->v[i - ARRAY_SIZE(dirs)]);
		char *p = xasprintf("%s/%s", dir, soname);
		char head[64];
		FILE *f;

		free(dir);
		f = fopen(p, "re");
		/* /lib and /usr/lib hold the native arch's: check it. */
		if (f && fread(head, 1, sizeof(head), f) == sizeof(head) &&
		    arch__of_elf(head, sizeof(head)) == a) {
			fclose(f);
			return p;
		}
		if (f)
			fclose(f);
		free(p);
	}
	return NULL;
}

/*
 * The closure of @exe's DT_NEEDED libraries, breadth first (each one's
 * own needs after it), paths here appended to @libs; the C library's
 * objects only when @with_libc.
 */
static int needs(const struct arch *arch, const char *exe, bool with_libc,
		 struct strvec *libs, char **err)
{
	struct strvec todo = { 0 }, seen = { 0 }, runpath = { 0 };
	size_t i;
	int ret;

	ret = elf__dynamic(exe, &todo, &runpath);
	if (ret == -ENOEXEC)
		errmsg__set(err, ret, "%s: not a dynamic ELF64 we can read",
			    exe);
	for (i = 0; !ret && i < todo.nr; i++) {
		const char *name = todo.v[i];
		char *path;

		if ((!with_libc && agent_bundle__is_libc(name)) ||
		    strvec__contains(&seen, name))
			continue;
		strvec__push(&seen, name);
		if (seen.nr > MAX_LIBS) {
			ret = errmsg__set(err, -E2BIG,
					  "%s needs more than %d libraries",
					  exe, MAX_LIBS);
			break;
		}
		path = find_lib(arch, name, &runpath);
		if (!path) {
			ret = errmsg__set(err, -ENOENT,
					  "%s for %s needs %s, which this "
					  "machine lacks for %s (its "
					  "libraries for that arch are "
					  "installed by "
					  "scripts/install-deps.sh)",
					  exe, arch->name, name, arch->deb);
			break;
		}
		ret = elf__dynamic(path, &todo, &runpath);
		if (ret)
			errmsg__set(err, ret,
				    "%s: not an ELF64 library we can read",
				    path);
		strvec__push_distinct(libs, path);
	}
	strvec__release(&todo);
	strvec__release(&seen);
	strvec__release(&runpath);
	return ret;
}

int agent_bundle__closure(const struct arch *arch, const char *exe,
			  struct strvec *libs, char **interp, char **err)
{
	char buf[256];
	int fd, ret;

	*interp = NULL;
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errmsg__set(err, -errno, "cannot read %s: %s", exe,
				   strerror(errno));
	ret = elf__interp(fd, buf, sizeof(buf));
	close(fd);
	if (ret || buf[0] != '/')
		return errmsg__set(err, -ENOEXEC,
				   "%s: no dynamic loader named in it", exe);
	ret = needs(arch, exe, true, libs, err);
	if (!ret)
		*interp = xstrdup(buf);
	return ret;
}

int agent_bundle__make(const struct arch *arch, struct agent_bundle *b,
		       char **err)
{
	char sha[SHA256_HEX_SIZE];
	struct sha256 all;
	uint8_t digest[SHA256_DIGEST_SIZE];
	char *why = NULL;
	struct stat sb;
	size_t i;
	int ret;

	memset(b, 0, sizeof(*b));
	ret = agent_exe__find(arch, &b->exe, &why);
	if (ret) {
		errmsg__set(err, ret, "%s", why);
		free(why);
		return ret;
	}
	ret = sha256__file(b->exe, b->exe_sha, NULL);
	if (ret) {
		errmsg__set(err, ret, "cannot read %s: %s", b->exe,
			    strerror(-ret));
		goto out;
	}
	if (!stat(b->exe, &sb))
		b->bytes = (unsigned long long)sb.st_size;
	ret = needs(arch, b->exe, false, &b->libs, err);
	for (i = 0; !ret && i < b->libs.nr; i++) {
		ret = sha256__file(b->libs.v[i], sha, NULL);
		if (ret) {
			errmsg__set(err, ret, "cannot read %s: %s",
				    b->libs.v[i], strerror(-ret));
			break;
		}
		strvec__push(&b->lib_shas, sha);
		if (!stat(b->libs.v[i], &sb))
			b->bytes += (unsigned long long)sb.st_size;
	}
	if (ret)
		goto out;
	sha256__init(&all);
	sha256__update(&all, b->exe_sha, strlen(b->exe_sha));
	for (i = 0; i < b->libs.nr; i++) {
		const char *base = strrchr(b->libs.v[i], '/') + 1;

		sha256__update(&all, base, strlen(base) + 1);
		sha256__update(&all, b->lib_shas.v[i],
			       strlen(b->lib_shas.v[i]));
	}
	sha256__final(&all, digest);
	for (i = 0; i < 8; i++)
		snprintf(b->id + 2 * i, 3, "%02x", digest[i]);
out:
	if (ret)
		agent_bundle__release(b);
	return ret;
}

void agent_bundle__release(struct agent_bundle *b)
{
	free(b->exe);
	strvec__release(&b->libs);
	strvec__release(&b->lib_shas);
	memset(b, 0, sizeof(*b));
}
