// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening, checking and migrating the store, and the plumbing its other
 * files share. The checks come before SQLite may write anything: a tool
 * that runs as root must not turn a mistyped --db into a damaged file.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "store/store-priv.h"
#include "store/store-schema.h"
#include "util.h"

/* "IOMB", set by schemas/0001-initial.sql. */
#define STORE_APPLICATION_ID 1229934402

/* Long enough to ride out a checkpoint or a report reading in parallel. */
#define STORE_BUSY_TIMEOUT_MS 10000

static const char sqlite_magic[16] = "SQLite format 3";

static int errno_of(int rc)
{
	switch (rc) {
	case SQLITE_CONSTRAINT_FOREIGNKEY:
		return -ENOENT;
	case SQLITE_CONSTRAINT_UNIQUE:
	case SQLITE_CONSTRAINT_PRIMARYKEY:
		return -EEXIST;
	}
	switch (rc & 0xff) {
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_TOOBIG:
		return -EINVAL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EBADMSG;
	default:
		return -EIO;
	}
}

int store__sqlerr(struct store *st, int rc, const char *what)
{
	pr_err("%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
	return errno_of(rc);
}

int store__stmt(struct store *st, const char *sql, sqlite3_stmt **out)
{
	size_t i;
	int rc;

	/* A few dozen statements: a linear scan beats hashing them. */
	for (i = 0; i < st->nr_cache; i++) {
		if (st->cache[i].sql == sql) {
			sqlite3_reset(st->cache[i].stmt);
			sqlite3_clear_bindings(st->cache[i].stmt);
			*out = st->cache[i].stmt;
			return 0;
		}
	}
	rc = sqlite3_prepare_v2(st->db, sql, -1, out, NULL);
	if (rc != SQLITE_OK)
		return store__sqlerr(st, rc, "preparing a statement");
	ALLOC_GROW(st->cache, st->nr_cache + 1, st->alloc_cache);
	st->cache[st->nr_cache].sql = sql;
	st->cache[st->nr_cache++].stmt = *out;
	return 0;
}

int store__step_done(struct store *st, sqlite3_stmt *stmt, const char *what)
{
	int rc = sqlite3_step(stmt), err = 0;

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		err = store__sqlerr(st, rc, what);
	sqlite3_reset(stmt);
	return err;
}

static int bind_one(sqlite3_stmt *stmt, int idx, const struct store_arg *a)
{
	switch (a->type) {
	case STORE_ARG_INT:
		return sqlite3_bind_int64(stmt, idx, a->i);
	case STORE_ARG_REAL:
		return sqlite3_bind_double(stmt, idx, a->d);
	case STORE_ARG_TEXT:
		if (a->s)
			return sqlite3_bind_text(stmt, idx, a->s, a->len,
						 SQLITE_STATIC);
		/* fall through */
	default:
		return sqlite3_bind_null(stmt, idx);
	}
}

int store__bind(struct store *st, sqlite3_stmt *stmt,
		const struct store_arg *args)
{
	int i, rc;

	for (i = 0; args && args[i].type != STORE_ARG_END; i++) {
		rc = bind_one(stmt, i + 1, &args[i]);
		if (rc != SQLITE_OK)
			return store__sqlerr(st, rc, "binding a parameter");
	}
	return 0;
}

int store__prepare(struct store *st, const char *sql,
		   const struct store_arg *args, sqlite3_stmt **out)
{
	int err = store__stmt(st, sql, out);

	return err ? err : store__bind(st, *out, args);
}

int store__exec(struct store *st, const char *sql, const struct store_arg *args,
		const char *what)
{
	sqlite3_stmt *stmt;
	int err = store__prepare(st, sql, args, &stmt);

	if (err)
		return err;
	err = store__step_done(st, stmt, what);
	/* Text is bound SQLITE_STATIC: the caller may free it now. */
	sqlite3_clear_bindings(stmt);
	return err;
}

int store__insert(struct store *st, const char *sql,
		  const struct store_arg *args, const char *what, int64_t *id)
{
	int err = store__exec(st, sql, args, what);

	if (!err && id)
		*id = sqlite3_last_insert_rowid(st->db);
	return err;
}

int store__select_row(struct store *st, const char *sql,
		      const struct store_arg *args, const char *what,
		      sqlite3_stmt **out)
{
	int rc, err = store__prepare(st, sql, args, out);

	if (err)
		return err;
	rc = sqlite3_step(*out);
	if (rc == SQLITE_ROW)
		return 0;
	/* SQLite's words are the statement's until it is reset. */
	err = rc == SQLITE_DONE ? -ENOENT : store__sqlerr(st, rc, what);
	sqlite3_reset(*out);
	return err;
}

int store__select_id(struct store *st, const char *sql,
		     const struct store_arg *args, const char *what,
		     int64_t *id)
{
	sqlite3_stmt *stmt;
	int err = store__select_row(st, sql, args, what, &stmt);

	if (err)
		return err;
	*id = sqlite3_column_int64(stmt, 0);
	sqlite3_reset(stmt);
	return 0;
}

char *store__column_dup(sqlite3_stmt *stmt, int col)
{
	const unsigned char *s = sqlite3_column_text(stmt, col);

	return s ? xstrdup((const char *)s) : NULL;
}

/* For the few statements that are not worth a cache slot. */
static int exec_int(struct store *st, const char *sql, int64_t *val)
{
	sqlite3_stmt *stmt;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK)
		return store__sqlerr(st, rc, sql);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*val = sqlite3_column_int64(stmt, 0);
	else if (rc == SQLITE_DONE)
		*val = 0;
	else
		err = store__sqlerr(st, rc, sql);
	sqlite3_finalize(stmt);
	return err;
}

