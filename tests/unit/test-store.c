// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store against real SQLite files in a scratch directory: create,
 * migrate and reopen; a whole run written through the API and read back;
 * resume; and the refusals that keep a mistyped --db from damaging files.
 * Raw sqlite3 connections look behind the API where it has no reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "log.h"
#include "sha256.h"
#include "store/store-schema.h"
#include "store/store.h"
#include "tap.h"
#include "util.h"

static char tmpdir[] = "/tmp/iommu-bench-test-store.XXXXXX";
static char stderr_path[4200];

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* pr_err() output of the calls between begin and end, for has_str(). */
#define capture_begin() capture__begin(stderr_path)
#define capture_end capture__end

static bool exists(const char *path)
{
	struct stat sb;

	return !stat(path, &sb);
}

/* An int64 from a query on a raw connection, -1 on any error. */
static long long raw_int(const char *path, const char *sql)
{
	sqlite3_stmt *stmt;
	long long v = -1;
	sqlite3 *db;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) ==
		    SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK) {
		if (sqlite3_step(stmt) == SQLITE_ROW)
			v = sqlite3_column_int64(stmt, 0);
		sqlite3_finalize(stmt);
	}
	sqlite3_close(db);
	return v;
}

/* The text of a one-value query on a raw connection; free() it. */
static char *raw_text(const char *path, const char *sql)
{
	sqlite3_stmt *stmt;
	char *v = NULL;
	sqlite3 *db;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) ==
		    SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK) {
		if (sqlite3_step(stmt) == SQLITE_ROW &&
		    sqlite3_column_text(stmt, 0))
			v = xstrdup((const char *)sqlite3_column_text(stmt, 0));
		sqlite3_finalize(stmt);
	}
	sqlite3_close(db);
	return v ? v : xstrdup("(none)");
}

static int raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	int rc;

	rc = sqlite3_open(path, &db);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

static void write_bytes(const char *path, const char *s)
{
	FILE *fp = fopen(path, "w");

	fputs(s, fp);
	fclose(fp);
}

static void file_sha(const char *path, char out[SHA256_HEX_SIZE])
{
	if (sha256__file(path, out, NULL))
		strcpy(out, "(unreadable)");
}

static void test_embedded(void)
{
	unsigned int i;
	bool seq = true;

	ok(store_migrations_count >= 1, "at least one migration is embedded");
	for (i = 0; i < store_migrations_count; i++)
		seq &= store_migrations[i].version == i + 1;
	ok(seq, "migrations are numbered 1..N without gaps");
	is_int(store__latest_version(),
	       store_migrations[store_migrations_count - 1].version,
	       "latest version is the newest migration's");
	is_str(store_migrations[0].name, "0001-initial",
	       "first is 0001-initial");
}

/* store__open() of @path must give @want; what it said on stderr. */
static char *open_said(const char *path, unsigned int flags, struct store **st,
		       int want, const char *what)
{
	capture_begin();
	is_int(store__open(path, flags, st), want, "%s", what);
	return capture_end();
}

static void test_create_reopen(void)
{
	char *path = path_in("sub/new.db"), *s;
	struct store *st = NULL;
	unsigned int from = 99, to = 99;

	s = open_said(path, 0, &st, -ENOENT, "missing db without CREATE");
	has_str(s, "no such database", "says the database is missing");
	/* What to do about it is the command's to say. */
	ok(!strstr(s, "db migrate"), "and leaves the advice to its caller");
	free(s);
	ok(!st && !exists(path), "and creates nothing");
	free(open_said(path, STORE_READONLY, &st, -ENOENT,
		       "missing db read-only"));

	is_int(store__open(path, STORE_CREATE | STORE_ANY_OLD, &st), 0,
	       "create (and its missing directory)");
	is_int(store__version(st), 0, "a new db is at version 0");
	is_int(store__migrate(st, &from, &to, NULL), 0, "migrate");
	is_int(from, 0, "migrated from 0");
	is_int(to, store__latest_version(), "to the latest");
	is_int(store__migrate(st, &from, &to, NULL), 0, "migrate again");
	ok(from == to && to == store__latest_version(), "second is a no-op");
	store__close(st);

	is_int(raw_int(path, "PRAGMA user_version"), store__latest_version(),
	       "user_version equals the newest migration");
	is_int(raw_int(path, "PRAGMA application_id"), 1229934402,
	       "application_id is iommu-bench's");
	s = raw_text(path, "PRAGMA journal_mode");
	is_str(s, "wal", "journal mode is WAL");
	free(s);

	is_int(store__open(path, 0, &st), 0, "reopen");
	is_int(store__version(st), store__latest_version(), "reopened version");
	is_str(store__path(st), path, "path is kept");
	store__close(st);
	is_int(store__open(path, STORE_READONLY, &st), 0, "reopen read-only");
	is_int(store__migrate(st, NULL, NULL, NULL), 0,
	       "migrate read-only with nothing pending is fine");
	store__close(st);
	free(path);

	path = path_in("plain-create.db");
	is_int(store__open(path, STORE_CREATE, &st), 0, "CREATE alone");
	is_int(store__version(st), store__latest_version(),
	       "gives a new database its schema");
	store__close(st);
	free(path);
}

