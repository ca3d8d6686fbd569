/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fio as a workload: Debian's fio binary run on the host under test
 * against one of its block devices, its JSON report summarised into the
 * same shape of results an iperf3 trial has (throughput_bps, bytes), so
 * that the store, compare, the probes' calls per GB and the report take
 * it without knowing which workload ran.
 *
 * A device that holds data is not written unless the matrix says
 * destructive = true, and a mounted one never: this runs as root.
 */
#ifndef IOMMU_BENCH_FIO_H
#define IOMMU_BENCH_FIO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct store;

struct fio_opts {
	const char *device; /* /dev/NAME, resolved by fio__resolve() */
	const char *rw;	    /* fio's --rw: read, randwrite, ... */
	uint64_t bs;
	unsigned int iodepth, numjobs;
	bool direct;
	bool destructive; /* a write may hit a device that holds data */
	unsigned int runtime_s;
};

/* The device to use: /dev/ + the block device whose serial is @serial
 * (NVMe's, trimmed), or @path itself when it names a block device. 0 and
 * a new string in *@dev, or a negative errno and *@err in words. */
int fio__resolve(const char *serial, const char *path, char **dev, char **err);

/*
 * May @o run on its device? Never a write to a mounted device (or one
 * of its partitions) or one in use by the kernel (holders: a RAID, LVM),
 * and no write to a device with partitions or a known signature unless
 * @o->destructive. Reads are always allowed. 0, or -EPERM and *@err.
 * @root prefixes /proc and /sys (tests); NULL for "/".
 */
int fio__check_target(const struct fio_opts *o, const char *root, char **err);

/* fio's argv for @o, NULL-terminated; strvec-owned strings. */
struct strvec;
void fio__argv(const struct fio_opts *o, struct strvec *argv);

/*
 * Run fio to the end (its runtime plus @slack_ms at most) and summarise
 * its report into *@results. 0, or a negative errno and *@err with
 * fio's own words (its stderr's last line, or the report's error).
 */
int fio__run(const struct fio_opts *o, int slack_ms, json_t **results,
	     char **err);

/*
 * fio's --output-format=json report (group_reporting: one job) into the
 * results: throughput_bps, bytes, ios, iops, latency percentiles, fio's
 * CPU use. -EINVAL when it has no jobs or a job reports an error.
 */
int fio__summarize(const json_t *report, json_t **results, char **err);

/* The results into the store as metrics of @trial_id. */
int fio__store(struct store *st, int64_t trial_id, const json_t *results);
/* The metrics fio__store() can store, appended to @out. */
void fio__metric_names(struct strvec *out);

#endif /* IOMMU_BENCH_FIO_H */