static int exec_sql(struct store *st, const char *sql, const char *what)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store__sqlerr(st, rc, what);
}

const char *store__path(const struct store *st)
{
	return st->path;
}

unsigned int store__version(const struct store *st)
{
	return st->version;
}

unsigned int store__latest_version(void)
{
	return store_migrations_count ?
		       store_migrations[store_migrations_count - 1].version :
		       0;
}

const char *store__sqlite_version(void)
{
	return sqlite3_libversion();
}

int store__begin(struct store *st)
{
	static const char sql[] = "BEGIN IMMEDIATE";

	return store__exec(st, sql, NULL, "starting a transaction");
}

int store__commit(struct store *st)
{
	static const char sql[] = "COMMIT";

	return store__exec(st, sql, NULL, "committing");
}

void store__rollback(struct store *st)
{
	/* SQLite may have rolled back already (e.g. on SQLITE_FULL). */
	if (sqlite3_get_autocommit(st->db))
		return;
	if (sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK)
		pr_warn("%s: rollback: %s", st->path, sqlite3_errmsg(st->db));
}

const char *const store_tables[] = {
	"runs",	   "hosts",  "boots",	"kernels",   "cells",	  "trials",
	"metrics", "probes", "profile", "intervals", "artifacts", NULL,
};

int store__count(struct store *st, const char *table, int64_t *n)
{
	char sql[64];
	size_t i;

	/* A table name cannot be a bound parameter; only ours get here. */
	for (i = 0; store_tables[i]; i++)
		if (!strcmp(store_tables[i], table))
			break;
	if (!store_tables[i])
		return -EINVAL;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", store_tables[i]);
	return exec_int(st, sql, n);
}

/*
 * What is at @path, before SQLite sees it: 1 a database to open, 0 a
 * new one to create (missing, or zero-length, which SQLite itself reads
 * as empty), or a negative errno with the reason printed.
 */
static int check_file(const char *path, unsigned int flags)
{
	char head[sizeof(sqlite_magic)];
	struct stat sb;
	int fd, err;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {
		if (flags & STORE_CREATE)
			return 0;
		pr_err("%s: no such database", path);
		return -ENOENT;
	}
	if (fd < 0 || fstat(fd, &sb) < 0) {
		err = -errno;
		pr_err("%s: %s", path, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (!S_ISREG(sb.st_mode)) {
		pr_err("%s: not a regular file, so not a database", path);
		close(fd);
		return -EINVAL;
	}
	if (!sb.st_size) {
		close(fd);
		if (flags & STORE_CREATE)
			return 0;
		pr_err("%s: empty file, not a database yet", path);
		return -ENOENT;
	}
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (n != (ssize_t)sizeof(head) ||
	    memcmp(head, sqlite_magic, sizeof(head))) {
		pr_err("%s: not a SQLite database; refusing to open it", path);
		return -EBADMSG;
	}
	return 1;
}

/* The directory results/ is made on first use; deeper paths are typos. */
static int make_parent(const char *path)
{
	char *copy = xstrdup(path), *dir = dirname(copy);
	int err = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		pr_err("%s: cannot create directory %s: %s", path, dir,
		       strerror(errno));
	}
	free(copy);
	return err;
}

/*
 * The version, the application id and whether the file holds anything,
 * read in one statement and so from one snapshot: read one by one, a
 * process that creates the database between the reads would leave us
 * with objects and no version, a foreign database.
 */
static int read_identity(struct store *st, int64_t *ver, int64_t *app,
			 int64_t *objects)
{
	static const char sql[] =
		"SELECT (SELECT user_version FROM pragma_user_version),"
		" (SELECT application_id FROM pragma_application_id),"
		" (SELECT count(*) FROM sqlite_master)";
	sqlite3_stmt *stmt;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK)
		return store__sqlerr(st, rc, "reading its identity");
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*ver = sqlite3_column_int64(stmt, 0);
		*app = sqlite3_column_int64(stmt, 1);
		*objects = sqlite3_column_int64(stmt, 2);
	} else {
		err = store__sqlerr(st, rc, "reading its identity");
	}
	sqlite3_finalize(stmt);
	return err;
}

