// SPDX-License-Identifier: GPL-2.0-only
/*
 * systemd, where it runs: and how long the last boot took, split as
 * `systemd-analyze time` splits it. A lab machine's boot is part of
 * every rebooted cell's cost; the split says whether firmware, grub,
 * the kernel or userspace is what a faster cycle would have to cut.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "errmsg.h"
#include "subprocess.h"
#include "util.h"

#define ANALYZE_TIMEOUT_MS 10000

bool hostfacts__systemd_running(const char *root)
{
	/* What sd_booted() checks: systemd makes it early, nothing else. */
	return hf_exists(root, "/run/systemd/system");
}

/* systemd's format_timespan() units, longest spelling first. */
static const struct {
	const char *unit;
	double us;
} span_units[] = {
	{ "month", 2629800e6 }, { "min", 60e6 },
	{ "ms", 1e3 },		{ "us", 1 },
	{ "\xc2\xb5s", 1 },	{ "\xce\xbcs", 1 },
	{ "y", 31557600e6 },	{ "w", 604800e6 },
	{ "d", 86400e6 },	{ "h", 3600e6 },
	{ "s", 1e6 },
};

/* One "2.345s" or "1min" at *@pp, added to @us; -EINVAL: none there. */
static int span_token(const char **pp, double *us)
{
	const char *p = *pp;
	char *end;
	double v;
	size_t i, n;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	v = strtod(p, &end);
	for (i = 0; i < ARRAY_SIZE(span_units); i++) {
		n = strlen(span_units[i].unit);
		if (!strncmp(end, span_units[i].unit, n) &&
		    (end[n] == ' ' || end[n] == '\0' || end[n] == '\n')) {
			*us += v * span_units[i].us;
			*pp = end + n;
			return 0;
		}
	}
	return -EINVAL;
}

/* "1min 2.345s" at *@pp, as milliseconds; -EINVAL: no span there. */
static int span(const char **pp, long long *ms)
{
	const char *p;
	double us = 0;
	bool any = false;

	for (;;) {
		/* The blank before what is not a span stays for the caller. */
		for (p = *pp; *p == ' '; p++)
			;
		if (span_token(&p, &us))
			break;
		*pp = p;
		any = true;
	}
	if (!any)
		return -EINVAL;
	*ms = (long long)(us / 1e3 + 0.5);
	return 0;
}

static long long *boot_time_slot(struct hostfacts_boot_time *t,
				 const char *label, size_t len)
{
	static const struct {
		const char *label;
		size_t off;
	} slots[] = {
		{ "firmware",
		  offsetof(struct hostfacts_boot_time, firmware_ms) },
		{ "loader", offsetof(struct hostfacts_boot_time, loader_ms) },
		{ "kernel", offsetof(struct hostfacts_boot_time, kernel_ms) },
		{ "initrd", offsetof(struct hostfacts_boot_time, initrd_ms) },
		{ "userspace",
		  offsetof(struct hostfacts_boot_time, userspace_ms) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(slots); i++)
		if (strlen(slots[i].label) == len &&
		    !strncmp(slots[i].label, label, len))
			return (long long *)((char *)t + slots[i].off);
	return NULL;
}

int hf_boot_time_parse(const char *text, struct hostfacts_boot_time *t)
{
	static const char head[] = "Startup finished in ";
	const char *p = strstr(text, head), *close;
	long long ms, sum = 0, *slot;

	t->firmware_ms = t->loader_ms = t->kernel_ms = -1;
	t->initrd_ms = t->userspace_ms = t->total_ms = -1;
	if (!p)
		return -EINVAL;
	/* "4.1s (firmware) + 2.5s (loader) + ... + 8.3s (userspace) = 18.2s" */
	for (p += sizeof(head) - 1;;) {
		if (span(&p, &ms) || *p++ != ' ' || *p++ != '(')
			return -EINVAL;
		close = strchr(p, ')');
		if (!close || memchr(p, '\n', close - p))
			return -EINVAL;
		slot = boot_time_slot(t, p, close - p);
		if (slot)
			*slot = ms;
		sum += ms;
		p = close + 1;
		if (!strncmp(p, " + ", 3)) {
			p += 3;
			continue;
		}
		break;
	}
	if (!strncmp(p, " = ", 3)) {
		p += 3;
		if (span(&p, &t->total_ms))
			return -EINVAL;
	} else {
		t->total_ms = sum;
	}
	return 0;
}

/*
 * systemd keeps these timestamps in the manager (the FirmwareTimestamp,
 * LoaderTimestamp, InitRDTimestamp, UserspaceTimestamp and
 * FinishTimestamp properties over D-Bus), not in any file: only the EFI
 * loader's two are efivars, and /proc/uptime is the kernel's own clock.
 * So, rather than link a D-Bus library, we run `systemd-analyze time`
 * (an argv, no shell, 10 s at most) and read its line; and only on the
 * running system, which is the only one whose manager it can ask.
 */
int hostfacts__boot_time(const char *root, struct hostfacts_boot_time *t,
			 char **err)
{
	static const char *const argv[] = { "systemd-analyze", "time", NULL };
	const struct spawn_opts opts = { .flags = SPAWN_CAPTURE_OUT |
						  SPAWN_CAPTURE_ERR };
	char line[256], how[96];
	struct spawn sp;
	int ret;

	hf_boot_time_parse("", t);
	if (!hf_root_is_real(root))
		return errmsg__set(err, -EOPNOTSUPP,
				   "only the running system's systemd can "
				   "be asked");
	if (!hostfacts__systemd_running(root))
		return errmsg__set(err, -ESRCH, "systemd is not running");
	ret = spawn__run(&sp, argv, &opts, ANALYZE_TIMEOUT_MS);
	if (ret) {
		ret = errmsg__set(err, ret, "systemd-analyze time: %s",
				  strerror(-ret));
		goto out;
	}
	if (!spawn__succeeded(&sp)) {
		/* "Bootup is not yet finished (...FinishTimestamp...=0)" */
		ret = errmsg__set(err,
				  sp.err && strstr(sp.err, "not yet finished") ?
					  -EAGAIN :
					  -EIO,
				  "systemd-analyze time: %s: %s",
				  spawn__describe(&sp, how, sizeof(how)),
				  spawn__last_line(sp.err, line, sizeof(line)));
		goto out;
	}
	ret = hf_boot_time_parse(sp.out ? sp.out : "", t);
	if (ret)
		ret = errmsg__set(err, ret,
				  "systemd-analyze time: no 'Startup "
				  "finished in' line in '%s'",
				  spawn__last_line(sp.out, line, sizeof(line)));
out:
	spawn__release(&sp);
	return ret;
}

json_t *hf_json_systemd(const char *root, struct strvec *warn)
{
	struct hostfacts_boot_time t;
	bool running = hostfacts__systemd_running(root);
	json_t *time = json_null();
	char *why = NULL;

	if (!hostfacts__boot_time(root, &t, &why))
		time = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
				 "firmware_ms",
				 hf_json_int_or_null(t.firmware_ms),
				 "loader_ms", hf_json_int_or_null(t.loader_ms),
				 "kernel_ms", hf_json_int_or_null(t.kernel_ms),
				 "initrd_ms", hf_json_int_or_null(t.initrd_ms),
				 "userspace_ms",
				 hf_json_int_or_null(t.userspace_ms),
				 "total_ms", hf_json_int_or_null(t.total_ms));
	else
		strvec__pushf(warn, "systemd boot time: %s", why);
	free(why);
	return json_pack("{s:b, s:o}", "running", running, "boot_time", time);
}
