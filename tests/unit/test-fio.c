// SPDX-License-Identifier: GPL-2.0-only
/*
 * fio as a workload: the real fio run on a scratch file (its JSON report
 * summarised and stored in a real SQLite store, with the probes' calls
 * per GB beside it), and the checks that keep a write away from a disk
 * that holds data, on a scratch /proc and /sys.
 */
#include <math.h>
#include <sys/stat.h>

#include "bench/workload/fio.h"
#include "errmsg.h"
#include "store/store-priv.h"
#include "collectors-test.h"
#include "strvec.h"

static double dnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static char *scratch(const char *name, size_t size)
{
	char *path = xasprintf("%s/%s", ct_tmpdir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)size))
		tap_diag("cannot make %s", path);
	if (fd >= 0)
		close(fd);
	return path;
}

static void test_argv(void)
{
	static const struct tap_substr argv_checks[] = {
		{ "--filename=/dev/nvme0n1 --rw=randread --bs=65536 "
		  "--iodepth=4 --numjobs=2 --direct=1",
		  "the knobs, each its own argument" },
		{ "--time_based=1 --runtime=3", "timed, not sized" },
		{ "--output-format=json", "a JSON report" },
	};
	struct fio_opts o = { .device = "/dev/nvme0n1",
			      .rw = "randread",
			      .bs = 65536,
			      .iodepth = 4,
			      .numjobs = 2,
			      .direct = true,
			      .runtime_s = 3 };
	struct strvec a = { 0 };
	char *s;

	fio__argv(&o, &a);
	s = strvec__join(&a, " ");
	is_str(a.v[0], "fio", "argv[0] is fio, no shell");
	has_all(s, argv_checks);
	ok(!strstr(s, "ramp"), "no ramp: its I/O would escape the count");
	free(s);
	strvec__release(&a);
}

static void test_run(struct store *st, int64_t trial)
{
	char *file = scratch("disk.img", 32 << 20);
	struct fio_opts o = { .device = file,
			      .rw = "randrw",
			      .bs = 4096,
			      .iodepth = 2,
			      .numjobs = 1,
			      .direct = false,
			      .runtime_s = 1 };
	json_t *r = NULL;
	char *err = NULL;
	int64_t n = 0;
	double ios, bytes;

	if (!is_int(fio__run(&o, 0, &r, &err), 0, "fio for 1 s on a file")) {
		tap_diag("%s", err ? err : "");
		errmsg__clear(&err);
		free(file);
		return;
	}
	ios = dnum(r, "ios");
	bytes = dnum(r, "bytes");
	tap_diag("fio: %.0f I/Os, %.0f bytes, %.0f IOPS, p99 %.1f us", ios,
		 bytes, dnum(r, "iops"), dnum(r, "clat_p99_us"));
	ok(ios > 0 && bytes == ios * 4096,
	   "every I/O is one 4K block: bytes = I/Os x bs (%.0f, %.0f)", bytes,
	   ios);
	ok(dnum(json_object_get(r, "read"), "ios") > 0 &&
		   dnum(json_object_get(r, "write"), "ios") > 0,
	   "randrw: both sides did I/O");
	ok(dnum(r, "throughput_bps") > 0, "throughput in bit/s");
	ok(dnum(r, "clat_p50_us") > 0 &&
		   dnum(r, "clat_p99_us") >= dnum(r, "clat_p50_us"),
	   "completion latency percentiles, p99 >= p50");
	is_int(fio__store(st, trial, r), 0, "the results go into the store");
	store__count(st, "metrics", &n);
	ok(n >= 6, "throughput, iops, percentiles, I/Os, bytes stored (%lld)",
	   (long long)n);
	json_decref(r);

	o.rw = "sideways";
	ok(fio__run(&o, 0, &r, &err) < 0 && !r,
	   "fio refusing its options fails");
	has_str(err, "fio", "with fio's words");
	errmsg__clear(&err);
	free(file);
}

/* A probe that attached has a rate; one that did not, none (not 0). */
static void test_probe_rates(struct store *st, int64_t trial)
{
	struct store_probe on = { .name = "map_sg",
				  .target = "iommu_dma_map_sg",
				  .attach = "fentry",
				  .calls = 500 };
	struct store_probe zero = { .name = "sync_sg_cpu",
				    .target = "iommu_dma_sync_sg_for_cpu",
				    .attach = "kprobe",
				    .calls = 0 };
	struct store_probe off = {
		.name = "unmap_core", .target = "", .attach = "none", .calls = 0
	};
	sqlite3_stmt *s;
	int64_t n = -1;

	ok(!store__probe_add(st, trial, &on, NULL) &&
		   !store__probe_add(st, trial, &zero, NULL) &&
		   !store__probe_add(st, trial, &off, NULL),
	   "three probes stored");
	is_int(store__probe_rates(st, trial, 2e9), 0, "their rates per GB");
	if (sqlite3_prepare_v2(st->db,
			       "SELECT count(*), total(CASE name WHEN "
			       "'map_sg_per_gb' THEN value END), "
			       "total(CASE name WHEN 'sync_sg_cpu_per_gb' THEN "
			       "1 END), total(CASE name WHEN "
			       "'unmap_core_per_gb' THEN 1 END) FROM metrics "
			       "WHERE trial_id = ?1 AND unit = 'calls/GB'",
			       -1, &s, NULL) != SQLITE_OK) {
		ok(0, "query the rates");
		return;
	}
	sqlite3_bind_int64(s, 1, trial);
	if (sqlite3_step(s) == SQLITE_ROW) {
		n = sqlite3_column_int64(s, 0);
		ok(sqlite3_column_double(s, 1) == 250,
		   "map_sg: 500 calls over 2 GB is 250 per GB");
		ok(sqlite3_column_double(s, 2) == 1,
		   "a probe attached that saw no call: a rate of 0");
		ok(sqlite3_column_double(s, 3) == 0,
		   "a probe that could not attach: no rate at all");
	}
	sqlite3_finalize(s);
	is_int(n, 2, "two rates");
	is_int(store__probe_rates(st, trial + 1000, 0), 0,
	       "no bytes: nothing to divide by, nothing stored");
}

