// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's artifact folder and its two file verbs, through the verb
 * table as a request would reach them: collect.start making a named
 * folder, file.read giving a 2.5 MiB file back chunk by chunk, and
 * both verbs refusing everything outside the root however it is
 * spelled (.., a symlink out, an absolute path elsewhere). Then the
 * controller's side against a real `agent serve`: run_fetch__artifacts
 * bringing files home over the wire and rewriting the results.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-test.h"
#include "base64.h"
#include "bench/agent/agent-file.h"
#include "bench/agent/agent-proto.h"
#include "bench/agent/agent.h"
#include "bench/agent-client/agent-conn.h"
#include "bench/run/run-fetch.h"
#include "bench/run/run.h"
#include "errmsg.h"
#include "log.h"
#include "scratch-files.h"
#include "tap.h"
#include "util.h"

static char scratch[PATH_MAX];
static char root[PATH_MAX + 32];

static char *test_outdir(void)
{
	const char *bad[] = { "../x", ".hidden", "-x", "a/b", "a..b", "" };
	struct agent a = { 0 };
	json_t *args, *o, *res;
	char *dir = NULL, *err = NULL, *want;
	struct stat sb;
	size_t i;

	args = json_pack("{s:{}, s:s}", "collectors", "outdir", "trial-1");
	o = agent__dispatch(&a, 1, "collect.start", args);
	json_decref(args);
	res = json_object_get(o, "result");
	ok(json_is_true(json_object_get(o, "ok")),
	   "collect.start with a named outdir");
	if (json_is_string(json_object_get(res, "outdir")))
		dir = xstrdup(
			json_string_value(json_object_get(res, "outdir")));
	json_decref(o);
	o = agent__dispatch(&a, 2, "collect.stop", NULL);
	json_decref(o);
	agent__release(&a);

	snprintf(root, sizeof(root), "%s/%s", scratch, ARTIFACT_DIR_NAME);
	want = xasprintf("%s/trial-1", root);
	is_str(dir, want, "... answers the folder it made, under $TMPDIR/%s",
	       ARTIFACT_DIR_NAME);
	free(want);
	ok(!stat(root, &sb) && S_ISDIR(sb.st_mode) &&
		   (sb.st_mode & 0777) == 0700,
	   "the artifact root is a directory, mode 0700");
	ok(dir && !stat(dir, &sb) && S_ISDIR(sb.st_mode) &&
		   (sb.st_mode & 0777) == 0700,
	   "the trial's folder too");

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		args = json_pack("{s:{}, s:s}", "collectors", "outdir", bad[i]);
		is_int(agent_test__call("collect.start", args, NULL, &err),
		       -EINVAL, "collect.start refuses the outdir '%s'",
		       bad[i]);
		errmsg__clear(&err);
	}
	args = json_pack("{s:{}, s:s}", "collectors", "outdir", "/a/../b");
	is_int(agent_test__call("collect.start", args, NULL, &err), -EINVAL,
	       "... and an absolute one with '..'");
	errmsg__clear(&err);
	args = json_pack("{s:{}, s:s}", "collectors", "outdir", scratch);
	is_int(agent_test__call("collect.start", args, &res, NULL), 0,
	       "an absolute outdir works as before");
	is_str(json_string_value(json_object_get(res, "outdir")), scratch,
	       "... and is answered as given");
	json_decref(res);
	return dir;
}

