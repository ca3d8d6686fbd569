// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's building blocks: escaping for HTML and XML (hostile and
 * broken input), number formatting, the interning tables, the CSV
 * reader's refusals, the comparison's direction-aware verdicts and
 * geometric means, and gnuplot's SVG made safe to inline twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "analysis/compare.h"
#include "analysis/dataset.h"
#include "report/format.h"
#include "analysis/keymap.h"
#include "report/markup.h"
#include "report/plot.h"
#include "tap.h"
#include "util.h"

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	markup__escape(fp, s);
	fclose(fp);
	return buf;
}

/* Text for an HTML report, and the markup it must become. */
static const struct {
	const char *in, *want, *what;
} markups[] = {
	{ "<script>alert('x')</script> & \"q\"",
	  "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;",
	  "markup special characters are escaped" },
	{ "caf\xc3\xa9 \xe2\x80\x94 ok", "caf\xc3\xa9 \xe2\x80\x94 ok",
	  "valid UTF-8 passes through" },
	{ "bad\xff\xfe byte, overlong \xc0\xaf, cut \xe2\x80",
	  "bad\xef\xbf\xbd\xef\xbf\xbd byte, overlong "
	  "\xef\xbf\xbd\xef\xbf\xbd, cut \xef\xbf\xbd\xef\xbf\xbd",
	  "bytes that are not UTF-8 become U+FFFD" },
	{ "bell\a esc\x1b tab\tnl\n",
	  "bell\xef\xbf\xbd esc\xef\xbf\xbd tab\tnl\n",
	  "control characters XML forbids become U+FFFD" },
};

static void test_markup(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(markups); i++) {
		char *s = escaped(markups[i].in);

		is_str(s, markups[i].want, "%s", markups[i].what);
		free(s);
	}
}

static void test_format(void)
{
	struct fmt_scale sc;
	char buf[FMT_MAX];

	fmt__scale("bit/s", 3.98e10, &sc);
	ok(sc.mul == 1e-9 && !strcmp(sc.unit, "Gbit/s"),
	   "39.8e9 bit/s shows as Gbit/s");
	fmt__scale("ns", 1500, &sc);
	ok(!strcmp(sc.unit, "µs") && sc.mul == 1e-3, "1500 ns shows as µs");
	fmt__scale("%", 72, &sc);
	ok(sc.mul == 1 && !strcmp(sc.unit, "%"), "percentages stay");
	is_str(fmt__num(39.8, buf, sizeof(buf)), "39.80", "4 digits");
	is_str(fmt__num(1234.5, buf, sizeof(buf)), "1234", "no exponent");
	is_str(fmt__pct(167.11, buf, sizeof(buf)), "+167%", "+167%");
	is_str(fmt__pct(-4.963, buf, sizeof(buf)), "-4.96%", "-4.96%");
	is_str(fmt__p(0.0004, buf, sizeof(buf)), "p<0.001", "p<0.001");
	is_str(fmt__p(0.0123, buf, sizeof(buf)), "p=0.012", "p=0.012");
	is_int(fmt__width("± 2%"), 4, "display width counts characters");
}

static void test_keymap(void)
{
	struct intern in = { 0 };
	struct keymap m;
	uint32_t key[3], i;
	bool ok_all = true, added;
	char name[16];

	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		ok_all = ok_all && intern__id(&in, name) == i;
	}
	ok(ok_all, "1000 strings get dense ids in order, through rehashes");
	ok(intern__id(&in, "s500") == 500 && intern__find(&in, "nope") < 0 &&
		   !strcmp(intern__str(&in, 7), "s7"),
	   "found again, unknown is -1, ids map back");
	intern__release(&in);
	keymap__init(&m, 3);
	for (i = 0; i < 500; i++) {
		key[0] = i;
		key[1] = i * 7;
		key[2] = ~i;
		keymap__id(&m, key, NULL);
	}
	key[0] = 42;
	key[1] = 294;
	key[2] = ~42u;
	ok(keymap__id(&m, key, &added) == 42 && !added &&
		   keymap__find(&m, key) == 42,
	   "tuples keep their ids");
	key[2] = 0;
	ok(keymap__find(&m, key) == -1, "a tuple that differs in one word");
	keymap__release(&m);
}

