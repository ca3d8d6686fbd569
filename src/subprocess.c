// SPDX-License-Identifier: GPL-2.0-only
/*
 * fork/exec with capture, timeouts and kill by PID. See subprocess.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

extern char **environ;

#define SPAWN_DEFAULT_CAPTURE (16u << 20)
/* Without a pidfd, how often a waiter looks for the child's exit. */
#define SPAWN_POLL_TICK_MS 10

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* In the child: close every descriptor above 2 but those in @keep. */
static void child_close_others(int *keep, size_t n)
{
	unsigned int lo = 3;
	struct rlimit rl;
	size_t i;
	long fd;

	qsort(keep, n, sizeof(*keep), cmp_int);
	for (i = 0; i <= n; i++) {
		unsigned int hi = i < n ? (unsigned int)keep[i] : ~0u;

		if (i < n && keep[i] < (int)lo) {
			if (keep[i] >= 3)
				lo = keep[i] + 1;
			continue;
		}
		if (hi > lo && syscall(SYS_close_range, lo, hi - 1, 0) &&
		    errno == ENOSYS) {
			/* Kernels before 5.9: one close() each. */
			if (getrlimit(RLIMIT_NOFILE, &rl) ||
			    rl.rlim_cur > 65536)
				rl.rlim_cur = 65536;
			for (fd = lo; fd < (long)hi && fd < (long)rl.rlim_cur;
			     fd++)
				close(fd);
		}
		if (i < n)
			lo = keep[i] + 1;
	}
}

static void __attribute__((noreturn)) child_fail(int xfd, int err)
{
	ssize_t n = write(xfd, &err, sizeof(err));

	(void)n;
	_exit(127);
}

static void child_dup(int xfd, int from, int to)
{
	if (from != to && dup2(from, to) < 0)
		child_fail(xfd, errno);
}

static void child_redirect(int xfd, const char *path, int to)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || dup2(fd, to) < 0)
		child_fail(xfd, errno);
	close(fd);
}

/*
 * Enter /run/netns/@name; with @sysfs, as `ip netns exec` does, in a
 * mount namespace of its own whose /sys shows the namespace's devices.
 */
static int child_netns(const char *name, bool sysfs)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (setns(fd, CLONE_NEWNET))
		err = errno;
	close(fd);
	if (err || !sysfs)
		return err;
	if (unshare(CLONE_NEWNS) ||
	    mount("", "/", NULL, MS_SLAVE | MS_REC, NULL))
		return errno;
	if (umount2("/sys", MNT_DETACH) && errno != EINVAL)
		return errno;
	if (mount(name, "/sys", "sysfs", 0, NULL))
		return errno;
	return 0;
}

static bool env_dropped(const char *var, const char *const *drop)
{
	size_t n, eq = strcspn(var, "=");

	for (; *drop; drop++) {
		n = strlen(*drop);
		if (n && (*drop)[n - 1] == '*') {
			if (!strncmp(var, *drop, n - 1))
				return true;
		} else if (n == eq && !strncmp(var, *drop, n)) {
			return true;
		}
	}
	return false;
}

/*
 * The child's environment, made before fork: between fork and exec a
 * child of a threaded parent may not allocate, only point environ at it.
 * The strings are ours; only the vector is new.
 */
static char **env_filter(const char *const *drop)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + 1, sizeof(*env));
	for (n = 0; environ[n]; n++)
		if (!env_dropped(environ[n], drop))
			env[k++] = environ[n];
	return env;
}

/*
 * The child's side, between fork and exec (or @fn): only what a child
 * of a possibly multi-threaded parent may safely do before exec. Any
 * failure goes back to the parent as an errno over @xfd.
 */
