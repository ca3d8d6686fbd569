// SPDX-License-Identifier: GPL-2.0-only
/*
 * A trial's artifacts fetched from a host that does not share the
 * controller's disk, after collect.stop: each file comes over the
 * agent's own connection (file.read, a chunk at a time, each chunk
 * written as it arrives, so memory stays bounded whatever perf.data
 * weighs), then the folder on the host is removed. A file that does
 * not come home costs a warning, never the trial: the measurements are
 * already in hand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic-file.h"
#include "base64.h"
#include "bench/run/run-fetch.h"
#include "bench/run/run.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

#define READ_TIMEOUT_MS 30000
/* A whole chunk's base64 decodes to up to 2 bytes of padding more. */
#define CHUNK_B64 BASE64_ENCODED_LEN(AGENT_FILE_READ_MAX)
#define CHUNK_BUF BASE64_DECODED_MAX(CHUNK_B64)
#define REMOVE_TIMEOUT_MS 30000

/* Files run-trial.c writes into the trial's folder itself. */
static const char *const reserved[] = { "iperf3.json", "fio.json",
					"dma_map.json", "collectors.json" };

struct fetch_walk {
	struct run_host *h;
	const char *remote_dir, *local_dir;
	size_t remote_len;
	struct run_fetch *f;
	/* Remote paths already tried, so that a file named twice comes
	 * once; a NULL local means it did not come. */
	char **remote, **local;
	size_t nr, alloc;
	int ret; /* the first failure */
};

bool run_fetch__host_shares_disk(const struct run_host *h)
{
	return h->h.m->transport == HOST_LOCAL ||
	       h->h.m->transport == HOST_NETNS;
}

/* One chunk at @off into @fd: its size in *@n, the end in *@eof. */
static int fetch_chunk(struct run_host *h, const char *remote, json_int_t off,
		       int fd, unsigned char *buf, size_t *n, bool *eof,
		       json_int_t *size, char **err)
{
	json_t *res = NULL, *data;
	int ret;

	ret = run_host__call(h, "file.read",
			     json_pack("{s:s, s:I, s:I}", "path", remote,
				       "offset", off, "length",
				       (json_int_t)AGENT_FILE_READ_MAX),
			     READ_TIMEOUT_MS, &res, err);
	if (ret)
		return ret;
	data = json_object_get(res, "data");
	*eof = json_is_true(json_object_get(res, "eof"));
	*size = json_integer_value(json_object_get(res, "size"));
	if (!json_is_string(data) || json_string_length(data) > CHUNK_B64 ||
	    base64__decode(json_string_value(data), json_string_length(data),
			   buf, n) ||
	    *n > AGENT_FILE_READ_MAX) {
		ret = errmsg__set(err, -EPROTO, "%s",
				  "file.read answered without valid base64 "
				  "\"data\" of at most a chunk");
	} else if (!*n && !*eof) {
		ret = errmsg__set(err, -EPROTO,
				  "file.read at offset %lld gave nothing and "
				  "no end of file",
				  (long long)off);
	} else {
		ret = write_all(fd, buf, *n);
		if (ret)
			errmsg__set(err, 0, "writing: %s", strerror(-ret));
	}
	json_decref(res);
	return ret;
}

/*
 * @remote into @local, whole or not at all (atomic-file.h): a fetch that
 * breaks off never leaves what looks like a whole perf.data.
 */
static int fetch_file(struct run_host *h, const char *remote, const char *local,
		      char **err)
{
	unsigned char *buf = xmalloc(CHUNK_BUF);
	json_int_t off = 0, size = 0;
	struct atomic_file af;
	bool eof = false;
	size_t n;
	int ret;

	/* 0600, as perf leaves perf.data where it writes it itself. */
	ret = atomic_file__open(&af, local, 0600);
	if (ret) {
		errmsg__set(err, 0, "%s: %s", local, strerror(-ret));
		goto out;
	}
	while (!ret && !eof) {
		ret = fetch_chunk(h, remote, off, fileno(af.fp), buf, &n, &eof,
				  &size, err);
		off += (json_int_t)n;
	}
	if (!ret && off != size) {
		ret = errmsg__set(err, -EIO,
				  "got %lld bytes of %lld: it changed while "
				  "being fetched",
				  (long long)off, (long long)size);
	}
	if (ret) {
		atomic_file__abort(&af);
		goto out;
	}
	ret = atomic_file__commit(&af);
	if (ret)
		errmsg__set(err, 0, "%s: %s", local, strerror(-ret));
out:
	free(buf);
	return ret;
}

static const char *seen(struct fetch_walk *w, const char *remote, bool *found)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		if (!strcmp(w->remote[i], remote)) {
			*found = true;
			return w->local[i];
		}
	}
	*found = false;
	return NULL;
}

static bool local_name_taken(struct fetch_walk *w, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reserved); i++)
		if (!strcmp(name, reserved[i]))
			return true;
	for (i = 0; i < w->f->nr; i++)
		if (!strcmp(w->f->files[i].kind, name))
			return true;
	return false;
}