static void test_refusals(void)
{
	char before[SHA256_HEX_SIZE], after[SHA256_HEX_SIZE];
	char *text = path_in("notes.txt"), *foreign = path_in("foreign.db");
	char *newer = path_in("newer.db"), *old = path_in("old.db");
	char *empty = path_in("empty.db"), *wal, *s;
	unsigned int flags[] = { 0, STORE_READONLY,
				 STORE_CREATE | STORE_MIGRATE };
	struct store *st;
	bool same = true, none = true, msg = true;
	size_t i;
	long long ver;

	/* Text where a database should be: every mode refuses, byte-exact. */
	write_bytes(text, "these are my notes, not a database\n");
	file_sha(text, before);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		capture_begin();
		st = NULL;
		none &= store__open(text, flags[i], &st) == -EBADMSG && !st;
		s = capture_end();
		msg &= strstr(s, "not a SQLite database") && strstr(s, text);
		free(s);
		file_sha(text, after);
		same &= !strcmp(before, after);
	}
	ok(none, "a text file is refused (-EBADMSG) in every mode");
	ok(msg, "with a message naming it and why");
	ok(same, "and its bytes are unchanged");
	wal = xasprintf("%s-wal", text);
	ok(!exists(wal), "and no WAL was made beside it");
	free(wal);

	/* A SQLite database of some other program. */
	ok(raw_exec(foreign,
		    "CREATE TABLE mine (x); INSERT INTO mine VALUES (1)") ==
		   SQLITE_OK,
	   "make a foreign SQLite database");
	file_sha(foreign, before);
	s = open_said(foreign, STORE_CREATE | STORE_MIGRATE, &st, -EBADMSG,
		      "another application's database is refused");
	has_str(s, "not an iommu-bench one", "saying whose it is not");
	free(s);
	file_sha(foreign, after);
	is_str(after, before, "and it is unchanged");

	/* Newer than we know. */
	is_int(store__open(newer, STORE_CREATE | STORE_MIGRATE, &st), 0,
	       "make a current database");
	store__close(st);
	ver = store__latest_version() + 1;
	s = xasprintf("PRAGMA user_version = %lld", ver);
	ok(raw_exec(newer, s) == SQLITE_OK, "bump its user_version");
	free(s);
	file_sha(newer, before);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		capture_begin();
		is_int(store__open(newer, flags[i], &st), -EPROTONOSUPPORT,
		       "newer schema refused (flags %#x)", flags[i]);
		s = capture_end();
		if (!i) {
			char *want = xasprintf(
				"database schema version %lld is newer than this "
				"iommu-bench supports (%u)",
				ver, store__latest_version());

			has_str(s, want, "says the schema is newer");
			free(want);
		}
		free(s);
	}
	file_sha(newer, after);
	is_str(after, before, "the newer database is unchanged");

	/* Older: a SQLite file with no schema yet is pending version 1. */
	ok(raw_exec(old, "CREATE TABLE t (x); DROP TABLE t") == SQLITE_OK,
	   "make an empty SQLite database");
	s = open_said(old, 0, &st, -ESTALE, "pending migrations refused");
	ok(!strstr(s, "db migrate"), "and leaves the way out to its caller");
	free(s);
	free(open_said(old, STORE_READONLY, &st, -ESTALE,
		       "read-only refuses pending migrations too"));
	is_int(store__open(old, STORE_READONLY | STORE_ANY_OLD, &st), 0,
	       "read-only with ANY_OLD opens it");
	is_int(store__version(st), 0, "at version 0");
	capture_begin();
	is_int(store__migrate(st, NULL, NULL, NULL), -EROFS,
	       "and a read-only store does not migrate");
	free(capture_end());
	store__close(st);
	is_int(raw_int(old, "PRAGMA user_version"), 0, "still version 0");
	is_int(store__open(old, STORE_MIGRATE, &st), 0, "MIGRATE migrates");
	is_int(store__version(st), store__latest_version(), "to the latest");
	store__close(st);

	/* Zero length: new only for a creator. */
	write_bytes(empty, "");
	capture_begin();
	is_int(store__open(empty, 0, &st), -ENOENT, "zero-length, no CREATE");
	is_int(store__open(empty, STORE_READONLY | STORE_ANY_OLD, &st), -ENOENT,
	       "zero-length, read-only");
	s = capture_end();
	has_str(s, "empty file", "says the file is empty");
	free(s);
	is_int(store__open(empty, STORE_CREATE | STORE_MIGRATE, &st), 0,
	       "zero-length with CREATE becomes a database");
	store__close(st);
	is_int(raw_int(empty, "PRAGMA user_version"), store__latest_version(),
	       "and is migrated");

	free(open_said(tmpdir, STORE_CREATE, &st, -EINVAL,
		       "a directory is refused"));
	is_int(store__open(text, STORE_READONLY | STORE_CREATE, &st), -EINVAL,
	       "READONLY with CREATE is a contradiction");
	free_all(text, foreign, newer, old, empty);
}

/* What a trial of the fixture measured, and what export must give back. */
struct expect {
	const char *mode;
	unsigned int rep;
	bool warmup;
	double gbps, cpu;
	enum store_trial_status status;
};

static const struct expect trials[] = {
	{ "strict", 0, true, 14.0, 80, STORE_TRIAL_OK },
	{ "strict", 0, false, 14.9, 72.5, STORE_TRIAL_OK },
	{ "strict", 1, false, 15.1, 71.25, STORE_TRIAL_OK },
	{ "lazy", 0, false, 39.8, 60.125, STORE_TRIAL_OK },
	{ "lazy", 1, false, 0.1, 1e-3, STORE_TRIAL_FAILED },
	{ "lazy", 2, false, 40.25, 59.5, STORE_TRIAL_OK },
};

struct fixture {
	int64_t run, host, boot, kernel, cell[2], trial[ARRAY_SIZE(trials)];
};

