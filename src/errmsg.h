/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The words of a failure, for the layers that return them rather than
 * say them (docs/hacking.md): a new string in a char **err the caller
 * frees, and prints, stores or sends on as it sees fit.
 *
 * The one contract: the parameter is named err; the caller's *err is
 * NULL or words it owns; a NULL err means the caller wants the errno
 * only. Nothing outside src/errmsg.c assigns *err (tests/cli/tree.t).
 */
#ifndef IOMMU_BENCH_ERRMSG_H
#define IOMMU_BENCH_ERRMSG_H

/*
 * Replace *@err with the formatted words and return @ret, so that a
 * failure is one statement: return errmsg__set(err, -EINVAL, ...). The
 * words are formatted before the old ones are freed, so that a caller
 * may wrap what a callee said: errmsg__set(err, ret, "%s (...)", *err).
 */
int errmsg__set(char **err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Hand over @words (a string the caller allocated, or NULL) as *@err,
 * freeing what it held; with a NULL @err they are freed. Returns @ret.
 */
int errmsg__move(char **err, int ret, char *words);

/* Free what *@err holds and leave it NULL. */
void errmsg__clear(char **err);

/*
 * Start with no words, without freeing what *@err held: for a function
 * that promises its caller a NULL *err on success, whatever the caller
 * left there (an uninitialised variable, words it already freed).
 */
void errmsg__reset(char **err);

#endif
