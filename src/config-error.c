// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config-error.h"
#include "util.h"

void config_errors__init(struct config_errors *e, const char *file)
{
	memset(e, 0, sizeof(*e));
	e->file = xstrdup(file);
}

void config_errors__release(struct config_errors *e)
{
	size_t i;

	for (i = 0; i < e->nr; i++) {
		free(e->items[i].msg);
		free(e->items[i].note);
	}
	free(e->items);
	free(e->file);
	memset(e, 0, sizeof(*e));
}

static void add(struct config_errors *e, enum config_severity sev,
		struct toml_pos pos, const char *fmt, va_list ap)
{
	struct config_diag *d;
	char *msg;

	if (sev == CONFIG_ERROR)
		e->nr_errors++;
	else
		e->nr_warnings++;
	if (sev == CONFIG_ERROR && e->nr_errors > CONFIG_ERRORS_MAX) {
		e->dropped++;
		e->last_dropped = true;
		return;
	}
	e->last_dropped = false;
	msg = xvasprintf(fmt, ap);
	ALLOC_GROW(e->items, e->nr + 1, e->alloc);
	d = &e->items[e->nr];
	memset(d, 0, sizeof(*d));
	d->sev = sev;
	d->pos = pos;
	d->msg = msg;
	d->seq = e->nr++;
}

void config_errors__add(struct config_errors *e, struct toml_pos pos,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(e, CONFIG_ERROR, pos, fmt, ap);
	va_end(ap);
}

void config_errors__warn(struct config_errors *e, struct toml_pos pos,
			 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(e, CONFIG_WARNING, pos, fmt, ap);
	va_end(ap);
}

void config_errors__note(struct config_errors *e, struct toml_pos pos,
			 const char *fmt, ...)
{
	struct config_diag *d;
	va_list ap;

	/* The diagnostic it belongs to was dropped past the cap. */
	if (!e->nr || e->last_dropped)
		return;
	d = &e->items[e->nr - 1];
	free(d->note);
	d->note_pos = pos;
	va_start(ap, fmt);
	d->note = xvasprintf(fmt, ap);
	va_end(ap);
}

static int diag__cmp(const void *a, const void *b)
{
	const struct config_diag *x = a, *y = b;

	if (x->pos.line != y->pos.line)
		return x->pos.line < y->pos.line ? -1 : 1;
	if (x->pos.col != y->pos.col)
		return x->pos.col < y->pos.col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Messages quote the file's own strings; a control character in one must
 * not reach the terminal as an escape sequence, nor split the line that
 * tools parse.
 */
static void put_clean(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc(iscntrl((unsigned char)*s) ? '?' : *s, fp);
}

static void print_one(FILE *fp, const char *file, struct toml_pos pos,
		      const char *sev, const char *msg)
{
	put_clean(fp, file);
	if (pos.line)
		fprintf(fp, ":%u:%u", pos.line, pos.col);
	fprintf(fp, ": %s: ", sev);
	put_clean(fp, msg);
	fputc('\n', fp);
}

void config_errors__print(struct config_errors *e, FILE *fp)
{
	size_t i;

	if (e->nr)
		qsort(e->items, e->nr, sizeof(*e->items), diag__cmp);
	for (i = 0; i < e->nr; i++) {
		const struct config_diag *d = &e->items[i];

		print_one(fp, e->file, d->pos,
			  d->sev == CONFIG_ERROR ? "error" : "warning", d->msg);
		if (d->note)
			print_one(fp, e->file, d->note_pos, "note", d->note);
	}
	if (e->dropped)
		fprintf(fp, "%s: note: %zu more errors not shown\n", e->file,
			e->dropped);
}
