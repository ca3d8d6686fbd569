/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf(1) itself: `perf record` over a window, `perf evlist` for the event
 * really recorded, `perf report` into rows. Always argument vectors,
 * never a shell; perf record runs with its events disabled and is
 * enabled and disabled over a control socket (--control fd:), so the
 * window starts when perf says it has, not when it was forked.
 */
#ifndef IOMMU_BENCH_PERF_RECORD_H
#define IOMMU_BENCH_PERF_RECORD_H

#include <stdbool.h>

#include "collectors/perf/perf-report.h"
#include "subprocess.h"

struct perf_record_opts {
	const char *perf;      /* the binary; NULL: "perf" from $PATH */
	const char *event;     /* -e */
	unsigned int freq;     /* -F */
	const char *callgraph; /* "none", "fp", "dwarf", "lbr" */
	const char *cpus;      /* -C list; NULL: -a, every CPU */
	const char *output;    /* the perf.data to write */
	const char *log;       /* perf's stdout and stderr go here */
	/*
	 * No build-id pass at exit (-B, -N): perf reads every sample back
	 * to find the DSOs hit and copies them into ~/.debug, which takes
	 * a TCG guest tens of seconds. For a report made where the same
	 * files are (the testbed's guest runs the controller's root).
	 */
	bool no_buildid;
};

struct perf_record {
	bool active; /* perf_record__start() was called */
	struct spawn sp;
	int ctl; /* our end of the control socket */
	char *log;
};

/* Well-formed perf arguments (no option smuggled in as a value). */
bool perf_record__event_ok(const char *event);
bool perf_record__cpus_ok(const char *cpus);

/* Start perf record and return once its events are enabled. */
int perf_record__start(struct perf_record *r, const struct perf_record_opts *o);
/* Disable, SIGINT, and wait for perf to write perf.data and exit. */
int perf_record__stop(struct perf_record *r);
/* Kill whatever still runs (by PID) and free. */
void perf_record__release(struct perf_record *r);

/* The first non-dummy event of @data, as `perf evlist` names it. */
int perf_record__evlist(const char *perf, const char *data, char **event);

/*
 * `perf report` of @data into @rep; rows under @percent_limit are left
 * out by perf. A perf.data without samples is 0 rows, not an error.
 */
int perf_record__report(const char *perf, const char *data,
			double percent_limit, struct perf_report *rep);
/* The same with the kernel's symbols from @kallsyms (another host's). */
int perf_record__report_with(const char *perf, const char *data,
			     const char *kallsyms, double percent_limit,
			     struct perf_report *rep);

/* `perf --version` ("perf version 6.1.192"); NULL when perf is missing. */
char *perf_record__version(const char *perf);

#endif /* IOMMU_BENCH_PERF_RECORD_H */
