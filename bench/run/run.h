/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iommu-bench run: a matrix's plan executed trial by trial on its hosts,
 * each trial stored in one transaction, so that a killed run resumes
 * where it stopped and never runs a stored trial twice.
 */
#ifndef IOMMU_BENCH_RUN_H
#define IOMMU_BENCH_RUN_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/agent/agent-proto.h"
#include "bench/host/host.h"
#include "bench/matrix/matrix.h"
#include "bench/matrix/plan.h"

struct store;

/* --only: a name per dimension, NULL for any. */
struct run_filter {
	long host, kernel, mode, workload; /* matrix indexes; -1: any */
	unsigned int shard_k, shard_n;	   /* 1-based K of N; N 0: no shard */
};

/* booted_kernel: none of the matrix's, as far as the run knows (what a
 * killed run left booted); every kernel, "running" too, boots first. */
#define RUN_KERNEL_UNKNOWN LONG_MAX

/* A kernel package installed on a lab host, to remove at the end. */
struct run_pkg {
	char *package, *release, *name;
};

struct run_host {
	struct host h;
	bool opened;
	struct agent_conn *agent;
	int64_t host_id;  /* store rows; 0 until known */
	int64_t boot_row; /* the boot the agent answered from */
	char *boot_id;
	char *kernel_release;
	char *build_id;
	char *applied_mode; /* the mode put in place on this boot, if any */
	char *lost; /* why the host is gone for the rest of the run; NULL */
	/*
	 * Hosts the tool boots itself (qemu, host_ops.restart): what the
	 * current boot is (matrix indexes; mode -1: booted without a
	 * mode's cmdline), whether no trial ran on it yet, and the last
	 * boot that failed, so that its other trials fail fast.
	 */
	long booted_kernel, booted_mode;
	bool fresh_boot;
	long failed_kernel, failed_mode;
	char *failed_boot; /* its error; NULL: none failed */
	/*
	 * The kernel the run found running, which kernel kind "running"
	 * is: after a boot into another kernel the host runs that one, and
	 * a "running" trial must go back, not run on whatever is there.
	 */
	char *found_release, *found_build_id;
	/*
	 * Debian kernel packages this run installed there (ssh hosts),
	 * removed when it ends unless the kernel says keep.
	 */
	struct run_pkg *pkgs;
	size_t nr_pkgs;
};

struct run_progress {
	bool tty, quiet, json;
	size_t done, total, failed;
	uint64_t started_ms;
	uint64_t overhead_ms; /* wall time beyond the workload, summed */
	size_t measured;      /* trials the overhead is summed over */
};

struct run_ctx {
	struct matrix *m;
	struct plan plan;
	struct store *st;
	const char *db_path;
	char *results_dir; /* the db's folder: results/<run>/<trial>/ go there */
	int64_t run_id;
	struct run_filter filter;
	unsigned int max_failures;
	struct run_host *hosts; /* one per matrix host */
	int64_t *kernel_ids;	/* one per matrix kernel */
	int64_t *trial_ids;	/* one per plan trial; 0: not selected */
	bool *trial_done;	/* stored 'ok' already */
	struct run_progress progress;
	bool resumed; /* an unfinished run continued */
	/*
	 * A kept worktree for the recipes' builds (the robot's, shared
	 * with its bisections): make rebuilds what a commit changed. NULL:
	 * a new worktree per build.
	 */
	const char *build_workdir;
	bool signals; /* run_signal__install()ed */
};

/* run-filter.c */
int run_filter__parse_only(struct run_filter *f, const struct matrix *m,
			   const char *spec);
int run_filter__parse_shard(struct run_filter *f, const char *spec);
bool run_filter__match(const struct run_filter *f, const struct matrix *m,
		       const struct plan_trial *t);

/* run-args.c: what the agents are asked, as JSON */
json_t *run_args__iperf3(const struct matrix *m,
			 const struct matrix_workload *w, bool client);
/* @profile: a profile trial, the one kind that samples by default. */
/* fio.run's: the disk by serial (qemu) or path (ssh), fio's knobs. */
json_t *run_args__fio(const struct matrix *m, const struct matrix_workload *w);
/* dma_map.run's: the device and the benchmark's knobs, every one given. */
json_t *run_args__dma_map(const struct matrix_workload *w);
json_t *run_args__collect(const struct matrix *m, const struct matrix_host *h,
			  const char *outdir, bool profile);
/* The IP part of a host's data address (CIDR cut off), in @buf. */
int run_args__data_ip(const struct matrix_host *h, char *buf, size_t size);

