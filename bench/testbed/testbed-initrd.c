// SPDX-License-Identifier: GPL-2.0-only
/*
 * The testbed's initramfs: a base (busybox and /init) shared by every
 * kernel, followed by an archive of that kernel's modules. Linux unpacks
 * concatenated cpio archives in order, so a kernel's initramfs is the
 * two sets of bytes back to back, and a changed /init rebuilds only the
 * small part that every kernel shares.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpio.h"
#include "arch.h"
#include "bench/testbed/testbed.h"
#include "cache.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "subprocess.h"
#include "util.h"

/* Hex digits of a content hash in a cache file name: 64 bits is plenty. */
#define KEY_LEN 16
#define DECOMPRESS_TIMEOUT_MS (120 * 1000)

/* virtio_console carries the agent's port, 9p the controller's root. */
const char *const testbed_modules[] = {
	"virtio_pci",	"virtio_net", "virtio_console",
	"9pnet_virtio", "9p",	      NULL,
};

/* One line of modules.dep: a module and what it needs. */
struct moddep {
	char *path; /* relative to the modules folder */
	char *name; /* "virtio_net": the file's name, '-' read as '_' */
	struct strvec deps;
	int state; /* 0 unseen, 1 on the current path, 2 ordered */
};

struct moddeps {
	struct moddep *v;
	size_t nr, alloc;
	struct strvec builtin; /* names of the modules built into the kernel */
};

/* The ".ko" of a module's file name, before any ".xz"; NULL: none. */
static const char *find_ko(const char *base)
{
	const char *ko = strstr(base, ".ko");

	while (ko && ko[3] && ko[3] != '.')
		ko = strstr(ko + 1, ".ko");
	return ko;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The module name of a path: "kernel/fs/9p/9p.ko.xz" is "9p". */
static char *module_name(const char *path)
{
	const char *base = basename_of(path), *ko = find_ko(base);
	char *name, *p;

	name = ko ? xstrndup(base, ko - base) : xstrdup(base);
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/* "kernel/fs/9p/9p.ko.xz" is "9p.ko" in the initramfs; NULL: no ".ko". */
static char *module_file(const char *path)
{
	const char *base = basename_of(path), *ko = find_ko(base);

	return ko && ko > base ? xstrndup(base, ko + 3 - base) : NULL;
}

static void moddeps__release(struct moddeps *md)
{
	size_t i;

	for (i = 0; i < md->nr; i++) {
		free_all(md->v[i].path, md->v[i].name);
		strvec__release(&md->v[i].deps);
	}
	free(md->v);
	strvec__release(&md->builtin);
}

/* A path from modules.dep may become a file name in the initramfs. */
static bool module_path_is_valid(const char *path)
{
	char *file;
	bool ok;

	if (!cpio__name_is_valid(path))
		return false;
	file = module_file(path);
	ok = file;
	free(file);
	return ok;
}

static int moddeps__parse(struct moddeps *md, const char *dir, char **err)
{
	char *path, *text = NULL, *line, *save = NULL, *colon, *tok, *tsave;
	struct moddep *m;
	size_t len;
	int ret;

	path = xasprintf("%s/modules.dep", dir);
	ret = read_file(path, &text, &len);
	if (ret == -ENOENT)
		errmsg__set(err, 0, "no %s (run depmod for this kernel)", path);
	else if (ret)
		errmsg__set(err, 0, "cannot read %s: %s", path, strerror(-ret));
	if (ret)
		goto out;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon) {
			ret = -EINVAL;
			errmsg__set(err, 0, "%s: a line without ':': %.80s",
				    path, line);
			goto out;
		}
		*colon = '\0';
		if (!module_path_is_valid(line)) {
			ret = -EINVAL;
			errmsg__set(err, 0,
				    "%s: '%.80s' is not a module path "
				    "inside its folder",
				    path, line);
			goto out;
		}
		ALLOC_GROW(md->v, md->nr + 1, md->alloc);
		m = &md->v[md->nr++];
		memset(m, 0, sizeof(*m));
		m->path = xstrdup(line);
		m->name = module_name(line);
		for (tok = strtok_r(colon + 1, " \t", &tsave); tok;
		     tok = strtok_r(NULL, " \t", &tsave)) {
			strvec__push(&m->deps, tok);
		}
	}
	free(text);
	text = NULL;
	free(path);

	/* Optional: a kernel without it simply builds nothing in we need. */
	path = xasprintf("%s/modules.builtin", dir);
	if (read_file(path, &text, &len))
		goto out;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		strvec__push_nodup(&md->builtin, module_name(line));
	}
