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
	"collect", "regress", "nightly", NULL,
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

void matrix__free(struct matrix *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_hosts; i++)
		matrix_host__release(&m->hosts[i]);
	free(m->hosts);
	for (i = 0; i < m->nr_kernels; i++)
		matrix_kernel__release(&m->kernels[i]);
	free(m->kernels);
	for (i = 0; i < m->nr_modes; i++)
		matrix_mode__release(&m->modes[i]);
	free(m->modes);
	for (i = 0; i < m->nr_workloads; i++)
		matrix_workload__release(&m->workloads[i]);
	free(m->workloads);
	matrix_collect__release(&m->collect);
	matrix_regress__release(&m->regress);
	matrix_nightly__release(&m->nightly);
	free_all(m->run.name, m->run.description, m->run.db, m->run.modes);
	toml_value__free(m->root);
	free_all(m->path, m->dir, m);
}

static void parse_sections(struct mx *mx)
{
	const struct toml_value *root = mx->m->root;
	const struct toml_value *hosts = toml_table__get(root, "hosts");
	const struct toml_value *wl = toml_table__get(root, "workloads");

	mx_check_keys(mx, root, sections, "the top level");
	/* In dependency order: references need their targets parsed. */
	matrix__init_modes(mx->m);
	if (toml_table__get(root, "modes"))
		matrix__parse_modes(mx, toml_table__get(root, "modes"));
	if (hosts)
		matrix__parse_hosts(mx, hosts);
	else
		mx_err(mx, (struct toml_pos){ 0 },
		       "no [hosts.NAME] section: "
		       "a matrix needs a SUT and a peer");
	matrix__parse_kernels(mx, toml_table__get(root, "kernels"));
	if (wl)
		matrix__parse_workloads(mx, wl);
	else
		mx_err(mx, (struct toml_pos){ 0 },
		       "no [[workloads]]: nothing "
		       "to run");
	matrix__parse_collect(mx, toml_table__get(root, "collect"));
	matrix__parse_run(mx, toml_table__get(root, "run"));
	matrix__parse_regress(mx, toml_table__get(root, "regress"));
	matrix__parse_nightly(mx, toml_table__get(root, "nightly"));
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
