// SPDX-License-Identifier: GPL-2.0-only
/*
 * [[kernels]]: the booted one, prebuilt images, or recipes that
 * `iommu-bench kernel build` turns into images.
 */
#include <stdlib.h>
#include <string.h>

#include "debian-suite.h"
#include "kernel-target.h"
#include "matrix-priv.h"
#include "util.h"

static const char *const kind_names[] = {
	[KERNEL_RUNNING] = "running",
	[KERNEL_IMAGE] = "image",
	[KERNEL_BUILD] = "build",
	[KERNEL_PACKAGE] = "package",
};

/* The kernel's own ARCH= names. */
static const char *const arch_names[] = { "x86_64", "x86",     "arm64", "arm",
					  "riscv",  "powerpc", "s390",	NULL };

const char *kernel_kind__name(enum kernel_kind k)
{
	return kind_names[k];
}

void matrix_kernel__release(struct matrix_kernel *k)
{
	struct matrix_build *b = &k->build;

	free_all(k->name, k->description, k->image, k->initrd);
	strv_free(k->cmdline, k->nr_cmdline);
	free_all(k->release, k->package, k->suite, k->modules_dir, k->build_id,
		 k->built_config, k->modules_tar, k->recipe, k->fetched,
		 k->version, b->tree, b->base);
	strv_free(b->patches, b->nr_patches);
	free(b->config);
	strv_free(b->fragments, b->nr_fragments);
	free(b->arch);
	free(b->cross_compile);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static char **dup_strv(char *const *v, size_t n)
{
	char **d = n ? xcalloc(n + 1, sizeof(*d)) : NULL;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = xstrdup(v[i]);
	return d;
}

void matrix_kernel__dup(const struct matrix_kernel *k, struct matrix_kernel *d)
{
	const struct matrix_build *b = &k->build;

	*d = *k;
	d->name = dup_or_null(k->name);
	d->description = dup_or_null(k->description);
	d->image = dup_or_null(k->image);
	d->initrd = dup_or_null(k->initrd);
	d->cmdline = dup_strv(k->cmdline, k->nr_cmdline);
	d->release = dup_or_null(k->release);
	d->package = dup_or_null(k->package);
	d->suite = dup_or_null(k->suite);
	d->modules_dir = dup_or_null(k->modules_dir);
	d->build_id = dup_or_null(k->build_id);
	d->built_config = dup_or_null(k->built_config);
	d->modules_tar = dup_or_null(k->modules_tar);
	d->recipe = dup_or_null(k->recipe);
	d->fetched = dup_or_null(k->fetched);
	d->version = dup_or_null(k->version);
	d->build.tree = dup_or_null(b->tree);
	d->build.base = dup_or_null(b->base);
	d->build.patches = dup_strv(b->patches, b->nr_patches);
	d->build.config = dup_or_null(b->config);
	d->build.fragments = dup_strv(b->fragments, b->nr_fragments);
	d->build.arch = dup_or_null(b->arch);
	d->build.cross_compile = dup_or_null(b->cross_compile);
}

static void parse_arch(struct mx *mx, struct matrix_build *b,
		       const struct toml_value *tab)
{
	const struct toml_value *v = toml_table__get(tab, "arch");
	int idx;

	/* The toolchain's names are not the kernel's; say which is meant. */
	if (v && v->type == TOML_STRING && !strcmp(v->u.str.ptr, "aarch64")) {
		mx_err(mx, v->pos, "arch: the kernel calls aarch64 'arm64'");
		return;
	}
	if (v && v->type == TOML_STRING && !strcmp(v->u.str.ptr, "amd64")) {
		mx_err(mx, v->pos, "arch: the kernel calls amd64 'x86_64'");
		return;
	}
	if (mx_enum(mx, tab, "arch", arch_names, &idx) > 0)
		b->arch = xstrdup(arch_names[idx]);
}

static void parse_build(struct mx *mx, struct matrix_kernel *k,
			const struct toml_value *tab)
{
	static const char *const keys[] = { "tree",	     "base",
					    "patches",	     "config",
					    "fragments",     "arch",
					    "cross_compile", NULL };
	struct matrix_build *b = &k->build;
	char where[96];

	if (!mx_is(mx, tab, TOML_TABLE, "build"))
		return;
	snprintf(where, sizeof(where), "the build of kernel '%s'", k->name);
	mx_check_keys(mx, tab, keys, where);
	if (!mx_string(mx, tab, "tree", MX_PATH, &b->tree) &&
	    !toml_table__get(tab, "tree"))
		mx_err(mx, tab->pos,
		       "missing key 'tree' in %s (the kernel "
		       "source tree to build from)",
		       where);
	mx_string(mx, tab, "base", MX_REVISION, &b->base);
	mx_strings(mx, tab, "patches", MX_PATH, &b->patches, &b->nr_patches);
	/* A make target (defconfig, tinyconfig...) is a word, not a path. */
	{
		const struct toml_value *c = toml_table__get(tab, "config");

		if (c && c->type == TOML_STRING &&
		    kernel_target__is_config(c->u.str.ptr))
			mx_string(mx, tab, "config", MX_NAME, &b->config);
		else
			mx_string(mx, tab, "config", MX_PATH, &b->config);
	}
	mx_strings(mx, tab, "fragments", MX_PATH, &b->fragments,
		   &b->nr_fragments);
	parse_arch(mx, b, tab);
	mx_string(mx, tab, "cross_compile", MX_PREFIX, &b->cross_compile);
}

/*
 * A Debian kernel package, which the testbed downloads and unpacks.
 * Debian names them linux-image-RELEASE, so the release to verify after
 * boot comes with the name.
 */
static void parse_package(struct mx *mx, struct matrix_kernel *k,
			  const struct toml_value *tab)
{
	static const char prefix[] = "linux-image-";
	const struct toml_value *v = toml_table__get(tab, "package");
	const char *rel;

	/* Debian's names take '+' ("6.12.117+deb12"): checked below. */
	if (mx_text(mx, tab, "package", &k->package) <= 0)
		return;
	rel = k->package + strlen(prefix);
	if (strncmp(k->package, prefix, strlen(prefix)) || !*rel ||
	    strspn(rel, "abcdefghijklmnopqrstuvwxyz0123456789.+-") !=
		    strlen(rel) ||
	    strlen(k->package) > 100) {
		mx_err(mx, v->pos,
		       "package: '%s' is not a Debian kernel image package "
		       "(expected a name like 'linux-image-6.1.0-57-amd64')",
		       k->package);
		return;
	}
	/* A meta-package ("linux-image-amd64") boots what it resolves to. */
	if (!k->release && !(k->suite && *rel >= 'a' && *rel <= 'z'))
		k->release = xstrdup(rel);
}

/*
 * The Debian suite a package comes from, fetched through the testbed's
 * own apt configuration. A name close to a known suite is a typo; one
 * far from all may be newer than the table and is left to the archive.
 */
static void parse_suite(struct mx *mx, struct matrix_kernel *k,
			const struct toml_value *tab)
{
	const struct toml_value *v = toml_table__get(tab, "suite");
	const char *near;

	if (mx_text(mx, tab, "suite", &k->suite) <= 0)
		return;
	if (!debian_suite__is_valid(k->suite)) {
		mx_err(mx, v->pos,
		       "suite: '%s' is not a Debian suite name ([a-z0-9-], "
		       "starting with a letter, such as 'trixie-backports')",
		       k->suite);
	} else if ((near = debian_suite__suggest(k->suite))) {
		mx_err(mx, v->pos,
		       "suite: unknown suite '%s' (did you mean '%s'?)",
		       k->suite, near);
	} else if (!toml_table__get(tab, "package")) {
		mx_err(mx, v->pos,
		       "suite: kernel '%s' has no package to fetch from "
		       "suite '%s'",
		       k->name, k->suite);
		return;
	} else {
		return;
	}
	free(k->suite);
	k->suite = NULL;
}

static void parse_kernel(struct mx *mx, struct matrix_kernel *k,
			 const struct toml_value *tab)
{
	static const char *const keys[] = { "name",   "description", "image",
					    "initrd", "cmdline",     "release",
					    "build",  "package",     "suite",
					    "keep",   NULL };
	const struct toml_value *build = toml_table__get(tab, "build");
	char where[96];

	snprintf(where, sizeof(where), "kernel '%s'", k->name);
	mx_check_keys(mx, tab, keys, where);
	mx_text(mx, tab, "description", &k->description);
	mx_string(mx, tab, "image", MX_PATH, &k->image);
	mx_string(mx, tab, "initrd", MX_PATH, &k->initrd);
	mx_strings(mx, tab, "cmdline", MX_KARG, &k->cmdline, &k->nr_cmdline);
	mx_string(mx, tab, "release", MX_RELEASE, &k->release);
	if (build)
		parse_build(mx, k, build);

	parse_suite(mx, k, tab);
	if (toml_table__get(tab, "package"))
		parse_package(mx, k, tab);
	mx_bool(mx, tab, "keep", &k->keep);
	if (k->keep && !toml_table__get(tab, "package"))
		mx_err(mx, mx_val_pos(tab, "keep", k->pos),
		       "keep: kernel '%s' is no package; only a package "
		       "installed on a lab machine is removed after the run",
		       k->name);
	if (!!toml_table__get(tab, "image") + !!build +
		    !!toml_table__get(tab, "package") >
	    1) {
		mx_err(mx,
		       build ? build->pos : mx_key_pos(tab, "package", k->pos),
		       "kernel '%s' has more than one of image, build and "
		       "package; give one",
		       k->name);
		return;
	}
	k->kind = toml_table__get(tab, "image")	  ? KERNEL_IMAGE :
		  build				  ? KERNEL_BUILD :
		  toml_table__get(tab, "package") ? KERNEL_PACKAGE :
						    KERNEL_RUNNING;
	if (k->kind == KERNEL_RUNNING &&
	    (toml_table__get(tab, "initrd") || toml_table__get(tab, "cmdline")))
		mx_err(mx,
		       mx_key_pos(tab, "initrd",
				  mx_key_pos(tab, "cmdline", k->pos)),
		       "kernel '%s' has no image, so it is the running kernel, "
		       "booted as it is; initrd and cmdline need an image",
		       k->name);
	/* Sent with the build, it would have to match its modules: the
	 * host's generator (or the testbed) makes one that does. */
	if (k->kind == KERNEL_BUILD && toml_table__get(tab, "initrd"))
		mx_err(mx, mx_key_pos(tab, "initrd", k->pos),
		       "kernel '%s' is a build: its initrd is made for it on "
		       "the host (mkinitramfs, dracut) or by the testbed; "
		       "leave initrd out",
		       k->name);
	if (k->kind != KERNEL_RUNNING && !strcmp(k->name, "running"))
		mx_err(mx, mx_key_pos(tab, "name", k->pos),
		       "'running' names the kernel booted now; give a kernel "
		       "with an image or build another name");
}

static void implicit_running(struct matrix *m)
{
	m->kernels = xcalloc(1, sizeof(*m->kernels));
	m->kernels[0].name = xstrdup("running");
	m->kernels[0].kind = KERNEL_RUNNING;
	m->nr_kernels = 1;
}

static void check_unique(struct mx *mx)
{
	struct matrix *m = mx->m;
	size_t i, j;

	for (i = 0; i < m->nr_kernels; i++) {
		for (j = 0; j < i; j++) {
			struct matrix_kernel *a = &m->kernels[j],
					     *b = &m->kernels[i];

			if (!strcmp(a->name, b->name)) {
				mx_err(mx, mx_val_pos(b->src, "name", b->pos),
				       "duplicate kernel name '%s'", b->name);
				mx_note(mx, mx_val_pos(a->src, "name", a->pos),
					"kernel '%s' is first defined here",
					a->name);
				break;
			}
			if (a->kind == KERNEL_RUNNING &&
			    b->kind == KERNEL_RUNNING) {
				mx_err(mx, b->pos,
				       "kernels '%s' and '%s' are "
				       "both the running kernel",
				       a->name, b->name);
				break;
			}
		}
	}
}

void matrix__parse_kernels(struct mx *mx, const struct toml_value *v)
{
	struct matrix *m = mx->m;
	size_t i;

	if (!v) {
		implicit_running(m);
		return;
	}
	if (!mx_tables(mx, v, "kernels") ||
	    mx_empty(mx, v, "kernels", "leave it out to run the booted kernel"))
		return;
	m->kernels = xcalloc(v->u.arr.n, sizeof(*m->kernels));
	for (i = 0; i < v->u.arr.n; i++) {
		const struct toml_value *tab = v->u.arr.items[i];
		struct matrix_kernel *k;

		if (!mx_is(mx, tab, TOML_TABLE, "kernels"))
			continue;
		k = &m->kernels[m->nr_kernels];
		k->pos = tab->pos;
		k->src = tab;
		if (!mx_item_name(mx, tab, i, "kernel", &k->name)) {
			parse_kernel(mx, k, tab);
			matrix_kernel__release(k);
			memset(k, 0, sizeof(*k));
			continue;
		}
		m->nr_kernels++;
		parse_kernel(mx, k, tab);
	}
	check_unique(mx);
}
