/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The iperf3 workload, through libiperf (3.12). Not a collector: it is
 * what the collectors measure. Each iperf3 end runs in a forked child
 * (libiperf keeps process-global state, and 3.12 is one thread per
 * process), optionally inside a named network namespace and pinned to a
 * CPU; several processes run in parallel on consecutive ports.
 *
 * Results are jansson objects in the agent's wire form, documented in
 * docs/collectors.md with the metric names iperf3__store() writes.
 *
 * A failure is an error carrying iperf3's own words (a new string in
 * the char **err the caller frees: the agent sends it back as its
 * answer's error), never a result with zero throughput. Functions
 * return 0 or a negative errno; a NULL err drops the words.
 */
#ifndef IOMMU_BENCH_IPERF3_H
#define IOMMU_BENCH_IPERF3_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;

#define IPERF3_DEFAULT_PORT 5201
#define IPERF3_MAX_PROCESSES 64

/*
 * One side's options; a server reads only netns, bind, port, processes,
 * cpus and the timeouts (the client tells it the rest). Zero is the
 * default everywhere.
 */
struct iperf3_opts {
	const char *netns; /* run in /run/netns/NAME; NULL: where we are */
	const char *host;  /* client: the server's address */
	const char *bind;  /* local address to bind; NULL: any */
	bool udp;
	unsigned int streams;	 /* -P; 0: 1 */
	unsigned int processes;	 /* parallel pairs on port, port+1...; 0: 1 */
	unsigned int port;	 /* of the first process; 0: 5201 */
	unsigned int duration_s; /* -t; 0: 10 */
	unsigned int omit_s;	 /* -O */
	bool reverse;		 /* -R */
	bool bidir;		 /* --bidir */
	uint64_t length;	 /* -l bytes; 0: iperf3's default */
	uint64_t window;	 /* -w bytes; 0: kernel autotuning */
	uint64_t bitrate;	 /* -b bit/s; 0: unlimited */
	bool has_bitrate;	 /* else UDP gets iperf3's 1 Mbit/s */
	const char *congestion;	 /* -C; NULL: the host's default */
	bool zerocopy;		 /* -Z */
	unsigned int mss;	 /* -M */
	bool no_delay;		 /* -N */
	const int *cpus;	 /* one CPU per process; NULL: not pinned */
	size_t nr_cpus;
	double interval_s;		 /* reporting interval; 0: 1 s */
	unsigned int connect_timeout_ms; /* 0: 5000 */
	/* A whole run's limit; 0: omit + duration + connect timeout + 15 s. */
	unsigned int timeout_ms;
};

/*
 * Check @o for values iperf3 would refuse or misread; the message names
 * the field and what was expected. -EINVAL when bad.
 */
int iperf3__check_opts(const struct iperf3_opts *o, bool client, char **err);

struct iperf3_server;

/*
 * Start @o->processes one-off servers and return once each is listening
 * (its LISTEN socket is in the kernel's table: probing with connect()
 * would use up a one-off server's only test).
 */
int iperf3__server_start(const struct iperf3_opts *o,
			 struct iperf3_server **out, char **err);
/*
 * Wait for the servers to finish their test, up to @timeout_ms (< 0:
 * the options' limit), and hand back their own JSON reports as an array
 * (one per process, may be NULL), each failed one with an "error" key.
 */
int iperf3__server_wait(struct iperf3_server *s, int timeout_ms,
			json_t **reports, char **err);
/* Kill whatever still runs (by PID) and free. NULL is fine. */
void iperf3__server_stop(struct iperf3_server *s);

/* Run @o->processes clients in parallel; their summary into @results. */
int iperf3__client_run(const struct iperf3_opts *o, json_t **results,
		       char **err);

/* Both ends here (each in its own netns if named): servers, then clients. */
int iperf3__run(const struct iperf3_opts *server,
		const struct iperf3_opts *client, json_t **results, char **err);

/*
 * Summarise the clients' iperf3 JSON reports (@reports[i] from the
 * process on @ports[i]) into the results object. An `error` key in any
 * of them, or a report without the end sums, is an error naming the port.
 */
int iperf3__summarize(json_t *const *reports, const unsigned int *ports,
		      size_t n, const struct iperf3_opts *o, json_t **results,
		      char **err);

/*
 * Add to @results' "bytes" what the receiving streams of @reports (a
 * JSON array of one end's reports) got over the whole test, omitted
 * seconds included: the probes count over all of it, so this is what
 * their calls per GB divide by, and for UDP it is what arrived, not
 * what was sent. iperf3__summarize() counts the clients' own share.
 */
void iperf3__add_received(json_t *results, const json_t *reports);

/* Results into the store: metrics and interval series of @trial_id. */
int iperf3__store(struct store *st, int64_t trial_id, const json_t *results,
		  char **err);
/* The metrics iperf3__store() can store, appended to @out. */
struct strvec;
void iperf3__metric_names(struct strvec *out);

/* libiperf's own version string ("3.12"). */
const char *iperf3__version(void);

#endif /* IOMMU_BENCH_IPERF3_H */
