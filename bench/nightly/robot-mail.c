// SPDX-License-Identifier: GPL-2.0-only
/*
 * The robot's mail: one regression (or improvement), one message, in the
 * order lkp's robot writes them (what moved and on which commit, the
 * machine and parameters, the tags for a fix, where to reproduce it,
 * then the comparison table), so that a kernel developer reads it as
 * the mails they already know. Written as an mbox entry: any mail
 * reader opens the file, and sendmail takes it as it is.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "bench/nightly/robot.h"
#include "util.h"

char *robot__subject_prefix(const char *subject)
{
	const char *colon;
	size_t n;

	if (!subject)
		return NULL;
	colon = strstr(subject, ": ");
	if (!colon || colon == subject)
		return NULL;
	n = colon - subject;
	/* "Revert "iommu: x"": the prefix of what is reverted. */
	if (!strncmp(subject, "Revert \"", 8))
		return robot__subject_prefix(subject + 8);
	/* A prefix is a path of words, not a sentence with a colon in it. */
	if (memchr(subject, ' ', n) || n > 40)
		return NULL;
	return xstrndup(subject, n);
}

static double magnitude(double pct)
{
	return isfinite(pct) ? fabs(pct) : 0;
}

char *robot_mail__subject(const struct robot_mail *m)
{
	const char *what = m->improvement ? "improvement" : "regression";
	char *prefix, *s;

	if (m->head.commit) {
		prefix = robot__subject_prefix(m->head.subject);
		s = xasprintf("[iommu-bench] %s%s%s%.12s: %s.%s %.1f%% %s",
			      prefix ? "[" : "", prefix ? prefix : "",
			      prefix ? "]  " : "", m->head.commit, m->workload,
			      m->metric, magnitude(m->change_pct), what);
		free(prefix);
		return s;
	}
	return xasprintf("[iommu-bench] [%s]  %s: %s.%s %.1f%% %s",
			 m->head.package ? m->head.package : "kernel",
			 m->head.version ? m->head.version : "?", m->workload,
			 m->metric, magnitude(m->change_pct), what);
}

