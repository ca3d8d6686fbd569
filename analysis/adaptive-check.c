// SPDX-License-Identifier: GPL-2.0-only
/*
 * [run] until: the adaptive rule (stats/adaptive.c) applied to each
 * headline comparison of a run so far.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "adaptive-check.h"
#include "compare.h"
#include "stats/adaptive.h"
#include "util.h"

static bool wanted(const char *const *metrics, const char *name)
{
	for (; *metrics; metrics++)
		if (!strcmp(*metrics, name))
			return true;
	return false;
}

int adaptive__check(struct rdb *r, int64_t run, const struct adaptive_opts *o,
		    struct adaptive_status *st)
{
	struct cmp_opts co = CMP_OPTS_DEFAULT;
	struct dataset ds;
	struct cmp_table t;
	size_t i, c;
	double w;
	int err;

	memset(st, 0, sizeof(*st));
	dataset__init(&ds);
	err = dataset__load_db(&ds, r, &run, 1, NULL);
	if (err)
		goto out;
	co.by = o->by;
	/* --only may have left the baseline out: then the first column. */
	for (i = 0; o->baseline && i < ds.nr_series; i++)
		if (!strcmp(ds__str(&ds, ds.series[i].dim[o->by]), o->baseline))
			co.baseline = o->baseline;
	err = cmp__build(&ds, &co, &t);
	if (err == -ENOENT) {
		err = 0; /* nothing measured yet: nothing to judge */
		goto out;
	}
	if (err)
		goto out;
	for (i = 0; i < t.nr_rows; i++) {
		const struct cmp_row *row = &t.rows[i];
		const struct cmp_cell *b = &row->cells[0];

		if (!wanted(o->metrics,
			    ds__str(&ds, ds.metrics[row->metric].name)))
			continue;
		/* One column: the precision a comparison of the cell would have. */
		for (c = t.nr_cols > 1 ? 1 : 0; c < t.nr_cols; c++) {
			const struct cmp_cell *x = &row->cells[c];

			if (!b->present || !x->present)
				continue;
			w = c ? adaptive__width_pct(b->v, b->s.n, x->v,
						    x->s.n) :
				adaptive__width_pct(b->v, b->s.n, b->v, b->s.n);
			st->comparisons++;
			if (w > o->width_pct)
				st->open++;
			if (w > st->widest_pct || isnan(st->widest_pct)) {
				st->widest_pct = w;
				free(st->widest);
				st->widest = cmp__row_label(&t, row);
			}
		}
	}
	cmp__release(&t);
out:
	dataset__release(&ds);
	return err;
}

void adaptive_status__release(struct adaptive_status *st)
{
	free(st->widest);
	memset(st, 0, sizeof(*st));
}