/* run-hosts.c */
/* Where a lab transport's jobs are kept: the run's store (run-jobs.c). */
extern const struct host_jobs_ops run_jobs_ops;
int run_hosts__open(struct run_ctx *ctx);
/* (Re)start @h's agent, say hello and record host and boot. */
int run_host__connect(struct run_ctx *ctx, struct run_host *h);
int run_host__call(struct run_host *h, const char *verb, json_t *args,
		   int timeout_ms, json_t **result, char **err);
/*
 * After a trial: every host whose agent gave no answer (a call
 * timed out, the connection broke) is made fit for the next trial, a
 * VM the tool boots by forgetting its agent (the next trial boots it
 * afresh), any other by a fresh agent.
 */
/*
 * Each dma_map workload's device asked of host @idx (dma_map.check),
 * before its first trial: 0, or the error printed and returned.
 */
int run_hosts__check_dma_map(struct run_ctx *ctx, size_t idx);
void run_hosts__recover(struct run_ctx *ctx);
void run_hosts__close(struct run_ctx *ctx);
int run_kernels__store(struct run_ctx *ctx);

/* run-state.c: the mode of trial @t in place on its SUT, and verified */
/*
 * The policy word a host must report for mode @md (by its group type,
 * else a built-in name); NULL: the mode is only recorded. Stored with
 * each trial: the report judges "not in effect" by it, not by names.
 */
const char *run_state__expected_mode(const struct matrix_mode *md);
int run_state__ensure(struct run_ctx *ctx, const struct plan_trial *t,
		      char **effective, char **err);
/*
 * Boot host @h (one with host_ops.restart) into kernel @kernel with mode
 * @mode's cmdline (-1: none) and connect its agent. 0, or a negative
 * errno and *@err.
 */
int run_state__boot(struct run_ctx *ctx, struct run_host *h, size_t kernel,
		    long mode, char **err);
/*
 * Reboot lab host @h back into the kernel the run found there, with no
 * mode's arguments (before a package the run installed is removed).
 */
int run_state__boot_found(struct run_ctx *ctx, struct run_host *h, char **err);

/* run-trial.c */
int run_trial__exec(struct run_ctx *ctx, size_t i);
/* Store trial @i failed with @why, without running it; 1 or -errno. */
int run_trial__fail(struct run_ctx *ctx, size_t i, const char *why);

/* run-kernels.c: build the recipes the selected trials boot */
int run_kernels__build(struct run_ctx *ctx);
struct kbuild_recipe;
/* A matrix's build recipe as kbuild takes it (pointers into @b). */
void run_kernels__recipe(const struct matrix_build *b, struct kbuild_recipe *r);

/* run-store.c */
int run_store__plan(struct run_ctx *ctx);

/* run-signal.c: 0 none, 1 finish the trial then stop, 2 abandon it */
void run_signal__install(struct run_ctx *ctx);
int run_signal__level(void);
void run_signal__restore(void);

/* run-progress.c */
void run_progress__msg(struct run_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @client: the workload's answer, NULL for a trial that failed. */
void run_progress__trial(struct run_ctx *ctx, size_t i, const char *status,
			 const char *error, const json_t *client,
			 uint64_t wall_ms);
void run_progress__end(struct run_ctx *ctx, const char *status);

/* run.c: every selected trial not yet stored 'ok'; 0, or -EINTR, ... */
int run__execute(struct run_ctx *ctx);

/*
 * run-session.c: one run of a matrix, from its store row to its end,
 * for `run` and for each step of `bisect`.
 */
struct run_session_opts {
	const char *db_path;
	/* What the run row keeps: the matrix text a resume matches. */
	const char *config;
	size_t config_len;
	int64_t run_id;		 /* reopen this run (more trials); 0: no */
	bool resume;		 /* an unfinished run must be there */
	bool fresh;		 /* never resume one */
	const char *resume_hint; /* appended to "resuming run N" */
	bool quiet, json;
	unsigned int max_failures;
};

/*
 * Load and validate @path, plan it; ctx->filter selects everything.
 * Errors are printed, warnings only with @warn.
 */
int run_session__load(struct run_ctx *ctx, const char *path, bool warn);
/* Open the store and begin (or resume) the run; ctx->filter set. */
int run_session__open(struct run_ctx *ctx, const struct run_session_opts *o);
/* Build, open the hosts, store the plan, run every trial not yet ok. */
int run_session__execute(struct run_ctx *ctx);
/* Raise every selected cell to @repetitions and run what is new. */
int run_session__extend(struct run_ctx *ctx, unsigned int repetitions);
/* Close the hosts and record the run's end: its exit status. */
int run_session__close(struct run_ctx *ctx, int ret);
void run_session__release(struct run_ctx *ctx);

#endif /* IOMMU_BENCH_RUN_H */
