// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running fio: an argument vector, never a job file or a shell, so that
 * nothing of the matrix is parsed by anything but fio's option parser;
 * its JSON report on stdout.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/workload/fio.h"
#include "errmsg.h"
#include "log.h"
#include "strvec.h"
#include "subprocess.h"
#include "util.h"

/* fio's end: its report, and closing jobs of a deep queue. */
#define FIO_GRACE_MS 30000

void fio__argv(const struct fio_opts *o, struct strvec *argv)
{
	strvec__push(argv, "fio");
	strvec__push(argv, "--name=iommu-bench");
	strvec__pushf(argv, "--filename=%s", o->device);
	strvec__pushf(argv, "--rw=%s", o->rw);
	strvec__pushf(argv, "--bs=%llu", (unsigned long long)o->bs);
	strvec__pushf(argv, "--iodepth=%u", o->iodepth ? o->iodepth : 1);
	strvec__pushf(argv, "--numjobs=%u", o->numjobs ? o->numjobs : 1);
	strvec__pushf(argv, "--direct=%d", o->direct);
	/* libaio: in every fio and kernel; queue depth means what it says. */
	strvec__push(argv, "--ioengine=libaio");
	strvec__push(argv, "--time_based=1");
	strvec__pushf(argv, "--runtime=%u", o->runtime_s ? o->runtime_s : 1);
	strvec__push(argv, "--group_reporting=1");
	strvec__push(argv, "--output-format=json");
	strvec__push(argv, "--eta=never");
}

/* fio's own words: the report's error, else stderr's last line. */
static char *fio_error(const struct spawn *sp)
{
	char line[512], how[96];

	if (sp->err && *spawn__last_line(sp->err, line, sizeof(line)))
		return xasprintf("fio: %s", line);
	return xasprintf("fio: %s", spawn__describe(sp, how, sizeof(how)));
}

int fio__run(const struct fio_opts *o, int slack_ms, json_t **results,
	     char **err)
{
	struct spawn_opts so = {
		.flags = SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR,
		.pdeathsig = SIGKILL,
	};
	int tmo = (int)o->runtime_s * 1000 + FIO_GRACE_MS +
		  (slack_ms > 0 ? slack_ms : 0);
	struct strvec argv = { 0 };
	struct spawn sp = { 0 };
	json_error_t jerr;
	json_t *report;
	int ret;

	*results = NULL;
	errmsg__reset(err);
	fio__argv(o, &argv);
	ret = spawn__run(&sp, strvec__argv(&argv), &so, tmo);
	strvec__release(&argv);
	if (ret == -ENOENT) {
		errmsg__set(err, 0,
			    "fio is not installed (Debian's fio package)");
		goto out;
	}
	if (ret == -ETIMEDOUT) {
		errmsg__set(err, 0, "fio did not end within %d s; killed",
			    tmo / 1000);
		goto out;
	}
	if (ret) {
		errmsg__set(err, 0, "cannot run fio: %s", strerror(-ret));
		goto out;
	}
	report = sp.out ? json_loadb(sp.out, sp.out_len, 0, &jerr) : NULL;
	if (!report) {
		errmsg__move(err, 0, fio_error(&sp));
		ret = -EIO;
		goto out;
	}
	ret = fio__summarize(report, results, err);
	json_decref(report);
	if (!ret && !spawn__succeeded(&sp)) {
		json_decref(*results);
		*results = NULL;
		errmsg__move(err, 0, fio_error(&sp));
		ret = -EIO;
	}
out:
	spawn__release(&sp);
	return ret;
}
