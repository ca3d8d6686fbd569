/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A trial's artifacts brought home from a host whose disk the
 * controller does not share (ssh, qemu): collect.start made them in a
 * folder of the agent's (@remote_dir, as collect.start answered it);
 * collect.stop's results name them by the agent's paths.
 */
#ifndef IOMMU_BENCH_RUN_FETCH_H
#define IOMMU_BENCH_RUN_FETCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct run_host;

/* One file fetched: where it is now, and where the results named it. */
struct run_fetched {
	char *path; /* local, under the trial's folder */
	char *kind; /* its base name, as the artifacts table keeps it */
	/* Where the results named it: "perf/perf_data", the collector,
	 * then the keys (or array indexes) down to the string. */
	char *where;
};

struct run_fetch {
	struct run_fetched *files;
	size_t nr, alloc;
	/* The first file that did not come and why, for a trial that
	 * cannot do without it (a profile trial's perf.data). */
	char *why;
};

/* Artifacts land on the controller's disk only where the agent shares it. */
bool run_fetch__host_shares_disk(const struct run_host *h);

/*
 * Every string in @collected that names a file below @remote_dir is
 * fetched with file.read, chunk by chunk, into @local_dir under its
 * base name, and replaced in @collected by the local path; then the
 * remote folder is removed with file.remove. 0 when all that was named
 * came home; otherwise a negative errno, with a warning per file that
 * did not, those names left as the host gave them and the remote
 * folder kept for whoever wants it. What came home is in @f either way.
 */
int run_fetch__artifacts(struct run_host *h, const char *remote_dir,
			 const char *local_dir, json_t *collected,
			 struct run_fetch *f);
/* file.remove of @remote_dir, whatever it holds; a warning if it fails. */
void run_fetch__remove(struct run_host *h, const char *remote_dir);
void run_fetch__release(struct run_fetch *f);

#endif /* IOMMU_BENCH_RUN_FETCH_H */