out:
	free(text);
	free(path);
	return ret;
}

static struct moddep *moddeps__by_path(struct moddeps *md, const char *path)
{
	return TABLE_FIND(md->v, md->nr, path, path);
}

static struct moddep *moddeps__by_name(struct moddeps *md, const char *name)
{
	return TABLE_FIND(md->v, md->nr, name, name);
}

static bool moddeps__is_builtin(const struct moddeps *md, const char *name)
{
	return strvec__contains(&md->builtin, name);
}

/*
 * Depth first, dependencies before their users. depmod lists a module's
 * dependencies so that the last must load first; walking them backwards
 * keeps modprobe's order, and the recursion makes any order correct.
 */
static int moddeps__visit(struct moddeps *md, const char *dir, struct moddep *m,
			  struct strvec *out, char **err)
{
	struct moddep *d;
	size_t i;
	int ret;

	if (m->state == 2)
		return 0;
	if (m->state == 1)
		return errmsg__set(err, -ELOOP,
				   "%s/modules.dep: %s depends on itself", dir,
				   m->path);
	m->state = 1;
	for (i = m->deps.nr; i-- > 0;) {
		d = moddeps__by_path(md, m->deps.v[i]);
		if (!d)
			return errmsg__set(err, -ENOENT,
					   "%s/modules.dep: %s needs %s, "
					   "which has no line of its own",
					   dir, m->path, m->deps.v[i]);
		ret = moddeps__visit(md, dir, d, out, err);
		if (ret)
			return ret;
	}
	m->state = 2;
	strvec__push(out, m->path);
	return 0;
}

int testbed__module_order(const char *modules_dir, const char *const *wanted,
			  struct strvec *paths, char **err)
{
	struct moddeps md = { 0 };
	struct strvec out = { 0 };
	struct moddep *m;
	char *name;
	size_t i;
	int ret;

	ret = moddeps__parse(&md, modules_dir, err);
	if (ret)
		goto out;
	for (i = 0; wanted[i]; i++) {
		name = module_name(wanted[i]);
		m = moddeps__by_name(&md, name);
		if (!m && moddeps__is_builtin(&md, name)) {
			pr_debug("testbed: %s is built into the kernel", name);
		} else if (!m) {
			ret = -ENOENT;
			errmsg__set(err, 0,
				    "the module %s is neither in "
				    "%s/modules.dep nor built in "
				    "(modules.builtin)",
				    name, modules_dir);
		} else {
			ret = moddeps__visit(&md, modules_dir, m, &out, err);
		}
		free(name);
		if (ret)
			goto out;
	}
	*paths = out;
	out = (struct strvec){ 0 };
out:
	strvec__release(&out);
	moddeps__release(&md);
	return ret;
}

/*
 * The initramfs has no dynamic loader nor libraries: Debian's plain
 * busybox package installs a dynamically linked /bin/busybox, its
 * busybox-static package a static one. A static ELF has no PT_INTERP.
 */
static bool elf_is_static(const char *data, size_t len)
{
	size_t i, phoff, phnum, phentsize, phsize;
	uint32_t type;

	if (len < EI_NIDENT || memcmp(data, ELFMAG, SELFMAG))
		return false;
	if (data[EI_CLASS] == ELFCLASS64 && len >= sizeof(Elf64_Ehdr)) {
		const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;

		phoff = eh->e_phoff;
		phnum = eh->e_phnum;
		phentsize = eh->e_phentsize;
		phsize = sizeof(Elf64_Phdr);
	} else if (data[EI_CLASS] == ELFCLASS32 && len >= sizeof(Elf32_Ehdr)) {
		const Elf32_Ehdr *eh = (const Elf32_Ehdr *)data;

		phoff = eh->e_phoff;
		phnum = eh->e_phnum;
		phentsize = eh->e_phentsize;
		phsize = sizeof(Elf32_Phdr);
	} else {
		return false;
	}
	if (phentsize < phsize)
		return false;
	for (i = 0; i < phnum; i++) {
		if (phoff + (i + 1) * phentsize > len)
			return false;
		/* p_type leads a program header of either class. */
		memcpy(&type, data + phoff + i * phentsize, sizeof(type));
		if (type == PT_INTERP)
			return false;
	}
	return true;
}

