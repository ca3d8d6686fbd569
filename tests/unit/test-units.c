// SPDX-License-Identifier: GPL-2.0-only
/* Durations, sizes and bitrates: every accepted form and every error. */
#include <errno.h>
#include <stdint.h>

#include "tap.h"
#include "units.h"
#include "util.h"

typedef int parse_fn(const char *, uint64_t *, char *, size_t);
typedef char *format_fn(uint64_t, char *, size_t);

/* Which parser: its function and its name in the checks' words. */
enum kind { DURATION, SIZE, BITRATE };

static const struct {
	parse_fn *fn;
	const char *what;
} kinds[] = {
	[DURATION] = { units__parse_duration, "duration" },
	[SIZE] = { units__parse_size, "size" },
	[BITRATE] = { units__parse_bitrate, "bitrate" },
};

/* A form that parses, and its value. */
struct good_case {
	enum kind kind;
	const char *in;
	uint64_t want;
};

/* A form that is refused: the error, and words the message must hold. */
struct bad_case {
	enum kind kind;
	const char *in;
	int want_ret;
	const char *frag;
};

/* A value, and how it prints. */
struct format_case {
	format_fn *fn;
	uint64_t v;
	const char *want;
	const char *what;
};

static void good(const struct good_case *c)
{
	parse_fn *fn = kinds[c->kind].fn;
	const char *what = kinds[c->kind].what;
	char err[UNITS_ERR_MAX] = "";
	uint64_t v = 12345;
	int ret = fn(c->in, &v, err, sizeof(err));

	if (!is_int(ret, 0, "%s '%s' parses", what, c->in))
		tap_diag("%s", err);
	is_int(v, c->want, "%s '%s' is %llu", what, c->in,
	       (unsigned long long)c->want);
}

static void bad(const struct bad_case *c)
{
	parse_fn *fn = kinds[c->kind].fn;
	const char *what = kinds[c->kind].what;
	char err[UNITS_ERR_MAX] = "";
	uint64_t v = 777;

	is_int(fn(c->in, &v, err, sizeof(err)), c->want_ret,
	       "%s '%s' is rejected", what, c->in);
	has_str(err, c->frag, "%s '%s': message says '%s'", what, c->in,
		c->frag);
	is_int(v, 777, "%s '%s' leaves the output alone", what, c->in);
}

static const struct good_case goods[] = {
	{ DURATION, "0", 0 },
	{ DURATION, "0s", 0 },
	{ DURATION, "500ms", 500 },
	{ DURATION, "30s", 30000 },
	{ DURATION, "5m", 300000 },
	{ DURATION, "1h", 3600000 },
	{ DURATION, "1h30m", 5400000 },
	{ DURATION, "1h30m15s250ms", 5415250 },
	{ DURATION, "1m30s", 90000 },
	{ DURATION, "1.5s", 1500 },
	{ DURATION, "1.5h", 5400000 },
	{ DURATION, "0.001s", 1 },
	{ DURATION, "2.50s", 2500 },
	{ DURATION, "007s", 7000 },
	{ DURATION, "18446744073709551615ms", UINT64_MAX },
	{ DURATION, "5124095576030h25m51s615ms", UINT64_MAX },
	{ SIZE, "0", 0 },
	{ SIZE, "9000", 9000 },
	{ SIZE, "128K", 131072 },
	{ SIZE, "128k", 131072 },
	{ SIZE, "1M", 1048576 },
	{ SIZE, "1m", 1048576 },
	{ SIZE, "1.5M", 1572864 },
	{ SIZE, "2G", 2147483648ULL },
	{ SIZE, "1T", 1099511627776ULL },
	{ SIZE, "0.5K", 512 },
	{ SIZE, "16777215T", 16777215ULL << 40 },
	{ BITRATE, "0", 0 },
	{ BITRATE, "10G", 10000000000ULL },
	{ BITRATE, "10g", 10000000000ULL },
	{ BITRATE, "500M", 500000000 },
	{ BITRATE, "2.5G", 2500000000ULL },
	{ BITRATE, "100K", 100000 },
	{ BITRATE, "1T", 1000000000000ULL },
	{ BITRATE, "1000", 1000 },
};

