// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading a matrix: read, parse the TOML, read each section into its
 * structures, then check what spans sections. Every stage reports into
 * the same list, so a file with ten mistakes gets ten messages at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "util.h"

static const char *const sections[] = {
	"run",	   "hosts",   "kernels", "modes", "workloads",
	"collect", "regress", "nightly", "kcidb", NULL,
};

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, slash - path);
}

/* Each of the @nr elements of @arr released by @fn, then @arr itself. */
#define release_each(arr, nr, fn)                                \
	do {                                                     \
		for (size_t __re_i = 0; __re_i < (nr); __re_i++) \
			fn(&(arr)[__re_i]);                      \
		free(arr);                                       \
	} while (0)

void matrix__free(struct matrix *m)
{
	if (!m)
		return;
	release_each(m->hosts, m->nr_hosts, matrix_host__release);
	release_each(m->kernels, m->nr_kernels, matrix_kernel__release);
	release_each(m->modes, m->nr_modes, matrix_mode__release);
	release_each(m->workloads, m->nr_workloads, matrix_workload__release);
	matrix_collect__release(&m->collect);
	matrix_regress__release(&m->regress);
	matrix_nightly__release(&m->nightly);
	matrix_kcidb__release(&m->kcidb);
	free_all(m->run.name, m->run.description, m->run.db, m->run.modes);
	toml_value__free(m->root);
	free_all(m->path, m->dir, m);
}

/*
 * The sections in dependency order: references need their targets
 * parsed. One marked optional is parsed only when there; one with a
 * missing sentence is needed; the rest take NULL for their defaults.
 */
static const struct {
	const char *key;
	void (*parse)(struct mx *mx, const struct toml_value *v);
	bool optional;
	const char *missing;
} section_parsers[] = {
	{ "modes", matrix__parse_modes, true, NULL },
	{ "hosts", matrix__parse_hosts, true,
	  "no [hosts.NAME] section: a matrix needs a SUT and a peer" },
	{ "kernels", matrix__parse_kernels, false, NULL },
	{ "workloads", matrix__parse_workloads, true,
	  "no [[workloads]]: nothing to run" },
	{ "collect", matrix__parse_collect, false, NULL },
	{ "run", matrix__parse_run, false, NULL },
	{ "regress", matrix__parse_regress, false, NULL },
	{ "nightly", matrix__parse_nightly, false, NULL },
	{ "kcidb", matrix__parse_kcidb, false, NULL },
};

static void parse_sections(struct mx *mx)
{
	const struct toml_value *root = mx->m->root, *v;
	size_t i;

	mx_check_keys(mx, root, sections, "the top level");
	matrix__init_modes(mx->m);
	for (i = 0; i < ARRAY_SIZE(section_parsers); i++) {
		v = toml_table__get(root, section_parsers[i].key);
		if (v || !section_parsers[i].optional)
			section_parsers[i].parse(mx, v);
		else if (section_parsers[i].missing)
			mx_err(mx, (struct toml_pos){ 0 }, "%s",
			       section_parsers[i].missing);
	}
}

int matrix__load_buf(const char *path, const char *buf, size_t len,
		     struct matrix **mp, struct config_errors *errs)
{
	struct matrix *m = xcalloc(1, sizeof(*m));
	struct mx mx = { .m = m, .errs = errs };
	struct toml_error terr = { 0 };

	*mp = NULL;
	m->path = xstrdup(path);
	m->dir = dir_of(path);
	m->root = toml__parse(buf, len, &terr);
	if (!m->root) {
		config_errors__add(errs,
				   (struct toml_pos){ terr.line, terr.col },
				   "%s", terr.msg);
		matrix__free(m);
		return -EINVAL;
	}
	parse_sections(&mx);
	if (!config_errors__failed(errs))
		matrix__check_mates(&mx);
	if (!config_errors__failed(errs))
		matrix__check(&mx);
	if (!config_errors__failed(errs))
		matrix__check_files(&mx);
	if (config_errors__failed(errs)) {
		matrix__free(m);
		return -EINVAL;
	}
	*mp = m;
	return 0;
}

int matrix__load(const char *path, struct matrix **mp,
		 struct config_errors *errs)
{
	size_t len;
	char *buf;
	int ret;

	*mp = NULL;
	ret = read_file(path, &buf, &len);
	if (ret) {
		config_errors__add(errs, (struct toml_pos){ 0 },
				   "cannot read the matrix: %s",
				   strerror(-ret));
		return ret;
	}
	ret = matrix__load_buf(path, buf, len, mp, errs);
	free(buf);
	return ret;
}

#define DEFINE_FIND(what, arr, nr)                                         \
	long matrix__find_##what(const struct matrix *m, const char *name) \
	{                                                                  \
		size_t i;                                                  \
                                                                           \
		for (i = 0; i < m->nr; i++)                                \
			if (!strcmp(m->arr[i].name, name))                 \
				return i;                                  \
		return -1;                                                 \
	}

DEFINE_FIND(host, hosts, nr_hosts)
DEFINE_FIND(kernel, kernels, nr_kernels)
DEFINE_FIND(mode, modes, nr_modes)
DEFINE_FIND(workload, workloads, nr_workloads)
