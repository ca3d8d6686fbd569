// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parsers for /proc/stat, /proc/softirqs and /proc/interrupts, and the
 * deltas between two snapshots. See procstat-parse.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "collectors/procstat/procstat-parse.h"
#include "log.h"
#include "util.h"

const char *const procstat_field_names[PS_NR_FIELDS] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
};

/* Enough for every CPU Linux supports (CONFIG_NR_CPUS max is 8192). */
#define PROCSTAT_MAX_CPU 65535

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

int procstat__parse_stat(const char *text, struct procstat_snap *s)
{
	const char *p;

	s->nr_cpus = 0;
	for (p = text; *p; p = next_line(p)) {
		struct procstat_cpu c = { 0 };
		unsigned long long v[PS_NR_FIELDS] = { 0 };
		int n, i;

		if (strncmp(p, "cpu", 3) || !isdigit((unsigned char)p[3]))
			continue;
		/* Old kernels have fewer columns: those stay 0. */
		n = sscanf(p + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu",
			   &c.cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]);
		if (n < 5 || c.cpu < 0 || c.cpu > PROCSTAT_MAX_CPU) {
			pr_err("/proc/stat: cannot read the line '%.*s' "
			       "(expected cpuN and at least 4 counters)",
			       (int)(strchrnul(p, '\n') - p), p);
			return -EINVAL;
		}
		/* The kernel lists each online CPU once, in order; a CPU
		 * twice would be counted twice in every delta. */
		if (s->nr_cpus && c.cpu <= s->cpus[s->nr_cpus - 1].cpu) {
			pr_err("/proc/stat: cpu%d listed twice or out of order",
			       c.cpu);
			return -EINVAL;
		}
		for (i = 0; i < PS_NR_FIELDS; i++)
			c.v[i] = v[i];
		ALLOC_GROW(s->cpus, s->nr_cpus + 1, s->alloc_cpus);
		s->cpus[s->nr_cpus++] = c;
	}
	if (!s->nr_cpus) {
		pr_err("/proc/stat: no cpuN lines");
		return -EINVAL;
	}
	return 0;
}

static void counts_add(struct procstat_counts *c, int cpu, uint64_t n)
{
	if (c->nr == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 16;
		c->cpu = xrealloc(c->cpu, c->alloc * sizeof(*c->cpu));
		c->n = xrealloc(c->n, c->alloc * sizeof(*c->n));
	}
	c->cpu[c->nr] = cpu;
	c->n[c->nr++] = n;
}

static void counts_release(struct procstat_counts *c)
{
	free(c->cpu);
	free(c->n);
	memset(c, 0, sizeof(*c));
}

/* The "CPU0 CPU1 ..." header: which CPU each column is. */
static int parse_header(const char *line, const char *file, int **cols,
			size_t *nr)
{
	const char *p = line, *end = strchrnul(line, '\n');
	size_t alloc = 0;

	*cols = NULL;
	*nr = 0;
	while (p < end) {
		char *q;
		long cpu;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end)
			break;
		if (strncmp(p, "CPU", 3))
			goto bad;
		cpu = strtol(p + 3, &q, 10);
		if (q == p + 3 || cpu < 0 || cpu > PROCSTAT_MAX_CPU)
			goto bad;
		ALLOC_GROW(*cols, *nr + 1, alloc);
		(*cols)[(*nr)++] = (int)cpu;
		p = q;
	}
	if (!*nr) {
		pr_err("%s: no CPU columns in the header", file);
		return -EINVAL;
	}
	return 0;
bad:
	pr_err("%s: header word '%.*s' is not CPUn", file,
	       (int)strcspn(p, " \n"), p);
	/* The columns read before it are not the caller's to free. */
	free(*cols);
	*cols = NULL;
	*nr = 0;
	return -EINVAL;
}

/*
 * "  NAME:  n0 n1 ... [desc]": @id and up to @nr_cols counters into @c,
 * the rest into @desc (trimmed; "" when none). 0, or -EINVAL.
 */
