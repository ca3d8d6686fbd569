/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The results store: one SQLite database that every measurement goes
 * through, written by the orchestrator and read by export and report.
 * schemas/README.md describes the tables; this is the only code that
 * speaks SQL to them, always through prepared statements.
 *
 * Every function returns 0 or a negative errno and has already printed
 * an error naming the database and SQLite's own words, so callers only
 * pass the status on. Row ids are int64_t, 0 meaning "none".
 *
 * Crash safety is the caller's half of the bargain: wrap each trial's
 * start-to-finish writes in store__begin()/store__commit(), and a crash
 * leaves either the whole trial or none of it, never a half.
 */
#ifndef IOMMU_BENCH_STORE_H
#define IOMMU_BENCH_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;

/* store__open() flags */
/* Create a missing or zero-length file, with the schema (unless ANY_OLD). */
#define STORE_CREATE (1u << 0)
#define STORE_READONLY (1u << 1) /* never write; never migrate */
#define STORE_MIGRATE (1u << 2)	 /* apply pending migrations on open */
#define STORE_ANY_OLD (1u << 3)	 /* accept pending migrations (db info) */

/*
 * Open the database at @path. Refused, without a byte of the file
 * changed: a file that is not a SQLite database, another application's
 * SQLite database, a schema newer than this binary knows, and (unless
 * STORE_MIGRATE or STORE_ANY_OLD) one with migrations pending. A missing
 * file is -ENOENT unless STORE_CREATE, which also creates the missing
 * last directory of @path (results/ for the default path). The store
 * says what it found; what the user should do about it (-ENOENT a
 * missing or empty file, -ESTALE migrations pending, -EPROTONOSUPPORT
 * a newer schema) is the caller's to say: global__db_advice() in cmd/.
 */
int store__open(const char *path, unsigned int flags, struct store **out);
void store__close(struct store *st);

const char *store__path(const struct store *st);
/* The schema version of the open database (PRAGMA user_version). */
unsigned int store__version(const struct store *st);
/* The newest schema version this binary carries. */
unsigned int store__latest_version(void);
/* The SQLite library's version, for db info and version. */
const char *store__sqlite_version(void);
/*
 * Apply pending migrations, each in its own transaction under the write
 * lock, each skipped when another process applied it meanwhile. @from
 * and @to (either may be NULL): the version at open and at the end;
 * @applied (may be NULL): bit (version - 1) set for each migration this
 * process applied, for it alone may say so.
 */
int store__migrate(struct store *st, unsigned int *from, unsigned int *to,
		   uint64_t *applied);

/* One write transaction (BEGIN IMMEDIATE: the lock is taken up front). */
int store__begin(struct store *st);
int store__commit(struct store *st);
/* Never fails the caller: it is what error paths call. */
void store__rollback(struct store *st);

/* The tables db info counts, NULL-terminated, and their row counts. */
extern const char *const store_tables[];
int store__count(struct store *st, const char *table, int64_t *n);

/* Status words, as stored in the database and printed by export. */
enum store_run_status {
	STORE_RUN_RUNNING,
	STORE_RUN_DONE,
	STORE_RUN_FAILED,
	STORE_RUN_INTERRUPTED,
};

enum store_trial_status {
	STORE_TRIAL_PENDING,
	STORE_TRIAL_RUNNING,
	STORE_TRIAL_OK,
	STORE_TRIAL_FAILED,
	STORE_TRIAL_SKIPPED,
};

enum store_better {
	STORE_BETTER_NONE,
	STORE_BETTER_HIGHER,
	STORE_BETTER_LOWER,
};

const char *store__run_status_name(enum store_run_status s);
const char *store__trial_status_name(enum store_trial_status s);
const char *store__better_name(enum store_better b);

/* ---- runs ---- */

/* Start a run; the config text is kept with its sha256. */
int store__run_begin(struct store *st, const char *name, const char *config,
		     size_t config_len, int64_t *run_id);
/* Record the end of a run; @status must not be STORE_RUN_RUNNING. */
int store__run_finish(struct store *st, int64_t run_id,
		      enum store_run_status status);
