// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

static const struct time_unit {
	const char *name;
	double seconds;
} time_units[] = {
	{ "ns", 1e-9 }, { "us", 1e-6 }, { "µs", 1e-6 },
	{ "ms", 1e-3 }, { "s", 1 },	{ "sec", 1 },
};

static const char *const time_names[] = { "ns", "µs", "ms", "s" };

void fmt__scale(const char *unit, double ref, struct fmt_scale *sc)
{
	static const char *const up[] = { "", "k", "M", "G", "T", "P" };
	double a = fabs(ref);
	size_t i;
	int e;

	sc->mul = 1;
	snprintf(sc->unit, sizeof(sc->unit), "%s", unit);
	if (!isfinite(a) || a == 0 || !strcmp(unit, "%"))
		return;
	for (i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++) {
		if (strcmp(unit, time_units[i].name))
			continue;
		a *= time_units[i].seconds;
		e = a >= 1 ? 3 : a >= 1e-3 ? 2 : a >= 1e-6 ? 1 : 0;
		sc->mul = time_units[i].seconds / pow(1000, e - 3);
		snprintf(sc->unit, sizeof(sc->unit), "%s", time_names[e]);
		return;
	}
	if (a < 1e4)
		return; /* 1234.5 reads better than 1.234k */
	e = (int)floor(log10(a) / 3);
	if (e > 5)
		e = 5;
	sc->mul = pow(1000, -e);
	snprintf(sc->unit, sizeof(sc->unit), "%s%s", up[e], unit);
}

char *fmt__num(double v, char *buf, size_t size)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, size, "-");
	else if (isinf(v))
		snprintf(buf, size, v > 0 ? "inf" : "-inf");
	else if (a >= 1000 || a == 0)
		snprintf(buf, size, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, size, "%.1f", v);
	else if (a >= 10)
		snprintf(buf, size, "%.2f", v);
	else if (a >= 0.001)
		snprintf(buf, size, "%.3f", v);
	else
		snprintf(buf, size, "%.3g", v);
	return buf;
}

char *fmt__pct(double pct, char *buf, size_t size)
{
	double a = fabs(pct);

	if (isnan(pct))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%+.*f%%",
			 a >= 100 ? 0 :
			 a >= 10  ? 1 :
				    2,
			 pct);
	return buf;
}

char *fmt__p(double p, char *buf, size_t size)
{
	if (isnan(p))
		snprintf(buf, size, "p=?");
	else if (p < 0.001)
		snprintf(buf, size, "p<0.001");
	else
		snprintf(buf, size, "p=%.3f", p);
	return buf;
}

int fmt__precision(double v)
{
	char buf[40];
	int p;

	for (p = 1; p < 17; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return p;
}

size_t fmt__width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}