/*
 * exec_sql() for statements SQLite does not retry on a lock: switching
 * a new database to WAL while another process migrates it is refused
 * at once ("database is locked"), busy timeout or not. Retried for as
 * long as a busy wait would be.
 */
static int exec_sql_waiting(struct store *st, const char *sql, const char *what)
{
	long long waited = 0;
	int rc;

	for (;;) {
		rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			break;
		if (waited >= STORE_BUSY_TIMEOUT_MS)
			break;
		usleep(10 * 1000);
		waited += 10;
	}
	return rc == SQLITE_OK ? 0 : store__sqlerr(st, rc, what);
}

/* Ours, a new one, or someone else's that we must not write to? */
static int check_identity(struct store *st)
{
	int64_t ver = 0, app = 0, objects = 0;
	int err;

	err = read_identity(st, &ver, &app, &objects);
	if (err)
		return err;
	if ((ver && app != STORE_APPLICATION_ID) || (!ver && objects)) {
		pr_err("%s: a SQLite database, but not an iommu-bench one; "
		       "refusing to touch it",
		       st->path);
		return -EBADMSG;
	}
	if (ver < 0 || ver > store__latest_version()) {
		pr_err("%s: database schema version %lld is newer than this "
		       "iommu-bench supports (%u)",
		       st->path, (long long)ver, store__latest_version());
		return -EPROTONOSUPPORT;
	}
	st->version = ver;
	return 0;
}

static int set_pragmas(struct store *st)
{
	if (st->flags & STORE_READONLY)
		return exec_sql(st, "PRAGMA foreign_keys = ON", "foreign keys");
	/*
	 * synchronous=FULL: the controller may be one of the hosts it
	 * kexecs, and a trial committed must survive that, not just a crash.
	 */
	return exec_sql_waiting(st,
				"PRAGMA foreign_keys = ON;"
				"PRAGMA journal_mode = WAL;"
				"PRAGMA synchronous = FULL;",
				"setting pragmas");
}

int store__open(const char *path, unsigned int flags, struct store **out)
{
	struct store *st;
	char *copy;
	int exists, rc, err;

	*out = NULL;
	if ((flags & STORE_READONLY) &&
	    (flags & (STORE_CREATE | STORE_MIGRATE)))
		return -EINVAL;
	exists = check_file(path, flags);
	if (exists < 0)
		return exists;
	if (!exists) {
		err = make_parent(path);
		if (err)
			return err;
	}

	st = xcalloc(1, sizeof(*st));
	st->path = xstrdup(path);
	copy = xstrdup(path);
	st->dir = xstrdup(dirname(copy));
	free(copy);
	st->flags = flags;
	rc = sqlite3_open_v2(path, &st->db,
			     (flags & STORE_READONLY) ?
				     SQLITE_OPEN_READONLY :
				     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			     NULL);
	if (rc != SQLITE_OK) {
		err = st->db ? store__sqlerr(st, rc, "opening") : -ENOMEM;
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	/* Even the first read may meet a writer's checkpoint or recovery. */
	sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	/* Identity first: pragmas below may write (journal_mode). */
	err = check_identity(st);
	if (!err)
		err = set_pragmas(st);
	if (!err)
		err = store__functions(st);
	if (err)
		goto fail;
	/* A database we just created gets its schema, unless asked not to. */
	if (!exists && !(flags & STORE_ANY_OLD))
		flags |= STORE_MIGRATE;
	if (st->version < store__latest_version()) {
		if (flags & STORE_MIGRATE) {
			err = store__migrate(st, NULL, NULL, NULL);
			if (err)
				goto fail;
		} else if (!(flags & STORE_ANY_OLD)) {
			pr_err("%s: database schema version %u is older than "
			       "this iommu-bench's (%u)",
			       path, st->version, store__latest_version());
			err = -ESTALE;
			goto fail;
		}
	}
	*out = st;
	return 0;
fail:
	store__close(st);
	return err;
}

void store__close(struct store *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nr_cache; i++)
		sqlite3_finalize(st->cache[i].stmt);
	free(st->cache);
	if (st->db && sqlite3_close(st->db) != SQLITE_OK)
		pr_warn("%s: close: %s", st->path, sqlite3_errmsg(st->db));
	free_all(st->path, st->dir, st);
}

