// SPDX-License-Identifier: GPL-2.0-only
/*
 * The matrix validates probe names without loading the bpf collector
 * (plan touches nothing), so it keeps its own list: this keeps the list
 * and the collector's table in step, in both directions.
 */
#include <stdbool.h>
#include <string.h>

#include "bench/matrix/matrix.h"
#include "collectors/bpf/bpf-probes.h"
#include "tap.h"

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

int main(void)
{
	const struct bpf_probe_def *d;
	const char *const *n;

	for (n = matrix_probe_names; *n; n++)
		ok(bpf_probe_def__find(*n), "the collector knows '%s'", *n);
	for (d = bpf_probe_defs; d->name; d++) {
		ok(in_list(matrix_probe_names, d->name),
		   "the matrix accepts '%s'", d->name);
		is_int(in_list(matrix_default_probes, d->name), d->in_default,
		       "'%s' is in both default sets or in neither", d->name);
	}
	return tap_done();
}
