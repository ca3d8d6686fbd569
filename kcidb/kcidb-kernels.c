// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run's kernels as KCIDB checkouts and builds. A checkout is the
 * source: a commit of a tree (its https URL, else the tree in misc, as
 * KCIDB takes https only), or a Debian package and its version; a built
 * kernel's is its stored recipe's, else its run's matrix's. Its id
 * is the hash of what it says, so that the same kernel measured by two
 * runs is one checkout. A build is that checkout for an arch and a
 * config, PASS once a boot of it has measured a trial.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "errmsg.h"
#include "kcidb/kcidb-priv.h"
#include "store/store-query.h"
#include "store/store.h"
#include "toml.h"
#include "util.h"

enum {
	COL_ID,
	COL_NAME,
	COL_RELEASE,
	COL_BUILD_ID,
	COL_PACKAGE,
	COL_VERSION,
	COL_SUITE,
	COL_RECIPE,
	COL_COMMIT,
	COL_ARCHES,
	COL_BOOTED,
};

static bool is_commit(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

static json_t *patches_json(const struct toml_value *patches)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < patches->u.arr.n; i++)
		if (patches->u.arr.items[i]->type == TOML_STRING)
			json_array_append_new(
				a, json_string(
					   patches->u.arr.items[i]->u.str.ptr));
	return a;
}

/* A built kernel's source: its recipe's, else the matrix's and nights'. */
static void git_source(json_t *o, json_t *misc, const struct kcidb_source *src,
		       bool built, const char *commit)
{
	if (is_commit(commit))
		json_object_set_new(o, "git_commit_hash", json_string(commit));
	else if (is_commit(src->base))
		json_object_set_new(o, "git_commit_hash",
				    json_string(src->base));
	else
		kcidb__set_known(misc, "base", src->base);
	if (src->tree && !strncmp(src->tree, "https://", 8))
		kcidb__set_str(o, "git_repository_url", src->tree);
	else
		kcidb__set_known(misc, "tree", src->tree);
	kcidb__set_known(o, "git_repository_branch", src->branch);
	if (!built)
		return;
	if (src->recipe)
		kcidb__recipe_patches(o, misc, src);
	/* "" is KCIDB's "no patches"; the matrix has no patch's sha256. */
	else if (src->patches)
		json_object_set_new(misc, "patches",
				    patches_json(src->patches));
	else
		json_object_set_new(o, "patchset_hash", json_string(""));
}

static json_t *checkout_json(const struct kcidb_run *run,
			     const struct store_rows *r,
			     struct kcidb_source *src)
{
	const char *package = store_rows__str(r, COL_PACKAGE);
	json_t *o = json_object(), *misc = json_object();
	bool built;

	memset(src, 0, sizeof(*src));
	built = run->matrix && !*package &&
		kcidb__source(run->matrix, store_rows__str(r, COL_NAME), src);
	if (!*package)
		built = kcidb__recipe(store_rows__str(r, COL_RECIPE), src) ||
			built;
	kcidb__set_str(misc, "kernel", store_rows__str(r, COL_NAME));
	kcidb__set_known(misc, "release", store_rows__str(r, COL_RELEASE));
	kcidb__set_known(misc, "build_id", store_rows__str(r, COL_BUILD_ID));
	if (*package) {
		kcidb__set_str(misc, "package", package);
		kcidb__set_known(misc, "version",
				 store_rows__str(r, COL_VERSION));
		kcidb__set_known(misc, "suite", store_rows__str(r, COL_SUITE));
	} else {
		git_source(o, misc, src, built, store_rows__str(r, COL_COMMIT));
	}
	json_object_set_new(o, "valid", json_true());
	json_object_set_new(o, "misc", misc);
	return o;
}

/* KCIDB's name of the arch the boots reported, else the matrix's. */
static const char *build_arch(const struct store_rows *r,
			      const struct kcidb_source *src)
{
	const char *arches = store_rows__str(r, COL_ARCHES);
	const struct arch *a = NULL;

	if (*arches && !strchr(arches, ','))
		a = arch__by_machine(arches);
	if (!a && src->arch)
		a = arch__find(src->arch);
	if (!a && *store_rows__str(r, COL_PACKAGE))
		a = arch__of_package(store_rows__str(r, COL_PACKAGE));
	return a ? a->name : NULL;
}

static json_t *build_json(struct kcidb_ctx *c, const struct store_rows *r,
			  const struct kcidb_source *src, const char *checkout)
{
	const char *arch = build_arch(r, src);
	json_t *o = json_object(), *misc = json_object();
	char *id;

	id = kcidb__id(c->origin, "build", checkout, arch ? arch : "",
		       src->config ? src->config : "", NULL);
	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "checkout_id", json_string(checkout));
	json_object_set_new(o, "origin", json_string(c->origin));
	kcidb__set_known(o, "architecture", arch);
	kcidb__set_known(o, "config_name", src->config);
	if (src->recipe)
		kcidb__recipe_build(o, misc, src);
	if (store_rows__int(r, COL_BOOTED))
		json_object_set_new(o, "status", json_string("PASS"));
	kcidb__set_str(misc, "kernel", store_rows__str(r, COL_NAME));
	kcidb__set_known(misc, "release", store_rows__str(r, COL_RELEASE));
	kcidb__set_known(misc, "build_id", store_rows__str(r, COL_BUILD_ID));
	json_object_set_new(o, "misc", misc);
	free(id);
	return o;
}

/* The checkout and build of the row's kernel, each added once. */
static void kernel_add(struct kcidb_ctx *c, struct kcidb_run *run,
		       const struct store_rows *r, void *arg)
{
	struct kcidb_source src;
	json_t *co, *b;
	char *text, *id;

	(void)arg;
	co = checkout_json(run, r, &src);
	text = json_dumps(co, JSON_SORT_KEYS | JSON_COMPACT);
	id = kcidb__id(c->origin, "checkout", text, NULL);
	free(text);
	json_object_set_new(co, "id", json_string(id));
	json_object_set_new(co, "origin", json_string(c->origin));
	if (!kcidb__seen(c, id))
		json_array_append(c->checkouts, co);
	json_decref(co);
	b = build_json(c, r, &src, id);
	ALLOC_GROW(run->builds, run->nr_builds + 1, run->alloc_builds);
	run->builds[run->nr_builds].kernel_id = store_rows__int(r, COL_ID);
	run->builds[run->nr_builds++].id =
		xstrdup(json_string_value(json_object_get(b, "id")));
	if (!kcidb__seen(c, json_string_value(json_object_get(b, "id"))))
		json_array_append(c->builds, b);
	json_decref(b);
	json_decref(src.recipe);
	free(id);
}

int kcidb__kernels(struct kcidb_ctx *c, struct kcidb_run *run, char **err)
{
	int ret = kcidb__each(c, &store_q_kcidb_kernels, run, kernel_add, NULL);

	if (ret < 0)
		return errmsg__set(err, ret,
				   "%s: run %lld: reading its kernels",
				   store__path(c->st), (long long)run->id);
	return 0;
}