static int write_trial(struct store *st, const struct fixture *f, size_t i,
		       const char *artifact)
{
	const struct expect *e = &trials[i];
	const uint64_t hist[] = { 0, 3, 10, 4000000000ull };
	struct store_probe probe = {
		.name = "unmap",
		.target = "iommu_dma_unmap_page",
		.attach = "tracepoint",
		.calls = 4000000013ull,
		.total_ns = 123456789012ull,
		.hist = hist,
		.hist_len = ARRAY_SIZE(hist),
	};
	struct store_profile_row prof = {
		.event = "cpu-clock",
		.symbol = "iommu_dma_sync_sg_for_cpu",
		.dso = "[kernel.kallsyms]",
		.overhead = 5.3,
		.samples = 530,
	};
	int err;

	err = store__begin(st);
	err = err   ?:
		      store__trial_start(st, f->trial[i], f->boot, e->mode,
					 e->mode);
	err = err   ?:
		      store__metric_add(st, f->trial[i], "throughput", e->gbps,
					"Gbit/s", STORE_BETTER_HIGHER, NULL);
	err = err   ?:
		      store__metric_add(st, f->trial[i], "cpu, \"sys\"", e->cpu,
					"%", STORE_BETTER_LOWER, NULL);
	err = err ?: store__probe_add(st, f->trial[i], &probe, NULL);
	err = err ?: store__profile_add(st, f->trial[i], &prof, NULL);
	err = err   ?:
		      store__interval_add(st, f->trial[i], "throughput", 0, 1,
					  e->gbps - 1, "Gbit/s", NULL);
	err = err   ?:
		      store__interval_add(st, f->trial[i], "throughput", 1, 2,
					  e->gbps + 1, "Gbit/s", NULL);
	err = err   ?:
		      store__artifact_add(st, f->run, f->trial[i], artifact,
					  "perf.data", NULL);
	err = err   ?:
		      store__trial_finish(st, f->trial[i], e->status,
					  e->status == STORE_TRIAL_OK ?
						  NULL :
						  "iperf3: connection refused");
	if (err) {
		store__rollback(st);
		return err;
	}
	return store__commit(st);
}

/*
 * A cell's profile as the robot's table reads it: each symbol's mean
 * share over the cell's trials that finished with samples, a trial that
 * missed a symbol counting 0 for it.
 */
static void test_profile_shares(struct store *st, const struct fixture *f)
{
	struct store_profile_row more = {
		.event = "cpu-clock",
		.symbol = "iommu_dma_unmap_page",
		.overhead = 12,
		.samples = 1200,
	};
	struct store_share *v;
	size_t n;

	store__profile_add(st, f->trial[1], &more, NULL);
	is_int(store__profile_shares(st, f->run, "sut", "debian-6.1", "strict",
				     "iperf3-tcp", &v, &n),
	       0, "a cell's profile shares");
	ok(n == 2 && !strcmp(v[0].symbol, "iommu_dma_sync_sg_for_cpu") &&
		   fabs(v[0].share - 5.3) < 1e-9 &&
		   !strcmp(v[0].event, "cpu-clock") &&
		   !strcmp(v[1].symbol, "iommu_dma_unmap_page") &&
		   fabs(v[1].share - 4.0) < 1e-9,
	   "the biggest first; a symbol one of 3 trials sampled: its mean "
	   "over all 3 (got %zu, %s %g)",
	   n, n ? v[0].symbol : "-", n ? v[0].share : 0.0);
	store_shares__free(v, n);
	is_int(store__profile_shares(st, f->run, "sut", "debian-6.1", "lazy",
				     "iperf3-tcp", &v, &n),
	       0, "the other mode's");
	ok(n == 1 && fabs(v[0].share - 5.3) < 1e-9,
	   "its failed trial is not counted (got %zu)", n);
	store_shares__free(v, n);
	is_int(store__profile_shares(st, f->run, "sut", "debian-6.12", "strict",
				     "iperf3-tcp", &v, &n),
	       0, "another kernel's cell");
	ok(!n && !v, "none: that cell was not profiled");
}

