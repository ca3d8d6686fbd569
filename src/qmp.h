/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * QEMU's monitor (QMP) on a unix socket: one command per connection.
 */
#ifndef IOMMU_BENCH_QMP_H
#define IOMMU_BENCH_QMP_H

#include <jansson.h>

/*
 * Run QMP command @cmd, with @args (stolen; NULL: none), on the monitor
 * at @sock within @timeout_ms: the greeting, then qmp_capabilities, then
 * @cmd; 0 and its "return" in *@ret (new; @ret may be NULL), or a
 * negative errno and *@err.
 */
int qmp__run(const char *sock, const char *cmd, json_t *args, int timeout_ms,
	     json_t **ret, char **err);

#endif /* IOMMU_BENCH_QMP_H */
