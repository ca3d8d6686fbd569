// SPDX-License-Identifier: GPL-2.0-only
/*
 * --only and --shard: which trials of the plan this invocation runs.
 * A shard takes whole cells, so that a cell's repetitions land in one
 * database and its statistics need no merge first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run/run.h"
#include "log.h"
#include "util.h"

static int only_one(struct run_filter *f, const struct matrix *m, char *kv)
{
	char *val = strchr(kv, '=');
	long idx;

	if (!val || val == kv || !val[1]) {
		pr_err("--only: '%s' is not KEY=VALUE (keys: host, kernel, "
		       "mode, workload)",
		       kv);
		return -EINVAL;
	}
	*val++ = '\0';
	if (!strcmp(kv, "host"))
		idx = f->host = matrix__find_host(m, val);
	else if (!strcmp(kv, "kernel"))
		idx = f->kernel = matrix__find_kernel(m, val);
	else if (!strcmp(kv, "mode"))
		idx = f->mode = matrix__find_mode(m, val);
	else if (!strcmp(kv, "workload"))
		idx = f->workload = matrix__find_workload(m, val);
	else {
		pr_err("--only: unknown key '%s' (expected host, kernel, mode "
		       "or workload)",
		       kv);
		return -EINVAL;
	}
	if (idx < 0) {
		pr_err("--only: the matrix has no %s named '%s'", kv, val);
		return -EINVAL;
	}
	return 0;
}

int run_filter__parse_only(struct run_filter *f, const struct matrix *m,
			   const char *spec)
{
	char *copy = xstrdup(spec), *save = NULL, *kv;
	int err = 0;

	for (kv = strtok_r(copy, ",", &save); kv && !err;
	     kv = strtok_r(NULL, ",", &save))
		err = only_one(f, m, kv);
	free(copy);
	return err;
}

int run_filter__parse_shard(struct run_filter *f, const char *spec)
{
	const char *rest;
	unsigned long k, n;
	char *end;

	errno = 0;
	k = strtoul(spec, &end, 10);
	if (errno || end == spec || *end != '/')
		goto bad;
	rest = end + 1;
	n = strtoul(rest, &end, 10);
	if (errno || end == rest || *end || n < 1 || n > 1000000 || k < 1 ||
	    k > n)
		goto bad;
	f->shard_k = k;
	f->shard_n = n;
	return 0;
bad:
	pr_err("--shard: '%s' is not K/N with 1 <= K <= N (e.g. 2/4)", spec);
	return -EINVAL;
}

bool run_filter__match(const struct run_filter *f, const struct matrix *m,
		       const struct plan_trial *t)
{
	uint64_t cell;

	if ((f->host >= 0 && (size_t)f->host != t->host) ||
	    (f->kernel >= 0 && (size_t)f->kernel != t->kernel) ||
	    (f->mode >= 0 && (size_t)f->mode != t->mode) ||
	    (f->workload >= 0 && (size_t)f->workload != t->workload))
		return false;
	if (!f->shard_n)
		return true;
	/* By the cell's matrix coordinates: the same on every shard's run. */
	cell = ((t->host * m->nr_kernels + t->kernel) * m->nr_modes + t->mode) *
		       m->nr_workloads +
	       t->workload;
	return cell % f->shard_n == f->shard_k - 1;
}
