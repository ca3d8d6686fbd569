// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a run stored of a built kernel (kernels.recipe, made from the
 * build cache entry's result.json): the tree, the commit the base
 * resolved to, the patches' sha256, the config, the compiler and how
 * long the build took. Where a row has one, it is the source; the
 * matrix the run ran is read only for what the build does not know
 * (the branch a nightly follows) and for rows of older databases.
 */
#include <string.h>

#include "kcidb/kcidb-priv.h"
#include "sha256.h"

static const char *str_of(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

bool kcidb__recipe(const char *text, struct kcidb_source *src)
{
	json_t *r = text && *text ? json_loads(text, 0, NULL) : NULL;
	const json_t *config;

	/* A package's recipe, or none: the matrix's reading stands. */
	if (!str_of(r, "base_commit")) {
		json_decref(r);
		return false;
	}
	src->recipe = r;
	src->tree = str_of(r, "tree");
	src->base = str_of(r, "base");
	src->arch = str_of(r, "arch") ?: src->arch;
	config = json_object_get(r, "config");
	src->config = str_of(config, "target") ?:
			      base_name(str_of(config, "file"));
	return true;
}

/*
 * KCIDB's patchset_hash: sha256 over each patch's sha256 and a newline,
 * in order (`sha256sum *.patch | cut -c-64 | sha256sum`), "" for none;
 * not set where a patch's sha256 is not known. The patches' names go
 * in misc: the files themselves are on the machine that built.
 */
void kcidb__recipe_patches(json_t *checkout, json_t *misc,
			   const struct kcidb_source *src)
{
	const json_t *patches = json_object_get(src->recipe, "patches"), *p;
	char hex[SHA256_HEX_SIZE];
	json_t *names = json_array();
	struct sha256 s;
	bool whole = true;
	size_t i;

	sha256__init(&s);
	json_array_foreach(patches, i, p) {
		const char *sum = str_of(p, "sha256");

		if (str_of(p, "file"))
			json_array_append_new(
				names,
				json_string(base_name(str_of(p, "file"))));
		if (!sum || strlen(sum) != SHA256_HEX_SIZE - 1) {
			whole = false;
			continue;
		}
		sha256__update(&s, sum, strlen(sum));
		sha256__update(&s, "\n", 1);
	}
	sha256__final_hex(&s, hex);
	if (!json_array_size(patches))
		json_object_set_new(checkout, "patchset_hash", json_string(""));
	else if (whole)
		json_object_set_new(checkout, "patchset_hash",
				    json_string(hex));
	if (json_array_size(names))
		json_object_set(misc, "patches", names);
	json_decref(names);
}

void kcidb__recipe_build(json_t *build, json_t *misc,
			 const struct kcidb_source *src)
{
	const json_t *elapsed = json_object_get(src->recipe, "elapsed_s");

	kcidb__set_known(build, "compiler", str_of(src->recipe, "compiler"));
	/* kbuild stamps the build's end: it began its duration before. */
	if (json_is_number(elapsed) && json_number_value(elapsed) >= 0) {
		json_object_set_new(build, "duration",
				    kcidb__real(json_number_value(elapsed)));
		kcidb__set_start_before(build, str_of(src->recipe, "built_at"),
					json_number_value(elapsed));
	}
	kcidb__set_known(misc, "built_at", str_of(src->recipe, "built_at"));
	kcidb__set_known(misc, "build_key", str_of(src->recipe, "key"));
}