static void test_run(void)
{
	static const char config[] = "[run]\nname = \"seed\"\n";
	char *path = path_in("run.db"), *artifact = path_in("perf.data"), *s;
	char sha[SHA256_HEX_SIZE];
	struct store_export_row row;
	struct store_export *it;
	struct store_run run;
	struct fixture f = { 0 };
	struct store *st;
	struct store_kernel k = {
		.name = "debian-6.1",
		.release = "6.1.0-57-amd64",
		.build_id = "abc123",
		.image_path = "/boot/vmlinuz-6.1.0-57-amd64",
		.recipe_json = "{\"package\": \"linux-image-6.1.0-57-amd64\"}",
	};
	struct store_boot b = {
		.boot_id = "5f0c0a8e-0000-4000-8000-000000000001",
		.kernel_release = "6.1.0-57-amd64",
		.kernel_build_id = "abc123",
		.cmdline = "root=/dev/vda intel_iommu=on iommu.strict=1",
		.facts_json = NULL,
	};
	struct store_cell cell;
	enum store_trial_status ts;
	int64_t id, id2, other_run, pkg;
	bool all_ok = true, match = true;
	size_t i, n;
	int rc;

	write_bytes(artifact, "PERFILE2");
	if (store__open(path, STORE_CREATE | STORE_MIGRATE, &st)) {
		ok(0, "open run.db");
		return;
	}
	is_int(store__run_begin(st, "seed", config, strlen(config), &f.run), 0,
	       "begin a run");
	is_int(store__run_get(st, f.run, &run), 0, "read the run back");
	sha256__hex(config, strlen(config), sha);
	is_str(run.config_sha256, sha, "config sha256 is stored");
	is_str(run.config, config, "config text is stored");
	is_int(run.status, STORE_RUN_RUNNING, "run is running");
	ok(run.started_at && strlen(run.started_at) == 24 &&
		   run.started_at[23] == 'Z' && !run.finished_at,
	   "started_at is ISO 8601 UTC, no finish yet");
	ok(run.tool_version && *run.tool_version, "tool version is stored");
	store__run_release(&run);
	is_int(store__run_get(st, 4242, &run), -ENOENT, "unknown run");

	is_int(store__host_upsert(st, "sut", "machine-id:0123", &f.host), 0,
	       "add a host");
	is_int(store__host_upsert(st, "sut", "machine-id:0123", &id), 0,
	       "add it again");
	is_int(id, f.host, "same host id");
	store__host_upsert(st, "sut", "machine-id:4567", &id);
	ok(id != f.host, "same name, other machine: another host");

	is_int(store__kernel_upsert(st, &k, &f.kernel), 0, "add a kernel");
	k.image_path = NULL;
	k.recipe_json = NULL;
	is_int(store__kernel_upsert(st, &k, &id), 0, "add it again");
	is_int(id, f.kernel, "same kernel id");
	s = raw_text(path, "SELECT image_path FROM kernels WHERE id = 1");
	is_str(s, "/boot/vmlinuz-6.1.0-57-amd64", "NULL keeps the image path");
	free(s);
	k.build_id = "def456";
	store__kernel_upsert(st, &k, &id);
	ok(id != f.kernel, "another build is another kernel");
	k.build_id = NULL;
	k.package = "linux-image-6.1.0-57-amd64";
	k.version = "6.1.192-1";
	k.suite = "bookworm";
	store__kernel_upsert(st, &k, &pkg);
	ok(pkg != f.kernel && pkg != id, "a package's version is a kernel");
	k.suite = NULL;
	store__kernel_upsert(st, &k, &id);
	is_int(id, pkg, "the same version again: the same kernel");
	s = raw_text(path, "SELECT package || ' ' || version || ' ' || suite"
			   " FROM kernels WHERE version = '6.1.192-1'");
	is_str(s, "linux-image-6.1.0-57-amd64 6.1.192-1 bookworm",
	       "its package, version and suite, kept when not said again");
	free(s);
	k.version = "6.1.192-2";
	store__kernel_upsert(st, &k, &id);
	ok(id != pkg, "a new upload under the same release: another kernel");
	k.package = k.version = NULL;
	k.recipe_json = "{not json";
	capture_begin();
	rc = store__kernel_upsert(st, &k, &id);
	free(capture_end());
	is_int(rc, -EINVAL, "a recipe that is not JSON is refused");

	is_int(store__boot_upsert(st, f.host, &b, &f.boot), 0, "add a boot");
	b.facts_json = "{\"iommu\": \"intel\", \"groups\": 7}";
	is_int(store__boot_upsert(st, f.host, &b, &id), 0, "add facts later");
	is_int(id, f.boot, "same boot");
	s = raw_text(path, "SELECT json_extract(facts, '$.iommu') FROM boots");
	is_str(s, "intel", "facts were added to the boot");
	free(s);

	cell = (struct store_cell){ .run_id = f.run,
				    .host_id = f.host,
				    .kernel_id = f.kernel,
				    .mode = "strict",
				    .workload = "iperf3-tcp",
				    .key = "sut/debian-6.1/strict/iperf3-tcp" };
	is_int(store__cell_upsert(st, &cell, &f.cell[0]), 0, "add strict cell");
	is_int(store__cell_upsert(st, &cell, &id), 0, "add it again");
	is_int(id, f.cell[0], "same cell id (resume)");
	cell.mode = "lazy";
	capture_begin();
	rc = store__cell_upsert(st, &cell, &id);
	s = capture_end();
	is_int(rc, -EEXIST, "same key, other mode: the matrix changed");
	has_str(s, "matrix changed", "and says so");
	free(s);
	cell.key = "sut/debian-6.1/lazy/iperf3-tcp";
	is_int(store__cell_upsert(st, &cell, &f.cell[1]), 0, "add lazy cell");
	{
		struct store_cell pc = cell;
		char *p = NULL, *v = NULL;

		pc.kernel_id = pkg;
		pc.key = "sut/pkg/lazy/iperf3-tcp";
		store__cell_upsert(st, &pc, &id);
		is_int(store__run_kernel_package(st, f.run, k.name, &p, &v), 0,
		       "the package a run measured as its kernel");
		ok(p && v && !strcmp(p, "linux-image-6.1.0-57-amd64") &&
			   !strcmp(v, "6.1.192-1"),
		   "its package and version, for a resume");
		free_all(p, v);
		is_int(store__run_kernel_package(st, f.run, "other", &p, &v),
		       -ENOENT, "a kernel the run has no package for");
	}

	for (i = 0; i < ARRAY_SIZE(trials); i++) {
		int64_t c = f.cell[strcmp(trials[i].mode, "strict") ? 1 : 0];

		all_ok &= !store__trial_find_or_insert(
			st, c, trials[i].rep,
			trials[i].warmup ? STORE_TRIAL_WARMUP :
					   STORE_TRIAL_MEASURED,
			&f.trial[i], &ts);
		all_ok &= ts == STORE_TRIAL_PENDING;
	}
	ok(all_ok, "add six pending trials");
	s = raw_text(path, "SELECT group_concat(requested_mode) FROM trials");
	is_str(s, "strict,strict,strict,lazy,lazy,lazy",
	       "requested mode comes from the cell");
	free(s);

	for (i = 0, all_ok = true; i < ARRAY_SIZE(trials); i++)
		all_ok &=
			!write_trial(st, &f, i, i % 2 ? "perf.data" : artifact);
	ok(all_ok, "write every trial in its own transaction");

	/* Resume: what is done is found, not added. */
	is_int(store__trial_find_or_insert(st, f.cell[0], 1,
					   STORE_TRIAL_MEASURED, &id, &ts),
	       0, "find a finished trial");
	ok(id == f.trial[2] && ts == STORE_TRIAL_OK, "same id, status ok");
	is_int(store__trial_find_or_insert(st, f.cell[1], 1,
					   STORE_TRIAL_MEASURED, &id, &ts),
	       0, "find the failed trial");
	ok(id == f.trial[4] && ts == STORE_TRIAL_FAILED, "status failed");
	is_int(raw_int(path, "SELECT count(*) FROM trials"), 6,
	       "no trial was added twice");
	capture_begin();
	is_int(store__trial_find_or_insert(st, 999, 0, STORE_TRIAL_MEASURED,
					   &id, &ts),
	       -ENOENT, "a trial of no cell is refused");
	free(capture_end());

	/* Read back through export: ok, non-warmup trials only. */
	is_int(store__export_open(st, f.run, 0, &it), 0, "export rows");
	n = 0;
	for (i = 0; i < ARRAY_SIZE(trials); i++) {
		const struct expect *e = &trials[i];

		if (e->warmup || e->status != STORE_TRIAL_OK)
			continue;
		/* Sorted by metric name: "cpu, \"sys\"" before "throughput". */
		match &= store__export_next(it, &row) == 1;
		match &= row.run == f.run && !strcmp(row.run_name, "seed");
		match &= !strcmp(row.metric, "cpu, \"sys\"") &&
			 row.value == e->cpu && !strcmp(row.unit, "%") &&
			 !strcmp(row.better, "lower");
		match &= store__export_next(it, &row) == 1;
		match &= !strcmp(row.metric, "throughput") &&
			 row.value == e->gbps && !strcmp(row.unit, "Gbit/s") &&
			 !strcmp(row.better, "higher");
		match &= !strcmp(row.requested_mode, e->mode) &&
			 !strcmp(row.effective_mode, e->mode) &&
			 row.repetition == e->rep && !row.warmup &&
			 row.trial == f.trial[i] && !strcmp(row.status, "ok") &&
			 !strcmp(row.host, "sut") &&
			 !strcmp(row.kernel, "debian-6.1") &&
			 !strcmp(row.kernel_release, "6.1.0-57-amd64") &&
			 !strcmp(row.workload, "iperf3-tcp") &&
			 strlen(row.started_at) == 24;
		if (!match)
			tap_diag("trial %zu: metric %s value %g", i, row.metric,
				 row.value);
		n += 2;
	}
	ok(match, "export rows match what was written, in order");
	is_int(store__export_next(it, &row), 0, "and then the end");
	store__export_close(it);
	is_int(n, 8, "eight rows of four ok measured trials");

	store__export_open(st, f.run, STORE_EXPORT_ALL, &it);
	for (n = 0; store__export_next(it, &row) == 1; n++)
		if (n == 0)
			ok(row.warmup && row.trial == f.trial[0],
			   "--all: warmup first");
	store__export_close(it);
	is_int(n, 12, "--all: every trial's metrics");

	/* A second run stays apart. */
	store__run_begin(st, "other", "x", 1, &other_run);
	store__export_open(st, other_run, STORE_EXPORT_ALL, &it);
	is_int(store__export_next(it, &row), 0, "another run exports nothing");
	store__export_close(it);
	store__export_open(st, 0, 0, &it);
	for (n = 0; store__export_next(it, &row) == 1; n++)
		;
	store__export_close(it);
	is_int(n, 8, "run 0 exports every run");
	is_int(store__run_latest(st, &id), 0, "latest run");
	is_int(id, other_run, "is the newest");

	/* What export does not show, straight from the tables. */
	s = raw_text(path, "SELECT hist FROM probes LIMIT 1");
	is_str(s, "[0,3,10,4000000000]", "probe histogram as a JSON array");
	free(s);
	is_int(raw_int(path, "SELECT calls FROM probes LIMIT 1"), 4000000013ll,
	       "probe calls beyond 32 bits");
	s = raw_text(path,
		     "SELECT attach || ' ' || target FROM probes LIMIT 1");
	is_str(s, "tracepoint iommu_dma_unmap_page", "probe attach and target");
	free(s);
	is_int(raw_int(path,
		       "SELECT count(*) FROM profile WHERE overhead = 5.3 "
		       "AND samples = 530 AND event = 'cpu-clock'"),
	       6, "profile rows");
	test_profile_shares(st, &f);
	is_int(raw_int(path, "SELECT count(*) FROM intervals"), 12,
	       "interval rows");
	s = raw_text(path, "SELECT group_concat(value) FROM intervals WHERE "
			   "trial_id = 2 ORDER BY t_start");
	is_str(s, "13.9,15.9", "interval values");
	free(s);
	sha256__hex("PERFILE2", 8, sha);
	is_int(raw_int(path, "SELECT count(*) FROM artifacts WHERE size = 8"),
	       6, "artifact sizes");
	s = raw_text(path, "SELECT sha256 FROM artifacts LIMIT 1");
	is_str(s, sha, "artifact sha256");
	free(s);
	s = raw_text(path, "SELECT path FROM artifacts WHERE id = 2");
	is_str(s, "perf.data", "a relative artifact path is kept relative");
	free(s);
	is_int(store__artifact_add(st, other_run, 0, artifact, "log", &id), 0,
	       "a run-level artifact");
	capture_begin();
	is_int(store__artifact_add(st, other_run, f.trial[1], artifact, "log",
				   &id2),
	       -ENOENT, "a trial artifact under the wrong run is refused");
	is_int(store__artifact_add(st, f.run, 0, "missing.data", "log", &id2),
	       -ENOENT, "a missing artifact file is refused");
	is_int(store__artifact_add(st, 0, 0, artifact, "log", &id2), -EINVAL,
	       "an artifact of neither a run nor a trial is refused");
	free(capture_end());
	is_int(store__artifact_add(st, 0, f.trial[1], artifact, "log", &id2), 0,
	       "run 0: a trial artifact takes the trial's run");
	s = xasprintf("SELECT run_id = %lld FROM artifacts WHERE id = %lld",
		      (long long)f.run, (long long)id2);
	is_int(raw_int(path, s), 1, "... which is the run stored");
	free(s);

	/* Constraints that protect the data. */
	capture_begin();
	is_int(store__metric_add(st, 999999, "x", 1, "", STORE_BETTER_NONE,
				 NULL),
	       -ENOENT, "foreign keys: a metric of no trial is refused");
	is_int(store__metric_add(st, f.trial[1], "throughput", 1, "",
				 STORE_BETTER_NONE, NULL),
	       -EEXIST, "one value per metric per trial");
	is_int(store__metric_add(st, f.trial[1], "nan", 0.0 / 0.0, "",
				 STORE_BETTER_NONE, NULL),
	       -EINVAL, "NaN is refused");
	is_int(store__trial_start(st, 999999, 0, NULL, NULL), -ENOENT,
	       "starting no trial is an error");
	is_int(store__trial_finish(st, f.trial[1], STORE_TRIAL_RUNNING, NULL),
	       -EINVAL, "finish wants a final status");
	s = capture_end();
	has_str(s, path, "errors name the database");
	has_str(s, "FOREIGN KEY constraint failed", "and SQLite's words");
	free(s);
	{
		int64_t h2, b2;
		struct store_boot ob = { .boot_id = "other-boot",
					 .kernel_release = "6.1",
					 .cmdline = "" };

		store__host_upsert(st, "peer", "machine-id:peer", &h2);
		store__boot_upsert(st, h2, &ob, &b2);
		capture_begin();
		is_int(store__trial_start(st, f.trial[1], b2, "strict",
					  "strict"),
		       -EINVAL, "a boot of another host is refused");
		free(capture_end());
	}

	/* Rollback and retry. */
	store__begin(st);
	store__metric_add(st, f.trial[4], "late", 1, "", STORE_BETTER_NONE,
			  NULL);
	store__rollback(st);
	is_int(raw_int(path,
		       "SELECT count(*) FROM metrics WHERE name = 'late'"),
	       0, "a rolled-back metric is gone");
	is_int(store__trial_reset(st, f.trial[4]), 0, "reset the failed trial");
	is_int(raw_int(path, "SELECT count(*) FROM metrics WHERE trial_id = 5"),
	       0, "its metrics are gone");
	is_int(raw_int(path, "SELECT count(*) FROM probes WHERE trial_id = 5"),
	       0, "its probes are gone");
	store__trial_find_or_insert(st, f.cell[1], 1, STORE_TRIAL_MEASURED, &id,
				    &ts);
	ok(id == f.trial[4] && ts == STORE_TRIAL_PENDING, "and it is pending");

	/* Resume finds the unfinished run by name and config. */
	sha256__hex(config, strlen(config), sha);
	is_int(store__run_find_resumable(st, "seed", sha, &id), 0,
	       "find the run to resume");
	is_int(id, f.run, "it is the seed run");
	is_int(store__run_finish(st, f.run, STORE_RUN_INTERRUPTED), 0,
	       "interrupt it");
	is_int(store__run_find_resumable(st, "seed", sha, &id), 0,
	       "an interrupted run resumes");
	is_int(store__run_resume(st, f.run), 0, "resume it");
	is_int(store__run_finish(st, f.run, STORE_RUN_DONE), 0, "finish it");
	is_int(store__run_find_resumable(st, "seed", sha, &id), -ENOENT,
	       "a done run does not resume");
	store__run_get(st, f.run, &run);
	ok(run.status == STORE_RUN_DONE && run.finished_at,
	   "done, with a finish");
	store__run_release(&run);
	is_int(store__run_finish(st, f.run, STORE_RUN_RUNNING), -EINVAL,
	       "finish wants a final status");

	store__close(st);
	free(path);
	free(artifact);
}