static int parse_row(const char *line, const int *cols, size_t nr_cols,
		     char **id, struct procstat_counts *c, char **desc)
{
	const char *p = line, *end = strchrnul(line, '\n'), *colon;
	size_t i;

	while (p < end && isspace((unsigned char)*p))
		p++;
	colon = memchr(p, ':', end - p);
	if (!colon || colon == p)
		return -EINVAL;
	*id = xstrndup(p, colon - p);
	p = colon + 1;
	for (i = 0; i < nr_cols; i++) {
		unsigned long long v;
		const char *q = p;
		char *e;

		while (q < end && isspace((unsigned char)*q))
			q++;
		if (q >= end || !isdigit((unsigned char)*q))
			break;
		v = strtoull(q, &e, 10);
		if (e < end && !isspace((unsigned char)*e))
			break;
		counts_add(c, cols[i], v);
		p = e;
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	*desc = xstrndup(p, end - p);
	return 0;
}

int procstat__parse_softirqs(const char *text, struct procstat_snap *s)
{
	const char *p = text;
	int *cols, err;
	size_t nr;
	bool rx = false, tx = false;

	counts_release(&s->net_rx);
	counts_release(&s->net_tx);
	err = parse_header(p, "/proc/softirqs", &cols, &nr);
	if (err)
		return err;
	for (p = next_line(p); *p; p = next_line(p)) {
		struct procstat_counts c = { 0 };
		char *id = NULL, *desc = NULL;

		if (parse_row(p, cols, nr, &id, &c, &desc)) {
			counts_release(&c);
			continue;
		}
		/* A line named twice: the last one counts. */
		if (!strcmp(id, "NET_RX")) {
			counts_release(&s->net_rx);
			s->net_rx = c;
			rx = true;
		} else if (!strcmp(id, "NET_TX")) {
			counts_release(&s->net_tx);
			s->net_tx = c;
			tx = true;
		} else {
			counts_release(&c);
		}
		free(id);
		free(desc);
	}
	free(cols);
	if (!rx || !tx) {
		pr_err("/proc/softirqs: no NET_RX or NET_TX line");
		return -EINVAL;
	}
	return 0;
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* @key inside @s with no letter, digit or '_' on either side. */
static bool has_word(const char *s, const char *key)
{
	size_t len = strlen(key);
	const char *p = s;

	if (!len)
		return false;
	while ((p = strstr(p, key))) {
		if ((p == s || !is_word_char(p[-1])) && !is_word_char(p[len]))
			return true;
		p++;
	}
	return false;
}

bool procstat__irq_matches(const struct procstat_nic *nic, const char *id,
			   const char *desc)
{
	char *end;
	unsigned long irq;
	size_t i;

	if (!nic)
		return false;
	irq = strtoul(id, &end, 10);
	if (*id && !*end)
		for (i = 0; i < nic->nr_irqs; i++)
			if (nic->irqs[i] == irq)
				return true;
	for (i = 0; i < nic->nr_keys; i++)
		if (has_word(desc, nic->keys[i]))
			return true;
	return false;
}

static void irqs_release(struct procstat_snap *s)
{
	size_t i;

	for (i = 0; i < s->nr_irqs; i++) {
		free(s->irqs[i].id);
		free(s->irqs[i].desc);
		counts_release(&s->irqs[i].c);
	}
	s->nr_irqs = 0;
}

int procstat__parse_interrupts(const char *text, const struct procstat_nic *nic,
			       struct procstat_snap *s)
{
	const char *p = text;
	int *cols, err;
	size_t nr;

	irqs_release(s);
	err = parse_header(p, "/proc/interrupts", &cols, &nr);
	if (err)
		return err;
	for (p = next_line(p); *p; p = next_line(p)) {
		struct procstat_irq irq = { 0 };

		if (parse_row(p, cols, nr, &irq.id, &irq.c, &irq.desc) ||
		    !procstat__irq_matches(nic, irq.id, irq.desc)) {
			free(irq.id);
			free(irq.desc);
			counts_release(&irq.c);
			continue;
		}
		ALLOC_GROW(s->irqs, s->nr_irqs + 1, s->alloc_irqs);
		s->irqs[s->nr_irqs++] = irq;
	}
	free(cols);
	return 0;
}

static int read_proc(const char *path, char **buf)
{
	size_t len;
	int err = read_file(path, buf, &len);

	if (err)
		pr_err("%s: %s", path, strerror(-err));
	return err;
}

int procstat__snap_read(struct procstat_snap *s, const struct procstat_nic *nic)
{
	char *stat = NULL, *soft = NULL, *intr = NULL;
	int err;

	s->t = mono_ns() / 1e9;
	err = read_proc("/proc/stat", &stat);
	if (!err)
		err = read_proc("/proc/softirqs", &soft);
	if (!err && nic)
		err = read_proc("/proc/interrupts", &intr);
	if (!err)
		err = procstat__parse_stat(stat, s);
	if (!err)
		err = procstat__parse_softirqs(soft, s);
	if (!err && nic)
		err = procstat__parse_interrupts(intr, nic, s);
	free_all(stat, soft, intr);
	return err;
}

void procstat__snap_release(struct procstat_snap *s)
{
	free(s->cpus);
	counts_release(&s->net_rx);
	counts_release(&s->net_tx);
	irqs_release(s);
	free(s->irqs);
	memset(s, 0, sizeof(*s));
}

static uint64_t diff(uint64_t a, uint64_t b, bool *backwards)
{
	if (b >= a)
		return b - a;
	*backwards = true;
	return 0;
}

/* @cpu's counter in @c, or false when @c has no column for it. */
static bool counts_get(const struct procstat_counts *c, int cpu, uint64_t *n)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->cpu[i] == cpu) {
			*n = c->n[i];
			return true;
		}
	return false;
}