/* The base archive in @c, and its content hash in @key. */
static int base__build(struct cpio *c, const struct arch *arch,
		       char key[SHA256_HEX_SIZE], char **err)
{
	/* Mount points of /init, and what busybox --install fills. */
	static const char *const dirs[] = {
		"bin",	       "boot", "dev",  "etc", "host", "lib",
		"lib/modules", "proc", "root", "run", "sys",  "tmp",
	};
	const struct arch *found;
	char *busybox = NULL, *path = NULL;
	size_t len, i;
	int ret;

	ret = testbed__busybox(arch, &path, err);
	if (ret)
		return ret;
	ret = read_file(path, &busybox, &len);
	if (ret == -ENOENT) {
		errmsg__set(err, 0,
			    "no %s: install the package busybox-static "
			    "(the guest's initramfs is built around it)",
			    path);
		goto out;
	}
	if (ret) {
		errmsg__set(err, 0, "cannot read %s: %s", path, strerror(-ret));
		goto out;
	}
	if (!elf_is_static(busybox, len)) {
		ret = errmsg__set(err, -ENOEXEC,
				  "%s is not a static executable, and the "
				  "initramfs has no libraries: install the "
				  "package busybox-static",
				  path);
		goto out;
	}
	found = arch__of_elf(busybox, len);
	if (arch && found != arch) {
		ret = errmsg__set(err, -ENOEXEC,
				  "%s is %s busybox, not the %s one the guest "
				  "needs",
				  path,
				  found ? found->name : "an unknown arch's",
				  arch->name);
		goto out;
	}
	cpio__init(c);
	for (i = 0; i < ARRAY_SIZE(dirs) && !ret; i++)
		ret = cpio__add_dir(c, dirs[i],
				    !strcmp(dirs[i], "tmp") ? 01777 : 0755);
	if (!ret)
		ret = cpio__add_file(c, "bin/busybox", 0755, busybox, len);
	if (!ret)
		ret = cpio__add_symlink(c, "bin/sh", "busybox");
	if (!ret)
		ret = cpio__add_file(c, "init", 0755, testbed_init_script,
				     strlen(testbed_init_script));
	if (!ret)
		ret = cpio__finish(c);
	if (ret) {
		errmsg__set(err, 0, "cannot build the initramfs base: %s",
			    strerror(-ret));
		goto out;
	}
	/* The archive is a pure function of its inputs (mtime 0). */
	sha256__hex(c->buf, c->len, key);
out:
	free(busybox);
	free(path);
	return ret;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A module as busybox insmod takes it: uncompressed. */
static int module__read(const char *path, char **data, size_t *len, char **err)
{
	struct spawn_opts opts = {
		.flags = SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR,
		.max_capture = 1u << 30,
		.pdeathsig = SIGKILL,
	};
	const char *argv[] = { NULL, "-dc", "--", path, NULL };
	char how[96], last[256];
	struct spawn sp;
	int ret;

	if (ends_with(path, ".ko")) {
		ret = read_file(path, data, len);
		if (ret)
			errmsg__set(err, 0, "cannot read %s: %s", path,
				    strerror(-ret));
		return ret;
	}
	if (ends_with(path, ".ko.xz"))
		argv[0] = "xz";
	else if (ends_with(path, ".ko.zst"))
		argv[0] = "zstd";
	else if (ends_with(path, ".ko.gz"))
		argv[0] = "gzip";
	if (!argv[0])
		return errmsg__set(err, -ENOTSUP,
				   "%s: a module compressed in a way this tool "
				   "does not know",
				   path);
	ret = spawn__run(&sp, argv, &opts, DECOMPRESS_TIMEOUT_MS);
	if (ret) {
		errmsg__set(err, 0, "cannot run %s to decompress %s: %s%s",
			    argv[0], path, strerror(-ret),
			    ret == -ENOENT ? " (install xz-utils, zstd "
					     "and gzip)" :
					     "");
		goto out;
	}
	if (!spawn__succeeded(&sp) || sp.truncated) {
		ret = -EIO;
		errmsg__set(err, 0, "%s -dc %s failed (%s): %s", argv[0], path,
			    spawn__describe(&sp, how, sizeof(how)),
			    spawn__last_line(sp.err, last, sizeof(last)));
		goto out;
	}
	*data = sp.out ? sp.out : xstrdup("");
	*len = sp.out_len;
	sp.out = NULL;
out:
	spawn__release(&sp);
	return ret;
}

/*
 * What a kernel adds to the base: lib/modules/NAME.ko each and
 * /modules.load listing them in order, and its config as
 * boot/config-RELEASE (@config: NULL when there is none).
 */
static int kernel_part__build(struct cpio *c, const char *dir, char **paths,
			      const char *config, const char *release,
			      char **err)
{
	char *path, *load = NULL, *data = NULL, *p;
	struct strvec files = { 0 };
	size_t i, j, len;
	int ret = 0;

	for (i = 0; paths && paths[i]; i++) {
		p = module_file(paths[i]);
		for (j = 0; j < files.nr; j++)
			if (!strcmp(files.v[j], p))
				break;
		/* One module per name in a kernel, so one file per name here. */
		if (j < files.nr) {
			errmsg__set(err, 0,
				    "%s/modules.dep: two modules named %s", dir,
				    p);
			free(p);
			ret = -EEXIST;
			goto out;
		}
		strvec__push(&files, p);
		free(p);
		p = load;
		load = xasprintf("%s%s\n", p ? p : "", files.v[i]);
		free(p);
	}
	cpio__init(c);
	for (i = 0; i < files.nr; i++) {
		path = xasprintf("%s/%s", dir, paths[i]);
		ret = module__read(path, &data, &len, err);
		free(path);
		if (ret)
			goto out;
		path = xasprintf("lib/modules/%s", files.v[i]);
		ret = cpio__add_file(c, path, 0644, data, len);
		free(path);
		free(data);
		if (ret)
			goto fail;
	}
	if (load)
		ret = cpio__add_file(c, "modules.load", 0644, load,
				     strlen(load));
	if (!ret && config) {
		path = xasprintf("boot/config-%s", release);
		ret = cpio__add_file_from(c, path, 0644, config);
		free(path);
	}
	if (!ret)
		ret = cpio__finish(c);
fail:
	if (ret)
		errmsg__set(err, 0, "cannot build the initramfs part of %s: %s",
			    release, strerror(-ret));
out:
	strvec__release(&files);
	free(load);
	return ret;
}

/* What a kernel's part is cached by: the base, each module, the config. */
static int initrd__key(const char *base_key, const char *release,
		       const char *dir, char **paths, const char *config,
		       char key[SHA256_HEX_SIZE], char **err)
{
	char hex[SHA256_HEX_SIZE], *text, *path, *p;
	uint64_t size;
	size_t i;
	int ret = 0;

	text = xasprintf("iommu-bench testbed initrd 1\n%s\n%s\n", base_key,
			 release);
	for (i = 0; (paths && paths[i]) || config; i++) {
		bool last = !paths || !paths[i];

		path = last ? xstrdup(config) :
			      xasprintf("%s/%s", dir, paths[i]);
		ret = sha256__file(path, hex, &size);
		if (ret) {
			errmsg__set(err, 0, "cannot read %s: %s", path,
				    strerror(-ret));
			free(path);
			break;
		}
		free(path);
		p = text;
		text = xasprintf("%s%s %s\n", p, last ? "config" : paths[i],
				 hex);
		free(p);
		if (last)
			break;
	}
	if (!ret)
		sha256__hex(text, strlen(text), key);
	free(text);
	return ret;
}

/* Write @iov at @path, under the cache's lock, unless someone just did. */
static int cache__put(const char *cache, const char *path,
		      const struct iovec *iov, int iovcnt, bool force,
		      char **err)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int lock = -1, ret;

	*slash = '\0';
	ret = testbed_cache__lock(cache, &lock, err);
	if (ret)
		goto out;
	if (!force && cache__has_file(path))
		goto out;
	ret = cache__mkdirs(dir, err);
	if (!ret)
		ret = cache__write(path, iov, iovcnt, err);
out:
	cache__unlock(lock);
	free(dir);
	return ret;
}

