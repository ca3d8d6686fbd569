// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent and the closure of its DT_NEEDED libraries, found as the
 * dynamic loader of that arch would find them on this machine, less the
 * C library's own (the machine has one, and a loader mixed with another
 * C library does not run).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bench/agent-client/agent-bundle.h"
#include "bench/agent-client/agent-elf.h"
#include "bench/host/host.h"
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

/* Where that arch's loader looks on a Debian machine, in its order. */
static char *find_lib(const struct arch *a, const char *soname)
{
	const char *const dirs[] = { "/lib/%s", "/usr/lib/%s", "/lib",
				     "/usr/lib" };
	size_t i;

	if (strchr(soname, '/') || !name_is_safe(soname))
		return NULL;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *dir = xasprintf(dirs[i], a->triplet);
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

static void add_sha(struct agent_bundle *b, const char *path, const char *sha)
{
	struct stat sb;

	strvec__push(&b->lib_shas, sha);
	if (!stat(path, &sb))
		b->bytes += (unsigned long long)sb.st_size;
}

int agent_bundle__make(const struct arch *arch, struct agent_bundle *b,
		       char **err)
{
	struct strvec todo = { 0 }, seen = { 0 };
	char sha[SHA256_HEX_SIZE], *name;
	struct sha256 all;
	uint8_t digest[SHA256_DIGEST_SIZE];
	char *why = NULL;
	struct stat sb;
	size_t i;
	int ret;

	memset(b, 0, sizeof(*b));
	ret = host__agent_exe(arch, &b->exe, &why);
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
	ret = elf__needed(b->exe, &todo);
	/* Breadth first: each library's own needs after it. */
	for (i = 0; !ret && i < todo.nr; i++) {
		char *path;

		name = todo.v[i];
		if (agent_bundle__is_libc(name) ||
		    strvec__contains(&seen, name))
			continue;
		strvec__push(&seen, name);
		if (seen.nr > MAX_LIBS) {
			ret = errmsg__set(err, -E2BIG,
					  "%s needs more than %d libraries",
					  b->exe, MAX_LIBS);
			break;
		}
		path = find_lib(arch, name);
		if (!path) {
			ret = errmsg__set(err, -ENOENT,
					  "the agent for %s needs %s, which "
					  "this machine lacks for %s (its "
					  "libraries for that arch are "
					  "installed by "
					  "scripts/install-deps.sh)",
					  arch->name, name, arch->deb);
			break;
		}
		ret = sha256__file(path, sha, NULL);
		if (ret) {
			errmsg__set(err, ret, "cannot read %s: %s", path,
				    strerror(-ret));
			free(path);
			break;
		}
		add_sha(b, path, sha);
		strvec__push_nodup(&b->libs, path);
		ret = elf__needed(path, &todo);
		if (ret)
			errmsg__set(err, ret,
				    "%s: not an ELF64 library we can "
				    "read",
				    path);
	}
	if (ret == -ENOEXEC && !todo.nr)
		errmsg__set(err, ret, "%s: not a dynamic ELF64 we can read",
			    b->exe);
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
	strvec__release(&todo);
	strvec__release(&seen);
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