/* The local name for @remote, or NULL and *@why. */
static char *local_name(struct fetch_walk *w, const char *remote, char **err)
{
	const char *base = strrchr(remote, '/') + 1;

	if (!name_is_safe(base)) {
		errmsg__set(err, 0,
			    "its name is not one this tool writes to disk");
		return NULL;
	}
	if (local_name_taken(w, base)) {
		errmsg__set(err, 0,
			    "the trial keeps a file of its own named %s", base);
		return NULL;
	}
	return xasprintf("%s/%s", w->local_dir, base);
}

/* The local path @remote now has, or NULL when it did not come. */
static const char *fetch_one(struct fetch_walk *w, const char *remote,
			     const char *where)
{
	const char *done;
	char *local, *why = NULL;
	struct run_fetched *rf;
	bool found;
	int ret = -EINVAL;

	done = seen(w, remote, &found);
	if (found)
		return done;
	local = local_name(w, remote, &why);
	if (local)
		ret = fetch_file(w->h, remote, local, &why);
	ALLOC_GROW(w->remote, w->nr + 1, w->alloc);
	w->local = xrealloc(w->local, w->alloc * sizeof(*w->local));
	w->remote[w->nr] = xstrdup(remote);
	w->local[w->nr++] = ret ? NULL : local;
	if (ret) {
		pr_warn("host %s: artifact %s not fetched: %s; left there",
			w->h->h.m->name, remote, why ? why : strerror(-ret));
		if (!w->ret) {
			w->ret = ret;
			w->f->why = xasprintf("%s not fetched: %s", remote,
					      why ? why : strerror(-ret));
		}
		free(local);
		free(why);
		return NULL;
	}
	free(why);
	ALLOC_GROW(w->f->files, w->f->nr + 1, w->f->alloc);
	rf = &w->f->files[w->f->nr++];
	rf->path = xstrdup(local);
	rf->kind = xstrdup(strrchr(local, '/') + 1);
	rf->where = xstrdup(where);
	pr_info("host %s: fetched %s into %s", w->h->h.m->name, remote, local);
	return local;
}

static bool is_remote_file(struct fetch_walk *w, const json_t *v)
{
	const char *s = json_string_value(v);

	/* Below the folder, not the folder itself; ".." never came from a
	 * collector, and the agent would refuse it anyway. */
	return s && !strncmp(s, w->remote_dir, w->remote_len) &&
	       s[w->remote_len] == '/' && s[w->remote_len + 1] &&
	       !strstr(s + w->remote_len, "/..") && s[strlen(s) - 1] != '/';
}

static void walk(struct fetch_walk *w, json_t *v, const char *where);

static json_t *walk_value(struct fetch_walk *w, json_t *v, const char *where)
{
	const char *local;

	if (!is_remote_file(w, v)) {
		walk(w, v, where);
		return NULL;
	}
	local = fetch_one(w, json_string_value(v), where);
	return local ? json_string(local) : NULL;
}

/* Every string below @v; names of fetched files replaced in place. */
static void walk(struct fetch_walk *w, json_t *v, const char *where)
{
	const char *key;
	json_t *child, *repl;
	size_t i;
	char *sub;

	if (json_is_object(v)) {
		json_object_foreach(v, key, child) {
			sub = *where ? xasprintf("%s/%s", where, key) :
				       xstrdup(key);
			repl = walk_value(w, child, sub);
			/* Replacing a key's value keeps the iteration. */
			if (repl)
				json_object_set_new(v, key, repl);
			free(sub);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			sub = xasprintf("%s/%zu", where, i);
			repl = walk_value(w, child, sub);
			if (repl)
				json_array_set_new(v, i, repl);
			free(sub);
		}
	}
}

void run_fetch__remove(struct run_host *h, const char *remote_dir)
{
	json_t *res = NULL;
	char *err = NULL;
	int ret;

	ret = run_host__call(h, "file.remove",
			     json_pack("{s:s}", "path", remote_dir),
			     REMOVE_TIMEOUT_MS, &res, &err);
	if (ret && ret != -ENOENT)
		pr_warn("host %s: cannot remove the artifact folder %s: %s",
			h->h.m->name, remote_dir, err);
	json_decref(res);
	free(err);
}

int run_fetch__artifacts(struct run_host *h, const char *remote_dir,
			 const char *local_dir, json_t *collected,
			 struct run_fetch *f)
{
	struct fetch_walk w = {
		.h = h,
		.remote_dir = remote_dir,
		.remote_len = strlen(remote_dir),
		.local_dir = local_dir,
		.f = f,
	};
	size_t i;

	/* "/" or "" would make every path of the host an artifact. */
	if (remote_dir[0] != '/' || w.remote_len < 2 ||
	    remote_dir[w.remote_len - 1] == '/') {
		pr_warn("host %s: artifact folder '%s' is not one to fetch "
			"from",
			h->h.m->name, remote_dir);
		return -EINVAL;
	}
	walk(&w, collected, "");
	if (!w.ret)
		run_fetch__remove(h, remote_dir);
	else
		pr_warn("host %s: what did not come home is still in %s",
			h->h.m->name, remote_dir);
	for (i = 0; i < w.nr; i++) {
		free(w.remote[i]);
		free(w.local[i]);
	}
	free(w.remote);
	free(w.local);
	return w.ret;
}

void run_fetch__release(struct run_fetch *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free_all(f->files[i].path, f->files[i].kind, f->files[i].where);
	free(f->files);
	free(f->why);
	memset(f, 0, sizeof(*f));
}
