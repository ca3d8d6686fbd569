// SPDX-License-Identifier: GPL-2.0-only
/* Durations, sizes and bitrates: every accepted form and every error. */
#include <errno.h>
#include <stdint.h>

#include "tap.h"
#include "units.h"

typedef int parse_fn(const char *, uint64_t *, char *, size_t);

static void good(parse_fn *fn, const char *what, const char *in, uint64_t want)
{
	char err[UNITS_ERR_MAX] = "";
	uint64_t v = 12345;
	int ret = fn(in, &v, err, sizeof(err));

	if (!is_int(ret, 0, "%s '%s' parses", what, in))
		tap_diag("%s", err);
	is_int(v, want, "%s '%s' is %llu", what, in, (unsigned long long)want);
}

static void bad(parse_fn *fn, const char *what, const char *in, int want_ret,
		const char *frag)
{
	char err[UNITS_ERR_MAX] = "";
	uint64_t v = 777;

	is_int(fn(in, &v, err, sizeof(err)), want_ret, "%s '%s' is rejected",
	       what, in);
	has_str(err, frag, "%s '%s': message says '%s'", what, in, frag);
	is_int(v, 777, "%s '%s' leaves the output alone", what, in);
}

static void durations(void)
{
	parse_fn *d = units__parse_duration;
	const char *D = "duration";

	good(d, D, "0", 0);
	good(d, D, "0s", 0);
	good(d, D, "500ms", 500);
	good(d, D, "30s", 30000);
	good(d, D, "5m", 300000);
	good(d, D, "1h", 3600000);
	good(d, D, "1h30m", 5400000);
	good(d, D, "1h30m15s250ms", 5415250);
	good(d, D, "1m30s", 90000);
	good(d, D, "1.5s", 1500);
	good(d, D, "1.5h", 5400000);
	good(d, D, "0.001s", 1);
	good(d, D, "2.50s", 2500);
	good(d, D, "007s", 7000);
	good(d, D, "18446744073709551615ms", UINT64_MAX);

	bad(d, D, "30 seconds", -EINVAL,
	    "expected a duration like '30s' or '5m', found '30 seconds'");
	bad(d, D, "30 seconds", -EINVAL, "spaces are not allowed");
	bad(d, D, "30seconds", -EINVAL,
	    "unknown unit 'seconds'; use ms, s, m or h");
	bad(d, D, "30", -EINVAL, "a number needs a unit");
	bad(d, D, "", -EINVAL, "it is empty");
	bad(d, D, "-5s", -EINVAL, "cannot be negative");
	bad(d, D, "s", -EINVAL, "expected a number");
	bad(d, D, ".5s", -EINVAL, "expected a number");
	bad(d, D, "1.s", -EINVAL, "expected a number");
	bad(d, D, "1d", -EINVAL, "unknown unit 'd'");
	bad(d, D, "5us", -EINVAL, "unknown unit 'us'");
	bad(d, D, "30m1h", -EINVAL, "largest first, each once");
	bad(d, D, "1s1s", -EINVAL, "largest first, each once");
	bad(d, D, "0.5ms", -EINVAL, "not a whole number of milliseconds");
	bad(d, D, "1.0001s", -EINVAL, "not a whole number of milliseconds");
	bad(d, D, "18446744073709551616ms", -ERANGE, "too long");
	bad(d, D, "18446744073709551615ms1", -EINVAL, "needs a unit");
	bad(d, D, "5124095576031h", -ERANGE, "too long");
	bad(d, D, "5124095576030h1h", -EINVAL, "largest first");
	bad(d, D, "5124095576030h26m", -ERANGE, "too long");
	good(d, D, "5124095576030h25m51s615ms", UINT64_MAX);
	bad(d, D, "1\x01s", -EINVAL, "found '1?s'");
}

