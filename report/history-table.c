// SPDX-License-Identifier: GPL-2.0-only
/*
 * The history's regressions: each row the robot stored for a night
 * drawn, with its triage state, and links to what the night left in
 * the regression's folder (mail.mbox, report.html) relative to the
 * page's own folder, so that a page written into the nightly's output
 * folder links the same on disk and where [nightly] url publishes it.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history-priv.h"
#include "markup.h"
#include "report-priv.h"
#include "util.h"

/* @path made absolute against the working directory; a new string. */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

/* @to (absolute) relative to the folder @from (absolute); a new string. */
static char *relative(const char *from, const char *to)
{
	size_t i, common = 0, ups = 0;
	char *out, *p;

	for (i = 0; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i;
	if (!from[i] && (to[i] == '/' || !to[i]))
		common = i;
	for (i = common; from[i]; i++)
		ups += from[i] == '/';
	out = xcalloc(3 * ups + strlen(to) + 2, 1);
	for (p = out, i = 0; i < ups; i++, p += 3)
		memcpy(p, "../", 3);
	strcpy(p, to[common] == '/' ? to + common + 1 : to + common);
	return out;
}

static void href(FILE *fp, const char *page_dir, const char *path,
		 const char *text)
{
	char *abs = absolute(path), *rel = relative(page_dir, abs);

	fputs("<a href=\"", fp);
	markup__escape(fp, rel);
	fputs("\">", fp);
	markup__escape(fp, text);
	fputs("</a> ", fp);
	free_all(abs, rel);
}

/* The mail and, beside it, the night's report. */
static void links(FILE *fp, const char *page_dir,
		  const struct store_regression *g)
{
	char *dir, *slash, *report;

	fputs("<td>", fp);
	if (!g->mail || !*g->mail) {
		fputs("&mdash;</td>", fp);
		return;
	}
	dir = xstrdup(g->mail);
	slash = strrchr(dir, '/');
	report = slash ? (*slash = '\0', xasprintf("%s/report.html", dir)) :
			 xstrdup("report.html");
	href(fp, page_dir, g->mail, "mail");
	href(fp, page_dir, report, "report");
	fputs("</td>", fp);
	free_all(dir, report);
}

static void row(struct history_page *pg, const struct store_regression *g)
{
	const struct history *h = pg->h;
	long at = history__night(h, g->night_id);
	const struct history_night *n = at >= 0 ? &h->nights[at] : NULL;
	char *text;
	FILE *fp = pg->fp;

	fputs("<tr>", fp);
	text = xasprintf("%s %s %s %s %s", g->metric, g->workload, g->mode,
			 g->host, g->series);
	html__td(fp, NULL, text);
	free(text);
	text = xasprintf("%lld (%s)", (long long)g->night_id,
			 n ? n->label : "?");
	html__td(fp, NULL, text);
	free(text);
	text = xasprintf("%s \u2192 %s", g->base, g->head);
	html__td(fp, NULL, text);
	free(text);
	text = isnan(g->change_pct) ? xstrdup("?") :
				      xasprintf("%+.1f%%", g->change_pct);
	html__td(fp, g->improvement ? "num better" : "num worse", text);
	free(text);
	text = xasprintf(
		"%s%s%s", g->culprit,
		n && *n->subject && !strcmp(g->culprit, n->head) ? " " : "",
		n && *n->subject && !strcmp(g->culprit, n->head) ? n->subject :
								   "");
	html__td(fp, NULL, text);
	free(text);
	fputs("<td class=\"state ", fp);
	markup__escape(fp, g->state);
	fputs("\">", fp);
	markup__escape(fp, g->state);
	fputs("</td>", fp);
	links(fp, pg->page_dir, g);
	fputs("</tr>\n", fp);
}

void history_table__write(struct history_page *pg)
{
	static const char *const heads[] = { "series",		 "night",
					     "base \u2192 head", "change",
					     "culprit",		 "triage state",
					     "materials",	 NULL };
	const struct history *h = pg->h;
	size_t i;

	html__h2(pg->fp, "regressions", "Regressions");
	if (!h->nr_regs) {
		fputs("<p>The robot stored no regression in these nights.</p>\n",
		      pg->fp);
		return;
	}
	fputs("<table class=\"regs\">\n", pg->fp);
	html__th_row(pg->fp, heads);
	for (i = 0; i < h->nr_regs; i++)
		row(pg, &h->regs[i]);
	fputs("</table>\n", pg->fp);
}