static uint64_t counts_diff(const struct procstat_counts *a,
			    const struct procstat_counts *b, int cpu,
			    bool *backwards)
{
	uint64_t x, y;

	if (!counts_get(a, cpu, &x) || !counts_get(b, cpu, &y))
		return 0;
	return diff(x, y, backwards);
}

static const struct procstat_cpu *find_cpu(const struct procstat_snap *s,
					   int cpu)
{
	size_t i;

	for (i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	return NULL;
}

static void add_missing(struct procstat_delta *d, int cpu)
{
	d->missing =
		xrealloc(d->missing, (d->nr_missing + 1) * sizeof(*d->missing));
	d->missing[d->nr_missing++] = cpu;
}

static void delta_cpu(const struct procstat_snap *a,
		      const struct procstat_snap *b,
		      const struct procstat_cpu *ca,
		      const struct procstat_cpu *cb, struct procstat_delta *d)
{
	struct procstat_cpu_delta *cd = &d->cpus[d->nr_cpus++];
	int f;

	cd->cpu = cb->cpu;
	for (f = 0; f < PS_NR_FIELDS; f++) {
		cd->v[f] = diff(ca->v[f], cb->v[f], &d->backwards);
		cd->total += cd->v[f];
		d->sum.v[f] += cd->v[f];
	}
	cd->busy = cd->total - cd->v[PS_IDLE] - cd->v[PS_IOWAIT];
	cd->net_rx =
		counts_diff(&a->net_rx, &b->net_rx, cb->cpu, &d->backwards);
	cd->net_tx =
		counts_diff(&a->net_tx, &b->net_tx, cb->cpu, &d->backwards);
	d->sum.total += cd->total;
	d->sum.busy += cd->busy;
	d->sum.net_rx += cd->net_rx;
	d->sum.net_tx += cd->net_tx;
}

static void delta_irqs(const struct procstat_snap *a,
		       const struct procstat_snap *b, struct procstat_delta *d)
{
	size_t i, j, k;

	d->irqs = xcalloc(b->nr_irqs, sizeof(*d->irqs));
	for (i = 0; i < b->nr_irqs; i++) {
		const struct procstat_irq *ib = &b->irqs[i], *ia = NULL;
		uint64_t n = 0;

		for (j = 0; j < a->nr_irqs && !ia; j++)
			if (!strcmp(a->irqs[j].id, ib->id) &&
			    !strcmp(a->irqs[j].desc, ib->desc))
				ia = &a->irqs[j];
		if (!ia) /* appeared during the window: no base to count from */
			continue;
		for (k = 0; k < ib->c.nr; k++)
			n += counts_diff(&ia->c, &ib->c, ib->c.cpu[k],
					 &d->backwards);
		d->irqs[d->nr_irqs++] =
			(struct procstat_irq_delta){ ib->id, ib->desc, n };
		d->irq_total += n;
	}
}

int procstat__delta(const struct procstat_snap *a,
		    const struct procstat_snap *b, struct procstat_delta *d)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->sum.cpu = -1;
	d->seconds = b->t - a->t;
	d->cpus = xcalloc(b->nr_cpus ? b->nr_cpus : 1, sizeof(*d->cpus));
	for (i = 0; i < b->nr_cpus; i++) {
		const struct procstat_cpu *ca = find_cpu(a, b->cpus[i].cpu);

		if (ca)
			delta_cpu(a, b, ca, &b->cpus[i], d);
		else
			add_missing(d, b->cpus[i].cpu);
	}
	for (i = 0; i < a->nr_cpus; i++)
		if (!find_cpu(b, a->cpus[i].cpu))
			add_missing(d, a->cpus[i].cpu);
	delta_irqs(a, b, d);
	if (!d->nr_cpus) {
		pr_err("procstat: no CPU is online in both snapshots");
		procstat__delta_release(d);
		return -EINVAL;
	}
	return 0;
}

void procstat__delta_release(struct procstat_delta *d)
{
	free_all(d->cpus, d->missing, d->irqs);
	memset(d, 0, sizeof(*d));
}

double procstat__pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0;
}
