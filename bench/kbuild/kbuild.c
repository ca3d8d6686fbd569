// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel build from start to end: the recipe checked and resolved,
 * the cache asked, and on a miss the phases run in a temporary folder
 * that becomes the cache entry only when everything succeeded. Whatever
 * fails, the worktree goes and the user's tree forgets it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "bench/kbuild/kbuild.h"
#include "cache.h"
#include "errmsg.h"
#include "clock.h"
#include "kernel-target.h"
#include "log.h"
#include "util.h"

#define CC_VERSION_MS (30 * 1000)
#define JOBS_MAX 4096

/* The recipe with every path absolute and every default filled in. */
struct resolved {
	struct kbuild_recipe r;
	const struct kbuild_arch *arch;
	char *tree, *config, **patches, **fragments;
	char *commit, *cc_version, *dir, *entry;
	char key[SHA256_HEX_SIZE];
};

static void resolved__release(struct resolved *rs)
{
	size_t i;

	for (i = 0; i < rs->r.nr_patches; i++)
		free(rs->patches[i]);
	for (i = 0; i < rs->r.nr_fragments; i++)
		free(rs->fragments[i]);
	free_all(rs->patches, rs->fragments, rs->tree, rs->config, rs->commit,
		 rs->cc_version, rs->dir, rs->entry);
}

/* @path made absolute, and it must be a @dir (or a regular file). */
static int real_path(const char *what, const char *path, bool dir, char **out,
		     char **err)
{
	struct stat sb;
	char *abs;

	abs = realpath(path, NULL);
	if (!abs || stat(abs, &sb)) {
		errmsg__set(err, 0, "%s %s: %s", what, path, strerror(errno));
		free(abs);
		return -EINVAL;
	}
	if (dir ? !S_ISDIR(sb.st_mode) : !S_ISREG(sb.st_mode)) {
		errmsg__set(err, 0, "%s %s is not a %s", what, path,
			    dir ? "folder" : "file");
		free(abs);
		return -EINVAL;
	}
	*out = abs;
	return 0;
}

static int resolve_files(char *const *in, size_t nr, const char *what,
			 char ***out, char **err)
{
	size_t i;
	int ret;

	*out = xcalloc(nr + 1, sizeof(**out));
	for (i = 0; i < nr; i++) {
		ret = real_path(what, in[i], false, &(*out)[i], err);
		if (ret)
			return ret;
	}
	return 0;
}

/* The tree, the base and the files of @in, each made absolute in @rs. */
static int check_sources(const struct kbuild_recipe *in, struct resolved *rs,
			 char **err)
{
	struct kbuild_recipe *r = &rs->r;
	char *why = NULL;
	int ret;

	if (!in->tree || !*in->tree)
		return errmsg__set(err, -EINVAL, "no kernel tree given");
	ret = real_path("the kernel tree", in->tree, true, &rs->tree, &why);
	if (ret) {
		/* The shipped configs name the one this script makes. */
		ret = errmsg__set(err, ret,
				  "%s (scripts/linux-source-tree.sh makes a "
				  "6.1 tree from Debian's linux-source-6.1)",
				  why);
		free(why);
		return ret;
	}
	r->tree = rs->tree;
	r->base = in->base ? in->base : "HEAD";
	ret = kbuild__check_revision(r->base, err);
	if (!ret)
		ret = resolve_files(in->patches, in->nr_patches, "the patch",
				    &rs->patches, err);
	if (ret)
		return ret;
	r->patches = rs->patches;
	if (in->config && !kernel_target__is_config(in->config)) {
		ret = real_path("the config", in->config, false, &rs->config,
				err);
		if (ret)
			return ret;
		r->config = rs->config;
	}
	ret = resolve_files(in->fragments, in->nr_fragments, "the fragment",
			    &rs->fragments, err);
	if (!ret)
		r->fragments = rs->fragments;
	return ret;
}

