// SPDX-License-Identifier: GPL-2.0-only
/*
 * A dead kernel's console lines (bench/host/host-console.c) and the
 * console watch of an ssh host's reboot (bench/host/ssh/ssh-console.c):
 * which lines end a boot, where a report begins, and reading a growing
 * log a look at a time, half lines and a log started afresh included.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/host/host-console.h"
#include "bench/host/ssh/ssh.h"
#include "tap.h"

static void append(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void scan(const char *text, const char *want, const char *what)
{
	char *got = console__stopped(text, strlen(text));

	if (want)
		is_str(got ? got : "(none)", want, "%s", what);
	else
		ok(!got, "%s (got '%s')", what, got ? got : "");
	free(got);
}

int main(void)
{
	char dir[] = "/tmp/test-console.XXXXXX", path[64];
	const char *report;
	char *line = NULL;
	off_t at = -1;
	int ret;

	scan("[    1.2] Freeing unused kernel memory\r\n"
	     "[   14.9] Kernel panic - not syncing: VFS: Unable to mount root fs"
	     " on unknown-block(0,0)\r\n[   15.0] ---[ end Kernel panic ]---\r\n",
	     "Kernel panic - not syncing: VFS: Unable to mount root fs on "
	     "unknown-block(0,0)",
	     "a panic: its line from the words on, the timestamp and CR left");
	scan("Gave up waiting for root file system device.\n"
	     "[   40.1] reboot: System halted\n",
	     "reboot: System halted", "a halt (panic=0 in initramfs-tools)");
	scan("[ 3.0] reboot: Power down\n", "reboot: Power down",
	     "a power off");
	scan("[ 1.0] reboot: Restarting system\n"
	     "[ 0.0] Linux version 6.1.0-50-amd64\n"
	     "Debian GNU/Linux 12 lab ttyS0\n",
	     NULL,
	     "a reboot that goes on, and a boot that ends at a login: none");
	scan("kernel: panic=0 on the command line\n", NULL,
	     "the word 'panic' alone is not a panic");

	report = "[ 1.0] Linux version\n[ 2.0] BUG: kernel NULL pointer "
		 "dereference\n[ 2.1] RIP: 0010:x\n[ 2.2] Kernel panic - not "
		 "syncing: Fatal exception\n";
	ok(console__report(report) == strstr(report, "[ 2.0] BUG"),
	   "a report: from the start of the line of its first head");
	report = "[ 1.0] Unable to handle kernel paging request\n";
	ok(console__report(report) == report,
	   "an arm64 oops on the first line");
	ok(!console__report("[ 3.0] reboot: Power down\n"),
	   "a power off is last words, not a report");
	ok(!console__report("Debian GNU/Linux 12 lab ttyS0\n"),
	   "a boot that ends at a login: no report");

	if (!mkdtemp(dir))
		tap_skip_all("no scratch folder");
	snprintf(path, sizeof(path), "%s/serial.log", dir);
	ok(console__mark(path, &at) < 0, "no log yet: marking it fails");
	append(path, "[ 9.9] reboot: System halted\n(the boot before)\n");
	ret = console__mark(path, &at);
	ok(!ret && at == 47, "marked at the log's end (%lld)", (long long)at);
	ret = console__look(path, &at, &line);
	ok(!ret && !line && at == 47, "nothing new: nothing said");
	append(path, "[ 1.0] Linux version\n[ 2.0] reboot: System hal");
	ret = console__look(path, &at, &line);
	ok(!ret && !line && at == 47 + 21,
	   "the old boot's halt is behind the mark; a half line waits (%lld)",
	   (long long)at);
	append(path, "ted\n");
	ret = console__look(path, &at, &line);
	ok(!ret && line && !strcmp(line, "reboot: System halted"),
	   "the line once whole: '%s'", line ? line : "");
	free(line);
	line = NULL;
	if (truncate(path, 0))
		tap_diag("truncate: %m");
	append(path, "Kernel panic - not syncing: Attempted to kill init!\n");
	ret = console__look(path, &at, &line);
	ok(!ret && line && !strncmp(line, "Kernel panic", 12),
	   "a log started afresh (shorter than the mark) is read from 0");
	free(line);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
