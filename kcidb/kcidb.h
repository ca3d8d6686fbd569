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
 * from argv or the environment, where `ps` and /proc show it. 0 and a
 * new string in *@token (wipe it before freeing), or the errno of the
 * file that cannot be read, -EINVAL for one empty or holding a space or
 * a control character (a header it would break); the words name the
 * file, never its content.
 */
int kcidb__token_read(const char *path, char **token, char **err);

struct kcidb_submit_opts {
	const char *url; /* the service's base URL */
	const char *token_file;
	int tries;	/* connection loss and 5xx, per request; 0: 5 */
	int backoff_ms; /* the first wait before a retry, doubling; 0: 1000 */
	int backoff_max_ms; /* the longest wait; 0: 30000 */
	int poll_ms;	    /* between two status calls; 0: 1000 */
	int timeout_s;	    /* the verdict awaited at most; 0: 600 */
	int request_ms;	    /* one request's answer awaited; 0: 30000 */
	/*
	 * Progress, one line at a time without its newline ("submitted, id
	 * X; waiting for the ingester", "retrying in 2 s: ..."): the
	 * library says nothing itself (docs/hacking.md), the command
	 * prints them. NULL: none.
	 */
	void (*progress)(void *arg, const char *line);
	void *progress_arg;
};

enum kcidb_outcome {
	KCIDB_PROCESSED, /* ingested and archived */
	KCIDB_FAILED,	 /* refused by the full schema validation */
};

/* "processed" or "failed", as the service says them. */
const char *kcidb_outcome__name(enum kcidb_outcome outcome);

/*
 * POST the report (its JSON text, @len bytes; 0: up to its NUL) to
 * URL/submit and poll URL/status until the service says processed or
 * failed. The URL and the token file are checked before anything is
 * sent. 0 with *@outcome and the service's id and message (new
 * strings), or a negative errno and the words why, after which the
 * caller keeps its report: the token file's errno (kcidb__token_read),
 * -EINVAL (a bad URL, a 4xx but 401 and 403, the status's error),
 * -EACCES (the token refused: 401 or 403), -EHOSTUNREACH or -EIO (the
 * tries spent on connection loss or 5xx), -EFBIG (an answer over 64
 * MiB), -ENOENT (the service lost the submission: notfound), -ETIMEDOUT
 * (no verdict within timeout_s; the words say the last status), -EPROTO
 * (an answer not as documented).
 */
int kcidb__submit(const struct kcidb_submit_opts *o, const char *body,
		  size_t len, enum kcidb_outcome *outcome, char **id,
		  char **message, char **err);

/* The report's text as the export writes it, a newline at its end. */
char *kcidb__text(const json_t *report);

/* @text written at @path, atomically: a kept report, whole or absent. */
int kcidb__keep(const char *path, const char *text, char **err);

/* What the service said of a report sent. */
struct kcidb_sent {
	enum kcidb_outcome outcome;
	char *id;      /* the service's id of the submission */
	char *message; /* its words with the verdict */
	bool kept;     /* the report written at @keep */
};

/*
 * @text submitted (kcidb__submit), and kept at @keep unless the service
 * processed it. 0 with the verdict in @sent (where the service failed
 * the report, @sent->kept says whether it is at @keep; if not, *@err
 * says why), or the submission's negative errno with its words, which
 * end saying where the report is kept.
 */
int kcidb__send(const struct kcidb_submit_opts *o, const char *text,
		const char *keep, struct kcidb_sent *sent, char **err);
void kcidb_sent__release(struct kcidb_sent *sent);

#endif /* IOMMU_BENCH_KCIDB_H */