/* A migration that broke a reference must not commit. */
static int check_foreign_keys(struct store *st, const char *name)
{
	sqlite3_stmt *stmt;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(st->db, "PRAGMA foreign_key_check", -1, &stmt,
				NULL);
	if (rc != SQLITE_OK)
		return store__sqlerr(st, rc, "foreign key check");
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		pr_err("%s: migration %s leaves a broken reference in table %s",
		       st->path, name, sqlite3_column_text(stmt, 0));
		err = -EINVAL;
	} else if (rc != SQLITE_DONE) {
		err = store__sqlerr(st, rc, "foreign key check");
	}
	sqlite3_finalize(stmt);
	return err;
}

/*
 * @m under the write lock; 1 when applied, 0 when another process had
 * (*@seen: the version found then), or a negative errno.
 */
static int apply_one(struct store *st, const struct store_migration *m,
		     int64_t *seen)
{
	char what[128], sql[48];
	int64_t ver;
	int err;

	snprintf(what, sizeof(what), "migration %s", m->name);
	err = exec_sql(st, "BEGIN IMMEDIATE", what);
	if (err)
		return err;
	/* Another process may have migrated while we waited for the lock. */
	err = exec_int(st, "PRAGMA user_version", &ver);
	*seen = ver;
	if (!err && ver >= m->version) {
		err = exec_sql(st, "COMMIT", what);
		return err ? err : 0;
	}
	if (err)
		goto out;
	err = exec_sql(st, m->sql, what);
	if (!err)
		err = check_foreign_keys(st, m->name);
	if (err)
		goto out;
	/* PRAGMA takes no parameters; the version is our own constant. */
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %u", m->version);
	err = exec_sql(st, sql, what);
out:
	if (err) {
		store__rollback(st);
		return err;
	}
	err = exec_sql(st, "COMMIT", what);
	return err ? err : 1;
}

int store__migrate(struct store *st, unsigned int *from, unsigned int *to,
		   uint64_t *applied)
{
	int64_t seen;
	unsigned int i;
	int err = 0;

	if (from)
		*from = st->version;
	if (to)
		*to = st->version;
	if (applied)
		*applied = 0;
	if (st->version >= store__latest_version())
		return 0;
	if (st->flags & STORE_READONLY) {
		pr_err("%s: opened read-only, cannot migrate", st->path);
		return -EROFS;
	}
	/*
	 * SQLite's recipe for schema changes: references off while tables
	 * are rebuilt, checked by hand before each commit.
	 */
	err = exec_sql(st, "PRAGMA foreign_keys = OFF", "foreign keys");
	if (err)
		return err;
	for (i = 0; i < store_migrations_count; i++) {
		const struct store_migration *m = &store_migrations[i];

		if (m->version != i + 1) {
			pr_err("internal error: migration %s is not number %u",
			       m->name, i + 1);
			err = -EINVAL;
			break;
		}
		if (m->version <= st->version)
			continue;
		err = apply_one(st, m, &seen);
		if (err < 0)
			break;
		if (!err) {
			/* Someone else's: not ours to report as applied. */
			st->version = seen;
			continue;
		}
		err = 0;
		pr_debug("%s: applied %s", st->path, m->name);
		st->version = m->version;
		if (applied && m->version <= 64)
			*applied |= 1ULL << (m->version - 1);
	}
	if (exec_sql(st, "PRAGMA foreign_keys = ON", "foreign keys") && !err)
		err = -EIO;
	if (to)
		*to = st->version;
	return err;
}