/* @path read back with file.read, @len bytes a call; NULL on failure. */
static unsigned char *read_back(const char *path, json_int_t len, size_t *size,
				int *calls)
{
	unsigned char *out = NULL;
	json_int_t off = 0;
	bool eof = false;
	json_t *res;
	size_t n;

	*calls = 0;
	*size = 0;
	while (!eof && *calls < 100) {
		const char *d;

		if (agent_test__call("file.read",
				     json_pack("{s:s, s:I, s:I}", "path", path,
					       "offset", off, "length", len),
				     &res, NULL))
			goto fail;
		(*calls)++;
		d = json_string_value(json_object_get(res, "data"));
		eof = json_is_true(json_object_get(res, "eof"));
		out = xrealloc(out,
			       (size_t)off + BASE64_DECODED_MAX(strlen(d)) + 1);
		if (base64__decode(d, strlen(d), out + off, &n)) {
			json_decref(res);
			goto fail;
		}
		off += (json_int_t)n;
		if (eof &&
		    json_integer_value(json_object_get(res, "size")) != off) {
			json_decref(res);
			goto fail;
		}
		json_decref(res);
	}
	*size = (size_t)off;
	return out;
fail:
	free(out);
	return NULL;
}

static void test_read(const char *dir)
{
	size_t len = 5 * 1024 * 1024 / 2, got, i;
	unsigned char *buf = xmalloc(len), *back;
	char *path = xasprintf("%s/perf.data", dir);
	json_t *res;
	int calls;

	srand(42);
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)rand();
	ok(!scratch__write(path, buf, len, 0600),
	   "a 2.5 MiB file in the trial folder");

	back = read_back(path, AGENT_FILE_READ_MAX, &got, &calls);
	is_int(calls, 3, "file.read gives it in 3 chunks of 1 MiB");
	ok(back && got == len && !memcmp(back, buf, len),
	   "... which put together equal the original");
	free(back);

	back = read_back(path, 4 * AGENT_FILE_READ_MAX, &got, &calls);
	is_int(calls, 3, "a larger \"length\" is cut to 1 MiB a call");
	ok(back && got == len && !memcmp(back, buf, len), "... same bytes");
	free(back);

	is_int(agent_test__call("file.read",
				json_pack("{s:s, s:I}", "path", path, "offset",
					  (json_int_t)len + 10),
				&res, NULL),
	       0, "an offset past the end");
	ok(json_is_true(json_object_get(res, "eof")) &&
		   !strcmp(json_string_value(json_object_get(res, "data")), ""),
	   "... reads nothing, at the end of file");
	json_decref(res);

	is_int(agent_test__call("file.read",
				json_pack("{s:s, s:i}", "path", path, "offset",
					  -1),
				NULL, NULL),
	       -EINVAL, "a negative offset is refused");
	free(path);
	free(buf);
}

#define OUTSIDE "not under the artifact folder"

/* @verb on @path fails with @want, its error saying @says (or NULL). */
static void refused(const char *verb, const char *path, int want,
		    const char *says, const char *what)
{
	char *err = NULL;

	is_int(agent_test__call(verb, json_pack("{s:s}", "path", path), NULL,
				&err),
	       want, "%s refuses %s", verb, what);
	if (says)
		has_str(err, says, "... saying why");
	free(err);
}

static void test_refusals(const char *dir)
{
	char *p, *secret = xasprintf("%s/secret", scratch);
	char *link = xasprintf("%s/passwd", dir);
	char *link2 = xasprintf("%s/secret-link", dir);

	scratch__write(secret, "no", 2, 0600);
	ok(!symlink("/etc/passwd", link) && !symlink(secret, link2),
	   "symlinks in the trial folder that point out of it");
	refused("file.read", "/etc/passwd", -EACCES, OUTSIDE, "/etc/passwd");
	refused("file.read", link, -EACCES, OUTSIDE,
		"a symlink to /etc/passwd");
	refused("file.read", link2, -EACCES, OUTSIDE,
		"a symlink to a file beside it");
	p = xasprintf("%s/../../secret", dir);
	refused("file.read", p, -EACCES, OUTSIDE,
		"a path that walks up with ..");
	free(p);
	p = xasprintf("%s/../%s/../secret", root, ARTIFACT_DIR_NAME);
	refused("file.read", p, -EACCES, OUTSIDE,
		"a walk out and back and out");
	free(p);
	refused("file.read", "perf.data", -EINVAL, "absolute",
		"a relative path");
	refused("file.read", dir, -EISDIR, "not a regular file", "a directory");
	p = xasprintf("%s/fifo", dir);
	mkfifo(p, 0600);
	refused("file.read", p, -EINVAL, "not a regular file",
		"a FIFO, without waiting on it");
	free(p);
	refused("file.remove", "/etc", -EACCES, OUTSIDE, "/etc");
	refused("file.remove", root, -EACCES, OUTSIDE, "the root itself");
	p = xasprintf("%s/..", dir);
	refused("file.remove", p, -EACCES, OUTSIDE, "the root as dir/..");
	free(p);
	refused("file.remove", link2, -EACCES, OUTSIDE, "a symlink out");
	ok(!access(secret, F_OK) && !access("/etc/passwd", F_OK),
	   "what the symlinks point to is untouched");

	/* Someone else's or an open root is not ours to trust. */
	chmod(root, 0777);
	p = xasprintf("%s/perf.data", dir);
	refused("file.read", p, -EACCES, "writable by others",
		"anything while the root is 0777");
	chmod(root, 0700);
	free_all(p, secret, link, link2);
}

