// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a recipe means and what identifies its output: the architecture
 * table, the names that may reach a command line, and the cache key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench/kbuild/kbuild.h"
#include "errmsg.h"
#include "kernel-target.h"
#include "util.h"

/* Bumped when the layout of an entry changes, so old entries are unused. */
#define KBUILD_KEY_VERSION "iommu-bench kernel build 1"
#define REVISION_MAX 200
#define PREFIX_MAX 200

static const struct kbuild_arch arches[] = {
	{ "x86_64", "x86", "bzImage" },	    { "x86", "x86", "bzImage" },
	{ "i386", "x86", "bzImage" },	    { "arm64", "arm64", "Image" },
	{ "arm", "arm", "zImage" },	    { "riscv", "riscv", "Image" },
	{ "powerpc", "powerpc", "zImage" }, { "s390", "s390", "bzImage" },
};

const struct kbuild_arch *kbuild__arch(const char *name)
{
	const struct arch *native;
	size_t i;

	if (!name) {
		native = arch__native();
		if (!native)
			return NULL;
		name = native->name;
	}
	for (i = 0; i < ARRAY_SIZE(arches); i++)
		if (!strcmp(name, arches[i].name))
			return &arches[i];
	return NULL;
}

static bool chars_ok(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && !strchr(extra, *s))
			return false;
	return true;
}

bool kbuild__revision_is_valid(const char *rev)
{
	return *rev && rev[0] != '-' && strlen(rev) <= REVISION_MAX &&
	       !strstr(rev, "..") && chars_ok(rev, "._/~^-");
}

bool kbuild__prefix_is_valid(const char *prefix)
{
	return *prefix && prefix[0] != '-' && strlen(prefix) <= PREFIX_MAX &&
	       chars_ok(prefix, "._/+-");
}

/* 0 when @ok; else -EINVAL, saying @s is no @what and what one holds. */
static int check(const char *s, bool ok, const char *what, const char *holds,
		 char **err)
{
	if (ok)
		return 0;
	return errmsg__set(err, -EINVAL, "'%s' is not a %s (%s)", s, what,
			   holds);
}

int kbuild__check_revision(const char *rev, char **err)
{
	return check(rev, kbuild__revision_is_valid(rev), "git revision",
		     "letters, digits, '.', '_', '/', '~', '^' and '-', not "
		     "starting with '-', no '..'",
		     err);
}

int kbuild__check_prefix(const char *prefix, char **err)
{
	return check(prefix, kbuild__prefix_is_valid(prefix),
		     "CROSS_COMPILE prefix",
		     "letters, digits, '.', '_', '/', '+' and '-', not "
		     "starting with '-'",
		     err);
}

/* "TAG SIZE\n" then the bytes: no two different inputs hash alike. */
static void hash_blob(struct sha256 *s, const char *tag, const char *data,
		      size_t len)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "%s %zu\n", tag, len);

	sha256__update(s, head, n);
	sha256__update(s, data, len);
}

static void hash_str(struct sha256 *s, const char *tag, const char *str)
{
	hash_blob(s, tag, str ? str : "", str ? strlen(str) : 0);
}

static int hash_file(struct sha256 *s, const char *tag, const char *path,
		     char **err)
{
	size_t len;
	char *buf;
	int ret;

	ret = read_file(path, &buf, &len);
	if (ret) {
		errmsg__set(err, 0, "cannot read %s: %s", path, strerror(-ret));
		return ret == -ENOENT ? -EINVAL : ret;
	}
	hash_blob(s, tag, buf, len);
	free(buf);
	return 0;
}

int kbuild__key(const struct kbuild_recipe *r, const char *base_commit,
		const char *cc_version, char key[SHA256_HEX_SIZE], char **err)
{
	const struct kbuild_arch *arch = kbuild__arch(r->arch);
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256 s;
	size_t i;
	int ret;

	if (!arch)
		return errmsg__set(err, -EINVAL, "unknown architecture '%s'",
				   r->arch ? r->arch : "(this machine's)");
	sha256__init(&s);
	hash_str(&s, "version", KBUILD_KEY_VERSION);
	hash_str(&s, "base", base_commit);
	for (i = 0; i < r->nr_patches; i++) {
		ret = hash_file(&s, "patch", r->patches[i], err);
		if (ret)
			return ret;
	}
	if (!r->config || kernel_target__is_config(r->config)) {
		hash_str(&s, "config-target",
			 r->config ? r->config : "defconfig");
	} else {
		ret = hash_file(&s, "config-file", r->config, err);
		if (ret)
			return ret;
	}
	for (i = 0; i < r->nr_fragments; i++) {
		ret = hash_file(&s, "fragment", r->fragments[i], err);
		if (ret)
			return ret;
	}
	hash_str(&s, "arch", arch->name);
	hash_str(&s, "cross", r->cross_compile);
	hash_str(&s, "cc", cc_version);
	sha256__final(&s, digest);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(key + 2 * i, 3, "%02x", digest[i]);
	return 0;
}
