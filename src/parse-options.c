// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "parse-options.h"
#include "strvec.h"
#include "suggest.h"
#include "util.h"

struct parse_ctx {
	const struct option *opts;
	const char *const *usage;
	const char *cmd; /* argv[0], for the "see --help" hint */
};

void usage_with_options_fp(FILE *fp, const char *const *usage,
			   const struct option *opts)
{
	const struct option *o;

	fprintf(fp, "usage: %s\n", *usage++);
	for (; *usage; usage++)
		fprintf(fp, "%s%s\n", **usage ? "   or: " : "", *usage);
	fputc('\n', fp);
	for (o = opts; o->type != OPTION_END; o++) {
		char lhs[80];
		int n = 0;

		if (o->type == OPTION_GROUP) {
			fprintf(fp, "\n%s\n", o->help);
			continue;
		}
		n += snprintf(lhs + n, sizeof(lhs) - n, "    ");
		if (o->short_name)
			n += snprintf(lhs + n, sizeof(lhs) - n, "-%c%s",
				      o->short_name, o->long_name ? ", " : "");
		if (o->long_name)
			n += snprintf(lhs + n, sizeof(lhs) - n, "--%s",
				      o->long_name);
		if (o->argh)
			snprintf(lhs + n, sizeof(lhs) - n, " <%s>", o->argh);
		if (strlen(lhs) > 28)
			fprintf(fp, "%s\n%30s%s\n", lhs, "", o->help);
		else
			fprintf(fp, "%-30s%s\n", lhs, o->help);
	}
}

void usage_error(const char *const *usage, const struct option *opts,
		 const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iommu-bench: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (usage && opts)
		usage_with_options_fp(stderr, usage, opts);
	exit(EXIT_USAGE);
}

static void __attribute__((noreturn))
unknown_option(struct parse_ctx *ctx, const char *arg)
{
	const char *sp = *ctx->cmd ? " " : "";
	const struct option *o;
	char want[64], hint[64];
	const char **names;
	const char *best;
	size_t n = 0;

	for (o = ctx->opts; o->type != OPTION_END; o++)
		n++;
	names = xcalloc(n + 2, sizeof(*names));
	n = 0;
	names[n++] = "help";
	for (o = ctx->opts; o->type != OPTION_END; o++)
		if (o->long_name)
			names[n++] = o->long_name;
	snprintf(want, sizeof(want), "%.*s", (int)strcspn(arg, "="), arg);
	best = suggest__best(want, names);
	snprintf(hint, sizeof(hint), "%s", best ? best : "");
	free(names);
	if (*hint)
		usage_error(NULL, NULL,
			    "unknown option '--%s'; did you mean '--%s'?\n"
			    "(see 'iommu-bench %s%s--help')",
			    want, hint, ctx->cmd, sp);
	usage_error(NULL, NULL,
		    "unknown option '--%s' (see 'iommu-bench %s%s--help')",
		    want, ctx->cmd, sp);
}

static void set_value(struct parse_ctx *ctx, const struct option *o,
		      const char *arg, bool unset, const char *spelt)
{
	char *end;
	long v;

	switch (o->type) {
	case OPTION_BOOL:
		*(bool *)o->value = !unset;
		break;
	case OPTION_COUNT:
		*(int *)o->value = unset ? 0 : *(int *)o->value + 1;
		break;
	case OPTION_STRING:
		*(const char **)o->value = arg;
		break;
	case OPTION_INTEGER:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end)
			usage_error(NULL, NULL,
				    "option '%s' expects an integer, got '%s'",
				    spelt, arg);
		*(long *)o->value = v;
		break;
	case OPTION_CALLBACK:
		if (o->callback(o, arg))
			usage_error(NULL, NULL,
				    "bad value '%s' for option '%s'",
				    arg ? arg : "", spelt);
		break;
	default:
		break;
	}
	(void)ctx;
}

static int parse_long(struct parse_ctx *ctx, const char *arg, int *i, int argc,
		      const char **argv)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	bool unset = false;
	const struct option *o;
	char spelt[96];

	snprintf(spelt, sizeof(spelt), "--%.*s", (int)len, arg);
	for (o = ctx->opts; o->type != OPTION_END; o++) {
		if (!o->long_name)
			continue;
		if (strlen(o->long_name) == len &&
		    !strncmp(o->long_name, arg, len))
			break;
		if (o->type == OPTION_BOOL && len > 3 &&
		    !strncmp(arg, "no-", 3) &&
		    strlen(o->long_name) == len - 3 &&
		    !strncmp(o->long_name, arg + 3, len - 3)) {
			unset = true;
			break;
		}
	}
	if (o->type == OPTION_END)
		unknown_option(ctx, arg);
	if (!o->argh) {
		if (eq)
			usage_error(NULL, NULL, "option '%s' takes no value",
				    spelt);
		set_value(ctx, o, NULL, unset, spelt);
		return 0;
	}
	if (eq) {
		set_value(ctx, o, eq + 1, false, spelt);
		return 0;
	}
	if (*i + 1 >= argc)
		usage_error(NULL, NULL, "option '%s' requires a value <%s>",
			    spelt, o->argh);
	set_value(ctx, o, argv[++*i], false, spelt);
	return 0;
}