static void test_remove(const char *dir)
{
	char *deep = xasprintf("%s/deep", dir), *p;
	char *sub = xasprintf("%s/er", deep);
	char *secret = xasprintf("%s/keep", scratch);
	json_t *res;

	mkdir(deep, 0700);
	mkdir(sub, 0700);
	p = xasprintf("%s/f", sub);
	scratch__write(p, "x", 1, 0600);
	free(p);
	scratch__write(secret, "keep", 4, 0600);
	p = xasprintf("%s/out", sub);
	symlink(scratch, p);
	free(p);

	is_int(agent_test__call("file.remove", json_pack("{s:s}", "path", dir),
				&res, NULL),
	       0, "file.remove of the trial folder");
	ok(access(dir, F_OK) && errno == ENOENT, "... it is gone");
	ok(!access(secret, F_OK) && !access(root, F_OK),
	   "... a symlink inside removed, not followed; the root stays");
	ok(json_integer_value(json_object_get(res, "entries")) >= 5,
	   "... counting what it removed");
	json_decref(res);
	is_int(agent_test__call("file.remove", json_pack("{s:s}", "path", dir),
				NULL, NULL),
	       -ENOENT, "a second remove: ENOENT");
	free_all(secret, sub, deep);
}

/* Anything in @dir that a broken-off write left under a temporary name. */
static bool has_tmp(const char *dir)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, ".tmp-", 5))
			found = true;
	if (d)
		closedir(d);
	return found;
}