/*
 * The crash the design promises to survive: a process that dies in the
 * middle of a trial's transaction leaves no half of it behind.
 */
static void test_crash(void)
{
	char *path = path_in("crash.db");
	struct store_cell cell = { .mode = "lazy",
				   .workload = "w",
				   .key = "k" };
	struct store_kernel k = { .name = "k" };
	enum store_trial_status ts;
	int64_t cell_id, trial;
	struct store *st;
	pid_t pid;
	int status;

	store__open(path, STORE_CREATE | STORE_MIGRATE, &st);
	store__run_begin(st, "crash", "", 0, &cell.run_id);
	store__host_upsert(st, "h", "id", &cell.host_id);
	store__kernel_upsert(st, &k, &cell.kernel_id);
	store__cell_upsert(st, &cell, &cell_id);
	store__trial_find_or_insert(st, cell_id, 0, STORE_TRIAL_MEASURED,
				    &trial, &ts);
	store__close(st);

	pid = fork();
	if (!pid) {
		if (store__open(path, 0, &st) || store__begin(st) ||
		    store__trial_start(st, trial, 0, "lazy", "lazy") ||
		    store__metric_add(st, trial, "throughput", 1, "", 0, NULL))
			_exit(1);
		_exit(42); /* no commit, no close: a crash */
	}
	waitpid(pid, &status, 0);
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 42,
	       "a child wrote half a trial and died");
	is_int(store__open(path, 0, &st), 0, "the database opens after it");
	store__trial_find_or_insert(st, cell_id, 0, STORE_TRIAL_MEASURED,
				    &trial, &ts);
	is_int(ts, STORE_TRIAL_PENDING, "the trial is still pending");
	store__close(st);
	is_int(raw_int(path, "SELECT count(*) FROM metrics"), 0,
	       "and no metric of it survived");
	free(path);
}

