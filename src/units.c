// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "util.h"

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit duration_units[] = {
	{ "h", 3600000 },
	{ "m", 60000 },
	{ "s", 1000 },
	{ "ms", 1 },
};

/* K, M, G and T in either case: powers of @b (1024 for sizes, 1000 rates). */
#define SCALED_UNITS(b)                                                   \
	{ "", 1 }, { "K", (b) }, { "k", (b) }, { "M", (b) * (b) },        \
		{ "m", (b) * (b) }, { "G", (b) * (b) * (b) },             \
		{ "g", (b) * (b) * (b) }, { "T", (b) * (b) * (b) * (b) }, \
		{ "t", (b) * (b) * (b) * (b) },

static const struct unit size_units[] = { SCALED_UNITS(1024ULL) };
static const struct unit rate_units[] = { SCALED_UNITS(1000ULL) };

/* What each kind is called in messages, and how to write one. */
struct kind {
	const char *expect;	/* "a duration like '30s' or '5m'" */
	const char *units_hint; /* "use ms, s, m or h" */
	const char *whole;	/* "milliseconds" */
	const char *too_big;	/* "too long" */
};

static const struct kind duration_kind = {
	"a duration like '30s' or '5m'",
	"use ms, s, m or h",
	"milliseconds",
	"too long",
};
static const struct kind size_kind = {
	"a size like '128K' or '9000' (K, M, G = 1024 bytes)",
	"use K, M, G or T, powers of 1024 as in iperf3",
	"bytes",
	"too large",
};
static const struct kind rate_kind = {
	"a bitrate like '10G' or '500M' (bits/s; K, M, G = 1000)",
	"use K, M, G or T, powers of 1000 as in iperf3",
	"bits/s",
	"too large",
};

/*
 * The input as the message shows it: control characters would garble a
 * terminal and a pasted megabyte would drown the message.
 */
static void show(const char *s, char *buf, size_t size)
{
	size_t i, n = 0, max = size - 1;

	for (i = 0; s[i] && n < max; i++) {
		if (i == 40 && s[i + 1]) {
			snprintf(buf + n, size - n, "...");
			return;
		}
		buf[n++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	}
	buf[n] = '\0';
}

static int fail(int ret, const struct kind *k, const char *s, char *err,
		size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int fail(int ret, const struct kind *k, const char *s, char *err,
		size_t errsz, const char *fmt, ...)
{
	char why[128], shown[64];
	va_list ap;

	if (!err || !errsz)
		return ret;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	show(s, shown, sizeof(shown));
	snprintf(err, errsz, "expected %s, found '%s' (%s)", k->expect, shown,
		 why);
	return ret;
}

/*
 * A decimal number "12" or "1.5": the integer part, and the fraction as
 * @frac / @scale. Returns the characters used, 0 if none, or -ERANGE.
 */
static int number__parse(const char *s, uint64_t *ip, uint64_t *frac,
			 uint64_t *scale)
{
	const char *p = s;
	uint64_t v = 0;

	*frac = 0;
	*scale = 1;
	if (!isdigit((unsigned char)*p))
		return 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - (*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (*p - '0');
	}
	*ip = v;
	if (*p != '.')
		return p - s;
	if (!isdigit((unsigned char)p[1]))
		return -EINVAL;
	for (p++; isdigit((unsigned char)*p); p++) {
		/* Digits past 10^-18 cannot matter to a whole result. */
		if (*scale >= 1000000000000000000ULL) {
			if (*p != '0')
				return -EDOM;
			continue;
		}
		*frac = *frac * 10 + (*p - '0');
		*scale *= 10;
	}
	return p - s;
}

/* @ip.@frac * @mult as a whole number, or -EDOM (not whole), -ERANGE. */
static int number__scale(uint64_t ip, uint64_t frac, uint64_t scale,
			 uint64_t mult, uint64_t *out)
{
	unsigned __int128 whole = (unsigned __int128)ip * mult;
	unsigned __int128 part = (unsigned __int128)frac * mult;

	if (part % scale)
		return -EDOM;
	whole += part / scale;
	if (whole > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)whole;
	return 0;
}

static bool has_space(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s))
			return true;
	return false;
}

/* The unit token: everything up to the next digit or '.'. */
static size_t unit__len(const char *s)
{
	size_t n = 0;

	while (s[n] && !isdigit((unsigned char)s[n]) && s[n] != '.')
		n++;
	return n;
}

static const struct unit *unit__find(const struct unit *units, size_t nr,
				     const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (strlen(units[i].name) == len &&
		    !strncmp(units[i].name, s, len))
			return &units[i];
	return NULL;
}

/* Shared checks at the start of every parser. */
static int precheck(const char *s, const struct kind *k, char *err,
		    size_t errsz)
{
	if (!*s)
		return fail(-EINVAL, k, s, err, errsz, "it is empty");
	if (*s == '-')
		return fail(-EINVAL, k, s, err, errsz, "it cannot be negative");
	if (has_space(s))
		return fail(-EINVAL, k, s, err, errsz,
			    "spaces are not allowed");
	return 0;
}