/* A header value on one line: CR, LF and other controls as spaces. */
static char *one_line(const char *s)
{
	char *d = xstrdup(s ? s : ""), *p;

	for (p = d; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return d;
}

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/*
 * RFC 2047 where it is not ASCII: encoded words of at most 45 bytes
 * each, which keeps every line under 78 characters, split only between
 * UTF-8 sequences.
 */
static void header(FILE *fp, const char *name, const char *value)
{
	char *v = one_line(value);
	size_t len = strlen(v), at = 0;

	if (is_ascii(v)) {
		fprintf(fp, "%s: %s\n", name, v);
		free(v);
		return;
	}
	fprintf(fp, "%s:", name);
	while (at < len) {
		size_t n = len - at > 45 ? 45 : len - at;
		char *b;

		while (at + n < len &&
		       ((unsigned char)v[at + n] & 0xc0) == 0x80)
			n--;
		b = base64__encode(v + at, n);
		fprintf(fp, " =?UTF-8?B?%s?=\n", b);
		free(b);
		at += n;
	}
	free(v);
}

/*
 * An address: its display name encoded where it is not ASCII (kernel
 * developers' names often are not), the address itself as it is.
 */
static void address(FILE *fp, const char *a)
{
	char *v = one_line(a), *lt = strchr(v, '<'), *name, *b;
	size_t n;

	if (is_ascii(v) || !lt) {
		fprintf(fp, " %s", v);
		free(v);
		return;
	}
	n = lt - v;
	while (n && v[n - 1] == ' ')
		n--;
	name = xstrndup(v, n);
	b = base64__encode(name, n);
	fprintf(fp, " =?UTF-8?B?%s?= %s", b, lt);
	free(b);
	free(name);
	free(v);
}

/* To: and Cc:, one address a line, folded as RFC 5322 allows. */
static void addresses(FILE *fp, const char *name, const char *const *v,
		      size_t n)
{
	size_t i;

	if (!n)
		return;
	fprintf(fp, "%s:", name);
	for (i = 0; i < n; i++) {
		address(fp, v[i]);
		fprintf(fp, "%s\n", i + 1 < n ? "," : "");
	}
}

/* The commit as lkp names it: hash and subject in quotes. */
static void rev_line(FILE *fp, const char *indent, const struct robot_rev *r,
		     int abbrev)
{
	char *subject = one_line(r->subject);

	if (r->commit)
		fprintf(fp, "%s%.*s (\"%s\")\n", indent, abbrev, r->commit,
			subject);
	else
		fprintf(fp, "%s%s %s\n", indent, r->package ? r->package : "?",
			r->version ? r->version : "?");
	free(subject);
}

/* A column's head in the table: the commit, or the package's version. */
static const char *rev_id(const struct robot_rev *r)
{
	return r->commit ? r->commit : r->version ? r->version : "?";
}

/* The body, each line that starts with "From " quoted for the mbox. */
static void body(FILE *fp, const struct robot_mail *m)
{
	const char *what = m->improvement ? "improvement" : "regression";
	size_t i;

	fprintf(fp, "Hello,\n\n");
	fprintf(fp, "iommu-bench noticed a %.1f%% %s of %s.%s on:\n\n",
		magnitude(m->change_pct), what, m->workload, m->metric);
	if (m->head.commit) {
		rev_line(fp, "commit: ", &m->head, 40);
		if (m->tree)
			fprintf(fp, "%s %s\n", m->tree,
				m->branch ? m->branch : "");
	} else {
		fprintf(fp, "package: %s %s (was %s)\n",
			m->head.package ? m->head.package : "?",
			m->head.version ? m->head.version : "?",
			m->base.version ? m->base.version : "?");
	}
	if (m->no_commit)
		fprintf(fp, "no commit named: %s\n", m->no_commit);
	fprintf(fp, "\ntestcase: iommu-bench\n");
	if (m->config)
		fprintf(fp, "config: %s\n", m->config);
	if (m->compiler)
		fprintf(fp, "compiler: %s\n", m->compiler);
	if (m->machine)
		fprintf(fp, "test machine: %s\n", m->machine);
	if (m->nr_params) {
		fprintf(fp, "parameters:\n\n");
		for (i = 0; i < m->nr_params; i++)
			fprintf(fp, "\t%s\n", m->params[i]);
	}
	fprintf(fp, "\n");
	if (m->reproduced)
		fprintf(fp, "confirmed: %s\n", m->reproduced);
	if (m->bisect)
		fprintf(fp, "bisected: %s\n", m->bisect);
	if (m->reproduced || m->bisect)
		fprintf(fp, "\n");
	if (m->reported_by || m->closes) {
		fprintf(fp, "If you fix the issue in a separate patch/commit "
			    "(i.e. not just a new version of\nthe same "
			    "patch/commit), kindly add following tags\n");
		if (m->reported_by)
			fprintf(fp, "| Reported-by: %s\n", m->reported_by);
		if (m->closes)
			fprintf(fp, "| Closes: %s\n", m->closes);
		fprintf(fp, "\n");
	}
	fprintf(fp, "Details are as below:\n");
	fprintf(fp, "----------------------------------------------------"
		    "---------------------------------------------->\n\n");
	if (m->materials)
		fprintf(fp,
			"The kernel config and materials to reproduce "
			"are available at:\n%s\n\n",
			m->materials);
	fprintf(fp, "================================================="
		    "========================================\n");
	if (m->axes)
		fprintf(fp, "%s:\n  %s\n\n", m->axes,
			m->axis_values ? m->axis_values : "");
	fprintf(fp, "commit:\n");
	rev_line(fp, "  ", &m->base, 10);
	rev_line(fp, "  ", &m->head, 10);
	fprintf(fp, "\n");
	robot_table__print(fp, rev_id(&m->base), rev_id(&m->head), m->rows,
			   m->nr_rows);
	fprintf(fp, "\n\nDisclaimer:\nResults have been measured by "
		    "iommu-bench on the test machine above; they may not "
		    "carry over\nto other machines, configurations or "
		    "workloads. Reproduce them with the materials above.\n\n"
		    "-- \niommu-bench robot\n");
}

int robot_mail__write(const struct robot_mail *m, FILE *fp)
{
	char date[64], *subject, *text = NULL, *line, *nl;
	struct tm tm;
	size_t len = 0;
	FILE *mem;

	gmtime_r(&m->date, &tm);
	/* The mbox separator: asctime's layout, as mbox readers expect. */
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	fprintf(fp, "From iommu-bench %s\n", date);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	fprintf(fp, "From:");
	address(fp, m->from);
	fputc('\n', fp);
	addresses(fp, "To", m->to, m->nr_to);
	addresses(fp, "Cc", m->cc, m->nr_cc);
	subject = robot_mail__subject(m);
	header(fp, "Subject", subject);
	free(subject);
	fprintf(fp, "Date: %s\n", date);
	if (m->message_id)
		fprintf(fp, "Message-ID: <%s>\n", m->message_id);
	fprintf(fp, "MIME-Version: 1.0\n"
		    "Content-Type: text/plain; charset=UTF-8\n"
		    "Content-Transfer-Encoding: 8bit\n"
		    "\n");
	mem = open_memstream(&text, &len);
	if (!mem)
		return -ENOMEM;
	body(mem, m);
	fclose(mem);
	/* mboxrd: "From " and its quoted forms gain a '>'. */
	for (line = text; *line; line = nl + 1) {
		const char *p = line;

		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		while (*p == '>')
			p++;
		if (!strncmp(p, "From ", 5))
			fputc('>', fp);
		fwrite(line, 1, nl - line + 1, fp);
	}
	free(text);
	fputc('\n', fp);
	return fflush(fp) || ferror(fp) ? -EIO : 0;
}