/* Mark a finished or interrupted run running again, for resume. */
int store__run_resume(struct store *st, int64_t run_id);
/*
 * The newest run named @name of the same config (by sha256) that did not
 * finish 'done': the one a resume continues. -ENOENT when none.
 */
int store__run_find_resumable(struct store *st, const char *name,
			      const char *config_sha256, int64_t *run_id);

struct store_run {
	int64_t id;
	char *name;
	char *config;
	char *config_sha256;
	char *tool_version;
	char *started_at;
	char *finished_at; /* NULL while running */
	enum store_run_status status;
};

/* -ENOENT (and no message: the caller words it) when there is no such run. */
int store__run_get(struct store *st, int64_t run_id, struct store_run *run);
void store__run_release(struct store_run *run);
/* The highest run id, 0 when there are no runs. */
int store__run_latest(struct store *st, int64_t *run_id);

/*
 * The values of @metric in run @run_id's measured trials of a cell
 * (@mode, @workload), in repetition order; trials that failed or lack
 * the metric give none, and the first one's reason goes to *@error
 * (NULL: every trial gave a value). Free *@v and *@error.
 */
int store__cell_values(struct store *st, int64_t run_id, const char *mode,
		       const char *workload, const char *metric, double **v,
		       size_t *n, char **error);
/* The same of kernel @kernel's cell alone (NULL: any kernel). */
int store__kernel_cell_values(struct store *st, int64_t run_id,
			      const char *kernel, const char *mode,
			      const char *workload, const char *metric,
			      double **v, size_t *n, char **error);

/* A symbol's mean share of a cell's profile, in percent of its samples. */
struct store_share {
	char *event, *symbol;
	double share;
};

/*
 * Each symbol's mean share over the profiled trials (ok, with samples
 * stored) of @run_id's cell on @host with @kernel, @mode and @workload,
 * the biggest first; a trial that did not sample a symbol counts 0 for
 * it. None where the cell was not profiled.
 */
int store__profile_shares(struct store *st, int64_t run_id, const char *host,
			  const char *kernel, const char *mode,
			  const char *workload, struct store_share **out,
			  size_t *nr);
void store_shares__free(struct store_share *v, size_t nr);
struct strvec;
/* Every metric name stored so far, appended to @out. */
int store__metric_names(struct store *st, struct strvec *out);

/* ---- where a trial ran ---- */

/* @name is the matrix's; @identity the machine's (machine-id, DMI uuid). */
int store__host_upsert(struct store *st, const char *name, const char *identity,
		       int64_t *host_id);

struct store_boot {
	const char *boot_id; /* /proc/sys/kernel/random/boot_id */
	const char *kernel_release;
	const char *kernel_build_id; /* NULL: not known */
	const char *cmdline;
	const char *facts_json; /* NULL: none yet; a later upsert may add them */
};

int store__boot_upsert(struct store *st, int64_t host_id,
		       const struct store_boot *boot, int64_t *boot_row_id);

struct store_kernel {
	const char *name;	 /* the matrix's */
	const char *release;	 /* NULL: not known (not built or booted yet) */
	const char *build_id;	 /* NULL: not known */
	const char *image_path;	 /* NULL: keep what is stored */
	const char *recipe_json; /* NULL: keep what is stored */
	/*
	 * A Debian package kernel as it was fetched: the versioned package
	 * (a meta-package's target then), its version, its suite. NULL:
	 * not a package ('' in the store). The version is part of the key.
	 */
	const char *package;
	const char *version;
	const char *suite;
};

int store__kernel_upsert(struct store *st, const struct store_kernel *k,
			 int64_t *kernel_id);
/*
 * Run @run_id's kernel row named @kernel_name on host @host_id, and the
 * release and build id of the boot its first trial there ran on (NULL:
 * none ran yet); -ENOENT when the run has no cell of that kernel there.
 * A resumed run's "running" kernel is what its first run found, not what
 * the host runs now.
 */
int store__run_kernel_seen(struct store *st, int64_t run_id, int64_t host_id,
			   const char *kernel_name, int64_t *kernel_id,
			   char **release, char **build_id);

