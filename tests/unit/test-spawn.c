// SPDX-License-Identifier: GPL-2.0-only
/*
 * spawn: real children. Capture, exit status, exec failure reported as
 * an errno, timeouts that kill by PID, several children drained at
 * once, a function in a forked child, descriptors kept and closed,
 * files for output, and names refused before anything runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "subprocess.h"
#include "log.h"
#include "tap.h"
#include "util.h"

static const struct spawn_opts capture = {
	.flags = SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR,
};

static void test_capture(void)
{
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3",
			       NULL };
	struct spawn sp;
	char how[96];

	is_int(spawn__run(&sp, argv, &capture, 5000), 0, "sh runs");
	is_str(sp.out, "out\n", "stdout captured");
	is_str(sp.err, "err\n", "stderr captured");
	ok(!spawn__succeeded(&sp), "exit 3 is not success");
	is_str(spawn__describe(&sp, how, sizeof(how)), "exit status 3",
	       "and says so");
	spawn__release(&sp);
}

static void test_big_output(void)
{
	/* More than a pipe holds: the waiter must drain while waiting. */
	const char *argv[] = { "head", "-c", "1000000", "/dev/zero", NULL };
	struct spawn sp;

	is_int(spawn__run(&sp, argv, &capture, 10000), 0, "1 MB of output");
	is_int(sp.out_len, 1000000, "all of it captured");
	spawn__release(&sp);
}

static void test_exec_failure(void)
{
	const char *argv[] = { "/nonexistent/prog", NULL };
	struct spawn sp;

	ok(spawn__argv(&sp, argv, &capture) == -ENOENT,
	   "a missing program is -ENOENT from the start, not exit 127");
	spawn__release(&sp);
}

static void test_timeout(void)
{
	const char *argv[] = { "sleep", "30", NULL };
	struct spawn sp;
	long long t0 = mono_ms();
	char how[96];

	is_int(spawn__run(&sp, argv, &capture, 200), -ETIMEDOUT,
	       "a child past its time is -ETIMEDOUT");
	ok(mono_ms() - t0 < 5000, "and does not wait for it");
	ok(sp.reaped && WIFSIGNALED(sp.status), "it was killed and reaped");
	tap_diag("%s", spawn__describe(&sp, how, sizeof(how)));
	spawn__release(&sp);
}

static void test_stop(void)
{
	const char *argv[] = { "sleep", "30", NULL };
	struct spawn sp;

	is_int(spawn__argv(&sp, argv, NULL), 0, "sleep starts");
	is_int(spawn__wait(&sp, 50), -ETIMEDOUT, "still running after 50 ms");
	is_int(spawn__stop(&sp, SIGTERM, 5000), 0, "SIGTERM stops it");
	ok(WIFSIGNALED(sp.status) && WTERMSIG(sp.status) == SIGTERM,
	   "by that signal");
	is_int(spawn__signal(&sp, SIGTERM), -ESRCH, "no signal to the reaped");
	spawn__release(&sp);
}

static void test_many(void)
{
	const char *a[] = { "sh", "-c", "sleep 0.2; echo a", NULL };
	const char *b[] = { "sh", "-c", "echo b", NULL };
	struct spawn sa, sb, *v[] = { &sa, &sb };

	spawn__argv(&sa, a, &capture);
	spawn__argv(&sb, b, &capture);
	is_int(spawn__wait_many(v, 2, 5000), 0, "two children waited for");
	ok(sa.out && sb.out && !strcmp(sa.out, "a\n") && !strcmp(sb.out, "b\n"),
	   "each with its own output");
	spawn__release(&sa);
	spawn__release(&sb);
}

static int child_fn(void *arg)
{
	printf("hello %s\n", (const char *)arg);
	return 7;
}

static void test_fn(void)
{
	struct spawn sp;

	is_int(spawn__fn(&sp, child_fn, "fn", "child_fn", &capture), 0,
	       "a function in a forked child");
	is_int(spawn__wait(&sp, 5000), 0, "it ends");
	is_str(sp.out, "hello fn\n", "its stdout is captured");
	ok(WIFEXITED(sp.status) && WEXITSTATUS(sp.status) == 7,
	   "its return value is the exit status");
	spawn__release(&sp);
}

static void test_fds(void)
{
	int keep = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int leak = open("/dev/null", O_RDONLY); /* no CLOEXEC */
	char *script = xasprintf("[ -e /proc/self/fd/%d ] && echo kept;"
				 " [ -e /proc/self/fd/%d ] && echo leaked;"
				 " true",
				 keep, leak);
	const char *argv[] = { "sh", "-c", script, NULL };
	struct spawn sp;
	char *path = xasprintf("/tmp/iommu-bench-spawn-%d", (int)getpid());
	char *text = NULL;
	size_t len;

	spawn__run(&sp, argv,
		   &(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT,
					 .keep_fds = &keep,
					 .nr_keep_fds = 1 },
		   5000);
	has_str(sp.out, "kept", "a kept descriptor reaches the child");
	ok(sp.out && !strstr(sp.out, "leaked"),
	   "an inherited one without CLOEXEC does not");
	free(script);
	spawn__release(&sp);
	close(keep);
	close(leak);

	spawn__run(&sp, (const char *[]){ "sh", "-c", "echo to-file", NULL },
		   &(struct spawn_opts){ .out_file = path }, 5000);
	ok(!read_file(path, &text, &len) && !strcmp(text, "to-file\n"),
	   "stdout into a file");
	spawn__release(&sp);
	unlink(path);
	free(path);
	free(text);
}

static void test_bad_netns(void)
{
	const char *argv[] = { "true", NULL };
	struct spawn sp;
	int err, fd = dup(2), null_fd = open("/dev/null", O_WRONLY);

	dup2(null_fd, 2);
	err = spawn__argv(&sp, argv, &(struct spawn_opts){ .netns = "../x" });
	dup2(fd, 2);
	close(fd);
	close(null_fd);
	is_int(err, -EINVAL, "a netns name with a slash is refused");
	is_int(sp.pid, 0, "before anything was started");
	spawn__release(&sp);
}

static void test_last_line(void)
{
	char buf[64];

	is_str(spawn__last_line("a\n  b c \n\n", buf, sizeof(buf)), "b c",
	       "last line, trimmed");
	is_str(spawn__last_line(NULL, buf, sizeof(buf)), "", "of nothing");
}

int main(void)
{
	/* Failures are what some tests provoke: keep their messages quiet. */
	log_verbosity = -1;
	test_capture();
	test_big_output();
	test_exec_failure();
	test_timeout();
	test_stop();
	test_many();
	test_fn();
	test_fds();
	test_bad_netns();
	test_last_line();
	return tap_done();
}
