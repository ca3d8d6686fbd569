// SPDX-License-Identifier: GPL-2.0-only
/* The history page: the nights read and judged, then written in one go. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "atomic-file.h"
#include "history-priv.h"
#include "log.h"
#include "markup.h"
#include "report-priv.h"
#include "util.h"

/* Small multiples want the whole window, and small type. */
static const char css[] =
	"body{max-width:none;padding:0 12px 32px}"
	"h1{font-size:19px;margin:12px 0 2px}"
	"h2{margin:12px 0 6px;padding-top:4px}"
	".meta{font-size:12px;margin:0 0 4px}nav{margin:2px 0 4px}"
	".sm-grid{display:grid;grid-template-columns:repeat(auto-fill,"
	"minmax(144px,1fr));gap:4px 6px}"
	"figure.sm{margin:0;padding:2px 3px;border:1px solid #e6e6ea;"
	"border-radius:3px}"
	"figure.sm.regressed{border-color:#b3261e}"
	"figure.sm svg{width:100%;max-width:none;height:auto;display:block}"
	"figure.sm figcaption{font-size:10px;line-height:1.25;margin:0;"
	"color:#333;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}"
	".cp{display:block;font-weight:600;overflow:hidden;"
	"text-overflow:ellipsis}"
	".cp.regression{color:#b3261e}.cp.improvement{color:#0a7a2f}"
	"td.state{font-weight:600}";

static char *default_title(const struct history *h)
{
	const struct history_night *a = &h->nights[0];
	const struct history_night *b = &h->nights[h->nr_nights - 1];

	if (h->nr_rh == 1)
		return xasprintf("iommu-bench history: %s, %zu nights, "
				 "%s to %s",
				 a->robot, h->last, a->label, b->label);
	return xasprintf("iommu-bench history: %zu series of nights, the "
			 "last %zu of each",
			 h->nr_rh, h->last);
}

static void meta(struct history_page *pg)
{
	const struct history *h = pg->h;
	size_t i, regressed = 0, improved = 0;

	for (i = 0; i < h->nr_series; i++) {
		regressed += h->series[i].rank <= 1;
		improved += h->series[i].rank == 2;
	}
	fputs("<p class=\"meta\">", pg->fp);
	markup__escapef(pg->fp,
			"%zu series over the last %zu nights (nights %lld to "
			"%lld): %zu regressed, %zu improved. Each point is a "
			"night's median with its 95%% interval; a dashed line "
			"is a change point that regress --history judges, "
			"with its verdict.",
			h->nr_series, h->last, (long long)h->nights[0].id,
			(long long)h->nights[h->nr_nights - 1].id, regressed,
			improved);
	fputs("</p>\n", pg->fp);
}

static void page(struct history_page *pg)
{
	char *title = pg->o->title ? xstrdup(pg->o->title) :
				     default_title(pg->h);

	html__head(pg->fp, title);
	fprintf(pg->fp, "<style>%s</style>\n<h1>", css);
	markup__escape(pg->fp, title);
	fputs("</h1>\n", pg->fp);
	meta(pg);
	fputs("<nav><a href=\"#series\">Series</a>"
	      "<a href=\"#regressions\">Regressions</a></nav>\n",
	      pg->fp);
	html__h2(pg->fp, "series", "Series, the regressed first");
	history_plots__grid(pg);
	history_table__write(pg);
	html__foot(pg->fp);
	free(title);
}

/* The page made in memory, then put in place in one rename. */
static int write_file(struct history_page *pg, const char *path)
{
	struct iovec iov = { 0 };
	int err = -ENOMEM;

	pg->fp = open_memstream((char **)&iov.iov_base, &iov.iov_len);
	if (pg->fp) {
		page(pg);
		err = fclose(pg->fp) ? -errno : 0;
	}
	if (!err)
		err = atomic_file__write(path, &iov, 1);
	if (err)
		pr_err("%s: %s", path, strerror(-err));
	free(iov.iov_base);
	return err;
}

/* The page's folder, absolute: what its links are relative to. */
static char *page_dir(const char *output)
{
	char *copy = xstrdup(output), *dir = dirname(copy), real[PATH_MAX];
	char *out = xstrdup(realpath(dir, real) ? real : dir);

	free(copy);
	return out;
}

int history_page__write(struct rdb *r, const struct ds_filter *f,
			const struct history_opts *o)
{
	struct history_page pg = { .o = o };
	struct history h;
	size_t i;
	int err;

	err = history__load(r, o->last, f, &h);
	if (!err && !h.nr_series) {
		pr_err("%s: no measured trials in the last %zu nights", r->path,
		       o->last);
		err = -ENOENT;
	}
	if (err)
		goto out;
	pg.h = &h;
	pg.page_dir = page_dir(o->output);
	history_plots__draw(&pg);
	err = write_file(&pg, o->output);
	if (!err && pg.plot_failures)
		pr_warn("%s: %zu plot%s could not be drawn", o->output,
			pg.plot_failures, pg.plot_failures == 1 ? "" : "s");
	for (i = 0; i < h.nr_series; i++)
		free(pg.svgs[i]);
	free_all(pg.svgs, pg.page_dir);
out:
	history__release(&h);
	return err;
}
