// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison table of the kernel test robot's mail, in the layout
 * kernel developers read at a glance (lkp-tests' compare): the two
 * commits as columns, each value with its relative stddev where it is
 * above 2%, the change between them, the metric's name last. The widths
 * are lkp's, so that a reader's eye and their scripts find the columns
 * where the robot's own mails put them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/nightly/robot.h"

/* lkp's number format: two decimals when small, four digits when huge. */
static void value_str(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "%s", "-");
	else if (fabs(v) < 1000)
		snprintf(buf, len, "%.2f", v);
	else if (fabs(v) > 1e8)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.0f", v);
}

/* " ± 7%": only above 2%, where the noise is worth a reader's eye. */
static void stddev_str(double rsd, char *buf, size_t len)
{
	if (isfinite(rsd) && rsd > 2)
		snprintf(buf, len, " \u00b1%3.0f%%", rsd);
	else
		snprintf(buf, len, "%6s", "");
}

double robot_row__change(const struct robot_row *r)
{
	if (r->absolute)
		return r->head - r->base;
	if (!isfinite(r->base) || r->base == 0)
		return NAN;
	return 100 * (r->head - r->base) / fabs(r->base);
}

void robot_table__print(FILE *fp, const char *base, const char *head,
			const struct robot_row *rows, size_t n)
{
	char b[32], h[32], sb[16], sh[16], ch[32];
	size_t i;

	fprintf(fp, "%-16.16s %.27s\n", base, head);
	fprintf(fp, "---------------- ---------------------------\n");
	fprintf(fp, "         %%stddev     %%change         %%stddev\n");
	fprintf(fp, "             \\          |                \\\n");
	for (i = 0; i < n; i++) {
		const struct robot_row *r = &rows[i];
		double c = robot_row__change(r);

		value_str(r->base, b, sizeof(b));
		value_str(r->head, h, sizeof(h));
		stddev_str(r->base_rsd, sb, sizeof(sb));
		stddev_str(r->head_rsd, sh, sizeof(sh));
		if (!isfinite(c))
			snprintf(ch, sizeof(ch), "%s", "");
		else if (r->absolute)
			snprintf(ch, sizeof(ch), "%+.1f ", c);
		else
			snprintf(ch, sizeof(ch), "%+.1f%%", c);
		fprintf(fp, "%10s%s %10s %10s%s  %s\n", b, sb, ch, h, sh,
			r->name);
	}
}

static double moved(const struct robot_symbol *s)
{
	return fabs(s->head - s->base);
}

static int by_move(const void *a, const void *b)
{
	double x = moved(a), y = moved(b);

	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(((const struct robot_symbol *)a)->symbol,
		      ((const struct robot_symbol *)b)->symbol);
}

size_t robot_symbols__moved(struct robot_symbol *syms, size_t n)
{
	size_t i;

	qsort(syms, n, sizeof(*syms), by_move);
	for (i = 0; i < n && moved(&syms[i]) >= ROBOT_PROFILE_MOVE; i++)
		;
	return i;
}