static void sizes(void)
{
	parse_fn *s = units__parse_size;
	const char *S = "size";

	good(s, S, "0", 0);
	good(s, S, "9000", 9000);
	good(s, S, "128K", 131072);
	good(s, S, "128k", 131072);
	good(s, S, "1M", 1048576);
	good(s, S, "1m", 1048576);
	good(s, S, "1.5M", 1572864);
	good(s, S, "2G", 2147483648ULL);
	good(s, S, "1T", 1099511627776ULL);
	good(s, S, "0.5K", 512);
	good(s, S, "16777215T", 16777215ULL << 40);

	bad(s, S, "12 KB", -EINVAL,
	    "expected a size like '128K' or '9000' (K, M, G = 1024 bytes), "
	    "found '12 KB'");
	bad(s, S, "12KB", -EINVAL, "unknown unit 'KB'; use K, M, G or T");
	bad(s, S, "12KiB", -EINVAL, "unknown unit 'KiB'");
	bad(s, S, "1.3K", -EINVAL, "not a whole number of bytes");
	bad(s, S, "", -EINVAL, "empty");
	bad(s, S, "-1", -EINVAL, "negative");
	bad(s, S, "K", -EINVAL, "expected a number");
	bad(s, S, "16777216T", -ERANGE, "too large");
	bad(s, S, "99999999999999999999", -ERANGE, "too large");
	bad(s, S, "1K1K", -EINVAL, "unknown unit 'K1K'");
}

static void bitrates(void)
{
	parse_fn *b = units__parse_bitrate;
	const char *B = "bitrate";

	good(b, B, "0", 0);
	good(b, B, "10G", 10000000000ULL);
	good(b, B, "10g", 10000000000ULL);
	good(b, B, "500M", 500000000);
	good(b, B, "2.5G", 2500000000ULL);
	good(b, B, "100K", 100000);
	good(b, B, "1T", 1000000000000ULL);
	good(b, B, "1000", 1000);

	bad(b, B, "10Gbps", -EINVAL,
	    "expected a bitrate like '10G' or '500M' (bits/s; K, M, G = 1000)");
	bad(b, B, "10Gbps", -EINVAL, "unknown unit 'Gbps'");
	bad(b, B, "10 G", -EINVAL, "spaces");
	bad(b, B, "1.0005K", -EINVAL, "not a whole number of bits/s");
	bad(b, B, "18446744073709552T", -ERANGE, "too large");
	bad(b, B, "-10G", -EINVAL, "negative");
}

static void formats(void)
{
	char buf[UNITS_FMT_MAX];

	is_str(units__format_duration(0, buf, sizeof(buf)), "0s", "0 ms");
	is_str(units__format_duration(500, buf, sizeof(buf)), "500ms",
	       "500 ms");
	is_str(units__format_duration(30000, buf, sizeof(buf)), "30s", "30 s");
	is_str(units__format_duration(5400000, buf, sizeof(buf)), "1h30m",
	       "1h30m");
	is_str(units__format_duration(3601500, buf, sizeof(buf)), "1h1s500ms",
	       "1h1s500ms");
	is_str(units__format_duration(UINT64_MAX, buf, sizeof(buf)),
	       "5124095576030h25m51s615ms", "the largest duration");
	is_str(units__format_size(131072, buf, sizeof(buf)), "128K", "128K");
	is_str(units__format_size(9000, buf, sizeof(buf)), "9000", "9000");
	is_str(units__format_size(1572864, buf, sizeof(buf)), "1536K",
	       "1.5M prints as 1536K");
	is_str(units__format_size(0, buf, sizeof(buf)), "0", "0 bytes");
	is_str(units__format_bitrate(10000000000ULL, buf, sizeof(buf)), "10G",
	       "10G");
	is_str(units__format_bitrate(2500000000ULL, buf, sizeof(buf)), "2500M",
	       "2.5G");
	is_str(units__format_bitrate(1024, buf, sizeof(buf)), "1024",
	       "1024 bit/s has no exact decimal unit");
}

static void round_trip(void)
{
	static const char *const forms[] = { "1h30m", "500ms", "1m5s",
					     "2h15s3ms", "45s" };
	char buf[UNITS_FMT_MAX], err[UNITS_ERR_MAX];
	uint64_t v, w;
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		units__parse_duration(forms[i], &v, err, sizeof(err));
		units__format_duration(v, buf, sizeof(buf));
		is_str(buf, forms[i], "'%s' formats back the same", forms[i]);
		units__parse_duration(buf, &w, err, sizeof(err));
		is_int(w, v, "'%s' parses back to the same value", buf);
	}
}

int main(void)
{
	durations();
	sizes();
	bitrates();
	formats();
	round_trip();
	return tap_done();
}
