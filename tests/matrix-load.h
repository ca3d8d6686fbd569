/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loading matrices from strings in unit tests: a good one (its errors
 * printed as TAP diagnostics when it is not), or a broken one whose
 * messages come back as the user would read them.
 */
#ifndef IOMMU_BENCH_TEST_MATRIX_LOAD_H
#define IOMMU_BENCH_TEST_MATRIX_LOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/host-transports.h"
#include "bench/matrix/matrix.h"
#include "config-error.h"
#include "tap.h"
#include "util.h"

static struct config_errors errs;

static inline struct matrix *load(const char *toml)
{
	struct matrix *m;

	host_transports__set();
	config_errors__release(&errs);
	config_errors__init(&errs, "test.toml");
	if (matrix__load_buf("test.toml", toml, strlen(toml), &m, &errs)) {
		config_errors__print(&errs, stdout);
		return NULL;
	}
	return m;
}

/* Load a broken matrix; the messages, one per line, as the user sees them. */
static inline char *load_bad(const char *toml)
{
	struct matrix *m;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int ret;

	host_transports__set();
	config_errors__release(&errs);
	config_errors__init(&errs, "test.toml");
	ret = matrix__load_buf("test.toml", toml, strlen(toml), &m, &errs);
	fp = open_memstream(&buf, &len);
	config_errors__print(&errs, fp);
	fclose(fp);
	if (!ret) {
		matrix__free(m);
		free(buf);
		return xstrdup("(loaded without error)");
	}
	return buf;
}

/* A broken matrix whose messages must hold @want (one TAP check). */
static inline int load_refused(const char *toml, const char *want,
			       const char *what)
{
	char *msg = load_bad(toml);
	int pass = has_str(msg, want, "%s", what);

	free(msg);
	return pass;
}

#endif /* IOMMU_BENCH_TEST_MATRIX_LOAD_H */