/*
 * The Debian package and version run @run_id measured as its kernel
 * @kernel_name, in new strings; -ENOENT when it has none recorded (not a
 * package, or no cell yet). A resumed run boots that one again, wherever
 * its suite has moved since.
 */
int store__run_kernel_package(struct store *st, int64_t run_id,
			      const char *kernel_name, char **package,
			      char **version);

struct store_cell {
	int64_t run_id, host_id, kernel_id;
	const char *mode; /* requested: strict, lazy, passthrough, custom */
	const char *workload;
	const char *key; /* the plan's stable text key, for resume */
};

/*
 * Find the cell (run, key) or add it. A cell found with another host,
 * kernel, mode or workload is -EEXIST: the matrix changed under a resume.
 */
int store__cell_upsert(struct store *st, const struct store_cell *cell,
		       int64_t *cell_id);

/* ---- trials ---- */

/*
 * What a trial is for: measured, a warmup (run, never in statistics) or
 * a profile trial (perf record on; its numbers are kept apart too).
 */
enum store_trial_kind {
	STORE_TRIAL_MEASURED,
	STORE_TRIAL_WARMUP,
	STORE_TRIAL_PROFILE,
};

/*
 * Find trial (cell, kind, repetition) or add it as pending, with the
 * cell's mode as its requested mode. @status (may be NULL) tells a
 * resumed run what the trial already is: 'ok' ones need no rerun.
 */
int store__trial_find_or_insert(struct store *st, int64_t cell_id,
				unsigned int repetition,
				enum store_trial_kind kind, int64_t *trial_id,
				enum store_trial_status *status);
/*
 * What ran during the trial: @json, the collectors object the SUT's
 * agent was started with (NULL: not known).
 */
int store__trial_collectors(struct store *st, int64_t trial_id,
			    const char *json);
/*
 * The trial is running on @boot_row_id (0: unknown) with @effective_mode
 * (NULL: not verified) in effect.
 */
/*
 * An ok trial whose mode was not in effect, in SQL, for a trials row
 * named @t: the one rule (see schemas/0004-expected-mode.sql).
 */
#define STORE_SQL_MODE_MISMATCH(t)                                          \
	"(" t ".effective_mode IS NOT NULL AND " t ".expected_mode IS NOT " \
	"NULL AND " t ".effective_mode <> " t ".expected_mode)"

/* @expected_mode: the word the host had to report; NULL: none. */
int store__trial_start(struct store *st, int64_t trial_id, int64_t boot_row_id,
		       const char *effective_mode, const char *expected_mode);
/* @error (may be NULL) says why a trial failed or was skipped. */
int store__trial_finish(struct store *st, int64_t trial_id,
			enum store_trial_status status, const char *error);
/*
 * Drop what a trial measured and make it pending again, for the retry of
 * a failed trial or one a crash left 'running'.
 */
int store__trial_reset(struct store *st, int64_t trial_id);

/* ---- what a trial measured; @id arguments may be NULL ---- */

/* @value must be finite: SQLite would turn NaN into NULL. */
int store__metric_add(struct store *st, int64_t trial_id, const char *name,
		      double value, const char *unit, enum store_better better,
		      int64_t *id);

struct store_probe {
	const char *name;   /* logical probe: "unmap", "iotlb_sync" */
	const char *target; /* symbol or tracepoint attached; "" if none */
	const char *attach; /* fentry, kprobe, tracepoint, raw_tp, none... */
	uint64_t calls;
	uint64_t total_ns;
	const uint64_t *hist; /* log2 ns buckets, see schemas/README.md */
	size_t hist_len;
	/*
	 * Of the timed calls: the time outside the other probed calls
	 * nested in them, and how many began inside another probed call
	 * (schemas/0006-probe-self.sql). false: not known, stored NULL.
	 */
	bool self_known;
	uint64_t self_ns;
	uint64_t nested;
};

int store__probe_add(struct store *st, int64_t trial_id,
		     const struct store_probe *p, int64_t *id);

