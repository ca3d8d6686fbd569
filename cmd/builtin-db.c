// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench db info | migrate | merge: what is in the results database,
 * bringing its schema up to this binary's, and shards combined. info
 * never writes, so that it is safe on a database another run is
 * filling, or on someone's copy.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "log.h"
#include "output.h"
#include "parse-options.h"
#include "store/db-merge.h"
#include "store/store-schema.h"
#include "store/store.h"
#include "suggest.h"
#include "util.h"

static const char *const db_usage[] = {
	"iommu-bench db info [--json]",
	"iommu-bench db migrate [--json]",
	"iommu-bench db merge OUT IN...",
	NULL,
};

static const struct option db_options[] = {
	OPT_GLOBALS(),
	OPT_JSON(),
	OPT_GROUP(
		"info: path, schema version, SQLite version, file size and row\n"
		"counts; it never writes, and refuses a missing database.\n"
		"migrate: create the database if missing and apply pending\n"
		"schema migrations, each in its own transaction."),
	OPT_END(),
};

/* -1 when the file is not there (no WAL, say). */
static json_int_t file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? -1 : (json_int_t)sb.st_size;
}

static int db_info(const char *path)
{
	unsigned int ver, latest = store__latest_version();
	json_t *o, *counts = NULL;
	json_int_t size, wal;
	struct store *st;
	char *wal_path;
	size_t i;
	int err;

	err = store__open(path, STORE_READONLY | STORE_ANY_OLD, &st);
	if (err) {
		global__db_advice(path, err);
		return EXIT_WORK_FAILED;
	}
	ver = store__version(st);
	/* An old schema may lack the tables; counting them would fail. */
	if (ver == latest) {
		counts = json_object();
		for (i = 0; store_tables[i]; i++) {
			int64_t n;

			err = store__count(st, store_tables[i], &n);
			if (err)
				goto out;
			json_object_set_new(counts, store_tables[i],
					    json_integer(n));
		}
	}
	size = file_size(path);
	wal_path = xasprintf("%s-wal", path);
	wal = file_size(wal_path);
	free(wal_path);

	if (global.json) {
		o = json_pack("{s:s, s:I, s:I, s:I, s:s, s:I, s:I, s:o}",
			      "path", path, "schema_version", (json_int_t)ver,
			      "latest_schema_version", (json_int_t)latest,
			      "pending_migrations", (json_int_t)(latest - ver),
			      "sqlite_version", store__sqlite_version(),
			      "file_size", size, "wal_size", wal < 0 ? 0 : wal,
			      "counts", counts ? counts : json_null());
		counts = NULL;
		output__json(o);
		goto out;
	}
	printf("%-16s%s\n", "path", path);
	printf("%-16s%u", "schema version", ver);
	if (ver < latest)
		printf(" (%u migration%s pending: run 'iommu-bench db migrate')",
		       latest - ver, latest - ver == 1 ? "" : "s");
	printf("\n%-16s%s\n", "sqlite version", store__sqlite_version());
	printf("%-16s%lld bytes", "file size", (long long)size);
	if (wal > 0)
		printf(" (+ %lld bytes of WAL)", (long long)wal);
	putchar('\n');
	for (i = 0; counts && store_tables[i]; i++)
		printf("%-16s%lld\n", store_tables[i],
		       (long long)json_integer_value(
			       json_object_get(counts, store_tables[i])));
out:
	json_decref(counts);
	store__close(st);
	return err ? EXIT_WORK_FAILED : EXIT_OK;
}

