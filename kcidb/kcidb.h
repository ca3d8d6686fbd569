/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KCIDB, KernelCI's common results database: the store's runs, their
 * kernels and the nights' regressions written as one v5.3 report
 * (docs/kcidb.md), and that report handed to a kcidb-ng REST service.
 * Ids are derived from what the store keeps, never from the time of the
 * export, so that exporting again gives the same ids and the database
 * merges them instead of counting a run twice.
 */
#ifndef IOMMU_BENCH_KCIDB_H
#define IOMMU_BENCH_KCIDB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;

/* The schema version written: v5.3, the newest kcidb-io knows. */
#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

struct kcidb_opts {
	/* The submitter's name, [a-z0-9_]+ (kcidb__origin_check). */
	const char *origin;
	/* The runs to export; none: the latest run in the store. */
	const int64_t *runs;
	size_t nr_runs;
};

/* 0 where origin is a KCIDB origin, else -EINVAL and the words why. */
int kcidb__origin_check(const char *origin, char **err);

/*
 * The report of o->runs: its checkouts, builds and tests, and the issues
 * and incidents of the nightly regressions found on those runs. 0 and a
 * new reference in *report, or a negative errno and the words why.
 */
int kcidb__report(struct store *st, const struct kcidb_opts *o, json_t **report,
		  char **err);

/* 0 where url is http:// or https:// with a host, else -EINVAL. */
int kcidb__url_check(const char *url, char **err);

/*
 * The bearer token, read from a file (its first line, trimmed): never
 * from argv or the environment, where `ps` and /proc show it.
 */
int kcidb__token_read(const char *path, char **token, char **err);

struct kcidb_submit_opts {
	const char *url; /* the service's base URL */
	const char *token_file;
	int tries;     /* connection loss and 5xx; 0: 5 */
	int poll_ms;   /* between two status calls; 0: 1000 */
	int timeout_s; /* the status awaited at most; 0: 600 */
	bool quiet;    /* no progress lines on stderr */
};

enum kcidb_outcome {
	KCIDB_PROCESSED, /* ingested and archived */
	KCIDB_FAILED,	 /* refused by the full schema validation */
};

/*
 * POST the report (its JSON text) to URL/submit and poll URL/status
 * until the service says processed or failed. 0 with *outcome and the
 * service's id and message, or a negative errno and the words why (a
 * 401 or another 4xx, or the tries spent): the caller keeps its report.
 */
int kcidb__submit(const struct kcidb_submit_opts *o, const char *body,
		  size_t len, enum kcidb_outcome *outcome, char **id,
		  char **message, char **err);

#endif /* IOMMU_BENCH_KCIDB_H */
