// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a run's matrix (stored as the run's config) says of a built
 * kernel's source: the tree, the base, the config, the patches, and the
 * branch a nightly follows. A run now stores what it built (the
 * kernel's recipe, kcidb-recipe.c), which wins; the branch is the
 * matrix's alone, and the rest is read here only for rows of databases
 * older than recipes.
 */
#include <string.h>

#include "kcidb/kcidb-priv.h"
#include "toml.h"

static const char *str_of(const struct toml_value *tab, const char *key)
{
	const struct toml_value *v = toml_table__get(tab, key);

	return v && v->type == TOML_STRING ? v->u.str.ptr : NULL;
}

static const struct toml_value *build_of(const struct toml_value *k)
{
	const struct toml_value *b = toml_table__get(k, "build");

	return b && b->type == TOML_TABLE ? b : NULL;
}

/* The kernel named @name in @kernels, or NULL. */
static const struct toml_value *find_kernel(const struct toml_value *kernels,
					    const char *name)
{
	const struct toml_value *k;
	size_t i;

	for (i = 0; name && i < kernels->u.arr.n; i++) {
		k = kernels->u.arr.items[i];
		if (str_of(k, "name") && !strcmp(str_of(k, "name"), name))
			return k;
	}
	return NULL;
}

/* The only kernel with a build table, or NULL. */
static const struct toml_value *only_build(const struct toml_value *kernels)
{
	const struct toml_value *only = NULL;
	size_t i, nr = 0;

	for (i = 0; i < kernels->u.arr.n; i++)
		if (build_of(kernels->u.arr.items[i])) {
			only = build_of(kernels->u.arr.items[i]);
			nr++;
		}
	return nr == 1 ? only : NULL;
}

bool kcidb__source(const struct toml_value *matrix, const char *kernel,
		   struct kcidb_source *src)
{
	const struct toml_value *kernels, *follow, *k, *b, *p;
	const char *followed;

	memset(src, 0, sizeof(*src));
	kernels = toml_table__get(matrix, "kernels");
	if (!kernels || kernels->type != TOML_ARRAY)
		return false;
	follow = toml_table__get(toml_table__get(matrix, "nightly"), "follow");
	followed = str_of(follow, "kernel");
	k = find_kernel(kernels, kernel);
	if (k) {
		/* A kernel of the matrix: its own build table, or none. */
		b = build_of(k);
		if (followed && strcmp(followed, kernel))
			followed = NULL;
	} else if (followed && find_kernel(kernels, followed)) {
		b = build_of(find_kernel(kernels, followed));
	} else {
		b = only_build(kernels);
		followed = NULL;
	}
	if (!b)
		return false;
	src->tree = str_of(b, "tree");
	src->base = str_of(b, "base");
	src->config = str_of(b, "config");
	src->arch = str_of(b, "arch");
	if (followed)
		src->branch = str_of(follow, "branch");
	p = toml_table__get(b, "patches");
	src->patches = p && p->type == TOML_ARRAY && p->u.arr.n ? p : NULL;
	return true;
}
