// SPDX-License-Identifier: GPL-2.0-only
/*
 * The robot's table and mail: the table's rows character for character
 * against lkp's own layout (the rows of
 * ../shared/reference/kernel-test-robot/README.md), the subject's words,
 * and a mail whose headers a commit's words cannot break.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/nightly/robot.h"
#include "tap.h"
#include "util.h"

static char *table(const struct robot_row *rows, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	robot_table__print(fp, "0123456789abcdef0123", "fedcba9876543210fedc",
			   rows, n);
	fclose(fp);
	return buf;
}

static void test_table(void)
{
	const struct robot_row rows[] = {
		{ "proc-vmstat.numa_pte_updates", 1252996, 1875006, 7, 14,
		  false },
		{ "TESTCASE.METRIC", 554832, 490186, 1.5, 0.3, false },
		{ "perf-stat.i.cache-miss-rate%", 28.74, 30.50, NAN, NAN,
		  true },
		{ "rx.iotlb_sync_per_gb", 0, 262144, 0, 0.1, false },
		{ "rx.huge", 2.5e9, 2.6e9, 2.1, NAN, false },
	};
	char *t = table(rows, 5);

	has_str(t,
		"0123456789abcdef fedcba9876543210fedc\n"
		"---------------- ---------------------------\n"
		"         %stddev     %change         %stddev\n"
		"             \\          |                \\\n",
		"the header: both commits, then lkp's three lines");
	has_str(t,
		"\n   1252996 \u00b1  7%     +49.6%    1875006 \u00b1 14%  "
		"proc-vmstat.numa_pte_updates\n",
		"a row with both stddevs above 2%: lkp's columns");
	has_str(t,
		"\n    554832           -11.7%     490186        "
		"TESTCASE.METRIC\n",
		"stddevs of 2% or less are left blank");
	has_str(t,
		"\n     28.74            +1.8       30.50        "
		"perf-stat.i.cache-miss-rate%\n",
		"a percentage changes by its difference, without a % sign");
	has_str(t,
		"\n      0.00                      262144        "
		"rx.iotlb_sync_per_gb\n",
		"from zero: no %change to print");
	has_str(t,
		"\n   2.5e+09 \u00b1  2%      +4.0%    2.6e+09        rx.huge\n",
		"above 1e8: four digits");
	free(t);
}

static void test_subject(void)
{
	struct robot_mail m = {
		.workload = "rx",
		.metric = "iotlb_sync_per_gb",
		.change_pct = -12.34,
		.head = { .commit = "0123456789abcdef0123456789abcdef01234567",
			  .subject = "iommu/dma: queue fewer flushes" },
	};
	char *s, *p;

	p = robot__subject_prefix("iommu/dma: queue fewer flushes");
	is_str(p, "iommu/dma", "the prefix is the subject's first component");
	free(p);
	p = robot__subject_prefix("Revert \"iommu/vt-d: batch it\"");
	is_str(p, "iommu/vt-d", "a revert's prefix is the reverted commit's");
	free(p);
	ok(!robot__subject_prefix("Linux 6.1: the release") &&
		   !robot__subject_prefix("no colon at all"),
	   "a subject without a prefix has none");
	s = robot_mail__subject(&m);
	is_str(s,
	       "[iommu-bench] [iommu/dma]  0123456789ab: rx.iotlb_sync_per_gb "
	       "12.3% regression",
	       "the subject: prefix, two spaces, 12 hex, the change unsigned");
	free(s);
	m.head = (struct robot_rev){ .package = "linux-image-amd64",
				     .version = "7.3.5-1" };
	m.improvement = true;
	s = robot_mail__subject(&m);
	is_str(s,
	       "[iommu-bench] [linux-image-amd64]  7.3.5-1: "
	       "rx.iotlb_sync_per_gb 12.3% improvement",
	       "a package's: its name and version instead of a commit");
	free(s);
}

static void test_mail(void)
{
	const char *to[] = { "J\u00f6rg R\u00f6del <joro@example.org>" };
	const char *cc[] = { "iommu@lists.example.org", "lkp@example.org" };
	const char *params[] = { "mode: lazy", "workload: rx" };
	const struct robot_row rows[] = {
		{ "rx.iotlb_sync_per_gb", 10, 262144, 0, 0.1, false },
	};
	struct robot_mail m = {
		.from = "iommu-bench robot <robot@example.org>",
		.to = to,
		.nr_to = 1,
		.cc = cc,
		.nr_cc = 2,
		.message_id = "night-3.reg-1@iommu-bench",
		.date = 1765000000,
		.workload = "rx",
		.metric = "iotlb_sync_per_gb",
		.change_pct = 2621340,
		.tree = "From /srv/linux",
		.branch = "nightly",
		.base = { .commit = "1111111111111111111111111111111111111111",
			  .subject = "iommu: before" },
		.head = { .commit = "2222222222222222222222222222222222222222",
			  .subject =
				  "iommu/dm\u00e4: \u00fcber\r\nBcc: evil@x" },
		.machine = "QEMU q35, 2 vCPUs, 1 GiB, intel-iommu, virtio-net",
		.config = "x86_64-tiny",
		.params = params,
		.nr_params = 2,
		.reproduced = "in 6 of 6 interleaved pairs",
		.reported_by = "iommu-bench robot <robot@example.org>",
		.closes = "https://example.org/reports/night-3.reg-1",
		.materials = "/var/lib/iommu-bench/nightly/night-3/reg-1",
		.axes = "mode/workload",
		.axis_values = "lazy/rx",
		.rows = rows,
		.nr_rows = 1,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	is_int(robot_mail__write(&m, fp), 0, "the mail is written");
	fclose(fp);
	ok(!strncmp(buf, "From iommu-bench ", 17), "an mbox entry");
	has_str(buf,
		"\nTo: =?UTF-8?B?SsO2cmcgUsO2ZGVs?= <joro@example.org>\n"
		"Cc: iommu@lists.example.org,\n lkp@example.org\n",
		"To and Cc, folded, a name that is not ASCII encoded");
	has_str(buf, "\nSubject: =?UTF-8?B?", "a non-ASCII subject encoded");
	ok(!strstr(buf, "\nBcc:"), "a commit's words cannot add a header");
	has_str(buf, "\nMessage-ID: <night-3.reg-1@iommu-bench>\n", "its id");
	has_str(buf,
		"\n| Reported-by: iommu-bench robot <robot@example.org>\n"
		"| Closes: https://example.org/reports/night-3.reg-1\n",
		"the trailers for a fix");
	has_str(buf, "\nmode/workload:\n  lazy/rx\n", "lkp's axes");
	has_str(buf, "\ncommit:\n  1111111111 (\"iommu: before\")\n",
		"the base commit, abbreviated");
	has_str(buf, "rx.iotlb_sync_per_gb\n", "the table's row");
	has_str(buf, "\n>From /srv/linux",
		"a body line starting 'From ' quoted");
	has_str(buf,
		"\ncommit: 2222222222222222222222222222222222222222 "
		"(\"iommu/dm\u00e4: \u00fcber  Bcc: evil@x\")\n",
		"the commit, its subject on its one line");
	free(buf);
}

/*
 * The profile's rows: the symbols whose share moved by a point or more,
 * the biggest move first, either way; one an end lacks counts 0 there.
 */
static void test_symbols(void)
{
	struct robot_symbol s[] = {
		{ "cpu-clock", "iommu_dma_sync_sg_for_cpu", 5.3, 5.9 },
		{ "cpu-clock", "intel_flush_iotlb_all", 0, 14.2 },
		{ "cpu-clock", "__iommu_dma_unmap", 3.0, 1.5 },
		{ "cpu-clock", "fq_flush_timeout", 2.5, 1.5 },
		{ "cpu-clock", "memcpy", 20.0, 19.9 },
	};
	size_t n = robot_symbols__moved(s, ARRAY_SIZE(s));

	is_int(n, 3, "three moved by a point or more");
	ok(!strcmp(s[0].symbol, "intel_flush_iotlb_all") &&
		   !strcmp(s[1].symbol, "__iommu_dma_unmap") &&
		   !strcmp(s[2].symbol, "fq_flush_timeout"),
	   "the biggest move first, a fall as a rise (%s %s %s)", s[0].symbol,
	   s[1].symbol, s[2].symbol);
	is_int(robot_symbols__moved(s, 0), 0, "none of none");
}

int main(void)
{
	test_table();
	test_subject();
	test_mail();
	test_symbols();
	return tap_done();
}
