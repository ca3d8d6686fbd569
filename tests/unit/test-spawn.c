// SPDX-License-Identifier: GPL-2.0-only
/*
 * spawn: real children. Capture, exit status, exec failure reported as
 * an errno, timeouts that kill by PID, several children drained at
 * once, a function in a forked child, descriptors kept and closed,
 * files for output, stdin fed from a buffer or a pipe, stdout onto a
 * descriptor or a pipe, a folder to run in, a process group of its own,
 * and names refused before anything runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "subprocess.h"
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

static void test_env_drop(void)
{
	static const char *const drop[] = { "MAKEFLAGS", "KBUILD_*", NULL };
	struct spawn_opts o = { .flags = SPAWN_CAPTURE_OUT, .env_drop = drop };
	const char *argv[] = { "env", NULL };
	struct spawn sp;

	setenv("MAKEFLAGS", "s -j2 --jobserver-auth=3,4", 1);
	setenv("MAKEFLAGSX", "kept", 1);
	setenv("KBUILD_OUTPUT", "/elsewhere", 1);
	setenv("IB_TEST_KEPT", "1", 1);
	is_int(spawn__run(&sp, argv, &o, 5000), 0, "env runs");
	ok(sp.out && !strstr(sp.out, "MAKEFLAGS=s"),
	   "a named variable is dropped");
	ok(sp.out && !strstr(sp.out, "KBUILD_OUTPUT="),
	   "a name ending in '*' drops the variables it starts");
	ok(sp.out && strstr(sp.out, "MAKEFLAGSX=kept") &&
		   strstr(sp.out, "\nIB_TEST_KEPT=1\n"),
	   "the rest is passed on, a longer name included");
	spawn__release(&sp);
	ok(getenv("MAKEFLAGS") && getenv("KBUILD_OUTPUT"),
	   "our own environment is untouched");
	unsetenv("MAKEFLAGS");
	unsetenv("MAKEFLAGSX");
	unsetenv("KBUILD_OUTPUT");
	unsetenv("IB_TEST_KEPT");
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

static void test_stdin(void)
{
	/* More than a pipe holds, both ways: feeding must not deadlock. */
	size_t len = 1000000, i;
	char *in = xmalloc(len);
	const char *argv[] = { "cat", NULL };
	struct spawn sp;
	bool same;

	for (i = 0; i < len; i++)
		in[i] = 'a' + i % 26;
	is_int(spawn__run(&sp, argv,
			  &(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT,
						.in = in,
						.in_len = len },
			  10000),
	       0, "1 MB fed to cat's stdin");
	same = sp.out_len == len && !memcmp(sp.out, in, len);
	ok(same, "and all of it came back, in order");
	spawn__release(&sp);

	/* A child that reads nothing: no SIGPIPE for us, no hang. */
	is_int(spawn__run(&sp, (const char *[]){ "true", NULL },
			  &(struct spawn_opts){ .in = in, .in_len = len },
			  10000),
	       0, "input a child never reads is dropped");
	ok(spawn__succeeded(&sp), "and the child's exit is its own");
	spawn__release(&sp);
	free(in);

	is_int(spawn__run(&sp, (const char *[]){ "cat", NULL }, &capture, 5000),
	       0, "without input, stdin is /dev/null");
	is_int(sp.out_len, 0, "so cat reads nothing");
	spawn__release(&sp);
}

static void test_pipes(void)
{
	const char *argv[] = { "sh", "-c", "read x; echo got $x", NULL };
	char buf[64] = "";
	struct spawn sp;
	ssize_t n;

	is_int(spawn__argv(&sp, argv,
			   &(struct spawn_opts){ .flags = SPAWN_PIPE_IN |
							  SPAWN_PIPE_OUT }),
	       0, "a child on two pipes of ours");
	ok(sp.stdin_fd >= 0 && sp.stdout_fd >= 0, "both ends handed over");
	ok(!write_all(sp.stdin_fd, "hello\n", 6), "we write its stdin");
	n = read(sp.stdout_fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	is_str(buf, "got hello\n", "and read its stdout");
	is_int(spawn__wait(&sp, 5000), 0, "it exits");
	spawn__release(&sp);
	is_int(sp.stdin_fd, -1, "release closes what the caller kept");
}

static void test_redirects(void)
{
	char *path = xasprintf("/tmp/iommu-bench-spawn-%d", (int)getpid());
	const char *pwd[] = { "pwd", NULL };
	char *text = NULL;
	struct spawn sp;
	size_t len;
	int fd;

	spawn__run(&sp, pwd,
		   &(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT,
					 .cwd = "/proc" },
		   5000);
	is_str(sp.out, "/proc\n", "cwd: the child runs in the folder asked");
	spawn__release(&sp);
	ok(spawn__argv(&sp, pwd,
		       &(struct spawn_opts){ .cwd = "/nonexistent" }) ==
		   -ENOENT,
	   "a folder that is not there is -ENOENT from the start");
	spawn__release(&sp);

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	spawn__run(&sp,
		   (const char *[]){ "sh", "-c", "echo one; echo two >&2",
				     NULL },
		   &(struct spawn_opts){ .flags = SPAWN_ERR_TO_OUT,
					 .out_to_fd = fd },
		   5000);
	close(fd);
	ok(!read_file(path, &text, &len) && !strcmp(text, "one\ntwo\n"),
	   "stdout and stderr onto one descriptor of ours");
	spawn__release(&sp);
	unlink(path);
	free(path);
	free(text);

	spawn__run(&sp,
		   (const char *[]){ "sh", "-c",
				     "read a b c d pgrp x < /proc/$$/stat; "
				     "echo $pgrp",
				     NULL },
		   &(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT |
						  SPAWN_NEW_PGRP },
		   5000);
	ok(sp.out && atoi(sp.out) == sp.pid,
	   "SPAWN_NEW_PGRP: the child leads its own process group");
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
	test_env_drop();
	test_big_output();
	test_exec_failure();
	test_timeout();
	test_stop();
	test_many();
	test_fn();
	test_fds();
	test_bad_netns();
	test_stdin();
	test_pipes();
	test_redirects();
	test_last_line();
	return tap_done();
}