/* A scratch root: proc/self/mounts, proc/swaps, sys/block/NAME/... */
static char *root_with(const char *mounts, const char *disk, bool part)
{
	char *root = xasprintf("%s/root-%s", ct_tmpdir, disk);
	char *p;
	FILE *f;

	p = xasprintf("mkdir -p '%s/proc/self' '%s/sys/block/%s/holders'", root,
		      root, disk);
	if (system(p))
		tap_diag("%s failed", p);
	free(p);
	p = xasprintf("%s/proc/self/mounts", root);
	f = fopen(p, "w");
	if (f) {
		fputs(mounts, f);
		fclose(f);
	}
	free(p);
	if (part) {
		p = xasprintf("%s/sys/block/%s/%s1", root, disk, disk);
		mkdir(p, 0755);
		free(p);
	}
	return root;
}

static void test_target(void)
{
	char *blank = scratch("vdx", 1 << 20), *mbr = scratch("vdy", 1 << 20);
	struct fio_opts o = { .rw = "randwrite" };
	char *root, *err = NULL;
	unsigned char sig[2] = { 0x55, 0xaa };
	int fd = open(mbr, O_WRONLY);

	if (fd >= 0) {
		if (pwrite(fd, sig, 2, 510) != 2)
			tap_diag("cannot write the MBR signature");
		close(fd);
	}
	root = root_with("/dev/vda1 / ext4 rw 0 0\n", "vdx", false);
	o.device = blank;
	is_int(fio__check_target(&o, root, &err), 0,
	       "a blank, unmounted disk may be written");
	free(root);

	root = root_with("/dev/vdx2 /srv xfs rw 0 0\n", "vdx", false);
	ok(fio__check_target(&o, root, &err) == -EPERM,
	   "a write to a disk with a mounted partition is refused");
	has_str(err, "/dev/vdx2 is mounted", "naming the mount");
	errmsg__clear(&err);
	o.destructive = true;
	ok(fio__check_target(&o, root, &err) == -EPERM,
	   "... even with destructive = true");
	errmsg__clear(&err);
	o.rw = "randread";
	is_int(fio__check_target(&o, root, &err), 0,
	       "reading a mounted disk is harmless and allowed");
	free(root);

	o.rw = "write";
	o.destructive = false;
	root = root_with("", "vdx", true);
	ok(fio__check_target(&o, root, &err) == -EPERM,
	   "a disk with a partition is not written");
	has_str(err, "destructive = true", "saying how to allow it");
	errmsg__clear(&err);
	o.destructive = true;
	is_int(fio__check_target(&o, root, &err), 0,
	       "destructive = true allows it");
	free(root);

	o.destructive = false;
	o.device = mbr;
	root = root_with("", "vdy", false);
	ok(fio__check_target(&o, root, &err) == -EPERM,
	   "a disk whose first sector carries an MBR signature is not "
	   "written");
	has_str(err, "MBR", "naming what it holds");
	errmsg__clear(&err);
	free(root);

	ok(fio__resolve(NULL, "/etc/passwd", &root, &err) == -EINVAL,
	   "a path outside /dev is not a disk");
	errmsg__clear(&err);
	ok(fio__resolve(NULL, "/dev/../etc/passwd", &root, &err) == -EINVAL,
	   "nor one that climbs out of it");
	errmsg__clear(&err);
	ok(fio__resolve(NULL, "/dev/null", &root, &err) == -ENOTBLK,
	   "a character device is not a disk");
	errmsg__clear(&err);
	ok(fio__resolve("no-such-serial-x", NULL, &root, &err) == -ENODEV,
	   "a serial number no disk has");
	has_str(err, "no-such-serial-x", "named in the error");
	free_all(err, blank, mbr);
}

int main(void)
{
	struct store *st;
	int64_t run, trial;
	char *path;

	ct_guard();
	test_argv();
	test_target();
	path = NULL;
	if (access("/usr/bin/fio", X_OK)) {
		tap_skip("fio is not installed (Debian's fio package)");
	} else {
		st = ct_store(&run, &trial);
		test_run(st, trial);
		test_probe_rates(st, trial);
		store__commit(st);
		store__close(st);
	}
	free(path);
	return tap_done();
}