/* The arch built for, and the cross compiler another arch needs. */
static int check_target(const struct kbuild_recipe *in, struct resolved *rs,
			char **err)
{
	struct kbuild_recipe *r = &rs->r;
	const struct kbuild_arch *native;
	const struct arch *a;
	int ret;

	rs->arch = kbuild__arch(in->arch);
	if (!rs->arch)
		return errmsg__set(err, -EINVAL,
				   "unknown architecture '%s' (x86_64, x86, "
				   "i386, arm64, arm, riscv, powerpc, s390)",
				   in->arch ? in->arch : "of this machine");
	r->arch = rs->arch->name;
	if (r->cross_compile && !*r->cross_compile)
		r->cross_compile = NULL;
	ret = r->cross_compile ? kbuild__check_prefix(r->cross_compile, err) :
				 0;
	if (ret)
		return ret;
	native = kbuild__arch(NULL);
	if (r->cross_compile || !native ||
	    !strcmp(native->srcarch, rs->arch->srcarch))
		return 0;
	a = arch__find(rs->arch->name);
	return errmsg__set(err, -EINVAL,
			   "building for %s on this %s machine needs a cross "
			   "compiler: give its prefix (--cross-compile %s-, "
			   "cross_compile in a matrix)",
			   rs->arch->name, native->name,
			   a ? a->triplet : "TRIPLET");
}

static int check_recipe(const struct kbuild_recipe *in, struct resolved *rs,
			char **err)
{
	struct kbuild_recipe *r = &rs->r;
	long cpus;
	int ret;

	*r = *in;
	r->patches = NULL;
	r->fragments = NULL;
	ret = check_sources(in, rs, err);
	if (!ret)
		ret = check_target(in, rs, err);
	if (ret)
		return ret;
	if (r->workdir && r->workdir[0] != '/')
		return errmsg__set(err, -EINVAL,
				   "the build folder '%s' is not absolute",
				   r->workdir);
	if (r->jobs < 0 || r->jobs > JOBS_MAX)
		return errmsg__set(err, -EINVAL, "-j %d: expected 1..%d",
				   r->jobs, JOBS_MAX);
	if (!r->jobs) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		r->jobs = cpus > 0 ? (int)cpus : 1;
	}
	return 0;
}

/* The compiler's `--version` first line: a new compiler is a new kernel. */
static int cc_version(const struct kbuild_recipe *r, char **line, char **err)
{
	char *cc = xasprintf("%sgcc", r->cross_compile ? r->cross_compile : "");
	const char *argv[] = { cc, "--version", NULL };
	char *out = NULL, *why = NULL, *nl;
	int ret;

	ret = kbuild__capture(argv, CC_VERSION_MS, &out, &why);
	if (ret) {
		/* Debian's cross compilers are packaged as gcc-TRIPLET. */
		size_t n = r->cross_compile ? strlen(r->cross_compile) : 0;

		if (n && r->cross_compile[n - 1] == '-' &&
		    !strchr(r->cross_compile, '/'))
			errmsg__set(err, 0,
				    "no compiler %s: %s (Debian's package "
				    "gcc-%.*s has it)",
				    cc, why, (int)n - 1, r->cross_compile);
		else
			errmsg__set(err, 0, "no compiler %s: %s", cc, why);
		goto out;
	}
	nl = strchr(out, '\n');
	*line = xstrndup(out, nl ? (size_t)(nl - out) : strlen(out));
out:
	free_all(cc, out, why);
	return ret;
}

/* Everything up to the key and the entry's folder; no build yet. */
static int resolve(const struct kbuild_recipe *in, const char *cache_dir,
		   struct resolved *rs, char **err)
{
	char *cwd;
	int ret;

	ret = check_recipe(in, rs, err);
	if (ret)
		return ret;
	if (cache_dir && cache_dir[0] != '/') {
		/* git runs in the tree: a relative path would land there. */
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return errmsg__set(err, -EINVAL,
					   "cannot tell the current folder: %s",
					   strerror(errno));
		rs->dir = xasprintf("%s/%s", cwd, cache_dir);
		free(cwd);
	} else if (cache_dir) {
		rs->dir = xstrdup(cache_dir);
	} else if (kbuild__cache_dir(&rs->dir)) {
		return errmsg__set(
			err, -EINVAL,
			"no cache folder: set IOMMU_BENCH_CACHE or HOME");
	}
	ret = kbuild__resolve_base(rs->tree, rs->r.base, &rs->commit, err);
	if (ret)
		return ret;
	ret = cc_version(&rs->r, &rs->cc_version, err);
	if (ret)
		return ret;
	ret = kbuild__key(&rs->r, rs->commit, rs->cc_version, rs->key, err);
	if (ret)
		return ret;
	rs->entry = xasprintf("%s/%s%s", rs->dir, rs->key,
			      rs->r.config_only ? "-config" : "");
	return 0;
}

