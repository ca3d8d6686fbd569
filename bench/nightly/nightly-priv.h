/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by bench/nightly/nightly*.c and nothing else. */
#ifndef IOMMU_BENCH_NIGHTLY_PRIV_H
#define IOMMU_BENCH_NIGHTLY_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/matrix/matrix.h"
#include "bench/nightly/nightly.h"
#include "store/store.h"

/* A night as it goes: the matrix, the store, the night's row. */
struct night {
	const struct nightly_opts *o;
	struct matrix *m;		  /* as loaded: the file's */
	const struct matrix_nightly *cfg; /* &m->nightly */
	const struct matrix_kernel *k;	  /* the followed one */
	char *text;			  /* the matrix file */
	size_t len;
	const char *series; /* [run] name */
	struct store *st;
	struct store_night n;	 /* tonight's */
	struct store_night base; /* the last good night; id 0: none */
	char *out;		 /* where the mails and materials go */
	char *workdir;		 /* the kept worktree of its builds */
	int lock_fd;
	/* [kcidb] named a service that did not take tonight's report */
	bool untold;
};

#define NIGHT_ABBREV 12
/* How much of @head to print: a commit abbreviated, anything else whole. */
int night__abbrev(const char *head);

/* nightly-follow.c: what the followed kernel is tonight */
struct night_head {
	char *head;    /* a commit (40 hex), or a package's version */
	char *subject; /* a commit's */
	char *package; /* a package: the versioned one it resolved to */
};
/*
 * The checks only the tree and the machine answer (the remote, the
 * sendmail command), before any fetch, build or boot; 0 or -EINVAL
 * with the reason printed.
 */
int night__check(struct night *nt);
/*
 * A matrix without [nightly]: a night of this machine as it is, its
 * running kernel followed (nt->k), nothing confirmed, bisected or
 * mailed. 0, or -EINVAL said where the matrix runs another kernel.
 */
int night__watch(struct night *nt);
/* Fetch the branch (or resolve the package) and say what it is now. */
int night__follow(struct night *nt, struct night_head *h);
void night_head__release(struct night_head *h);
/* Commits on the first-parent line after @base up to @head; <0 error. */
long night__range(const struct night *nt, const char *base, const char *head);
/* A commit's subject and author; NULLs when unknown (a package). */
void night__commit_words(const struct night *nt, const char *rev,
			 char **subject, char **author);

/* nightly-run.c: tonight's run, and a confirmation's */
int night__run(struct night *nt);
/*
 * The confirmation of @r: both ends again in one run, interleaved, with
 * more repetitions; its run id, pairs and reproduced count set in @r.
 */
int night__confirm_run(struct night *nt, struct store_regression *r);

/* nightly-judge.c */
/*
 * The night judges with regress's own defaults (a 3% threshold), so
 * that `iommu-bench regress` on its runs says what it said. Opens a
 * struct regress_opts initializer.
 */
#define NIGHT_REGRESS_OPTS \
	.cmp = CMP_OPTS_DEFAULT, .default_pct = 3, .cp = CP_OPTS_DEFAULT
struct ds_filter;
/* Keep to @key = @value in regress's comparisons. */
void night__filter(struct ds_filter *f, const char *key, const char *value);
/*
 * Tonight against the last good night (and the history): findings
 * stored as regressions to confirm, open ones still seen or fixed said,
 * the tentative verdict set.
 */
int night__judge(struct night *nt);
/*
 * Each regression tonight found, measured again (night__confirm_run):
 * still 'confirming' when it reproduced, 'unconfirmed' when not.
 */
int night__confirm(struct night *nt);
/* Whether the confirmation of @r reproduced it, by its own test. */
int night__confirmed(struct night *nt, const struct store_regression *r,
		     bool *yes);

/* nightly-bisect.c: the culprit of each confirmed regression */
int night__bisect(struct night *nt);

/* The regression's folder under the night's: its mail and materials. */
char *night__reg_dir(const struct night *nt, int64_t id);

/* nightly-mail.c: each new regression's mail and materials */
int night__mail(struct night *nt);

/*
 * nightly-kcidb.c: tonight's run submitted to [kcidb]'s service, where
 * the matrix names one; a service that did not take it is said and
 * sets nt->untold, and the night goes on (0).
 */
int night__kcidb(struct night *nt);
/* [kcidb]'s token file readable, or -errno said (night__check). */
int night__kcidb_check(const struct night *nt);

/*
 * @fn on each of tonight's regressions in @state, one after another
 * until one fails: how a stage walks what the ones before it left.
 */
int night__each(struct night *nt, const char *state,
		int (*fn)(struct night *nt, struct store_regression *r));

/* A line of what the night says: printed and kept in its summary. */
void night__say(struct night *nt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* IOMMU_BENCH_NIGHTLY_PRIV_H */
