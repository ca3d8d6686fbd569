// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "report-opts.h"
#include "util.h"

int report_opt_number(const char *opt, const char *arg, double lo, double hi,
		      double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= lo || v >= hi) {
		pr_err("%s wants a number between %g and %g (exclusive), got "
		       "'%s'",
		       opt, lo, hi, arg);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int report_select_runs(const struct rdb_runs *runs, const struct strvec *args,
		       int64_t **ids, size_t *nr)
{
	size_t i, j, alloc = 0;
	int64_t id;
	int err;

	*ids = NULL;
	*nr = 0;
	for (i = 0; i < args->nr; i++) {
		const char *name = NULL;
		size_t found = 0;

		if (!strncmp(args->v[i], "name:", 5))
			name = args->v[i] + 5;
		if (!strcmp(args->v[i], "all") || name) {
			for (j = 0; j < runs->nr; j++) {
				if (name && strcmp(runs->v[j].name, name))
					continue;
				ALLOC_GROW(*ids, *nr + 1, alloc);
				(*ids)[(*nr)++] = runs->v[j].id;
				found++;
			}
			if (name && !found) {
				pr_err("--run %s: no run is named '%s'",
				       args->v[i], name);
				free(*ids);
				*ids = NULL;
				*nr = 0;
				return -ENOENT;
			}
			continue;
		}
		err = rdb__run_resolve(runs, "--run", args->v[i], &id);
		if (err) {
			free(*ids);
			*ids = NULL;
			*nr = 0;
			return err;
		}
		ALLOC_GROW(*ids, *nr + 1, alloc);
		(*ids)[(*nr)++] = id;
	}
	if (!args->nr) {
		err = rdb__run_resolve(runs, "--run", "latest", &id);
		if (err)
			return err;
		*ids = xmalloc(sizeof(**ids));
		(*ids)[(*nr)++] = id;
	}
	qsort(*ids, *nr, sizeof(**ids), cmp_id);
	for (i = j = 0; i < *nr; i++)
		if (!j || (*ids)[j - 1] != (*ids)[i])
			(*ids)[j++] = (*ids)[i];
	*nr = j;
	return 0;
}