static void child_setup(const struct spawn_opts *o, pid_t parent, int in_r,
			int out_w, int err_w, int xfd, int *keep,
			size_t nr_keep)
{
	unsigned int fl = o->flags;
	sigset_t none;
	int null_fd, sig, err;
	size_t i;

	/* Signals ignored or blocked by the parent would be inherited. */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (o->pdeathsig) {
		if (prctl(PR_SET_PDEATHSIG, o->pdeathsig))
			child_fail(xfd, errno);
		if (getppid() != parent)
			_exit(127);
	}
	if (fl & SPAWN_NEW_PGRP)
		setpgid(0, 0);
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd < 0)
		child_fail(xfd, errno);
	if (in_r >= 0)
		child_dup(xfd, in_r, 0);
	else if (!(fl & SPAWN_INHERIT_IN))
		child_dup(xfd, null_fd, 0);
	if (out_w >= 0)
		child_dup(xfd, out_w, 1);
	if (fl & SPAWN_NULL_OUT)
		child_dup(xfd, null_fd, 1);
	if (o->out_to_fd > 0)
		child_dup(xfd, o->out_to_fd, 1);
	if (o->out_file)
		child_redirect(xfd, o->out_file, 1);
	if (err_w >= 0)
		child_dup(xfd, err_w, 2);
	if (fl & SPAWN_NULL_ERR)
		child_dup(xfd, null_fd, 2);
	if (o->err_file)
		child_redirect(xfd, o->err_file, 2);
	if (fl & SPAWN_ERR_TO_OUT)
		child_dup(xfd, 1, 2);
	keep[nr_keep] = xfd;
	child_close_others(keep, nr_keep + 1);
	for (i = 0; i < nr_keep + 1; i++)
		if (keep[i] != xfd && fcntl(keep[i], F_SETFD, 0))
			child_fail(xfd, errno);
	if (o->netns) {
		err = child_netns(o->netns, fl & SPAWN_NETNS_SYSFS);
		if (err)
			child_fail(xfd, err);
	}
	if (o->cwd && chdir(o->cwd))
		child_fail(xfd, errno);
	if (o->pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			child_fail(xfd, errno);
	}
}

struct spawn_target {
	const char *const *argv; /* NULL: call fn */
	int (*fn)(void *arg);
	void *arg;
};

struct spawn_pipes {
	int in[2], out[2], err[2];
};

static void __attribute__((noreturn))
child_main(const struct spawn_opts *o, const struct spawn_target *t,
	   pid_t parent, const struct spawn_pipes *p, int xfd, int *keep,
	   char **env)
{
	int ret;

	child_setup(o, parent, p->in[0], p->out[1], p->err[1], xfd, keep,
		    o->nr_keep_fds);
	if (env)
		environ = env;
	if (t->argv) {
		execvp(t->argv[0], (char *const *)t->argv);
		child_fail(xfd, errno);
	}
	close(xfd);
	ret = t->fn(t->arg);
	fflush(NULL);
	/* _exit: the parent's atexit handlers are not the child's to run. */
	_exit(ret < 0 ? 1 : ret > 255 ? 255 : ret);
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void spawn__reset(struct spawn *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->out_fd = sp->err_fd = sp->pidfd = sp->in_fd = -1;
	sp->stdin_fd = sp->stdout_fd = -1;
}

static void pipes__close(struct spawn_pipes *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		close_fd(&p->in[i]);
		close_fd(&p->out[i]);
		close_fd(&p->err[i]);
	}
}

static int pipes__open(struct spawn_pipes *p, const struct spawn_opts *o)
{
	unsigned int fl = o->flags;

	if (((fl & SPAWN_PIPE_IN) || o->in) && pipe2(p->in, O_CLOEXEC))
		return -errno;
	if ((fl & (SPAWN_CAPTURE_OUT | SPAWN_PIPE_OUT)) &&
	    pipe2(p->out, O_CLOEXEC))
		return -errno;
	if ((fl & SPAWN_CAPTURE_ERR) && pipe2(p->err, O_CLOEXEC))
		return -errno;
	return 0;
}

/* Our ends of the child's pipes, where spawn_opts said they go. */
static void pipes__hand_over(struct spawn_pipes *p, struct spawn *sp,
			     const struct spawn_opts *o)
{
	if (o->flags & SPAWN_PIPE_IN) {
		sp->stdin_fd = p->in[1];
	} else if (p->in[1] >= 0) {
		sp->in_fd = p->in[1];
		sp->in = o->in;
		sp->in_len = o->in_len;
		set_nonblock(sp->in_fd);
	}
	if (o->flags & SPAWN_PIPE_OUT) {
		sp->stdout_fd = p->out[0];
	} else if (p->out[0] >= 0) {
		sp->out_fd = p->out[0];
		set_nonblock(sp->out_fd);
	}
	if (p->err[0] >= 0) {
		sp->err_fd = p->err[0];
		set_nonblock(sp->err_fd);
	}
	p->in[1] = p->out[0] = p->err[0] = -1;
}