static int number__fail(int ret, const struct kind *k, const char *s, char *err,
			size_t errsz)
{
	if (ret == -ERANGE)
		return fail(-ERANGE, k, s, err, errsz, "%s", k->too_big);
	if (ret == -EDOM)
		return fail(-EINVAL, k, s, err, errsz,
			    "not a whole number of %s", k->whole);
	return fail(-EINVAL, k, s, err, errsz, "expected a number");
}

int units__parse_duration(const char *s, uint64_t *ms, char *err, size_t errsz)
{
	const struct kind *k = &duration_kind;
	size_t nr = ARRAY_SIZE(duration_units);
	uint64_t total = 0;
	const char *p = s;
	int ret, last = -1;

	ret = precheck(s, k, err, errsz);
	if (ret)
		return ret;
	if (!strcmp(s, "0")) {
		*ms = 0;
		return 0;
	}
	while (*p) {
		uint64_t ip, frac, scale, v;
		const struct unit *u;
		size_t len;

		ret = number__parse(p, &ip, &frac, &scale);
		if (ret <= 0)
			return number__fail(ret, k, s, err, errsz);
		p += ret;
		len = unit__len(p);
		if (!len)
			return fail(-EINVAL, k, s, err, errsz,
				    "a number needs a unit: ms, s, m or h");
		u = unit__find(duration_units, nr, p, len);
		if (!u)
			return fail(-EINVAL, k, s, err, errsz,
				    "unknown unit '%.*s'; %s", (int)len, p,
				    k->units_hint);
		/* "1h30m", never "30m1h" or "1s1s": a typo, not a sum. */
		if (u - duration_units <= last)
			return fail(-EINVAL, k, s, err, errsz,
				    "units go largest first, each once");
		last = u - duration_units;
		p += len;
		ret = number__scale(ip, frac, scale, u->mult, &v);
		if (!ret && total > UINT64_MAX - v)
			ret = -ERANGE;
		if (ret)
			return number__fail(ret, k, s, err, errsz);
		total += v;
	}
	*ms = total;
	return 0;
}

static int parse_scaled(const char *s, const struct unit *units, size_t nr,
			const struct kind *k, uint64_t *out, char *err,
			size_t errsz)
{
	uint64_t ip, frac, scale;
	const struct unit *u;
	const char *p = s;
	size_t len;
	int ret;

	ret = precheck(s, k, err, errsz);
	if (ret)
		return ret;
	ret = number__parse(p, &ip, &frac, &scale);
	if (ret <= 0)
		return number__fail(ret, k, s, err, errsz);
	p += ret;
	len = strlen(p);
	u = unit__find(units, nr, p, len);
	if (!u)
		return fail(-EINVAL, k, s, err, errsz, "unknown unit '%s'; %s",
			    p, k->units_hint);
	ret = number__scale(ip, frac, scale, u->mult, out);
	if (ret)
		return number__fail(ret, k, s, err, errsz);
	return 0;
}

int units__parse_size(const char *s, uint64_t *bytes, char *err, size_t errsz)
{
	return parse_scaled(s, size_units, ARRAY_SIZE(size_units), &size_kind,
			    bytes, err, errsz);
}

int units__parse_bitrate(const char *s, uint64_t *bps, char *err, size_t errsz)
{
	return parse_scaled(s, rate_units, ARRAY_SIZE(rate_units), &rate_kind,
			    bps, err, errsz);
}

char *units__format_duration(uint64_t ms, char *buf, size_t size)
{
	size_t i, n = 0;

	if (!ms) {
		snprintf(buf, size, "0s");
		return buf;
	}
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(duration_units) && n < size; i++) {
		uint64_t q = ms / duration_units[i].mult;

		if (!q)
			continue;
		ms -= q * duration_units[i].mult;
		n += snprintf(buf + n, size - n, "%" PRIu64 "%s", q,
			      duration_units[i].name);
	}
	return buf;
}

/* The units are listed smallest first, upper case at odd indexes. */
static char *format_scaled(uint64_t v, const struct unit *units, size_t nr,
			   char *buf, size_t size)
{
	int i;

	for (i = (int)nr - 2; v && i >= 1; i -= 2) {
		if (v % units[i].mult == 0) {
			snprintf(buf, size, "%" PRIu64 "%s", v / units[i].mult,
				 units[i].name);
			return buf;
		}
	}
	snprintf(buf, size, "%" PRIu64, v);
	return buf;
}

char *units__format_size(uint64_t bytes, char *buf, size_t size)
{
	return format_scaled(bytes, size_units, ARRAY_SIZE(size_units), buf,
			     size);
}

char *units__format_bitrate(uint64_t bps, char *buf, size_t size)
{
	return format_scaled(bps, rate_units, ARRAY_SIZE(rate_units), buf,
			     size);
}
