// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bpf collector through its ops table, as the agent drives it: bad
 * configs refused with the value named; a real trace of this process's
 * getppid() calls stored into a real SQLite store and read back with
 * SQL; a probe that cannot attach stored as "none" with zero calls; and
 * support() describing every logical probe.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture.h"
#include "collectors/bpf/bpf-probes.h"
#include "collectors/collector.h"
#include "scratch-store.h"
#include "store/store.h"
#include "tap.h"
#include "util.h"

static char tmpdir[] = "/tmp/iommu-bench-test-bpf.XXXXXX";
static const struct collector_ops *ops = &bpf_collector_ops;

static char *capture_path;
#define capture_begin() capture__begin(capture_path)
#define capture_end capture__end

/* create() with @cfg_text as the config; the error output in *@msg. */
static int create(const char *cfg_text, const char *nic, char **msg,
		  struct collector **c)
{
	struct collector_opts opts = { .nic = nic };
	json_t *cfg = json_loads(cfg_text, 0, NULL);
	int err;

	opts.config = cfg;
	capture_begin();
	err = ops->create(&opts, c);
	*msg = capture_end();
	json_decref(cfg);
	return err;
}

static void test_bad_configs(void)
{
	static const struct {
		const char *cfg, *nic, *msg;
		int err;
	} cases[] = {
		{ "{\"probes\": [\"unmpa\"]}", NULL, "did you mean 'unmap'?",
		  -EINVAL },
		{ "{\"probes\": []}", NULL, "non-empty array", -EINVAL },
		{ "{\"probes\": \"all\"}", NULL, "\"default\"", -EINVAL },
		{ "{\"probes\": [3]}", NULL, "element 0", -EINVAL },
		{ "{\"probes\": [\"fn:no_such_fn_here\"]}", NULL,
		  "'no_such_fn_here'", -ENOENT },
		{ "{\"probes\": [\"tp:nosuchcat:nosuchtp\"]}", NULL,
		  "'nosuchcat:nosuchtp'", -ENOENT },
		{ "{\"device\": \"nic\"}", NULL, "\"nic\"", -EINVAL },
		{ "{\"device\": \"lo\"}", NULL, "'lo'", -ENOENT },
		{ "{\"device\": \"nic\"}", "lo", "'lo'", -ENOENT },
	};
	struct collector *c;
	size_t i;
	char *msg;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int err = create(cases[i].cfg, cases[i].nic, &msg, &c);

		is_int(err, cases[i].err, "refused: %s", cases[i].cfg);
		has_str(msg, cases[i].msg, "the message says what is wrong");
		if (!err)
			ops->destroy(c);
		free(msg);
	}
}

static struct store *scratch_store(int64_t *trial)
{
	static const struct scratch_trial t = { "t",	"machine-1", "boot-1",
						"6.18", "running",   "lazy",
						"key-1" };
	char *path = xasprintf("%s/results.db", tmpdir);
	struct store *st;
	int64_t run;

	if (scratch_store__open(path, &t, &st, &run, trial)) {
		printf("Bail out! cannot create a scratch store\n");
		exit(1);
	}
	free(path);
	return st;
}

/* One probes row, read with SQL behind the store's back. */
static int row(const char *name, char **target, char **attach, long long *calls,
	       char **hist)
{
	char *path = xasprintf("%s/results.db", tmpdir);
	sqlite3_stmt *s = NULL;
	sqlite3 *db = NULL;
	int ret = -ENOENT;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ||
	    sqlite3_prepare_v2(db,
			       "SELECT target, attach, calls, hist FROM probes "
			       "WHERE name = ?",
			       -1, &s, NULL))
		goto out;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW) {
		*target = xstrdup((const char *)sqlite3_column_text(s, 0));
		*attach = xstrdup((const char *)sqlite3_column_text(s, 1));
		*calls = sqlite3_column_int64(s, 2);
		*hist = xstrdup((const char *)sqlite3_column_text(s, 3));
		ret = 0;
	}
out:
	sqlite3_finalize(s);
	sqlite3_close(db);
	free(path);
	return ret;
}

/* "SELF/NESTED/TOTAL" of probe @name, "NULL" for NULL; free() it. */
static char *self_of(const char *name)
{
	char *path = xasprintf("%s/results.db", tmpdir), *v = NULL;
	sqlite3_stmt *s = NULL;
	sqlite3 *db = NULL;

	if (!sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) &&
	    !sqlite3_prepare_v2(db,
				"SELECT coalesce(self_ns, 'NULL') || '/' ||"
				" coalesce(nested, 'NULL') || '/' || total_ns"
				" FROM probes WHERE name = ?",
				-1, &s, NULL)) {
		sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			v = xstrdup((const char *)sqlite3_column_text(s, 0));
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	free(path);
	return v ? v : xstrdup("(no row)");
}

