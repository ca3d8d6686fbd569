/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bisection of a kernel history against a benchmark figure: the search
 * over the first-parent commits between a good and a bad revision, and
 * the git questions it asks of the user's tree (read-only: builds happen
 * in a worktree of their own, bench/kbuild/).
 *
 * Everything returns 0 or a negative errno; *err says why in words.
 */
#ifndef IOMMU_BENCH_BISECT_H
#define IOMMU_BENCH_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

enum bisect_verdict {
	BISECT_UNKNOWN,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP, /* did not build or boot: says nothing */
};

/*
 * The candidates are the commits after the good end up to the bad end,
 * oldest first: the bad end is the last, known bad; the good end comes
 * before the first, known good.
 */
struct bisect_search {
	size_t n;
	enum bisect_verdict *v; /* n of them */
};

enum bisect_next {
	BISECT_TEST,	 /* *@at is the next candidate to test */
	BISECT_FOUND,	 /* *@at is the first bad commit */
	BISECT_AMBIGUOUS /* skipped commits hide it: somewhere in [*@at, *@to] */
};

/*
 * What to do next: test the untested candidate nearest the middle of
 * the range between the last good and the first bad, stepping around
 * skipped ones, as git bisect does on a linear history. -EINVAL when
 * the verdicts contradict each other (a good after a bad).
 */
int bisect_search__next(const struct bisect_search *s, enum bisect_next *what,
			size_t *at, size_t *to);
/* Builds a search of @n candidates takes at most, without skips. */
unsigned int bisect_search__max_steps(size_t n);

/* ---- the tree (git, read-only) ---- */

/* @rev as a full commit id. -EINVAL when it names no commit. */
int bisect_git__resolve(const char *tree, const char *rev, char **sha,
			char **err);
/* 1 when @a is an ancestor of @b (or is @b), 0 when not. */
int bisect_git__is_ancestor(const char *tree, const char *a, const char *b,
			    char **err);
/* The first-parent commits after @good up to @bad, oldest first. */
int bisect_git__first_parent(const char *tree, const char *good,
			     const char *bad, char ***shas, size_t *n,
			     char **err);
/* A commit's subject line. */
int bisect_git__subject(const char *tree, const char *sha, char **subject,
			char **err);
/* A commit's author, "Name <address>". */
int bisect_git__author(const char *tree, const char *sha, char **author,
		       char **err);
/*
 * git ARGS... in @tree (an argument vector, the user's hooks off): 0 and
 * its stdout without the trailing newline, or -EIO and git's words.
 */
int bisect_git__run(const char *tree, const char *const *args, char **out,
		    char **err);
/* 1 when the tree's checkout has changes to tracked files, 0 when not. */
int bisect_git__dirty(const char *tree, char **err);

/* ---- judging a step against the two ends (bisect-judge.c) ---- */

/*
 * How a step is judged: a probe's calls per GB repeat within a fraction
 * of a percent from boot to boot, so one trial placed against a line
 * between the ends tells; throughput does not, so a step's trials are
 * tested against each end's with Mann-Whitney, as regress does.
 */
enum bisect_kind {
	BISECT_BY_THRESHOLD,
	BISECT_BY_TEST,
};

/* The kind for @metric: NAME_per_gb is a probe's count. */
enum bisect_kind bisect_judge__kind(const char *metric);

/* What the two ends measured, and the line between them. */
struct bisect_ends {
	double good, bad; /* medians */
	double boundary;  /* BY_THRESHOLD: a step past it is bad */
	double p;	  /* BY_TEST: good against bad */
	bool differ;
};

/* Ends whose medians differ by less than this (percent) do not differ. */
#define BISECT_MIN_CHANGE_PCT 10.0

/*
 * Whether the ends differ, and where the boundary lies (@threshold_pct
 * of the way from good to bad). The samples are sorted in place.
 * -EDOM when a side is empty.
 */
int bisect_judge__ends(enum bisect_kind kind, double *good, size_t ng,
		       double *bad, size_t nb, double threshold_pct,
		       double alpha, struct bisect_ends *e);
/*
 * A step's verdict: GOOD, BAD, or UNKNOWN when a test cannot tell
 * (significant against both ends or neither: more trials may). @p_good
 * and @p_bad get the tests' p-values (NAN by threshold).
 */
enum bisect_verdict bisect_judge__step(enum bisect_kind kind,
				       const struct bisect_ends *e,
				       double *good, size_t ng, double *bad,
				       size_t nb, double *step, size_t ns,
				       double alpha, double *p_good,
				       double *p_bad);
/* The fewest trials a side with which a test can reach @alpha. */
unsigned int bisect_judge__min_trials(double alpha);

/* ---- a bisection's state, a JSON file beside the database ---- */

