// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf report parser on captured output: a real report taken on
 * this kind of machine (perf 6.1, cpu-clock standing in for cycles) and
 * a hand-made one full of odd lines: C++ and Rust names, spaces and
 * brackets in symbols, raw addresses, [k]/[.]/[g] markers, warnings
 * mixed into stdout, broken rows, two event sections.
 */
#include <errno.h>
#include <math.h>

#include "collectors/perf/perf-report.h"
#include "fixture.h"
#include "log.h"
#include "tap.h"
#include "util.h"

static char *fixture(const char *name)
{
	return fixture__read("perf", name);
}

static const struct perf_row *find(const struct perf_report *r,
				   const char *symbol)
{
	return TABLE_FIND(r->rows, r->nr, symbol, symbol);
}

static void test_real(void)
{
	struct perf_report r = { 0 };
	char *text = fixture("report-real.txt");
	double sum = 0;
	size_t i, kernel = 0;
	bool in_range = true;

	is_int(perf_report__parse(text, &r), 0, "a real report parses");
	is_int(r.nr, 349, "every row");
	is_int(r.skipped, 0, "nothing skipped");
	is_int(r.samples, 3315, "samples add up");
	is_int(r.lost, 0, "no lost samples");
	for (i = 0; i < r.nr; i++) {
		sum += r.rows[i].overhead;
		in_range &= r.rows[i].overhead > 0 && r.rows[i].overhead <= 100;
		kernel += r.rows[i].mode == 'k';
	}
	ok(in_range, "every overhead in (0, 100]");
	ok(fabs(sum - 100) < 1e-6,
	   "from the periods, overheads sum to 100 (%.9f), where perf's "
	   "rounded figures would not",
	   sum);
	is_int(kernel, 311, "311 kernel rows ([k])");
	is_str(r.rows[0].symbol, "pv_native_safe_halt", "the top symbol");
	is_str(r.rows[0].dso, "[kernel.kallsyms]", "its dso");
	is_str(r.rows[0].event, "cpu-clock", "the event of its section");
	ok(fabs(r.rows[0].overhead - 17.10) < 0.005,
	   "its overhead, from the period (%.4f)", r.rows[0].overhead);
	ok(find(&r, "0x00000000000357cc") != NULL,
	   "an unresolved user address is a row of its own");
	perf_report__limit(&r, 0.5);
	is_int(r.nr, 27, "27 rows of 0.5%% or more");
	is_int(r.dropped, 322, "the others dropped");
	is_int(r.samples, 3315, "and still counted as samples");
	ok(r.rows[r.nr - 1].overhead >= 0.5, "the last one kept is >= 0.5%%");
	perf_report__release(&r);
	free(text);
}

static void test_odd(void)
{
	struct perf_report r = { 0 };
	char *text = fixture("report-odd.txt");
	const struct perf_row *row;

	is_int(perf_report__parse(text, &r), 0, "the odd report parses");
	is_int(r.nr, 15, "15 rows in two sections");
	is_int(r.skipped, 6,
	       "warnings, garbage, nan%%, a missing %% and a short row "
	       "skipped");
	is_int(r.lost, 7, "lost samples read");
	is_int(r.samples, 596, "samples of the rows");
	row = find(&r, "iommu_dma_unmap_page");
	ok(row && row->mode == 'k' && row->samples == 300,
	   "kernel marker stripped, padding trimmed");
	ok(find(&r, "std::vector<int, std::allocator<int> >::push_back(int "
		    "const&)") != NULL,
	   "a C++ name with spaces and commas");
	ok(find(&r, "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop"),
	   "a Rust name");
	ok(find(&r, "operator|(Flags, Flags)"), "operator|");
	row = find(&r, "0xffffffffc0a1b2c3");
	ok(row && row->mode == 'k', "an unresolved kernel address");
	row = find(&r, "[unknown]");
	ok(row && !strcmp(row->dso, ""), "[unknown] symbol, empty dso");
	row = find(&r, "sym with [brackets] and  two  spaces");
	ok(row && !strcmp(row->dso, "weird dso name.so"),
	   "brackets and inner spaces kept, dso with spaces");
	row = find(&r, "guest_kernel_fn");
	ok(row && row->mode == 'g', "guest marker");
	ok(find(&r, "caf\xc3\xa9_\xc3\xbcnicode"), "UTF-8 kept as is");
	ok(find(&r, "has\x1fseparator"),
	   "a symbol holding the separator stays whole");
	ok(!find(&r, "not_a_number") && !find(&r, "no_percent_sign"),
	   "rows with a bad overhead are not guessed at");
	row = find(&r, "__schedule");
	ok(row && !strcmp(row->event, "sched:sched_switch"),
	   "the second section's event");
	ok(row && fabs(row->overhead - 200.0 / 3) < 1e-9,
	   "its overhead from its period over the section's event count");
	row = find(&r, "iommu_dma_unmap_page");
	ok(row && row->overhead == 30.0,
	   "without a period column, the printed overhead");
	perf_report__release(&r);
	free(text);
}

static void test_empty(void)
{
	struct perf_report r = { 0 };
	int saved = log_verbosity;

	log_verbosity = -1; /* the errors below are expected */
	is_int(perf_report__parse("Error:\nThe perf.data has no samples!\n",
				  &r),
	       -EINVAL, "output without a header is an error");
	is_int(perf_report__parse("", &r), -EINVAL, "so is no output");
	log_verbosity = saved;
	is_int(perf_report__parse("# Overhead\x1fSymbol\n#\n", &r), 0,
	       "a header and no rows is no rows");
	is_int(r.nr, 0, "zero rows");
	perf_report__release(&r);
}

int main(void)
{
	test_real();
	test_odd();
	test_empty();
	return tap_done();
}
