/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A minimal TAP producer for the C unit tests, so that every test in the
 * tree (C, shell, toml-test) speaks the one protocol `prove` aggregates.
 * Header-only on purpose: each test is a single translation unit.
 */
#ifndef IOMMU_BENCH_TAP_H
#define IOMMU_BENCH_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap__n;
static int tap__failed;

static inline void tap__vok(int pass, const char *file, int line,
			    const char *fmt, va_list ap)
{
	tap__n++;
	printf("%sok %d - ", pass ? "" : "not ", tap__n);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass) {
		tap__failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
}

static inline int tap__ok(int pass, const char *file, int line, const char *fmt,
			  ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap__vok(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

#define ok(cond, ...) tap__ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...)                                               \
	({                                                                   \
		long long _g = (got), _w = (want);                           \
		int _p = tap__ok(_g == _w, __FILE__, __LINE__, __VA_ARGS__); \
		if (!_p)                                                     \
			printf("#   got %lld, want %lld\n", _g, _w);         \
		_p;                                                          \
	})

#define is_str(got, want, ...)                                          \
	({                                                              \
		const char *_g = (got), *_w = (want);                   \
		int _p = tap__ok(_g && _w && !strcmp(_g, _w), __FILE__, \
				 __LINE__, __VA_ARGS__);                \
		if (!_p)                                                \
			printf("#   got '%s', want '%s'\n",             \
			       _g ? _g : "(null)", _w ? _w : "(null)"); \
		_p;                                                     \
	})

/* A substring check, for error messages that carry more than we test. */
#define has_str(got, want, ...)                                        \
	({                                                             \
		const char *_g = (got), *_w = (want);                  \
		int _p = tap__ok(_g && _w && strstr(_g, _w), __FILE__, \
				 __LINE__, __VA_ARGS__);               \
		if (!_p)                                               \
			printf("#   '%s' does not contain '%s'\n",     \
			       _g ? _g : "(null)", _w);                \
		_p;                                                    \
	})

/* A substring a text must hold, and the check's words: for has_all(). */
struct tap_substr {
	const char *want;
	const char *what;
};

static inline void tap__has_all(const char *got, const struct tap_substr *c,
				size_t nr, const char *file, int line)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		int pass = got && strstr(got, c[i].want);

		tap__ok(pass, file, line, "%s", c[i].what);
		if (!pass)
			printf("#   '%s' does not contain '%s'\n",
			       got ? got : "(null)", c[i].want);
	}
}

/* One has_str() check for each of the array @checks, in order. */
#define has_all(got, checks)                                                \
	tap__has_all((got), (checks), sizeof(checks) / sizeof((checks)[0]), \
		     __FILE__, __LINE__)

/*
 * A name check @valid over the @good names it must take and the @bad it
 * must refuse, one check each. A name is printed up to a control
 * character, then "<ctl>" and the rest: TAP is lines.
 */
static inline void tap__check_names(bool (*valid)(const char *),
				    const char *what, const char *const *good,
				    size_t nr_good, const char *const *bad,
				    size_t nr_bad, const char *file, int line)
{
	size_t i, n;

	for (i = 0; i < nr_good; i++)
		tap__ok(valid(good[i]), file, line, "%s '%s' is valid", what,
			good[i]);
	for (i = 0; i < nr_bad; i++) {
		n = strcspn(bad[i], "\n\t");
		tap__ok(!valid(bad[i]), file, line, "%s '%.*s%s%s' is refused",
			what, (int)n, bad[i], bad[i][n] ? "<ctl>" : "",
			bad[i][n] ? bad[i] + n + 1 : "");
	}
}

#define check_names(valid, what, good, bad)                       \
	tap__check_names((valid), (what), (good),                 \
			 sizeof(good) / sizeof((good)[0]), (bad), \
			 sizeof(bad) / sizeof((bad)[0]), __FILE__, __LINE__)

/* One check that cannot run here, counted as passed with the reason. */
static inline void tap_skip(const char *why)
{
	tap__n++;
	printf("ok %d # SKIP %s\n", tap__n, why);
}

static inline void tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A failure's words, when there are any, as a diagnostic; then freed. */
static inline void tap_diag_free(char *words)
{
	if (words)
		tap_diag("%s", words);
	free(words);
}

/* Plan at the end: the count is whatever ran. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap__n);
	return tap__failed ? 1 : 0;
}

#endif /* IOMMU_BENCH_TAP_H */
