/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iommu-bench nightly: one night of the kernel test robot for a matrix
 * with a [nightly] table. It follows a branch (or a Debian package),
 * runs the new head, judges it against the last good night and the
 * history, measures a regression again before believing it, bisects it
 * when the branch moved more than one commit, and writes the mail
 * kernel developers read. Every stage is stored as it ends, so that a
 * night killed anywhere resumes where it stopped.
 */
#ifndef IOMMU_BENCH_NIGHTLY_H
#define IOMMU_BENCH_NIGHTLY_H

#include <stdbool.h>

struct nightly_opts {
	const char *matrix;
	const char *db_path;
	bool send;  /* hand each mail to [nightly.mail] sendmail */
	bool quiet; /* only errors and the verdict */
	bool json;  /* the verdict as JSON on stdout */
	int jobs;   /* make -j of its builds; 0: every CPU */
	/* JUnit XML of the night's judgement, for CI; NULL: none. */
	const char *junit;
	/* The kept worktree of its builds; NULL: bisect's default one. */
	const char *workdir;
};

/*
 * One night, begun or resumed. The exit status: 0 a good night, 1 a
 * regression (confirmed, or one still in effect that no one ignored) or
 * a night that failed, 2 bad usage (before any build or boot), 3 another
 * night of the same database running, 130 interrupted (resumable).
 */
int nightly__main(const struct nightly_opts *o);

#endif /* IOMMU_BENCH_NIGHTLY_H */