/*
 * 0006: a probe's self time and nested calls, written and read back;
 * NULL where the writer does not know them (no latency, the exposure
 * row), and where no value can be stored.
 */
static void test_probe_self(void)
{
	char *path = path_in("self.db"), *s;
	struct store_cell cell = { .mode = "strict",
				   .workload = "w",
				   .key = "k" };
	struct store_kernel k = { .name = "k" };
	const uint64_t hist[] = { 0, 2, 1 };
	struct store_probe unmap = {
		.name = "unmap",
		.target = "iommu_dma_unmap_page",
		.attach = "fentry",
		.calls = 3,
		.total_ns = 9000000000000ull,
		.hist = hist,
		.hist_len = ARRAY_SIZE(hist),
		.self_known = true,
		.self_ns = 5000000000123ull,
		.nested = 0,
	};
	struct store_probe sync = {
		.name = "iotlb_sync",
		.target = "intel_iommu_tlb_sync",
		.attach = "fentry",
		.calls = 3,
		.total_ns = 4000,
		.self_known = true,
		.self_ns = 1500,
		.nested = 3,
	};
	struct store_probe untimed = {
		.name = "unmap_tp",
		.target = "dma:dma_unmap_phys",
		.attach = "raw_tp",
		.calls = 7,
		.self_ns = 99, /* not known: not stored */
		.nested = 99,
	};
	struct store_probe huge = {
		.name = "huge",
		.target = "f",
		.attach = "kprobe",
		.self_known = true,
		.self_ns = (uint64_t)INT64_MAX + 1,
	};
	enum store_trial_status ts;
	int64_t cell_id, trial;
	struct store *st;
	int rc;

	if (store__open(path, STORE_CREATE | STORE_MIGRATE, &st)) {
		ok(0, "open self.db");
		free(path);
		return;
	}
	store__run_begin(st, "self", "", 0, &cell.run_id);
	store__host_upsert(st, "h", "id", &cell.host_id);
	store__kernel_upsert(st, &k, &cell.kernel_id);
	store__cell_upsert(st, &cell, &cell_id);
	store__trial_find_or_insert(st, cell_id, 0, STORE_TRIAL_MEASURED,
				    &trial, &ts);
	is_int(store__probe_add(st, trial, &unmap, NULL), 0,
	       "a timed probe with its self time");
	is_int(store__probe_add(st, trial, &sync, NULL), 0, "one nested in it");
	is_int(store__probe_add(st, trial, &untimed, NULL), 0,
	       "a probe without latency");
	capture_begin();
	rc = store__probe_add(st, trial, &huge, NULL);
	s = capture_end();
	is_int(rc, -ERANGE, "a self time SQLite cannot hold is refused");
	has_str(s, "self_ns", "naming it");
	free(s);
	store__close(st);

	s = raw_text(path, "SELECT self_ns || '/' || nested || '/' || total_ns"
			   " FROM probes WHERE name = 'unmap'");
	is_str(s, "5000000000123/0/9000000000000",
	       "unmap: self_ns and nested read back, beside total_ns");
	free(s);
	s = raw_text(path, "SELECT self_ns || '/' || nested FROM probes"
			   " WHERE name = 'iotlb_sync'");
	is_str(s, "1500/3", "iotlb_sync: every call nested");
	free(s);
	is_int(raw_int(path, "SELECT count(*) FROM probes WHERE"
			     " name = 'unmap_tp' AND self_ns IS NULL AND"
			     " nested IS NULL AND calls = 7"),
	       1, "no latency: self_ns and nested are NULL, not 0");
	is_int(raw_int(path, "SELECT count(*) FROM probes WHERE name = 'huge'"),
	       0, "the refused row is not there");
	is_int(raw_int(path, "SELECT sum(total_ns - self_ns) FROM probes"
			     " WHERE name = 'iotlb_sync'"),
	       2500, "total_ns - self_ns: the time in calls nested deeper");
	is_int(raw_exec(path, "UPDATE probes SET self_ns = -1"
			      " WHERE name = 'unmap'"),
	       SQLITE_CONSTRAINT, "a negative self_ns breaks a CHECK");
	is_int(raw_exec(path, "UPDATE probes SET nested = -1"
			      " WHERE name = 'unmap'"),
	       SQLITE_CONSTRAINT, "and so does a negative nested");
	free(path);
}