/*
 * The entry of @rs when the cache has it. A config-only question is
 * answered by a full build too. An entry built with options missing
 * (allowed then) fails a recipe that does not allow them.
 */
static int find(struct resolved *rs, struct kbuild_result *res, char **err)
{
	char *full = xasprintf("%s/%s", rs->dir, rs->key), *list;
	int ret;

	ret = kbuild_cache__load(rs->entry, rs->key, res, err);
	if (ret == -ENOENT && rs->r.config_only)
		ret = kbuild_cache__load(full, rs->key, res, err);
	free(full);
	if (ret)
		return ret;
	res->cached = true;
	if (res->nr_missing && !rs->r.allow_missing_config) {
		list = kbuild_missing__describe(res->missing, res->nr_missing);
		errmsg__set(err, 0,
			    "the cached build %s lacks %zu option%s from "
			    "the fragments:\n%s\n(allow it with "
			    "--allow-missing-config)",
			    res->dir, res->nr_missing,
			    res->nr_missing == 1 ? "" : "s", list);
		free(list);
		kbuild_result__release(res);
		return -EDOM;
	}
	return 0;
}

int kbuild__lookup(const struct kbuild_recipe *r, const char *cache_dir,
		   struct kbuild_result *out, char **err)
{
	struct resolved rs = { 0 };
	int ret;

	ret = resolve(r, cache_dir, &rs, err);
	if (!ret)
		ret = find(&rs, out, err);
	resolved__release(&rs);
	return ret;
}

static json_t *file_json(const char *path)
{
	char hex[SHA256_HEX_SIZE];
	uint64_t size;

	if (sha256__file(path, hex, &size))
		return json_pack("{s:s}", "file", path);
	return json_pack("{s:s, s:s}", "file", path, "sha256", hex);
}

static json_t *files_json(char *const *paths, size_t nr)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < nr; i++)
		json_array_append_new(a, file_json(paths[i]));
	return a;
}

static json_t *config_json(const struct kbuild_recipe *r)
{
	if (!r->config)
		return json_pack("{s:s}", "target", "defconfig");
	if (kernel_target__is_config(r->config))
		return json_pack("{s:s}", "target", r->config);
	return file_json(r->config);
}

static json_t *recipe_json(const struct resolved *rs)
{
	const struct kbuild_recipe *r = &rs->r;

	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:s, s:s?, s:s, s:i}",
			 "tree", r->tree, "base", r->base, "base_commit",
			 rs->commit, "patches",
			 files_json(r->patches, r->nr_patches), "config",
			 config_json(r), "fragments",
			 files_json(r->fragments, r->nr_fragments), "arch",
			 r->arch, "cross_compile", r->cross_compile, "compiler",
			 rs->cc_version, "jobs", r->jobs);
}

static json_t *missing_json(const struct kbuild_ctx *c)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < c->nr_missing; i++) {
		const struct kbuild_missing *m = &c->missing[i];

		json_array_append_new(
			a, json_pack("{s:s, s:s?, s:s?, s:s, s:s?}", "option",
				     m->option, "wanted", m->wanted, "actual",
				     m->actual, "fragment", m->fragment,
				     "reason", m->reason));
	}
	return a;
}

