// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf report parser. See perf-report.h for the contract; the unit
 * test feeds it captured outputs with odd lines.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/perf/perf-report.h"
#include "log.h"
#include "util.h"

enum col {
	COL_OTHER,
	COL_OVERHEAD,
	COL_SAMPLES,
	COL_PERIOD,
	COL_DSO,
	COL_SYMBOL,
};

struct parser {
	enum col *cols;
	size_t nr_cols;
	char *event;
	uint64_t event_count; /* the section's total period */
};

/* Trim @s in place, both ends; returns the new start. */
static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s &&
	       (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* Split @line at PERF_REPORT_SEP; the fields point into @line. */
static size_t split(char *line, char ***fields)
{
	size_t n = 1, i = 0;
	char *p;

	for (p = line; *p; p++)
		n += *p == PERF_REPORT_SEP;
	*fields = xcalloc(n, sizeof(**fields));
	(*fields)[i++] = line;
	for (p = line; *p; p++)
		if (*p == PERF_REPORT_SEP) {
			*p = '\0';
			(*fields)[i++] = p + 1;
		}
	return n;
}

static enum col col_of(const char *name)
{
	if (!strcmp(name, "Overhead"))
		return COL_OVERHEAD;
	if (!strcmp(name, "Samples"))
		return COL_SAMPLES;
	if (!strcmp(name, "Period"))
		return COL_PERIOD;
	if (!strcmp(name, "Shared Object"))
		return COL_DSO;
	if (!strcmp(name, "Symbol"))
		return COL_SYMBOL;
	return COL_OTHER;
}

/* "# Overhead<SEP>Samples<SEP>Shared Object<SEP>Symbol" */
static void parse_header(struct parser *ps, char *line)
{
	char **f;
	size_t i, n = split(line, &f);

	free(ps->cols);
	ps->cols = xcalloc(n, sizeof(*ps->cols));
	ps->nr_cols = n;
	for (i = 0; i < n; i++)
		ps->cols[i] = col_of(trim(f[i]));
	free(f);
}

static void parse_comment(struct parser *ps, struct perf_report *r, char *line)
{
	char *p = trim(line + 1), *q;

	if (!strncmp(p, "Total Lost Samples:", 19)) {
		r->lost += strtoull(p + 19, NULL, 10);
	} else if (!strncmp(p, "Event count (approx.):", 22)) {
		ps->event_count = strtoull(p + 22, NULL, 10);
	} else if (!strncmp(p, "Samples:", 8) &&
		   (q = strstr(p, "of event '"))) {
		char *end = strrchr(q, '\'');

		q += 10;
		free(ps->event);
		ps->event = xstrndup(q, end > q ? (size_t)(end - q) : 0);
		ps->event_count = 0;
	} else if (!strncmp(p, "Overhead", 8) && strchr(p, PERF_REPORT_SEP)) {
		parse_header(ps, p);
	}
}

static bool parse_overhead(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && *end == '%' && !end[1] && *v >= 0 && *v <= 100;
}

static bool parse_count(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	*v = strtoull(s, &end, 10);
	return !*end;
}

static void set_symbol(struct perf_row *row, const char *s)
{
	/* perf's marker: "[k] ", "[.] ", "[g] ", "[u] ", "[H] " */
	if (s[0] == '[' && s[1] && s[2] == ']' && s[3] == ' ') {
		row->mode = s[1];
		s += 4;
		while (*s == ' ')
			s++;
	}
	/* A header may name a column twice: the last one wins. */
	free(row->symbol);
	row->symbol = xstrdup(*s ? s : "[unknown]");
}

static bool parse_row(struct parser *ps, char *line, struct perf_row *row)
{
	bool have_overhead = false, have_symbol = false;
	uint64_t period = 0;
	char **f;
	size_t i, n = split(line, &f);

	memset(row, 0, sizeof(*row));
	if (n < ps->nr_cols)
		goto fail;
	/* Only a symbol holding the separator itself gives more fields. */
	for (i = 0; i < ps->nr_cols; i++) {
		char *v;

		if (i == ps->nr_cols - 1 && n > ps->nr_cols)
			for (size_t j = i + 1; j < n; j++)
				f[j][-1] = PERF_REPORT_SEP;
		v = trim(f[i]);
		switch (ps->cols[i]) {
		case COL_OVERHEAD:
			have_overhead = parse_overhead(v, &row->overhead);
			if (!have_overhead)
				goto fail;
			break;
		case COL_SAMPLES:
			if (!parse_count(v, &row->samples))
				goto fail;
			break;
		case COL_PERIOD:
			if (!parse_count(v, &period))
				goto fail;
			break;
		case COL_DSO:
			free(row->dso);
			row->dso = xstrdup(v);
			break;
		case COL_SYMBOL:
			set_symbol(row, v);
			have_symbol = true;
			break;
		case COL_OTHER:
			break;
		}
	}
	if (!have_overhead || !have_symbol)
		goto fail;
	/*
	 * perf prints two decimals; hundreds of rows rounded up sum past
	 * 100. The period over the section's total is what perf rounded.
	 */
	if (period && ps->event_count && period <= ps->event_count)
		row->overhead =
			100.0 * (double)period / (double)ps->event_count;
	if (!row->dso)
		row->dso = xstrdup("");
	row->event = xstrdup(ps->event ? ps->event : "");
	free(f);
	return true;
fail:
	free(row->dso);
	free(row->symbol);
	memset(row, 0, sizeof(*row));
	free(f);
	return false;
}

int perf_report__parse(const char *text, struct perf_report *r)
{
	struct parser ps = { 0 };
	const char *p = text;
	bool header = false;

	while (*p) {
		size_t len = strcspn(p, "\n");
		char *line = xstrndup(p, len);
		struct perf_row row;

		p += len + (p[len] == '\n');
		if (line[0] == '#') {
			parse_comment(&ps, r, line);
			header = header || ps.nr_cols;
		} else if (*trim(line)) {
			if (header && parse_row(&ps, line, &row)) {
				ALLOC_GROW(r->rows, r->nr + 1, r->alloc);
				r->rows[r->nr++] = row;
				r->samples += row.samples;
			} else {
				pr_debug("perf report: skipped '%s'", line);
				r->skipped++;
			}
		}
		free(line);
	}
	free(ps.cols);
	free(ps.event);
	if (!header) {
		pr_err("perf report: no column header in its output "
		       "(expected '# Overhead...Symbol')");
		return -EINVAL;
	}
	return 0;
}

static void row_release(struct perf_row *row)
{
	free_all(row->event, row->symbol, row->dso);
}

void perf_report__limit(struct perf_report *r, double percent)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr; i++) {
		if (r->rows[i].overhead > 0 && r->rows[i].overhead >= percent) {
			r->rows[n++] = r->rows[i];
			continue;
		}
		row_release(&r->rows[i]);
		r->dropped++;
	}
	r->nr = n;
}

void perf_report__release(struct perf_report *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		row_release(&r->rows[i]);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