/*
 * 0002 rebuilds trials: a version 1 database with a run in it keeps every
 * row and reference, its trials become measured ones (profile 0) whose
 * collectors are not known, and a profile trial can then sit beside a
 * measured one of the same repetition.
 */
static void test_migrate_profile(void)
{
	char *path = path_in("v1.db"), *sql, *s;
	struct store *st;
	int64_t id, prof;
	enum store_trial_status ts;

	sql = xasprintf(
		"%s; PRAGMA user_version = 1;"
		"INSERT INTO runs (name, config, config_sha256, tool_version,"
		" started_at) VALUES ('r', '', '%064d', 'v', 'now');"
		"INSERT INTO hosts (name, identity, first_seen)"
		" VALUES ('sut', 'm', 'now');"
		"INSERT INTO kernels (name) VALUES ('k');"
		"INSERT INTO cells (run_id, host_id, kernel_id, mode, workload,"
		" cell_key) VALUES (1, 1, 1, 'strict', 'w', 'key');"
		"INSERT INTO trials (cell_id, repetition, warmup,"
		" requested_mode, status) VALUES (1, 1, 0, 'strict', 'ok'),"
		" (1, 1, 1, 'strict', 'ok');"
		"INSERT INTO cells (run_id, host_id, kernel_id, mode, workload,"
		" cell_key) VALUES (1, 1, 1, 'lazyboot', 'w', 'key2');"
		"INSERT INTO trials (cell_id, repetition, warmup,"
		" requested_mode, effective_mode, status)"
		" VALUES (2, 1, 0, 'lazyboot', 'lazy', 'failed');"
		"INSERT INTO metrics (trial_id, name, value, unit, better)"
		" VALUES (1, 'throughput', 9.5, 'Gbit/s', 'higher');"
		"INSERT INTO probes (trial_id, name, target, attach, calls,"
		" total_ns, hist) VALUES (1, 'unmap', 'f', 'fentry', 5, 50,"
		" '[0, 5]');",
		store_migrations[0].sql, 0);
	is_int(raw_exec(path, sql), SQLITE_OK, "v1: a database with a run");
	free(sql);
	is_int(store__open(path, STORE_MIGRATE, &st), 0, "v1: migrated");
	is_int(raw_int(path, "PRAGMA user_version"),
	       store_migrations[store_migrations_count - 1].version,
	       "v1: at the newest version");
	is_int(raw_int(path, "SELECT count(*) FROM trials WHERE profile = 0"
			     " AND collectors IS NULL AND status = 'ok'"),
	       2, "v1: both trials kept, measured, collectors unknown");
	is_int(raw_int(path, "SELECT count(*) FROM trials t WHERE"
			     " t.expected_mode = 'strict'"),
	       2, "v1: a built-in mode's trials expect the mode itself");
	is_int(raw_int(path, "SELECT count(*) FROM trials t WHERE"
			     " t.expected_mode IS NULL AND"
			     " NOT " STORE_SQL_MODE_MISMATCH("t")),
	       1, "v1: a custom mode's expects nothing, and is no mismatch");
	is_int(raw_int(path, "SELECT count(*) FROM trial_metrics WHERE"
			     " profile = 0 AND value = 9.5 AND warmup = 0"),
	       1, "v1: the view reads the metric, with profile at its end");
	is_int(raw_int(path, "SELECT count(*) FROM kernels WHERE id = 1 AND"
			     " name = 'k' AND package = '' AND version = ''"
			     " AND suite = ''"),
	       1, "v1: the kernel kept its id, no package known (0005)");
	is_int(raw_int(path, "SELECT count(*) FROM probes WHERE trial_id = 1"
			     " AND calls = 5 AND total_ns = 50 AND"
			     " self_ns IS NULL AND nested IS NULL"),
	       1, "v1: a probe keeps its counts, its self time unknown (0006)");
	is_int(store__trial_find_or_insert(st, 1, 1, STORE_TRIAL_MEASURED, &id,
					   &ts),
	       0, "v1: the measured trial is found");
	ok(id == 1 && ts == STORE_TRIAL_OK, "v1: by its old id, still ok");
	is_int(store__trial_find_or_insert(st, 1, 1, STORE_TRIAL_PROFILE, &prof,
					   &ts),
	       0, "a profile trial of the same repetition");
	ok(prof != id && prof != 2 && ts == STORE_TRIAL_PENDING,
	   "is a trial of its own, pending");
	is_int(store__trial_collectors(st, prof,
				       "{\"perf\":{\"record\":true}}"),
	       0, "its collectors are recorded");
	capture_begin();
	ok(store__trial_collectors(st, prof, "{not json") < 0,
	   "collectors that are not JSON are refused");
	free(capture_end());
	store__close(st);
	s = raw_text(path, "SELECT json_extract(collectors, '$.perf.record')"
			   " || '/' || profile FROM trials WHERE profile = 1");
	is_str(s, "1/1", "and read back");
	free(s);
	is_int(raw_int(path, "SELECT count(*) FROM pragma_foreign_key_check"),
	       0, "v1: no reference broken");
	is_int(raw_exec(path, "INSERT INTO trials (cell_id, repetition, warmup,"
			      " profile, requested_mode) VALUES (1, 9, 1, 1,"
			      " 'strict')"),
	       SQLITE_CONSTRAINT,
	       "a trial is not a warmup and a profile at once");
	free(path);
}