static int write_result(const struct resolved *rs, struct kbuild_ctx *c,
			char **err)
{
	const struct kbuild_recipe *r = &rs->r;
	json_t *phases = json_object(), *files, *meta;
	char *path, *text, stamp[32], *modules_dir = NULL;
	time_t now = time(NULL);
	struct iovec iov;
	struct tm tm;
	int i, ret;

	for (i = 0; i < KBUILD_NR_PHASES; i++)
		json_object_set_new(phases, kbuild_phase_names[i],
				    json_real(c->progress.elapsed[i]));
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime_r(&now, &tm));
	if (c->modules && !r->config_only)
		modules_dir = xasprintf("modules/lib/modules/%s", c->release);
	/* Names relative to the entry, so that a cache may move. */
	files = json_pack("{s:s?, s:s?, s:s, s:s?, s:s?, s:s}", "image",
			  r->config_only ? NULL : c->arch->image, "system_map",
			  r->config_only ? NULL : "System.map", "config",
			  "config", "modules_tar",
			  modules_dir ? "modules.tar" : NULL, "modules_dir",
			  modules_dir, "log", "build.log");
	meta = json_pack("{s:i, s:s, s:b, s:s?, s:s?, s:s, s:s, s:o, s:o, "
			 "s:o, s:o, s:f, s:s}",
			 "format", 1, "key", rs->key, "config_only",
			 r->config_only, "release", c->release, "build_id",
			 c->build_id, "arch", r->arch, "base_commit",
			 rs->commit, "files", files, "missing", missing_json(c),
			 "recipe", recipe_json(rs), "phases", phases,
			 "elapsed_s", mono_ns() / 1e9 - c->progress.start,
			 "built_at", stamp);
	text = json_dumps(meta, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					JSON_REAL_PRECISION(6));
	path = xasprintf("%s/result.json", c->out);
	iov.iov_base = text;
	iov.iov_len = strlen(text);
	ret = cache__write(path, &iov, 1, err);
	free_all(path, text, modules_dir);
	json_decref(meta);
	return ret;
}

static int open_log(struct kbuild_ctx *c, const struct resolved *rs, char **err)
{
	int ret;

	c->log_path = xasprintf("%s/build.log", c->out);
	c->log_fd = open(c->log_path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC,
			 0644);
	if (c->log_fd < 0) {
		ret = -errno;
		return errmsg__set(err, ret, "cannot create %s: %s",
				   c->log_path, strerror(-ret));
	}
	dprintf(c->log_fd,
		"iommu-bench kernel build %s\ntree %s at %s (%s)\n"
		"arch %s, cross compile %s, %s, -j%d\n",
		rs->key, rs->r.tree, rs->r.base, rs->commit, rs->r.arch,
		rs->r.cross_compile ? rs->r.cross_compile : "none",
		rs->cc_version, rs->r.jobs);
	return 0;
}

/* The phases, in the temporary folder; the caller cleans up. */
static int run_phases(struct resolved *rs, struct kbuild_ctx *c, char **err)
{
	int ret;

	c->out = xasprintf("%s/out", c->tmp);
	if (!c->kept) {
		c->src = xasprintf("%s/linux", c->tmp);
		c->obj = xasprintf("%s/build", c->tmp);
	}
	if (mkdir(c->out, 0755)) {
		ret = -errno;
		return errmsg__set(err, ret, "cannot create %s: %s", c->out,
				   strerror(-ret));
	}
	ret = open_log(c, rs, err);
	if (ret)
		return ret;
	kbuild_progress__phase(&c->progress, KBUILD_WORKTREE);
	ret = c->kept ? kbuild__worktree_checkout(c, err) :
			kbuild__worktree_add(c, err);
	if (ret)
		return ret;
	if (rs->r.nr_patches) {
		kbuild_progress__phase(&c->progress, KBUILD_PATCHES);
		ret = kbuild__apply_patches(c, err);
		if (ret)
			return ret;
	}
	ret = kbuild__configure(c, err);
	if (ret)
		return ret;
	if (!rs->r.config_only) {
		ret = kbuild__compile(c, err);
		if (ret)
			return ret;
	}
	kbuild_progress__done(&c->progress);
	return write_result(rs, c, err);
}

/* A failed make's log is worth keeping: it goes beside the entries. */
static void keep_failed_log(struct resolved *rs, struct kbuild_ctx *c,
			    char **err)
{
	char *to = xasprintf("%s/%s.failed.log", rs->dir, rs->key);

	if (!rename(c->log_path, to))
		errmsg__set(err, 0, "%s\n(the whole log: %s)", *err, to);
	free(to);
}

