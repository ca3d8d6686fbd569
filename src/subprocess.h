/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Child processes without a shell: the one way this tool starts a
 * process. It runs as root, so nothing is ever pasted into a command
 * string: a child runs an argument vector (fork + execvp) or, for
 * libraries with process-global state such as libiperf, a function in a
 * forked copy of this process.
 *
 * stdin is /dev/null unless asked otherwise: inherited, fed from a
 * buffer while the caller waits, or a pipe the caller writes. stdout and
 * stderr are inherited, sent to /dev/null or to a file or descriptor,
 * captured into memory while the caller waits, or (stdout) a pipe the
 * caller reads. Every wait has a timeout, and a child is only ever
 * signalled by its own PID (or pidfd), never by name.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef IOMMU_BENCH_SUBPROCESS_H
#define IOMMU_BENCH_SUBPROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* struct spawn_opts.flags */
#define SPAWN_CAPTURE_OUT (1u << 0) /* stdout into spawn.out */
#define SPAWN_CAPTURE_ERR (1u << 1) /* stderr into spawn.err */
#define SPAWN_NULL_OUT (1u << 2)    /* stdout to /dev/null */
#define SPAWN_NULL_ERR (1u << 3)    /* stderr to /dev/null */
#define SPAWN_ERR_TO_OUT (1u << 4)  /* stderr goes where stdout goes */
#define SPAWN_INHERIT_IN (1u << 5)  /* our stdin, not /dev/null */
#define SPAWN_PIPE_IN (1u << 6)	    /* stdin from spawn.stdin_fd */
#define SPAWN_PIPE_OUT (1u << 7)    /* stdout into spawn.stdout_fd */
/* Its own process group: Ctrl-C at the terminal is ours to handle. */
#define SPAWN_NEW_PGRP (1u << 8)
/* With netns: a mount namespace whose /sys is the namespace's own. */
#define SPAWN_NETNS_SYSFS (1u << 9)

struct spawn_opts {
	unsigned int flags;
	/* Enter the network namespace /run/netns/NAME first; NULL: stay. */
	const char *netns;
	/* Run in this folder; NULL: ours. */
	const char *cwd;
	/* Pin the child to this CPU when @pin (sched_setaffinity). */
	bool pin;
	int cpu;
	/*
	 * Sent to the child when this thread exits, so that a crashed
	 * agent leaves no `perf record -a` running; 0: none.
	 */
	int pdeathsig;
	/* Descriptors the child keeps at the same numbers; all else closes. */
	const int *keep_fds;
	size_t nr_keep_fds;
	/*
	 * stdout/stderr into these files (created 0600 or truncated), for
	 * long-running children whose output nobody reads until the end.
	 */
	const char *out_file, *err_file;
	/* stdout onto this descriptor of ours when > 0 (a log, our stderr). */
	int out_to_fd;
	/* Fed to stdin while spawn__wait() runs, then closed: EOF. */
	const void *in;
	size_t in_len;
	/* Bytes kept of each captured stream; more is read and dropped. */
	size_t max_capture; /* 0: 16 MiB */
	/*
	 * Our environment less these variables, NULL-terminated; a name
	 * ending in '*' drops every variable it starts. NULL: all of it.
	 */
	const char *const *env_drop;
};

struct spawn {
	pid_t pid;   /* 0 before start */
	int status;  /* waitpid() status, once reaped */
	bool reaped; /* the child is gone and @status is valid */
	char *out;   /* captured output, NUL-terminated; NULL: none */
	size_t out_len;
	char *err;
	size_t err_len;
	bool truncated; /* some output was dropped (max_capture) */
	/*
	 * SPAWN_PIPE_IN, SPAWN_PIPE_OUT: our ends of the child's stdin and
	 * stdout, the caller's to use; spawn__release() closes them unless
	 * the caller took them (and set -1).
	 */
	int stdin_fd, stdout_fd;
	/* private */
	int out_fd, err_fd, pidfd, in_fd;
	const char *in;
	size_t in_len, in_off;
	size_t out_alloc, err_alloc, max_capture;
	char what[64]; /* for messages: argv[0] or the function's name */
};

/*
 * Start argv[0] (looked up in $PATH) with @argv. An exec failure is
 * reported here, as -errno, not as a child exiting 127.
 */
int spawn__argv(struct spawn *sp, const char *const *argv,
		const struct spawn_opts *opts);

/*
 * Run @fn(@arg) in a forked child, which exits with its return value
 * (clamped to 0..255; negative is 1). @what names it in messages.
 */
int spawn__fn(struct spawn *sp, int (*fn)(void *arg), void *arg,
	      const char *what, const struct spawn_opts *opts);

/*
 * Collect output until the child exits, for at most @timeout_ms (< 0:
 * no limit). 0 when reaped; -ETIMEDOUT when it is still running (it is
 * left running: kill it or wait again).
 */
int spawn__wait(struct spawn *sp, int timeout_ms);
/* The same for several children at once, draining all their pipes. */
int spawn__wait_many(struct spawn *const *sps, size_t n, int timeout_ms);

/* Send @sig to a child not yet reaped (by pidfd where the kernel has it). */
int spawn__signal(struct spawn *sp, int sig);
/*
 * Send @sig, wait up to @grace_ms, then SIGKILL and reap. 0 when it
 * exited within the grace period, -ETIMEDOUT when it had to be killed.
 */
int spawn__stop(struct spawn *sp, int sig, int grace_ms);

/*
 * Start, wait up to @timeout_ms, and on timeout kill and reap it
 * (-ETIMEDOUT). The exit status is the caller's to judge.
 */
int spawn__run(struct spawn *sp, const char *const *argv,
	       const struct spawn_opts *opts, int timeout_ms);

/* Kill (SIGKILL) and reap a child still running; free the buffers. */
void spawn__release(struct spawn *sp);

/* Exited by itself with status 0. */
bool spawn__succeeded(const struct spawn *sp);
/* "exit status 2", "killed by signal 9 (Killed)", "still running". */
const char *spawn__describe(const struct spawn *sp, char *buf, size_t size);

/* The last line of @text, trimmed, for error messages ("" when empty). */
const char *spawn__last_line(const char *text, char *buf, size_t size);

/*
 * Run @argv for at most @timeout_ms, its stdout and stderr captured. 0
 * when it exited 0; otherwise a negative errno and *@err, what went
 * wrong in words, its stderr's last line included. *@out gets stdout
 * (may be NULL). Exit status in *@status when non-NULL (-1: did not
 * exit). For the short helpers (ip, ssh, scp) whose failure is a
 * sentence for the caller, not a log line.
 */
int spawn__cmd(const char *const *argv, int timeout_ms, char **out, char **err,
	       int *status);

/*
 * When process @pid started (field 22 of /proc/PID/stat, in clock
 * ticks since boot): with the PID, what tells a process the tool
 * started from another that reuses its PID. 0 or a negative errno.
 */
int proc__starttime(pid_t pid, unsigned long long *st);

#endif /* IOMMU_BENCH_SUBPROCESS_H */