static int write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp)
		return -1;
	fputs(text, fp);
	return fclose(fp);
}

/* @text in @path is a CSV file @ds refuses. */
static void refused_csv(struct dataset *ds, const char *path, const char *text,
			const char *what)
{
	write_file(path, text);
	ok(dataset__load_csv(ds, path, STORE_BETTER_NONE, "") < 0, "%s", what);
}

static void test_csv(void)
{
	char dir[] = "/tmp/iommu-bench-test-report.XXXXXX", *path;
	struct dataset ds;

	if (!mkdtemp(dir))
		return;
	path = xasprintf("%s/w.csv", dir);
	dataset__init(&ds);
	write_file(path, "# comment\nmode,thr\n\"str,ict\",1.5\n\nlazy,2\n");
	ok(!dataset__load_csv(&ds, path, STORE_BETTER_HIGHER, "x") &&
		   ds.nr_series == 2 && ds.series[0].n == 1 &&
		   !strcmp(ds__str(&ds, ds.series[0].dim[DS_LABEL]),
			   "str,ict") &&
		   !strcmp(ds__str(&ds, ds.metrics[0].name), "thr") &&
		   !strcmp(ds__str(&ds, ds.series[0].dim[DS_WORKLOAD]), "w"),
	   "header names the metric, quotes hold commas, the file the row");
	refused_csv(&ds, path, "a,1\na,nan\n", "NaN is refused");
	refused_csv(&ds, path, "a,1,2\n", "three fields are refused");
	refused_csv(&ds, path, "\"a,1\n", "an unterminated quote is refused");
	refused_csv(&ds, path, "mode,value\n", "a header alone is refused");
	dataset__release(&ds);
	unlink(path);
	free(path);
	rmdir(dir);
}

/* @n values around @v, for one (workload, label) of @metric. */
static void add(struct dataset *ds, const char *workload, const char *label,
		const char *metric, enum store_better b, double v, int n)
{
	uint32_t dim[DS_NR_DIMS];
	int i, d;

	for (d = 0; d < DS_NR_DIMS; d++)
		dim[d] = intern__id(&ds->str, "");
	dim[DS_WORKLOAD] = intern__id(&ds->str, workload);
	dim[DS_LABEL] = intern__id(&ds->str, label);
	for (i = 0; i < n; i++)
		dataset__add(ds, dim, metric, "", b,
			     v * (1 + 0.001 * (i - n / 2)));
}