/*
 * Each probe of @trial_id that attached, as a metric NAME_per_gb: its
 * calls per 1e9 of the @bytes the workload moved (lower is better), so
 * that compare, regress and export treat a call rate like any metric.
 * A probe that could not attach gets none: no figure is not zero. The
 * exposure window's row ("exposure") counts windows, not calls, and
 * has metrics of its own (collectors/bpf/bpf-exposure-store.c).
 */
int store__probe_rates(struct store *st, int64_t trial_id, double bytes);
#define STORE_PER_GB_SUFFIX "_per_gb"
/*
 * NAME_bpf_ns: probe NAME's own BPF programs' run time per call of the
 * path, where the kernel's run-time stats were on (docs/cost.md).
 */
#define STORE_BPF_NS_SUFFIX "_bpf_ns"
/*
 * @calls per 1e9 of @bytes: the rate store__probe_rates() stores for a
 * trial, and the one the report pools over trials (their calls and
 * bytes summed). NAN where no bytes moved.
 */
double store__per_gb(double calls, double bytes);

struct store_profile_row {
	const char *event; /* perf event sampled, e.g. cpu-clock */
	const char *symbol;
	const char *dso; /* NULL: unknown */
	double overhead; /* percent of samples, 0..100 */
	uint64_t samples;
};

int store__profile_add(struct store *st, int64_t trial_id,
		       const struct store_profile_row *row, int64_t *id);

/* @t_start and @t_end are seconds since the trial's workload began. */
int store__interval_add(struct store *st, int64_t trial_id, const char *metric,
			double t_start, double t_end, double value,
			const char *unit, int64_t *id);

/*
 * Record a file of a run (@trial_id 0) or of a trial, with its size and
 * sha256, read now. With a trial, @run_id may be 0: the trial's run. A relative @path is relative to the database's
 * directory, and is stored so, that results/ can move as a whole.
 */
int store__artifact_add(struct store *st, int64_t run_id, int64_t trial_id,
			const char *path, const char *kind, int64_t *id);

/* ---- a lab's jobs (lab_jobs): one per boot of a lab's device ---- */

struct store_lab_job {
	int64_t run_id;
	char *host;   /* the matrix's host name */
	char *server; /* the lab's URL */
	int64_t job_id;
	char *sha256; /* of the job's definition */
	char *kernel, *cmdline;
	char *state;  /* "submitted", "running", "ended" */
	char *health; /* the lab's word at the end; NULL: not known */
	char *device, *error;
};

/* A job just submitted for run @run_id; state "submitted". */
int store__lab_job_add(struct store *st, int64_t run_id,
		       const struct store_lab_job *j);
/* A job's state and what is known of it (NULL fields are kept). */
int store__lab_job_set(struct store *st, const struct store_lab_job *j);
/*
 * @host's jobs that have not ended: run @run_id's first, then those of
 * other runs (killed, and not resumed), oldest first.
 */
int store__lab_jobs_open(struct store *st, int64_t run_id, const char *host,
			 struct store_lab_job **out, size_t *nr);
void store_lab_jobs__free(struct store_lab_job *v, size_t nr);

/* ---- the robot's nights and regressions (nightly) ---- */

struct store_night {
	int64_t id;
	char *series;	       /* the matrix's run name */
	char *kernel;	       /* the followed kernel's name */
	char *head;	       /* a commit, or a package's version */
	char *head_subject;    /* the commit's subject */
	char *package;	       /* a followed package: what it resolved to */
	int64_t run_id;	       /* 0: not yet */
	int64_t base_night_id; /* judged against; 0: none */
	char *stage;	       /* run, judge, confirm, bisect, mail, done */
	char *verdict; /* pass, regression, improvement, unconfirmed, failed */
	char *summary;
	char *started_at, *finished_at;
};

/* @series' unfinished night; -ENOENT when none. */
int store__night_open(struct store *st, const char *series,
		      struct store_night *n);
int store__night_get(struct store *st, int64_t id, struct store_night *n);
/* The newest finished good night of @series before night @before. */
int store__night_last_good(struct store *st, const char *series, int64_t before,
			   struct store_night *n);