/* The base (busybox, /init) in the cache: *@path, built when it lacks it. */
static int base_get(const char *cache, const struct arch *arch, bool force,
		    struct cpio *base, char *key, char **path, bool *cached,
		    char **err)
{
	struct iovec iov;
	int ret;

	ret = base__build(base, arch ? arch : arch__native(), key, err);
	if (ret)
		return ret;
	*path = xasprintf("%s/base/base-%.*s.cpio", cache, KEY_LEN, key);
	*cached = !force && cache__has_file(*path);
	if (*cached)
		return 0;
	pr_info("testbed: building the initramfs base (%s busybox, /init)",
		arch ? arch->name : "this machine's");
	iov = (struct iovec){ base->buf, base->len };
	return cache__put(cache, *path, &iov, 1, force, err);
}

/* The testbed's modules and @extra, in the order they load. */
static int modules_wanted(const char *modules_dir, const char *const *extra,
			  struct strvec *order, char **err)
{
	struct strvec wanted = { 0 };
	int ret;

	for (size_t i = 0; testbed_modules[i]; i++)
		strvec__push(&wanted, testbed_modules[i]);
	for (size_t i = 0; extra && extra[i]; i++)
		if (!strvec__contains(&wanted, extra[i]))
			strvec__push(&wanted, extra[i]);
	ret = testbed__module_order(modules_dir, (const char *const *)wanted.v,
				    order, err);
	strvec__release(&wanted);
	return ret;
}

