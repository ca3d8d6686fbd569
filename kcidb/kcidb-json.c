// SPDX-License-Identifier: GPL-2.0-only
/* The report's values: text JSON can hold, numbers JSON can hold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json-util.h"
#include "kcidb/kcidb-priv.h"
#include "util.h"

void kcidb__set_str(json_t *o, const char *key, const char *s)
{
	json_object_set_new(o, key, json_string_or_null(s));
}

void kcidb__set_known(json_t *o, const char *key, const char *s)
{
	if (s && *s)
		kcidb__set_str(o, key, s);
}

json_t *kcidb__real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The store's 'YYYY-MM-DDTHH:MM:SS.SSSZ' as seconds; NAN: not that. */
static double store_time(const char *s)
{
	struct tm tm = { 0 };
	const char *rest;
	double frac = 0;

	if (!s || !*s)
		return NAN;
	rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest)
		return NAN;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	return (double)timegm(&tm) + frac;
}

void kcidb__set_start_before(json_t *o, const char *end, double seconds)
{
	double t = store_time(end) - seconds;
	time_t whole;
	struct tm tm;
	char buf[40];
	int ms;

	if (!isfinite(t) || seconds < 0)
		return;
	whole = (time_t)floor(t);
	ms = (int)round((t - (double)whole) * 1000);
	if (ms == 1000) {
		whole++;
		ms = 0;
	}
	if (!gmtime_r(&whole, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
		return;
	json_object_set_new(o, "start_time", json_sprintf("%s.%03dZ", buf, ms));
}

void kcidb__set_duration(json_t *o, const char *start, const char *end)
{
	double d = store_time(end) - store_time(start);

	/* The store keeps milliseconds: no more digits than that. */
	if (isfinite(d) && d >= 0)
		json_object_set_new(o, "duration",
				    json_real(round(d * 1000) / 1000));
}