static int spawn__start(struct spawn *sp, const struct spawn_target *t,
			const char *what, const struct spawn_opts *opts)
{
	static const struct spawn_opts none;
	const struct spawn_opts *o = opts ? opts : &none;
	struct spawn_pipes p = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	pid_t parent = getpid(), pid;
	int xp[2] = { -1, -1 };
	int *keep = NULL, child_err;
	char **env = NULL;
	ssize_t n;
	int err = 0;

	spawn__reset(sp);
	sp->max_capture = o->max_capture ? o->max_capture :
					   SPAWN_DEFAULT_CAPTURE;
	snprintf(sp->what, sizeof(sp->what), "%s", what);
	if (o->netns && !name_is_safe(o->netns)) {
		pr_err("%s: network namespace name '%s' is not valid "
		       "(expected [A-Za-z0-9._-], at most 64 bytes)",
		       what, o->netns);
		return -EINVAL;
	}
	keep = xcalloc(o->nr_keep_fds + 1, sizeof(*keep));
	if (o->nr_keep_fds)
		memcpy(keep, o->keep_fds, o->nr_keep_fds * sizeof(*keep));
	err = pipes__open(&p, o);
	if (!err && pipe2(xp, O_CLOEXEC))
		err = -errno;
	if (err) {
		pr_err("%s: pipe: %s", what, strerror(-err));
		goto out;
	}
	if (o->env_drop)
		env = env_filter(o->env_drop);
	fflush(NULL); /* or the child's exit would print our buffers twice */
	pid = fork();
	if (pid < 0) {
		err = -errno;
		pr_err("%s: fork: %s", what, strerror(errno));
		goto out;
	}
	if (pid == 0)
		child_main(o, t, parent, &p, xp[1], keep, env);
	sp->pid = pid;
	close_fd(&p.in[0]);
	close_fd(&p.out[1]);
	close_fd(&p.err[1]);
	close_fd(&xp[1]);
	/* EOF: exec succeeded (CLOEXEC) or the function is running. */
	do
		n = read(xp[0], &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	if (n == sizeof(child_err)) {
		err = -child_err;
		while (waitpid(pid, &sp->status, 0) < 0 && errno == EINTR)
			;
		sp->reaped = true;
		/*
		 * Debug only: the caller returns this errno in its own words,
		 * which know what the program was for; said here too, the
		 * user read one failure twice.
		 */
		pr_debug("%s: cannot start: %s", what, strerror(child_err));
		goto out;
	}
	pipes__hand_over(&p, sp, o);
	sp->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (sp->pidfd < 0)
		sp->pidfd = -1;
	pr_debug("%s: started, pid %d", what, (int)pid);
out:
	pipes__close(&p);
	close_fd(&xp[0]);
	close_fd(&xp[1]);
	free(keep);
	free(env);
	return err;
}

int spawn__argv(struct spawn *sp, const char *const *argv,
		const struct spawn_opts *opts)
{
	struct spawn_target t = { .argv = argv };

	if (!argv || !argv[0] || !*argv[0]) {
		spawn__reset(sp);
		return -EINVAL;
	}
	return spawn__start(sp, &t, argv[0], opts);
}

int spawn__fn(struct spawn *sp, int (*fn)(void *arg), void *arg,
	      const char *what, const struct spawn_opts *opts)
{
	struct spawn_target t = { .fn = fn, .arg = arg };

	return spawn__start(sp, &t, what, opts);
}

static void buf_append(struct spawn *sp, char **buf, size_t *len, size_t *alloc,
		       const char *data, size_t n)
{
	if (*len + n > sp->max_capture) {
		sp->truncated = true;
		n = *len < sp->max_capture ? sp->max_capture - *len : 0;
	}
	ALLOC_GROW(*buf, *len + n + 1, *alloc);
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* Read what is there; close the pipe at EOF. */
static void drain(struct spawn *sp, int *fd, bool is_err)
{
	char chunk[65536];
	ssize_t n;

	while (*fd >= 0) {
		n = read(*fd, chunk, sizeof(chunk));
		if (n > 0) {
			if (is_err)
				buf_append(sp, &sp->err, &sp->err_len,
					   &sp->err_alloc, chunk, n);
			else
				buf_append(sp, &sp->out, &sp->out_len,
					   &sp->out_alloc, chunk, n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close_fd(fd);
	}
}

/*
 * Write what the pipe takes of spawn_opts.in; close it at the end (EOF)
 * or when the child stopped reading. SIGPIPE, which would kill us for a
 * child that exited early, is held for the write and taken back.
 */
static void feed(struct spawn *sp)
{
	static const struct timespec now;
	sigset_t pipe, old;
	ssize_t n;

	if (sp->in_fd < 0)
		return;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	do
		n = write(sp->in_fd, sp->in + sp->in_off,
			  sp->in_len - sp->in_off);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EPIPE)
		sigtimedwait(&pipe, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (n > 0)
		sp->in_off += n;
	if ((n < 0 && errno != EAGAIN) || sp->in_off == sp->in_len)
		close_fd(&sp->in_fd);
}

static bool try_reap(struct spawn *sp)
{
	pid_t r;

	if (sp->reaped)
		return true;
	if (!sp->pid)
		return true;
	do
		r = waitpid(sp->pid, &sp->status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return false;
	if (r < 0)
		sp->status = 0x7f00; /* reaped elsewhere: say exit 127 */
	sp->reaped = true;
	close_fd(&sp->in_fd);
	/* The writer is gone: whatever it wrote is in the pipe now. */
	drain(sp, &sp->out_fd, false);
	drain(sp, &sp->err_fd, true);
	/* A grandchild may hold the pipe open: do not wait for it. */
	close_fd(&sp->out_fd);
	close_fd(&sp->err_fd);
	close_fd(&sp->pidfd);
	return true;
}

static void add_pollfd(struct pollfd *pfd, size_t *n, int fd, short events)
{
	if (fd < 0)
		return;
	pfd[*n].fd = fd;
	pfd[*n].events = events;
	pfd[*n].revents = 0;
	(*n)++;
}

int spawn__wait_many(struct spawn *const *sps, size_t n, int timeout_ms)
{
	long long deadline = mono_ms() + (timeout_ms < 0 ? 0 : timeout_ms);
	struct pollfd *pfd = xcalloc(4 * n + 1, sizeof(*pfd));
	int err = 0;

	for (;;) {
		bool done = true, ticking = false;
		long long left;
		size_t i, np = 0;
		int tmo;

		for (i = 0; i < n; i++) {
			if (try_reap(sps[i]))
				continue;
			done = false;
			add_pollfd(pfd, &np, sps[i]->in_fd, POLLOUT);
			add_pollfd(pfd, &np, sps[i]->out_fd, POLLIN);
			add_pollfd(pfd, &np, sps[i]->err_fd, POLLIN);
			add_pollfd(pfd, &np, sps[i]->pidfd, POLLIN);
			if (sps[i]->pidfd < 0)
				ticking = true;
		}
		if (done)
			break;
		left = deadline - mono_ms();
		if (timeout_ms >= 0 && left <= 0) {
			err = -ETIMEDOUT;
			break;
		}
		tmo = timeout_ms < 0 ? -1 : (int)left;
		if (ticking && (tmo < 0 || tmo > SPAWN_POLL_TICK_MS))
			tmo = SPAWN_POLL_TICK_MS;
		if (poll(pfd, np, tmo) < 0 && errno != EINTR) {
			err = -errno;
			pr_err("poll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			feed(sps[i]);
			drain(sps[i], &sps[i]->out_fd, false);
			drain(sps[i], &sps[i]->err_fd, true);
		}
	}
	free(pfd);
	return err;
}

int spawn__wait(struct spawn *sp, int timeout_ms)
{
	return spawn__wait_many(&sp, 1, timeout_ms);
}

int spawn__signal(struct spawn *sp, int sig)
{
	if (!sp->pid || sp->reaped)
		return -ESRCH;
	/* A pidfd cannot hit a recycled PID; kill() is the fallback. */
	if (sp->pidfd >= 0 &&
	    !syscall(SYS_pidfd_send_signal, sp->pidfd, sig, NULL, 0))
		return 0;
	if (kill(sp->pid, sig))
		return -errno;
	return 0;
}

/* After SIGKILL: a process stuck in the kernel may take a while. */
#define SPAWN_KILL_WAIT_MS 10000

int spawn__stop(struct spawn *sp, int sig, int grace_ms)
{
	int err;

	if (!sp->pid || sp->reaped)
		return 0;
	spawn__signal(sp, sig);
	if (!spawn__wait(sp, grace_ms))
		return 0;
	pr_warn("%s (pid %d) did not exit %d ms after signal %d; killing it",
		sp->what, (int)sp->pid, grace_ms, sig);
	spawn__signal(sp, SIGKILL);
	err = spawn__wait(sp, SPAWN_KILL_WAIT_MS);
	if (err)
		pr_err("%s (pid %d) survived SIGKILL for %d ms", sp->what,
		       (int)sp->pid, SPAWN_KILL_WAIT_MS);
	return -ETIMEDOUT;
}

int spawn__run(struct spawn *sp, const char *const *argv,
	       const struct spawn_opts *opts, int timeout_ms)
{
	int err = spawn__argv(sp, argv, opts);

	if (err)
		return err;
	err = spawn__wait(sp, timeout_ms);
	if (err == -ETIMEDOUT) {
		/* -ETIMEDOUT says it; the caller knows whether that is news. */
		pr_debug("%s did not finish within %d ms; killed", sp->what,
			 timeout_ms);
		spawn__stop(sp, SIGKILL, SPAWN_KILL_WAIT_MS);
	}
	return err;
}

void spawn__release(struct spawn *sp)
{
	if (!sp->pid)
		return; /* never started: nothing open, nothing allocated */
	if (!sp->reaped)
		spawn__stop(sp, SIGKILL, SPAWN_KILL_WAIT_MS);
	close_fd(&sp->out_fd);
	close_fd(&sp->err_fd);
	close_fd(&sp->pidfd);
	close_fd(&sp->in_fd);
	close_fd(&sp->stdin_fd);
	close_fd(&sp->stdout_fd);
	free(sp->out);
	free(sp->err);
	sp->out = sp->err = NULL;
	sp->out_len = sp->err_len = sp->out_alloc = sp->err_alloc = 0;
}

bool spawn__succeeded(const struct spawn *sp)
{
	return sp->reaped && WIFEXITED(sp->status) &&
	       WEXITSTATUS(sp->status) == 0;
}

const char *spawn__describe(const struct spawn *sp, char *buf, size_t size)
{
	if (!sp->reaped)
		snprintf(buf, size, "still running");
	else if (WIFEXITED(sp->status))
		snprintf(buf, size, "exit status %d", WEXITSTATUS(sp->status));
	else if (WIFSIGNALED(sp->status))
		snprintf(buf, size, "killed by signal %d (%s)",
			 WTERMSIG(sp->status), strsignal(WTERMSIG(sp->status)));
	else
		snprintf(buf, size, "wait status 0x%x", sp->status);
	return buf;
}

const char *spawn__last_line(const char *text, char *buf, size_t size)
{
	const char *end, *start;

	buf[0] = '\0';
	if (!text)
		return buf;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == ' ' ||
			      end[-1] == '\r' || end[-1] == '\t'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	while (start < end && (*start == ' ' || *start == '\t'))
		start++;
	snprintf(buf, size, "%.*s", (int)(end - start), start);
	return buf;
}

int proc__starttime(pid_t pid, unsigned long long *st)
{
	char path[64], *buf = NULL, *p;
	size_t len;
	int ret, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ret = read_file(path, &buf, &len);
	if (ret)
		return ret;
	/* The name in parentheses may hold spaces: count from its end. */
	p = strrchr(buf, ')');
	ret = -EINVAL;
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%llu", st) == 1)
		ret = 0;
	free(buf);
	return ret;
}
