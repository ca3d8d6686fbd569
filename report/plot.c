// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "plot.h"
#include "subprocess.h"
#include "util.h"

void plot__begin(struct plot *p, int width, int height)
{
	memset(p, 0, sizeof(*p));
	p->fp = open_memstream(&p->script, &p->len);
	if (!p->fp) {
		pr_err("out of memory for a plot script");
		exit(EXIT_WORK_FAILED);
	}
	/*
	 * noenhanced: names like tcp_rx must not turn into subscripts.
	 * No "mouse": that option would add a <script> to the SVG.
	 */
	plot__printf(p,
		     "set terminal svg size %d,%d dynamic noenhanced "
		     "font 'sans,12' background '#ffffff'\n"
		     "set encoding utf8\nset border lc rgb '#555555'\n"
		     "set grid ytics lc rgb '#dddddd'\n",
		     width, height);
}

void plot__printf(struct plot *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(p->fp, fmt, ap);
	va_end(ap);
}

void plot__quote(struct plot *p, const char *s)
{
	FILE *fp = p->fp;

	fputc('\'', fp);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '\'')
			fputs("''", fp);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', fp);
		else if (c >= 0x80)
			fputc(c >= 0xc2 && c <= 0xf4 ? c : '?', fp);
		else
			fputc(c, fp);
	}
	fputc('\'', fp);
}

void plot__release(struct plot *p)
{
	if (p->fp)
		fclose(p->fp);
	free(p->script);
	memset(p, 0, sizeof(*p));
}

/* Copy @svg, dropping the prolog and prefixing ids and references. */
static char *fix_svg(const char *svg, const char *id)
{
	static const char *const refs[] = { "id=\"", "id='", "href=\"#",
					    "href='#", "url(#" };
	const char *p = strstr(svg, "<svg");
	char *out = NULL;
	size_t len = 0, i, n;
	FILE *fp;

	if (!p)
		return NULL;
	fp = open_memstream(&out, &len);
	while (*p) {
		for (i = 0; i < ARRAY_SIZE(refs); i++) {
			n = strlen(refs[i]);
			/* " id=" only: not "gpid=" or "valid=". */
			if (!strncmp(p, refs[i], n) &&
			    (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' ||
			     p[-1] == ':' || refs[i][0] == 'u'))
				break;
		}
		if (i < ARRAY_SIZE(refs)) {
			fwrite(p, 1, n, fp);
			fprintf(fp, "%s-", id);
			p += n;
			continue;
		}
		fputc(*p++, fp);
	}
	fclose(fp);
	return out;
}

/* gnuplot run on the script: 0 with @sp's output, or said. */
static int run_gnuplot(struct plot *p, const char *id, struct spawn *sp)
{
	static const char *const argv[] = { "gnuplot", "-d", NULL };
	struct spawn_opts o = {
		.flags = SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR,
	};
	int rc;

	fflush(p->fp);
	o.in = p->script;
	o.in_len = p->len;
	rc = spawn__run(sp, argv, &o, PLOT_TIMEOUT_S * 1000);
	if (rc == -ENOENT)
		pr_err("gnuplot not found: install gnuplot-nox for the plots");
	else if (rc == -ETIMEDOUT)
		pr_err("plot %s: gnuplot took over %d s; killed", id,
		       PLOT_TIMEOUT_S);
	else if (rc)
		pr_err("plot %s: running gnuplot: %s", id, strerror(-rc));
	else if (!spawn__succeeded(sp)) {
		pr_err("plot %s: gnuplot failed: %s", id,
		       sp->err && *sp->err ? sp->err : "no SVG");
		pr_debug("plot %s script:\n%s", id, p->script);
		rc = -EIO;
	}
	return rc;
}

int plot__render(struct plot *p, const char *id, char **svg)
{
	struct spawn sp;
	int rc;

	*svg = NULL;
	rc = run_gnuplot(p, id, &sp);
	if (!rc && !(*svg = fix_svg(sp.out ? sp.out : "", id))) {
		pr_err("plot %s: gnuplot failed: %s", id,
		       sp.err && *sp.err ? sp.err : "no SVG");
		rc = -EIO;
	}
	spawn__release(&sp);
	return rc;
}

int plot__render_each(struct plot *p, const char *id, char **svgs, size_t nr)
{
	char *doc, *next, *name;
	struct spawn sp;
	size_t i = 0;
	int rc;

	memset(svgs, 0, nr * sizeof(*svgs));
	rc = run_gnuplot(p, id, &sp);
	/* Each plot is a whole document, its prolog where it begins. */
	doc = rc || !sp.out ? NULL : strstr(sp.out, "<svg");
	for (; doc && i < nr; i++, doc = next) {
		next = strstr(doc + 4, "<?xml");
		if (next)
			*next++ = '\0';
		name = xasprintf("%s%zu", id, i);
		svgs[i] = fix_svg(doc, name);
		free(name);
	}
	if (!rc && i < nr) {
		pr_err("plot %s: gnuplot drew %zu of %zu plots: %s", id, i, nr,
		       sp.err && *sp.err ? sp.err : "no SVG");
		rc = -EIO;
	}
	spawn__release(&sp);
	return rc;
}