static const struct bad_case bads[] = {
	{ DURATION, "30 seconds", -EINVAL,
	  "expected a duration like '30s' or '5m', found '30 seconds'" },
	{ DURATION, "30 seconds", -EINVAL, "spaces are not allowed" },
	{ DURATION, "30seconds", -EINVAL,
	  "unknown unit 'seconds'; use ms, s, m or h" },
	{ DURATION, "30", -EINVAL, "a number needs a unit" },
	{ DURATION, "", -EINVAL, "it is empty" },
	{ DURATION, "-5s", -EINVAL, "cannot be negative" },
	{ DURATION, "s", -EINVAL, "expected a number" },
	{ DURATION, ".5s", -EINVAL, "expected a number" },
	{ DURATION, "1.s", -EINVAL, "expected a number" },
	{ DURATION, "1d", -EINVAL, "unknown unit 'd'" },
	{ DURATION, "5us", -EINVAL, "unknown unit 'us'" },
	{ DURATION, "30m1h", -EINVAL, "largest first, each once" },
	{ DURATION, "1s1s", -EINVAL, "largest first, each once" },
	{ DURATION, "0.5ms", -EINVAL, "not a whole number of milliseconds" },
	{ DURATION, "1.0001s", -EINVAL, "not a whole number of milliseconds" },
	{ DURATION, "18446744073709551616ms", -ERANGE, "too long" },
	{ DURATION, "18446744073709551615ms1", -EINVAL, "needs a unit" },
	{ DURATION, "5124095576031h", -ERANGE, "too long" },
	{ DURATION, "5124095576030h1h", -EINVAL, "largest first" },
	{ DURATION, "5124095576030h26m", -ERANGE, "too long" },
	{ DURATION, "1\x01s", -EINVAL, "found '1?s'" },
	{ SIZE, "12 KB", -EINVAL,
	  "expected a size like '128K' or '9000' (K, M, G = 1024 bytes), "
	  "found '12 KB'" },
	{ SIZE, "12KB", -EINVAL, "unknown unit 'KB'; use K, M, G or T" },
	{ SIZE, "12KiB", -EINVAL, "unknown unit 'KiB'" },
	{ SIZE, "1.3K", -EINVAL, "not a whole number of bytes" },
	{ SIZE, "", -EINVAL, "empty" },
	{ SIZE, "-1", -EINVAL, "negative" },
	{ SIZE, "K", -EINVAL, "expected a number" },
	{ SIZE, "16777216T", -ERANGE, "too large" },
	{ SIZE, "99999999999999999999", -ERANGE, "too large" },
	{ SIZE, "1K1K", -EINVAL, "unknown unit 'K1K'" },
	{ BITRATE, "10Gbps", -EINVAL,
	  "expected a bitrate like '10G' or '500M' (bits/s; K, M, G = 1000)" },
	{ BITRATE, "10Gbps", -EINVAL, "unknown unit 'Gbps'" },
	{ BITRATE, "10 G", -EINVAL, "spaces" },
	{ BITRATE, "1.0005K", -EINVAL, "not a whole number of bits/s" },
	{ BITRATE, "18446744073709552T", -ERANGE, "too large" },
	{ BITRATE, "-10G", -EINVAL, "negative" },
};

static const struct format_case formats[] = {
	{ units__format_duration, 0, "0s", "0 ms" },
	{ units__format_duration, 500, "500ms", "500 ms" },
	{ units__format_duration, 30000, "30s", "30 s" },
	{ units__format_duration, 5400000, "1h30m", "1h30m" },
	{ units__format_duration, 3601500, "1h1s500ms", "1h1s500ms" },
	{ units__format_duration, UINT64_MAX, "5124095576030h25m51s615ms",
	  "the largest duration" },
	{ units__format_size, 131072, "128K", "128K" },
	{ units__format_size, 9000, "9000", "9000" },
	{ units__format_size, 1572864, "1536K", "1.5M prints as 1536K" },
	{ units__format_size, 0, "0", "0 bytes" },
	{ units__format_bitrate, 10000000000ULL, "10G", "10G" },
	{ units__format_bitrate, 2500000000ULL, "2500M", "2.5G" },
	{ units__format_bitrate, 1024, "1024",
	  "1024 bit/s has no exact decimal unit" },
};

static void parses(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(goods); i++)
		good(&goods[i]);
	for (i = 0; i < ARRAY_SIZE(bads); i++)
		bad(&bads[i]);
}

static void prints(void)
{
	char buf[UNITS_FMT_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(formats); i++)
		is_str(formats[i].fn(formats[i].v, buf, sizeof(buf)),
		       formats[i].want, "%s", formats[i].what);
}

static void round_trip(void)
{
	static const char *const forms[] = { "1h30m", "500ms", "1m5s",
					     "2h15s3ms", "45s" };
	char buf[UNITS_FMT_MAX], err[UNITS_ERR_MAX];
	uint64_t v, w;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		units__parse_duration(forms[i], &v, err, sizeof(err));
		units__format_duration(v, buf, sizeof(buf));
		is_str(buf, forms[i], "'%s' formats back the same", forms[i]);
		units__parse_duration(buf, &w, err, sizeof(err));
		is_int(w, v, "'%s' parses back to the same value", buf);
	}
}

int main(void)
{
	parses();
	prints();
	round_trip();
	return tap_done();
}
