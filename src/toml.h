/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A complete TOML 1.0.0 parser.
 *
 * Debian ships no C TOML library, so this is ours. The whole document is
 * parsed into a tree of struct toml_value; every value and every key keeps
 * the line and column where it started, so that the matrix validator can
 * point at the exact spot of a semantic error (unknown key, bad range)
 * long after parsing is done.
 */
#ifndef IOMMU_BENCH_TOML_H
#define IOMMU_BENCH_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tables and arrays nested deeper than this are rejected, not recursed. */
#define TOML_MAX_DEPTH 128

enum toml_type {
	TOML_TABLE,
	TOML_ARRAY,
	TOML_STRING,
	TOML_INTEGER,
	TOML_FLOAT,
	TOML_BOOL,
	TOML_DATETIME,	     /* offset date-time: 1979-05-27T07:32:00Z */
	TOML_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
	TOML_DATE_LOCAL,     /* 1979-05-27 */
	TOML_TIME_LOCAL,     /* 07:32:00 */
};

/* 1-based; column counts Unicode code points, not bytes. */
struct toml_pos {
	unsigned int line;
	unsigned int col;
};

struct toml_datetime {
	int year, month, day;	  /* unset (0) for TOML_TIME_LOCAL */
	int hour, minute, second; /* unset (0) for TOML_DATE_LOCAL */
	int nsec;		  /* fractional seconds, truncated to ns */
	int frac_digits;	  /* digits given after '.', 0 if none */
	int offset_min;		  /* TOML_DATETIME only; 'Z' is 0 */
};

struct toml_kv;

struct toml_value {
	enum toml_type type;
	struct toml_pos pos; /* first character of the value */
	union {
		struct {
			char *ptr; /* NUL-terminated, may hold \0 inside */
			size_t len;
		} str;
		int64_t i;
		double f;
		bool b;
		struct toml_datetime dt;
		struct {
			struct toml_value **items;
			size_t n;
			size_t alloc;
		} arr;
		struct {
			struct toml_kv *items; /* in document order */
			size_t n;
			size_t alloc;
		} tab;
	} u;
	/* Parser bookkeeping for the redefinition rules; read-only to users. */
	unsigned int flags;
};

struct toml_kv {
	char *key; /* NUL-terminated, may hold \0 inside */
	size_t keylen;
	struct toml_pos pos; /* where the key (its last dotted part) is */
	struct toml_value *val;
};

struct toml_error {
	unsigned int line; /* 0 when the error has no position (I/O) */
	unsigned int col;
	char msg[256]; /* "expected '=' after key, got 'x'" */
};

/*
 * Parse @len bytes at @buf (need not be NUL-terminated). Returns the root
 * table, or NULL with @err filled in. Never aborts on bad input.
 */
struct toml_value *toml__parse(const char *buf, size_t len,
			       struct toml_error *err);
/* Read and parse a file; I/O errors come back with line 0. */
struct toml_value *toml__parse_file(const char *path, struct toml_error *err);
void toml_value__free(struct toml_value *v);

/* Lookups on a TOML_TABLE; NULL when absent or @tab is not a table. */
const struct toml_kv *toml_table__find(const struct toml_value *tab,
				       const char *key);
const struct toml_value *toml_table__get(const struct toml_value *tab,
					 const char *key);

const char *toml_type__name(enum toml_type type);

/*
 * Format a datetime value the way RFC 3339 writes it (seconds always
 * present, fraction as given, 'Z' for a zero offset). Returns the length.
 */
int toml_datetime__format(const struct toml_value *v, char *buf, size_t size);

/*
 * @s as a TOML basic string, quotes included, with what must be escaped
 * escaped: for the TOML the tool prints (a lab machine's stanza).
 * A new string.
 */
char *toml__quote(const char *s);

#endif /* IOMMU_BENCH_TOML_H */