static void parse_short(struct parse_ctx *ctx, const char *arg, int *i,
			int argc, const char **argv)
{
	const struct option *o;
	char spelt[3] = "-?";

	/* Bundled flags: -vv, or -d5 where the value follows at once. */
	for (; *arg; arg++) {
		spelt[1] = *arg;
		for (o = ctx->opts; o->type != OPTION_END; o++)
			if (o->short_name == *arg)
				break;
		if (o->type == OPTION_END)
			usage_error(
				NULL, NULL,
				"unknown switch '-%c' (see 'iommu-bench %s%s--help')",
				*arg, ctx->cmd, *ctx->cmd ? " " : "");
		if (!o->argh) {
			set_value(ctx, o, NULL, false, spelt);
			continue;
		}
		if (arg[1]) {
			set_value(ctx, o, arg + 1, false, spelt);
			return;
		}
		if (*i + 1 >= argc)
			usage_error(NULL, NULL,
				    "option '%s' requires a value <%s>", spelt,
				    o->argh);
		set_value(ctx, o, argv[++*i], false, spelt);
		return;
	}
}

/*
 * A subcommand in a usage line, "iommu-bench CMD WORD ..." or "... [WORD]"
 * for the default one: WORD's length, else 0 (a MATRIX, an <ARG>, an
 * option).
 */
static size_t usage_subcommand(const char *line, const char **word)
{
	size_t n;

	if (strncmp(line, "iommu-bench ", 12))
		return 0;
	line += 12 + strcspn(line + 12, " ");
	line += strspn(line, " [");
	n = strspn(line, "abcdefghijklmnopqrstuvwxyz-");
	if (!n || *line == '-' || (line[n] && !strchr(" ]", line[n])))
		return 0;
	*word = line;
	return n;
}

/*
 * --completion-helper, which every command takes, as git's
 * --git-completion-helper: its subcommands (read from its usage lines,
 * whichever table runs them), then its long options, "--NAME=" for one
 * that takes a value, one a line. The shell's completion
 * (completions/iommu-bench) asks, so it never goes stale.
 */
static void __attribute__((noreturn))
completion_helper(const struct option *opts, const char *const *usage)
{
	const char *const *u;
	const struct option *o;
	const char *w, *seen;
	size_t n, m;

	for (u = usage; *u; u++) {
		n = usage_subcommand(*u, &w);
		for (m = 0; n && usage + m < u; m++)
			if (usage_subcommand(usage[m], &seen) == n &&
			    !strncmp(seen, w, n))
				n = 0;
		if (n)
			printf("%.*s\n", (int)n, w);
	}
	for (o = opts; o->type != OPTION_END; o++)
		if (o->long_name && strcmp(o->long_name, "help"))
			printf("--%s%s\n", o->long_name, o->argh ? "=" : "");
	printf("--help\n");
	exit(EXIT_OK);
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage, unsigned int flags)
{
	struct parse_ctx ctx = { .opts = opts, .usage = usage };

	/* main parses its own options with argv[0] = "iommu-bench". */
	ctx.cmd = strcmp(argv[0], "iommu-bench") ? argv[0] : "";
	int i, out = 0;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (arg[0] != '-' || !arg[1]) {
			if (flags & PARSE_OPT_STOP_AT_NON_OPTION) {
				while (i < argc)
					argv[out++] = argv[i++];
				break;
			}
			argv[out++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			for (i++; i < argc; i++)
				argv[out++] = argv[i];
			break;
		}
		if (!strcmp(arg, "--completion-helper"))
			completion_helper(opts, usage);
		if ((!strcmp(arg, "--help") || !strcmp(arg, "-h")) &&
		    !(flags & PARSE_OPT_NO_INTERNAL_HELP)) {
			usage_with_options_fp(stdout, usage, opts);
			exit(EXIT_OK);
		}
		if (arg[1] == '-')
			parse_long(&ctx, arg + 2, &i, argc, argv);
		else
			parse_short(&ctx, arg + 1, &i, argc, argv);
	}
	argv[out] = NULL;
	return out;
}

int parse_subcommand(int argc, const char **argv, const struct subcommand *subs,
		     size_t nr, const struct option *opts,
		     const char *const *usage, const char *cmd)
{
	const char *best;
	size_t i;

	argc = parse_options(argc, argv, opts, usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_error(usage, opts, "which %s subcommand?", cmd);
	for (i = 0; i < nr; i++) {
		if (strcmp(argv[0], subs[i].name))
			continue;
		/* Options may follow the subcommand as well as precede it. */
		argv[0] = subs[i].full;
		argc = parse_options(argc, argv, opts, usage, 0);
		if (argc)
			usage_error(usage, opts, "unexpected argument '%s'",
				    argv[0]);
		return (int)i;
	}
	best = SUGGEST_BEST(argv[0], subs, nr, name);
	if (best)
		pr_err("'%s' is not a %s subcommand; did you mean '%s'?",
		       argv[0], cmd, best);
	else
		pr_err("'%s' is not a %s subcommand (see 'iommu-bench %s "
		       "--help')",
		       argv[0], cmd, cmd);
	return -1;
}

int run_subcommand(int argc, const char **argv, const struct subcommand *subs,
		   size_t nr, const struct option *opts,
		   const char *const *usage, const char *cmd)
{
	int i = parse_subcommand(argc, argv, subs, nr, opts, usage, cmd);

	return i < 0 ? EXIT_USAGE : subs[i].fn();
}

int parse_opt_strvec(const struct option *opt, const char *arg)
{
	strvec__push(opt->value, arg);
	return 0;
}