struct bisect_step {
	char *commit;
	enum bisect_verdict verdict; /* UNKNOWN: not finished */
	double *values;
	size_t n;
	unsigned int repetitions; /* asked of its run */
	int64_t run_id;		  /* 0: none yet */
	double build_s;		  /* wall time of its build; 0 cached */
	bool cached;		  /* the build was in the cache */
	bool booted;		  /* a trial ran on it */
	unsigned int boots;	  /* runs that booted it (more trials: more) */
	double p_good, p_bad;	  /* BY_TEST; NAN otherwise */
	char *why;		  /* a skip's reason */
};

enum bisect_status {
	BISECT_STATUS_RUNNING,
	BISECT_STATUS_FOUND,
	BISECT_STATUS_NO_DIFFERENCE,
	BISECT_STATUS_AMBIGUOUS,
};

struct bisect_state {
	char *path; /* the state file; not stored in it */
	char *matrix, *matrix_sha256;
	char *tree, *good, *bad;  /* full commit ids */
	char *good_arg, *bad_arg; /* as given */
	char *metric, *mode, *workload;
	char *kernel; /* the bisected one by name; NULL: the only one */
	enum bisect_kind kind;
	double threshold_pct, alpha;
	unsigned int repetitions;     /* a step's first round */
	unsigned int max_repetitions; /* BY_TEST: at most, a step */
	char *run_name;		      /* every step's run */
	char *workdir;
	char **candidates; /* after good up to bad, oldest first */
	size_t nr_candidates;
	struct bisect_step *steps; /* [0] good, [1] bad, then as tested */
	size_t nr_steps;
	enum bisect_status status;
	char *first_bad; /* FOUND */
	char *started_at;
};

/* "<db>-bisect.json": one bisection per database at a time. */
char *bisect_state__path(const char *db_path);
/* -ENOENT when there is none; -EINVAL (and *@err) when unreadable. */
int bisect_state__load(const char *path, struct bisect_state *s, char **err);
int bisect_state__save(const struct bisect_state *s, char **err);
json_t *bisect_state__json(const struct bisect_state *s);
void bisect_state__release(struct bisect_state *s);
struct bisect_step *bisect_state__step(struct bisect_state *s,
				       const char *commit);
const char *bisect_verdict__name(enum bisect_verdict v);
const char *bisect_status__name(enum bisect_status s);

/* ---- the command's work (bisect.c, bisect-step.c, bisect-log.c) ---- */

struct bisect_opts {
	const char *matrix;
	const char *good, *bad, *metric, *probe, *workload, *mode;
	double threshold_pct;	/* < 0: not given */
	int repetitions;	/* 0: the matrix's (BY_TEST: at least enough) */
	int max_repetitions;	/* 0: 4 x repetitions */
	const char *workdir;	/* NULL: under the cache */
	const char *kernel;	/* NULL: the matrix's only kernel */
	const char *state_path; /* NULL: bisect_state__path(db_path) */
	int jobs;		/* make -j; 0: every CPU */
	const char *db_path;
	bool resume, fresh, quiet, json;
};

/*
 * A bisection from start to end, or continued (@o->resume). Returns the
 * exit status: 0 found, 1 the ends do not differ or the work failed,
 * 2 bad usage, 130 interrupted (resumable).
 */
int bisect__main(const struct bisect_opts *o);
/* A commit's subject for the log: "?" where git cannot say it. */
char *bisect__subject(const struct bisect_state *s, const char *commit);
/* What git bisect log prints, with each step's figure, of @s to @fp. */
void bisect__log_lines(const struct bisect_state *s, FILE *fp);
/* `bisect log`: what git bisect log prints, with each step's figure. */
int bisect__log(const char *db_path, bool json);
/* A step's line, as the search goes. */
void bisect__print_step(const struct bisect_state *s,
			const struct bisect_step *st, FILE *fp);
/* The end: the first bad commit and what it cost (stdout). */
void bisect__print_result(const struct bisect_state *s, bool json);

/* What one step costs and finds (bisect-step.c). */
struct bisect_ctx {
	struct bisect_state *s;
	const struct bisect_opts *o;
	const char *db_path;
	char *matrix_text;
	size_t matrix_len;
	int jobs;
};

/*
 * Build @st->commit in the kept worktree and run the cell's trials (to
 * @st->repetitions), storing the run. A build or boot that fails marks
 * the step SKIP with the reason; 0 then too. -EINTR when interrupted.
 */
int bisect_step__measure(struct bisect_ctx *c, struct bisect_step *st);

struct matrix_build;
/* One worktree per tree and recipe, kept across bisections (the cache's). */
int bisect__default_workdir(const struct matrix_build *b, char **out);

/* Abbreviated commit id (12 hex), as steps' kernels are named. */
#define BISECT_ABBREV 12

#endif /* IOMMU_BENCH_BISECT_H */
