/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line options, in the manner of git's and perf's parse-options:
 * each command declares a table, and usage text, --help and "did you
 * mean" come from it for free, so the help can never drift from the code.
 */
#ifndef IOMMU_BENCH_PARSE_OPTIONS_H
#define IOMMU_BENCH_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

enum parse_opt_type {
	OPTION_END,
	OPTION_GROUP,	 /* a heading in the help text */
	OPTION_BOOL,	 /* bool *; --no-NAME clears it */
	OPTION_COUNT,	 /* int *; each use adds one (-vv) */
	OPTION_STRING,	 /* const char **; the last use wins */
	OPTION_INTEGER,	 /* long *; decimal, range-checked */
	OPTION_CALLBACK, /* cb(opt, arg) for anything else */
};

struct option;
typedef int parse_opt_cb(const struct option *opt, const char *arg);

struct option {
	enum parse_opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh; /* "PATH"; NULL for options without argument */
	const char *help;
	parse_opt_cb *callback;
};

#define OPT_END()                  \
	{                          \
		.type = OPTION_END \
	}
#define OPT_GROUP(h)                              \
	{                                         \
		.type = OPTION_GROUP, .help = (h) \
	}
#define OPT_BOOLEAN(s, l, v, h)                                           \
	{                                                                 \
		.type = OPTION_BOOL, .short_name = (s), .long_name = (l), \
		.value = (v), .help = (h)                                 \
	}
#define OPT_INCR(s, l, v, h)                                               \
	{                                                                  \
		.type = OPTION_COUNT, .short_name = (s), .long_name = (l), \
		.value = (v), .help = (h)                                  \
	}
#define OPT_STRING(s, l, v, a, h)                                           \
	{                                                                   \
		.type = OPTION_STRING, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .help = (h)                      \
	}
#define OPT_INTEGER(s, l, v, a, h)                                           \
	{                                                                    \
		.type = OPTION_INTEGER, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .help = (h)                       \
	}
#define OPT_CALLBACK(s, l, v, a, h, cb)                                       \
	{                                                                     \
		.type = OPTION_CALLBACK, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .help = (h), .callback = (cb)      \
	}

/*
 * A repeatable string option: OPT_CALLBACK(..., &vec, ..., parse_opt_strvec)
 * appends each use to the struct strvec @vec.
 */
int parse_opt_strvec(const struct option *opt, const char *arg);

/* Stop at the first non-option (main uses this before the command). */
#define PARSE_OPT_STOP_AT_NON_OPTION (1u << 0)
/* The caller has its own --help (main's lists the commands too). */
#define PARSE_OPT_NO_INTERNAL_HELP (1u << 1)

/*
 * Parse @argv[1..] (argv[0] is the command name). Options are consumed;
 * the rest are moved to the front of @argv and their count is returned.
 * "--help" and "-h" print the usage to stdout and exit 0; any error
 * prints a message (with a suggestion for a misspelt option) and the
 * usage hint to stderr and exits 2.
 */
int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage, unsigned int flags);

/* Print the usage and option table to @fp. */
void usage_with_options_fp(FILE *fp, const char *const *usage,
			   const struct option *opts);

/* Print "error: MSG" and the usage to stderr, then exit 2. */
void __attribute__((noreturn, format(printf, 3, 4)))
usage_error(const char *const *usage, const struct option *opts,
	    const char *fmt, ...);

/*
 * A subcommand of a command: its word, "CMD WORD" for option hints, and
 * what runs it (its exit status).
 */
struct subcommand {
	const char *name;
	const char *full;
	int (*fn)(void);
};

/*
 * A command with subcommands (db, kernel, testbed): @opts before the
 * subcommand and after it, no other argument. The subcommand's index in
 * @subs; -1 for an unknown one, reported with a "did you mean". A missing
 * one, or an extra argument, is a usage error (exit 2).
 */
int parse_subcommand(int argc, const char **argv, const struct subcommand *subs,
		     size_t nr, const struct option *opts,
		     const char *const *usage, const char *cmd);
/* parse_subcommand(), then the subcommand: its exit status, else 2. */
int run_subcommand(int argc, const char **argv, const struct subcommand *subs,
		   size_t nr, const struct option *opts,
		   const char *const *usage, const char *cmd);

#endif /* IOMMU_BENCH_PARSE_OPTIONS_H */
