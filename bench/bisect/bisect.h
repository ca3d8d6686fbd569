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
/* 1 when the tree's checkout has changes to tracked files, 0 when not. */
int bisect_git__dirty(const char *tree, char **err);

#endif /* IOMMU_BENCH_BISECT_H */