static void test_compare(void)
{
	struct cmp_opts o = CMP_OPTS_DEFAULT;
	struct cmp_table t;
	struct dataset ds;
	size_t i;

	dataset__init(&ds);
	add(&ds, "rx", "strict", "tput", STORE_BETTER_HIGHER, 10, 8);
	add(&ds, "rx", "lazy", "tput", STORE_BETTER_HIGHER, 20, 8);
	add(&ds, "tx", "strict", "tput", STORE_BETTER_HIGHER, 10, 8);
	add(&ds, "tx", "lazy", "tput", STORE_BETTER_HIGHER, 40, 8);
	add(&ds, "rx", "strict", "cpu", STORE_BETTER_LOWER, 70, 8);
	add(&ds, "rx", "lazy", "cpu", STORE_BETTER_LOWER, 80, 8);
	add(&ds, "rx", "strict", "n", STORE_BETTER_NONE, 5, 8);
	add(&ds, "rx", "lazy", "n", STORE_BETTER_NONE, 6, 8);
	add(&ds, "rr", "strict", "lat", STORE_BETTER_LOWER, 5, 3);
	add(&ds, "rr", "lazy", "lat", STORE_BETTER_LOWER, 6, 3);
	o.by = DS_LABEL;
	ok(!cmp__build(&ds, &o, &t), "table built");
	is_int(t.nr_cols, 2, "two columns");
	is_str(ds__str(&ds, t.cols[0]), "strict", "first seen is the baseline");
	is_int(t.nr_rows, 5, "five rows");
	for (i = 0; i < t.nr_rows; i++) {
		const struct cmp_row *r = &t.rows[i];
		const char *m = ds__str(&ds, ds.metrics[r->metric].name);
		enum cmp_verdict v = r->cells[1].verdict;

		if (!strcmp(m, "cpu"))
			is_str(cmp__verdict_name(v), "worse",
			       "CPU up, lower is better: worse");
		else if (!strcmp(m, "n"))
			is_str(cmp__verdict_name(v), "changed",
			       "no direction: changed");
		else if (!strcmp(m, "lat"))
			ok(v == CMP_INCONCLUSIVE &&
				   (r->cells[1].warn & CMP_WARN_FEW_TEST) &&
				   (r->cells[0].warn & CMP_WARN_FEW_CI),
			   "3+3 trials: inconclusive, and too few for a CI");
		else
			is_str(cmp__verdict_name(v), "better",
			       "throughput up: better");
	}
	ok(!strcmp(ds__str(&ds, ds.metrics[t.rows[0].metric].name), "cpu"),
	   "metrics sorted by name");
	for (i = 0; i < t.nr_gm; i++)
		if (!strcmp(ds__str(&ds, ds.metrics[t.gm[i].metric].name),
			    "tput"))
			ok(t.gm[i].ratio[1] > 2.8 && t.gm[i].ratio[1] < 2.84,
			   "geomean of 2x and 4x is 2.83x (%.3f)",
			   t.gm[i].ratio[1]);
	cmp__release(&t);
	o.baseline = "lazy";
	ok(!cmp__build(&ds, &o, &t) && !strcmp(ds__str(&ds, t.cols[0]), "lazy"),
	   "--baseline moves a column first");
	cmp__release(&t);
	o.baseline = "lazzy";
	ok(cmp__build(&ds, &o, &t) == -EINVAL,
	   "an unknown baseline is -EINVAL");
	dataset__release(&ds);
}

static void test_svg(void)
{
	struct plot p;
	char *svg = NULL;

	if (access("/usr/bin/gnuplot", X_OK)) {
		ok(0, "gnuplot is not installed (gnuplot-nox)");
		return;
	}
	plot__begin(&p, 300, 200);
	plot__printf(&p, "set title ");
	plot__quote(&p, "it's <b>&\x01");
	plot__printf(&p, "\nplot x with points title 'x'\n");
	ok(!plot__render(&p, "one", &svg), "gnuplot renders");
	ok(svg && !strncmp(svg, "<svg", 4), "the XML prolog is gone");
	ok(svg && strstr(svg, "id=\"one-gnuplot_canvas\"") &&
		   strstr(svg, "href='#one-gpPt") && !strstr(svg, "'#gpPt"),
	   "ids and references carry the plot's prefix");
	ok(svg && strstr(svg, "<text>it's &lt;b>&amp; </text>"),
	   "the quoted title arrives as text, escaped by gnuplot");
	ok(svg && !strstr(svg, "<script"), "no script in the SVG");
	free(svg);
	plot__release(&p);
	plot__begin(&p, 300, 200);
	plot__printf(&p, "plot nosuchfunction(x)\n");
	ok(plot__render(&p, "bad", &svg) < 0 && !svg,
	   "a failing script is an error, not an empty plot");
	plot__release(&p);
}

int main(void)
{
	/* The refusals below print their errors; the checks are enough. */
	log_verbosity = -1;
	test_markup();
	test_format();
	test_keymap();
	test_csv();
	test_compare();
	test_svg();
	return tap_done();
}