static void ctx__release(struct kbuild_ctx *c)
{
	if (c->log_fd >= 0)
		close(c->log_fd);
	free_all(c->tmp, c->src, c->obj, c->out, c->log_path, c->release,
		 c->build_id);
	kbuild_missing__free(c->missing, c->nr_missing);
}

/*
 * The recipe's workdir, locked for this build: its worktree (linux/)
 * and objects (build/) are this build's. -errno and *@err otherwise.
 */
static int workdir__take(struct kbuild_ctx *c, const char *workdir, int *fd,
			 char **err)
{
	char *obj = xasprintf("%s/build", workdir);
	int ret;

	ret = cache__mkdirs(obj, err);
	if (!ret)
		ret = kbuild_cache__lock(workdir, "worktree", fd, err);
	if (ret) {
		free(obj);
		return ret;
	}
	c->src = xasprintf("%s/linux", workdir);
	c->obj = obj;
	c->kept = true;
	return 0;
}

static int build_locked(struct resolved *rs, struct kbuild_result *res,
			char **err)
{
	struct kbuild_ctx c = { .r = &rs->r,
				.arch = rs->arch,
				.tree = rs->tree,
				.commit = rs->commit,
				.log_fd = -1,
				.jobs = rs->r.jobs };
	char *tmpl, *failed;
	int ret, wd_fd = -1;

	kbuild_progress__init(&c.progress);
	if (rs->r.workdir) {
		ret = workdir__take(&c, rs->r.workdir, &wd_fd, err);
		if (ret)
			goto out;
	}
	kbuild_cache__sweep(rs->dir, rs->key);
	/* The worktrees of builds that were killed are gone: forget them. */
	kbuild__worktree_prune(rs->tree);
	tmpl = xasprintf("%s/.tmp-%s-XXXXXX", rs->dir, rs->key);
	if (!mkdtemp(tmpl)) {
		ret = -errno;
		errmsg__set(err, 0, "cannot create a folder in %s: %s", rs->dir,
			    strerror(errno));
		free(tmpl);
		goto out;
	}
	chmod(tmpl, 0755);
	c.tmp = tmpl;
	pr_info("kernel build: %s at %.12s for %s, -j%d, in %s", rs->tree,
		rs->commit, rs->r.arch, rs->r.jobs, c.tmp);
	ret = run_phases(rs, &c, err);
	if (!c.kept)
		kbuild__worktree_remove(&c);
	if (ret) {
		if (c.failed_in_make && c.log_path)
			keep_failed_log(rs, &c, err);
		goto out;
	}
	ret = cache__commit(c.out, rs->entry, err);
	if (ret)
		goto out;
	failed = xasprintf("%s/%s.failed.log", rs->dir, rs->key);
	unlink(failed);
	free(failed);
	ret = kbuild_cache__load(rs->entry, rs->key, res, err);
	if (!ret)
		pr_info("kernel build: done in %.0f s: %s",
			mono_ns() / 1e9 - c.progress.start, rs->entry);
out:
	if (c.tmp)
		cache__remove(c.tmp);
	if (wd_fd >= 0)
		close(wd_fd);
	ctx__release(&c);
	return ret;
}

int kbuild__build(const struct kbuild_recipe *r, const char *cache_dir,
		  struct kbuild_result *out, char **err)
{
	struct resolved rs = { 0 };
	int ret, fd = -1;

	memset(out, 0, sizeof(*out));
	ret = resolve(r, cache_dir, &rs, err);
	if (ret)
		goto out;
	ret = find(&rs, out, err);
	if (ret != -ENOENT)
		goto out;
	ret = cache__mkdirs(rs.dir, err);
	if (!ret)
		ret = kbuild_cache__lock(rs.dir, rs.key, &fd, err);
	if (ret) {
		ret = ret == -EINVAL ? -EIO : ret;
		goto out;
	}
	/* Another build of the same kernel may have finished meanwhile. */
	ret = find(&rs, out, err);
	if (ret == -ENOENT)
		ret = build_locked(&rs, out, err);
	/* Past the recipe's checks, nothing is the user's usage error. */
	if (ret == -EINVAL)
		ret = -EIO;
out:
	if (fd >= 0)
		close(fd);
	resolved__release(&rs);
	return ret;
}