int testbed__initrd_get(const struct arch *arch, const char *modules_dir,
			const char *const *extra, const char *config,
			const char *release, bool force, char **initrd,
			bool *cached, char **err)
{
	char base_key[SHA256_HEX_SIZE], key[SHA256_HEX_SIZE];
	struct cpio base, part;
	char *cache = NULL, *base_path = NULL, *path = NULL;
	struct strvec order = { 0 };
	bool base_cached;
	struct iovec iov[2];
	int ret;

	errmsg__reset(err);
	cpio__init(&base);
	cpio__init(&part);
	if ((modules_dir || config) &&
	    (!release || !testbed__release_is_valid(release)))
		return errmsg__set(err, -EINVAL, "'%s' is not a kernel release",
				   release ? release : "(none)");
	ret = cache__dir(TESTBED_CACHE_SUB, &cache);
	if (ret)
		return errmsg__set(err, ret,
				   "no cache folder: set IOMMU_BENCH_CACHE or "
				   "HOME");
	ret = base_get(cache, arch, force, &base, base_key, &base_path,
		       &base_cached, err);
	if (ret)
		goto out;
	if (cached)
		*cached = base_cached;
	if (modules_dir) {
		ret = modules_wanted(modules_dir, extra, &order, err);
		if (ret)
			goto out;
	}
	/* Every driver built in: no modules to load. */
	if (!order.nr && !config) {
		*initrd = base_path;
		base_path = NULL;
		goto out;
	}
	ret = initrd__key(base_key, release, modules_dir, order.v, config, key,
			  err);
	if (ret)
		goto out;
	path = xasprintf("%s/initrd/initrd-%s-%.*s.cpio", cache, release,
			 KEY_LEN, key);
	if (force || !cache__has_file(path)) {
		if (cached)
			*cached = false;
		pr_info("testbed: building the initramfs for %s", release);
		ret = kernel_part__build(&part, modules_dir, order.v, config,
					 release, err);
		if (ret)
			goto out;
		iov[0] = (struct iovec){ base.buf, base.len };
		iov[1] = (struct iovec){ part.buf, part.len };
		ret = cache__put(cache, path, iov, 2, force, err);
		if (ret)
			goto out;
	}
	*initrd = path;
	path = NULL;
out:
	strvec__release(&order);
	cpio__release(&base);
	cpio__release(&part);
	free_all(path, base_path, cache);
	return ret;
}

int testbed__initrd(const struct arch *arch, const char *modules_dir,
		    const char *release, char **initrd, char **err)
{
	return testbed__initrd_get(arch, modules_dir, NULL, NULL, release,
				   false, initrd, NULL, err);
}
