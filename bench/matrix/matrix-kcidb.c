// SPDX-License-Identifier: GPL-2.0-only
/*
 * [kcidb]: where the nightly hands its results to KCIDB, a kcidb-ng REST
 * service (docs/kcidb.md): its URL, the file that holds the bearer
 * token, and the submitter's origin. Checked with the rest of the
 * matrix, in the words `export --submit` uses. The token file is not
 * read here: a matrix is planned and reviewed where the secret is not
 * kept; the submission reads it before it sends anything, and says so
 * when it cannot.
 */
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "http.h"
#include "matrix-priv.h"
#include "util.h"

/* The origin a KCIDB report carries unless [kcidb] names another. */
#define KCIDB_DEFAULT_ORIGIN "iommu_bench"

void matrix_kcidb__release(struct matrix_kcidb *k)
{
	free_all(k->url, k->token_file, k->origin);
	memset(k, 0, sizeof(*k));
}

static void parse_url(struct mx *mx, struct matrix_kcidb *k,
		      const struct toml_value *tab)
{
	const struct toml_value *v = toml_table__get(tab, "url");
	char *err = NULL;

	if (!v) {
		mx_err(mx, tab->pos,
		       "[kcidb]: missing key 'url' (the kcidb-ng service's "
		       "base URL, handed out with the token: url = "
		       "\"https://kcidb.example.org/\")");
		return;
	}
	if (!mx_is(mx, v, TOML_STRING, "url"))
		return;
	if (http__url_check(v->u.str.ptr, &err))
		mx_err(mx, v->pos, "url: %s", err);
	else
		k->url = xstrdup(v->u.str.ptr);
	errmsg__clear(&err);
}

static void parse_origin(struct mx *mx, struct matrix_kcidb *k,
			 const struct toml_value *tab)
{
	const struct toml_value *v = toml_table__get(tab, "origin");
	const char *s;

	if (!v || !mx_is(mx, v, TOML_STRING, "origin"))
		return;
	s = v->u.str.ptr;
	if (!*s || s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_")]) {
		mx_err(mx, v->pos,
		       "origin: '%s' is not a KCIDB origin: use lowercase "
		       "letters, digits and '_' ([a-z0-9_]+, as "
		       "'iommu_bench')",
		       s);
		return;
	}
	free(k->origin);
	k->origin = xstrdup(s);
}

void matrix__parse_kcidb(struct mx *mx, const struct toml_value *tab)
{
	static const char *const keys[] = { "url", "token_file", "origin",
					    NULL };
	struct matrix_kcidb *k = &mx->m->kcidb;

	if (!tab || !mx_is(mx, tab, TOML_TABLE, "kcidb"))
		return;
	k->present = true;
	k->pos = tab->pos;
	k->origin = xstrdup(KCIDB_DEFAULT_ORIGIN);
	mx_check_keys(mx, tab, keys, "[kcidb]");
	parse_url(mx, k, tab);
	if (mx_string(mx, tab, "token_file", MX_PATH, &k->token_file) == 0)
		mx_err(mx, tab->pos,
		       "[kcidb]: missing key 'token_file' (the file whose "
		       "first line is the bearer token: never the token "
		       "itself in the matrix)");
	parse_origin(mx, k, tab);
}