/* A night begun: series, kernel, head (and what is known) from @n. */
int store__night_add(struct store *st, const struct store_night *n,
		     int64_t *id);
/* Its run, stage, verdict and summary; NULL and 0 fields are kept. */
int store__night_set(struct store *st, const struct store_night *n);
/*
 * The machine @host ran run @run_id on, in one line (threads, model,
 * memory, IOMMU, NIC), from its newest boot's facts; -ENOENT: none.
 */
int store__host_words(struct store *st, int64_t run_id, const char *host,
		      char **line);
/* The image of kernel @kernel in run @run_id; -ENOENT: none stored. */
int store__kernel_image(struct store *st, int64_t run_id, const char *kernel,
			char **path);
/* The runs of @series' nights up to night @upto, oldest first. */
int store__night_runs(struct store *st, const char *series, int64_t upto,
		      int64_t **ids, size_t *nr);
/* A line of what the night said, appended to its summary. */
int store__night_say(struct store *st, int64_t id, const char *line);
void store_night__release(struct store_night *n);

struct store_regression {
	int64_t id, night_id;
	char *series, *host, *workload, *mode, *metric;
	int improvement;
	char *base, *head;			     /* commits or versions */
	double base_median, head_median, change_pct; /* NAN: not known */
	int64_t confirm_run_id;
	int pairs, reproduced;
	char *first_bad; /* bisected; NULL: not */
	char *no_commit; /* why no commit is named */
	char *culprit;	 /* first_bad, else head */
	char *state; /* confirming, unconfirmed, new, reported, fixed, ignored */
	char *mail, *message_id;
	int64_t fixed_night_id;
	char *fixed_by;
	char *created_at;
};

/* Of @series (NULL: all), of night @night_id (0: all), oldest first. */
int store__regressions(struct store *st, const char *series, int64_t night_id,
		       struct store_regression **out, size_t *nr);
int store__regression_get(struct store *st, int64_t id,
			  struct store_regression *r);
/* The one of @k's series, culprit, cell and metric; -ENOENT: none. */
int store__regression_find(struct store *st, const struct store_regression *k,
			   struct store_regression *r);
int store__regression_add(struct store *st, const struct store_regression *r,
			  int64_t *id);
/*
 * What is known of it now (state, mail, message id, fix, confirmation,
 * culprit); NULL and 0 fields are kept, @reproduced with @pairs.
 */
int store__regression_set(struct store *st, const struct store_regression *r);
int store__regression_note(struct store *st, int64_t id, const char *note);
/* Its notes, "TIME  TEXT", oldest first. */
int store__regression_notes(struct store *st, int64_t id, char ***notes,
			    size_t *nr);
void store_regression__release(struct store_regression *r);
void store_regressions__free(struct store_regression *v, size_t nr);

/* ---- reading back: one row per trial metric (the trial_metrics view) ---- */

struct store_export;

/* Warmup and profile trials, and trials that did not finish 'ok', too. */
#define STORE_EXPORT_ALL (1u << 0)

struct store_export_row {
	int64_t run;
	const char *run_name;
	const char *cell;
	const char *host;
	const char *kernel;
	const char *kernel_release; /* "" when the boot is unknown */
	const char *requested_mode;
	const char *effective_mode; /* "" when not verified */
	const char *workload;
	int64_t trial;
	unsigned int repetition;
	bool warmup;
	const char *status;
	const char *metric;
	double value;
	const char *unit;
	const char *better;
	const char *started_at; /* "" when never started */
	bool profile;		/* a profile trial: perf record was on */
};

/* Rows of run @run_id (0: every run) in run, cell, trial, metric order. */
int store__export_open(struct store *st, int64_t run_id, unsigned int flags,
		       struct store_export **it);
/*
 * 1 and @row filled (its strings live until the next call), 0 at the
 * end, or a negative errno.
 */
int store__export_next(struct store_export *it, struct store_export_row *row);
void store__export_close(struct store_export *it);

#endif /* IOMMU_BENCH_STORE_H */
