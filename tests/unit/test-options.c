// SPDX-License-Identifier: GPL-2.0-only
/* The option parser and "did you mean", which every command leans on. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "parse-options.h"
#include "suggest.h"
#include "tap.h"
#include "util.h"

static const char *const usage[] = { "test [options] <file>", NULL };

static void test_distance(void)
{
	is_int(suggest__distance("", ""), 0, "distance of empty strings");
	is_int(suggest__distance("plan", "plan"), 0, "distance to itself");
	is_int(suggest__distance("pln", "plan"), 1, "one deletion");
	is_int(suggest__distance("palm", "plan"), 2,
	       "a transposition plus one");
	is_int(suggest__distance("lpan", "plan"), 1,
	       "a transposition is one edit");
	is_int(suggest__distance("kitten", "sitting"), 3, "kitten/sitting");
}

static void test_best(void)
{
	const char *const cmds[] = { "db",   "export",	"help",
				     "plan", "version", NULL };
	const char *const keys[] = { "repetitions", "warmup", "order", "name",
				     NULL };

	is_str(suggest__best("pln", cmds), "plan", "pln -> plan");
	is_str(suggest__best("exprot", cmds), "export", "exprot -> export");
	is_str(suggest__best("repetitons", keys), "repetitions",
	       "repetitons -> repetitions");
	is_str(suggest__best("ver", cmds), "version", "a prefix suggests");
	ok(!suggest__best("frobnicate", cmds), "no suggestion when far");
	ok(!suggest__best("x", keys), "no suggestion for one letter");
	ok(!suggest__best("b", (const char *const[]){ "a", NULL }),
	   "one letter is no typo of another");
	is_str(suggest__best("ab", (const char *const[]){ "abc", NULL }), "abc",
	       "two letters may be");
}

static void test_parse(void)
{
	const char *out = NULL, *file = NULL;
	bool json = false, color = true;
	int verbose = 0;
	long count = 0;
	const struct option opts[] = {
		OPT_INCR('v', "verbose", &verbose, "more"),
		OPT_BOOLEAN(0, "json", &json, "json"),
		OPT_BOOLEAN(0, "color", &color, "color"),
		OPT_STRING('o', "output", &out, "FILE", "output"),
		OPT_INTEGER('n', "count", &count, "N", "count"),
		OPT_END(),
	};
	const char *argv[] = { "test",	     "-vv",   "--json",
			       "in.toml",    "-ofoo", "--count=7",
			       "--no-color", "--",    "--not-an-option",
			       NULL };
	int argc = ARRAY_SIZE(argv) - 1;

	argc = parse_options(argc, argv, opts, usage, 0);
	is_int(argc, 2, "two arguments left");
	file = argv[0];
	is_str(file, "in.toml", "the non-option argument is kept");
	is_str(argv[1], "--not-an-option", "'--' ends the options");
	ok(argv[2] == NULL, "argv is NULL-terminated");
	is_int(verbose, 2, "-vv counts twice");
	ok(json, "--json sets a bool");
	ok(!color, "--no-color clears a bool");
	is_str(out, "foo", "-oVALUE gives a short option its value");
	is_int(count, 7, "--count=7 parses an integer");
}

static void test_stop_at_non_option(void)
{
	bool json = false;
	const struct option opts[] = {
		OPT_BOOLEAN(0, "json", &json, "json"),
		OPT_END(),
	};
	const char *argv[] = { "iommu-bench", "--json", "plan", "--json",
			       NULL };

	is_int(parse_options(4, argv, opts, usage,
			     PARSE_OPT_STOP_AT_NON_OPTION),
	       2, "stops at the command");
	is_str(argv[0], "plan", "the command comes first");
	is_str(argv[1], "--json", "the command's options are left alone");
}

int main(void)
{
	test_distance();
	test_best();
	test_parse();
	test_stop_at_non_option();
	return tap_done();
}