static int db_migrate(const char *path)
{
	struct stat sb;
	unsigned int from, to, i;
	uint64_t mine;
	struct store *st;
	bool created;
	json_t *applied;
	int err;

	created = stat(path, &sb) < 0 || !sb.st_size;
	err = store__open(path, STORE_CREATE | STORE_ANY_OLD, &st);
	if (err) {
		global__db_advice(path, err);
		return EXIT_WORK_FAILED;
	}
	err = store__migrate(st, &from, &to, &mine);
	store__close(st);

	/* What did apply is worth saying even when a later one failed. */
	applied = json_array();
	/* Another process may have applied some of from..to at once. */
	for (i = 0; i < store_migrations_count; i++)
		if (store_migrations[i].version <= 64 &&
		    (mine & (1ULL << (store_migrations[i].version - 1))))
			json_array_append_new(
				applied, json_string(store_migrations[i].name));
	if (global.json) {
		output__json(json_pack("{s:s, s:b, s:I, s:I, s:o}", "path",
				       path, "created", created, "from",
				       (json_int_t)from, "to", (json_int_t)to,
				       "applied", applied));
	} else {
		if (created)
			printf("created %s\n", path);
		for (i = 0; i < json_array_size(applied); i++)
			printf("applied %s\n",
			       json_string_value(json_array_get(applied, i)));
		if (from == to)
			printf("%s: schema version %u, up to date\n", path, to);
		else
			printf("%s: schema version %u -> %u\n", path, from, to);
		json_decref(applied);
	}
	return err ? EXIT_WORK_FAILED : EXIT_OK;
}

/* The schema of @path as this binary knows it, or a clear refusal. */
static int merge_check(const char *path, unsigned int flags)
{
	struct store *st;
	int ret;

	ret = store__open(path, flags, &st);
	if (ret) {
		global__db_advice(path, ret);
		return ret;
	}
	if (store__version(st) != store__latest_version()) {
		pr_err("%s: schema version %u, this binary writes %u: run "
		       "'iommu-bench --db %s db migrate' first",
		       path, store__version(st), store__latest_version(), path);
		ret = -EINVAL;
	}
	store__close(st);
	return ret;
}

/* db merge OUT IN...: @argv[0] is "merge"; returns an exit code. */
static int db_merge(int argc, const char **argv)
{
	int i, ret;

	if (argc < 3) {
		pr_err("usage: iommu-bench db merge OUT IN...");
		return EXIT_USAGE;
	}
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], argv[1])) {
			pr_err("db merge: '%s' is both the output and an input",
			       argv[i]);
			return EXIT_USAGE;
		}
	ret = merge_check(argv[1], STORE_CREATE | STORE_MIGRATE);
	for (i = 2; !ret && i < argc; i++) {
		ret = merge_check(argv[i], STORE_READONLY);
		if (!ret)
			ret = store__merge(argv[1], argv[i]);
		if (!ret)
			pr_info("merged %s into %s", argv[i], argv[1]);
	}
	return ret ? EXIT_WORK_FAILED : EXIT_OK;
}

static const struct {
	const char *name;
	const char *cmd; /* for parse-options' "see --help" hints */
	int (*fn)(const char *path);
} subcommands[] = {
	{ "info", "db info", db_info },
	{ "migrate", "db migrate", db_migrate },
};

int cmd_db(int argc, const char **argv)
{
	const char *names[ARRAY_SIZE(subcommands) + 1], *best;
	size_t i;

	argc = parse_options(argc, argv, db_options, db_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_error(db_usage, db_options, "which db subcommand?");
	if (!strcmp(argv[0], "merge"))
		return db_merge(argc, argv);
	for (i = 0; i < ARRAY_SIZE(subcommands); i++) {
		names[i] = subcommands[i].name;
		if (strcmp(argv[0], names[i]))
			continue;
		/* Options may follow the subcommand as well as precede it. */
		argv[0] = subcommands[i].cmd;
		argc = parse_options(argc, argv, db_options, db_usage, 0);
		if (argc)
			usage_error(db_usage, db_options,
				    "unexpected argument '%s'", argv[0]);
		return subcommands[i].fn(global__db_path());
	}
	names[i] = NULL;
	best = suggest__best(argv[0], names);
	return global__unknown_subcommand("db", argv[0], best);
}