/* A child's first use of @path: 100 + migrations it applied, or 1. */
static int first_use(const char *path, bool like_run)
{
	uint64_t mine = 0;
	struct store *st;

	if (like_run) {
		if (store__open(path, STORE_CREATE | STORE_MIGRATE, &st))
			return 1;
	} else if (store__open(path, STORE_CREATE | STORE_ANY_OLD, &st) ||
		   store__migrate(st, NULL, NULL, &mine)) {
		return 1;
	}
	store__close(st);
	return 100 + __builtin_popcountll(mine);
}

/*
 * Several processes meet a database path that does not exist yet, as a
 * CI job's parallel steps do: every one succeeds, and the schema is
 * applied once in all. Rounds of `db migrate`-like opens (which say what
 * they applied) and of `run`-like ones (which migrate on open).
 */
static void test_concurrent_first_use(void)
{
	enum { ROUNDS = 50, CHILDREN = 6 };
	int failed = 0, twice = 0, never = 0, round, i, status;
	pid_t pids[CHILDREN];
	int applied;
	char *path;

	for (round = 0; round < ROUNDS; round++) {
		bool like_run = round % 2;

		path = xasprintf("%s/first-use-%d.db", tmpdir, round);
		for (i = 0; i < CHILDREN; i++) {
			pids[i] = fork();
			if (!pids[i]) {
				log_verbosity = LOG_ERR;
				_exit(first_use(path, like_run));
			}
		}
		applied = 0;
		for (i = 0; i < CHILDREN; i++) {
			waitpid(pids[i], &status, 0);
			if (!WIFEXITED(status) || WEXITSTATUS(status) < 100)
				failed++;
			else
				applied += WEXITSTATUS(status) - 100;
		}
		if (!like_run && applied > (int)store__latest_version())
			twice++;
		if (!like_run && applied < (int)store__latest_version())
			never++;
		if (raw_int(path, "PRAGMA user_version") !=
		    store__latest_version())
			never++;
		free(path);
	}
	is_int(failed, 0,
	       "%d processes in %d rounds opened a new database "
	       "at once: none failed",
	       ROUNDS * CHILDREN, ROUNDS);
	is_int(twice, 0, "no migration was reported applied twice");
	is_int(never, 0,
	       "every database ends at the latest schema, each "
	       "migration reported once");
}

int main(void)
{
	char *cmd;

	if (!mkdtemp(tmpdir))
		tap_skip_all("cannot make a scratch directory");
	snprintf(stderr_path, sizeof(stderr_path), "%s/stderr", tmpdir);
	test_embedded();
	test_create_reopen();
	test_refusals();
	test_run();
	test_crash();
	test_probe_self();
	test_migrate_profile();
	test_concurrent_first_use();
	cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd))
		tap_diag("could not remove %s", tmpdir);
	free(cmd);
	return tap_done();
}