static long long json_sum(const char *text)
{
	json_t *a = json_loads(text, 0, NULL), *v;
	long long sum = 0;
	size_t i;

	json_array_foreach(a, i, v)
		sum += json_integer_value(v);
	json_decref(a);
	return sum;
}

static void test_store(void)
{
	const char *cfg = "{\"probes\": [\"tp:syscalls:sys_enter_getppid:"
			  "sys_exit_getppid\", \"iotlb_sync\"]}";
	char *msg, *target, *attach, *hist, *self;
	long long calls, sn, nested, total;
	struct collector *c;
	json_t *res = NULL;
	struct store *st;
	int64_t trial;
	int i;

	if (create(cfg, NULL, &msg, &c)) {
		tap_diag("%s", msg);
		free(msg);
		ok(0, "create");
		return;
	}
	free(msg);
	is_int(ops->start(c), 0, "start");
	for (i = 0; i < 5000; i++)
		syscall(SYS_getppid);
	is_int(ops->stop(c), 0, "stop");
	is_int(ops->results(c, &res), 0, "results");
	ok(json_number_value(json_object_get(res, "duration_s")) > 0,
	   "the results know how long they took");
	st = scratch_store(&trial);
	is_int(ops->store(st, trial, res), 0, "into the store");
	is_int(store__commit(st), 0, "committed");
	store__close(st);
	json_decref(res);
	ops->destroy(c);

	if (!row("tp:syscalls:sys_enter_getppid:sys_exit_getppid", &target,
		 &attach, &calls, &hist)) {
		is_str(target, "syscalls:sys_enter_getppid>sys_exit_getppid",
		       "the pair's target");
		is_str(attach, "tracepoint", "attached by tracepoint");
		ok(calls >= 5000, "%lld calls stored", calls);
		ok(json_sum(hist) <= calls && json_sum(hist) >= 5000,
		   "the stored histogram holds our calls");
		free_all(target, attach, hist);
		/* No other timed probe: nothing nests, self is the total. */
		self = self_of("tp:syscalls:sys_enter_getppid:"
			       "sys_exit_getppid");
		ok(sscanf(self, "%lld/%lld/%lld", &sn, &nested, &total) == 3 &&
			   sn == total && total > 0 && nested == 0,
		   "the pair's self time is its total, none nested (%s)", self);
		free(self);
	} else {
		ok(0, "the pair's row is there");
	}
	if (!row("iotlb_sync", &target, &attach, &calls, &hist)) {
		is_str(attach, "none", "iotlb_sync: not attached, so 'none'");
		is_str(target, "", "with no target");
		ok(calls == 0 && !strcmp(hist, "[]"), "zero calls, no hist");
		free_all(target, attach, hist);
		self = self_of("iotlb_sync");
		is_str(self, "NULL/NULL/0", "and no self time: NULL, not 0");
		free(self);
	} else {
		ok(0, "the iotlb_sync row is there");
	}
}

static void test_support(void)
{
	const struct bpf_probe_def *d;
	size_t n = 0, i;
	json_t *info, *probes, *p;
	bool all_said = true;

	for (d = bpf_probe_defs; d->name; d++)
		n++;
	is_int(ops->support(&info), 0, "support()");
	probes = json_object_get(info, "probes");
	is_int(json_array_size(probes), n, "lists every logical probe");
	ok(json_is_boolean(json_object_get(info, "btf")) &&
		   json_is_boolean(json_object_get(info, "kprobes")),
	   "and the kernel's features");
	json_array_foreach(probes, i, p) {
		const json_t *t, *targets = json_object_get(p, "targets");
		size_t j;

		if (!json_is_string(json_object_get(p, "attach")))
			all_said = false;
		json_array_foreach(targets, j, t)
			if (json_is_true(json_object_get(t, "tried")) &&
			    !strcmp(json_string_value(
					    json_object_get(t, "attach")),
				    "none") &&
			    !json_array_size(json_object_get(t, "failed")))
				all_said = false;
	}
	ok(all_said, "each says its rung, and each failure why");
	p = json_array_get(probes, 0);
	ok(!json_object_get(p, "calls"), "no counts from a probe-only attach");
	json_decref(info);
}

static void scratch_remove(void)
{
	static const char *const files[] = { "stderr", "results.db",
					     "results.db-wal",
					     "results.db-shm" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *path = xasprintf("%s/%s", tmpdir, files[i]);

		unlink(path);
		free(path);
	}
	rmdir(tmpdir);
	free(capture_path);
}

int main(void)
{
	if (geteuid())
		tap_skip_all("loading BPF programs needs root");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	capture_path = xasprintf("%s/stderr", tmpdir);
	test_bad_configs();
	test_store();
	test_support();
	scratch_remove();
	return tap_done();
}