static const char *str_at(const json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

/* Files under @remote named in results; the agent in a child. */
static void test_fetch(struct run_host *h)
{
	size_t len = 5 * 1024 * 1024 / 2 + 7, i;
	unsigned char *buf = xmalloc(len);
	char *remote = xasprintf("%s/fetch-1", root);
	char *local = xasprintf("%s/local", scratch);
	char *p = xasprintf("%s/perf.data", remote);
	char *e = xasprintf("%s/extra.txt", remote);
	char *lp = xasprintf("%s/perf.data", local);
	char *le = xasprintf("%s/extra.txt", local);
	struct run_fetch f = { 0 };
	json_t *res;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 31 + (i >> 12));
	mkdir(remote, 0700);
	mkdir(local, 0755);
	scratch__write(p, buf, len, 0600);
	scratch__write(e, "extra", 5, 0600);
	res = json_pack("{s:{s:s, s:s, s:i}, s:{s:[s, s]}, s:s}", "perf",
			"perf_data", p, "again", p, "samples", 3, "other",
			"files", e, "/etc/passwd", "dir", remote);

	is_int(run_fetch__artifacts(h, remote, local, res, &f), 0,
	       "run_fetch__artifacts over a real agent");
	ok(scratch__same(lp, buf, len),
	   "a 2.5 MiB perf.data came home whole, chunk after chunk");
	ok(scratch__same(le, "extra", 5), "... and a second file beside it");
	is_int(f.nr, 2, "two files fetched, the one named twice once");
	ok(f.nr == 2 && !strcmp(f.files[0].where, "perf/perf_data") &&
		   !strcmp(f.files[0].kind, "perf.data") &&
		   !strcmp(f.files[0].path, lp),
	   "... each with where the results named it and its local path");
	ok(!strcmp(str_at(res, "perf", "perf_data"), lp) &&
		   !strcmp(str_at(res, "perf", "again"), lp) &&
		   !strcmp(json_string_value(json_array_get(
				   json_object_get(json_object_get(res, "other"),
						   "files"),
				   0)),
			   le),
	   "every name of a fetched file now says the local path");
	ok(!strcmp(json_string_value(json_array_get(
			   json_object_get(json_object_get(res, "other"),
					   "files"),
			   1)),
		   "/etc/passwd") &&
		   !strcmp(json_string_value(json_object_get(res, "dir")),
			   remote),
	   "strings outside the folder, and the folder itself, untouched");
	ok(access(remote, F_OK) && errno == ENOENT,
	   "the folder on the host is removed afterwards");
	json_decref(res);
	run_fetch__release(&f);

	/* One file that is not there, one with a name the trial keeps. */
	mkdir(remote, 0700);
	scratch__write(p, buf, 10, 0600);
	free(e);
	e = xasprintf("%s/collectors.json", remote);
	scratch__write(e, "{}", 2, 0600);
	free(le);
	le = xasprintf("%s/missing.data", remote);
	res = json_pack("{s:{s:s, s:s, s:s}}", "perf", "perf_data", p, "gone",
			le, "raw", e);
	ok(run_fetch__artifacts(h, remote, local, res, &f) < 0,
	   "a file that cannot be fetched is an error of the fetch");
	ok(f.nr == 1 && scratch__same(lp, buf, 10),
	   "... what could come still came");
	ok(!strcmp(str_at(res, "perf", "gone"), le) &&
		   !strcmp(str_at(res, "perf", "raw"), e),
	   "... names of what did not come are left as the host gave them");
	ok(!access(remote, F_OK), "... and the host's folder is kept");
	free(le);
	le = xasprintf("%s/collectors.json", local);
	ok(access(le, F_OK) && !access(lp, F_OK),
	   "a remote collectors.json never overwrites the trial's own");
	ok(!has_tmp(local), "no temporary file is left behind");
	json_decref(res);
	run_fetch__release(&f);

	free_all(buf, remote, local, p, e, lp, le);
}

static void test_wire(void)
{
	char bin[PATH_MAX];
	const char *argv[] = { bin, "agent", "serve", NULL };
	struct matrix_host mh = { .name = "t", .transport = HOST_SSH };
	struct run_host h = { .h.m = &mh };

	ok(!run_fetch__host_shares_disk(&h), "an ssh host does not share");
	if (agent_test__find_bin(bin, sizeof(bin)) ||
	    agent_conn__spawn(argv, NULL, "t", &h.agent)) {
		ok(0, "no agent to fetch from (set IOMMU_BENCH)");
		return;
	}
	test_fetch(&h);
	agent_conn__close(h.agent);
}

int main(void)
{
	char tmpl[] = "/tmp/test-agent-file.XXXXXX", *dir;

	log_verbosity = -1;
	if (!mkdtemp(tmpl) || !realpath(tmpl, scratch))
		tap_skip_all("no scratch folder");
	setenv("TMPDIR", scratch, 1);

	dir = test_outdir();
	if (!dir) {
		ok(0, "no trial folder: the rest cannot run");
		return tap_done();
	}
	test_read(dir);
	test_refusals(dir);
	test_remove(dir);
	test_wire();
	free(dir);
	agent_file__remove_tree(scratch, NULL);
	return tap_done();
}
