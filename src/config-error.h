/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Diagnostics about a configuration file, the way compilers give them:
 *
 *	matrix.toml:4:1: error: unknown key 'repetitons' in [run]; did you
 *	mean 'repetitions'?
 *	matrix.toml:12:1: note: host 'sut' is defined here
 *
 * Everything found is collected, then printed sorted by position, so a
 * user fixes a whole file in one pass instead of one error per run. Notes
 * stay with the diagnostic they explain. Editors and CI annotators parse
 * this format as it is.
 */
#ifndef IOMMU_BENCH_CONFIG_ERROR_H
#define IOMMU_BENCH_CONFIG_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "toml.h"

/* Errors past this many are counted, not kept: the first ones matter. */
#define CONFIG_ERRORS_MAX 50

enum config_severity { CONFIG_ERROR, CONFIG_WARNING };

struct config_diag {
	enum config_severity sev;
	struct toml_pos pos; /* line 0: about the whole file */
	char *msg;
	struct toml_pos note_pos;
	char *note; /* NULL when none */
	size_t seq; /* order found, to keep sorting stable */
};

struct config_errors {
	char *file; /* as the user named it */
	struct config_diag *items;
	size_t nr, alloc;
	size_t nr_errors; /* including those dropped past the cap */
	size_t nr_warnings;
	size_t dropped;
	bool last_dropped; /* so that its note is dropped with it */
};

void config_errors__init(struct config_errors *e, const char *file);
void config_errors__release(struct config_errors *e);

void config_errors__add(struct config_errors *e, struct toml_pos pos,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void config_errors__warn(struct config_errors *e, struct toml_pos pos,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Attach a note to the diagnostic added last (ignored if it was dropped). */
void config_errors__note(struct config_errors *e, struct toml_pos pos,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline bool config_errors__failed(const struct config_errors *e)
{
	return e->nr_errors > 0;
}

/* Print everything, sorted by position, and a count of any dropped. */
void config_errors__print(struct config_errors *e, FILE *fp);

#endif /* IOMMU_BENCH_CONFIG_ERROR_H */
