// SPDX-License-Identifier: GPL-2.0-only
/*
 * A QEMU VM as a host: the testbed. The tool starts the VM itself, so
 * a "reboot" is a fresh boot with the wanted kernel and command line,
 * and the first boot happens when the first trial needs one; or, with
 * reboot = "kexec", the VM stays and the guest kexecs into kernels sent
 * to it, as a lab host does (wait_boot, kernel_files). The guest
 * runs this binary as its agent (see bench/testbed/testbed.h for the guest
 * side) on a virtio-serial port that QEMU wires to a unix socket here.
 *
 * The VM's NIC is a tap device in the linked peer's network namespace,
 * and QEMU runs inside that namespace, so test traffic never meets the
 * controller's own networks. QEMU is our child and dies with us
 * (PR_SET_PDEATHSIG), even when we are killed with SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch.h"
#include "bench/agent-client/agent-conn.h"
#include "bench/agent-client/agent-sock.h"
#include "bench/host/host-console.h"
#include "bench/host/host-priv.h"
#include "bench/host/host.h"
#include "netns.h"
#include "bench/host/qemu/qemu.h"
#include "bench/testbed/testbed.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

#define AGENT_TIMEOUT_MS 30000
#define STOP_GRACE_MS 3000
#define CONSOLE_TAIL_LINES 12
/* How long a guest that panicked may take to end its QEMU. */
#define PANIC_EXIT_MS 15000
/* Of an oops or a panic: its first line, RIP, the trace begun. */
#define CONSOLE_TROUBLE_LINES 16

struct qemu_priv {
	struct qemu_vm vm; /* its folder also holds the console and QEMU's log */
	char *console, *log, *qmp;
	const char *netns; /* where QEMU and the tap live; NULL: root */
	char tap[NETNS_IFNAME_MAX + 1];
	bool tap_made;
	enum qemu_accel accel;
	struct strvec disks; /* the scratch images, per qemu.disks */
	struct spawn qemu;   /* pid 0: no VM */
	int crash_sig; /* the signal QEMU itself died of, booting; 0: none */
};

static const struct matrix_host *link_peer(const struct host *h)
{
	if (!h->m->has_link || !h->matrix)
		return NULL;
	return &h->matrix->hosts[h->m->link];
}

/*
 * Each disk a sparse image of its size, made empty for every run: what
 * a run wrote is never what the next one reads. Beside the VM's socket,
 * where nothing of the user's lives.
 */
static int disks__make(struct host *h, struct qemu_priv *p, char **err)
{
	size_t i;
	int fd;

	for (i = 0; i < qemu_conf(h->m)->nr_disks; i++) {
		const struct matrix_disk *d = &qemu_conf(h->m)->disks[i];
		char *path = xasprintf("%s/disk-%s.img", p->vm.dir, d->name);

		fd = open(path,
			  O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
			  0600);
		if (fd < 0 || ftruncate(fd, (off_t)d->size)) {
			int ret = -errno;

			errmsg__set(err, ret,
				    "host %s: cannot make the image of disk %s "
				    "(%s): %s",
				    h->m->name, d->name, path, strerror(-ret));
			if (fd >= 0)
				close(fd);
			free(path);
			return ret;
		}
		close(fd);
		strvec__push_nodup(&p->disks, path);
	}
	return 0;
}

static int qemu_host__open(struct host *h, char **err)
{
	const struct matrix_host *peer = link_peer(h);
	struct qemu_priv *p;
	int ret;

	if (h->priv)
		return 0;
	p = xcalloc(1, sizeof(*p));
	h->priv = p;
	ret = qemu_vm__lock(h, &p->vm, "qemu", err);
	if (ret)
		return ret;
	p->vm.sock = xasprintf("%s/agent.sock", p->vm.dir);
	p->console = xasprintf("%s/console.log", p->vm.dir);
	p->log = xasprintf("%s/qemu.log", p->vm.dir);
	p->qmp = xasprintf("%s/qmp.sock", p->vm.dir);
	if (peer && peer->transport == HOST_NETNS)
		p->netns = peer->netns;
	if (peer) {
		ret = netns__ifname(peer->nic, peer->name, p->tap,
				    sizeof(p->tap), err);
		if (ret)
			return ret;
	}
	switch (qemu_conf(h->m)->accel) {
	case ACCEL_AUTO:
		p->accel = qemu__detect_accel();
		break;
	default:
		p->accel = qemu_conf(h->m)->accel;
		break;
	}
	if (!qemu__machine(h->m))
		return errmsg__set(err, -EINVAL,
				   "host %s: the testbed has no %s guest",
				   h->m->name,
				   qemu_conf(h->m)->arch ?
					   qemu_conf(h->m)->arch->name :
					   "unknown");
	if (p->accel == ACCEL_KVM && qemu_conf(h->m)->arch != arch__native()) {
		pr_info("host %s: an %s guest on this machine: TCG", h->m->name,
			qemu_conf(h->m)->arch->name);
		p->accel = ACCEL_TCG;
	}
	pr_info("host %s: QEMU (%s) with %s", h->m->name,
		qemu__machine(h->m)->binary,
		p->accel == ACCEL_KVM ? "KVM" : "TCG (no usable KVM)");
	ret = disks__make(h, p, err);
	if (ret)
		return ret;
	ret = qemu__check_affinity(h->m, err);
	if (ret)
		return ret;
	return qemu_vm__files(h, &p->vm, err);
}

/* The peer's end of the link, made once the peer's namespace exists. */
static int ensure_tap(struct host *h, struct qemu_priv *p, char **err)
{
	const struct matrix_host *peer = link_peer(h);
	struct veth_end e;
	char *why = NULL;
	int ret;

	if (!peer || p->tap_made)
		return 0;
	if (p->netns && !netns__exists(p->netns))
		return errmsg__set(err, -ENOENT,
				   "host %s: no link for the VM: its peer's "
				   "namespace %s does not exist",
				   h->m->name, p->netns);
	e.netns = p->netns;
	e.ifname = p->tap;
	e.cidr = peer->address;
	/* Both ends: a jumbo frame the tap cannot take is dropped. */
	e.mtu = qemu_conf(h->m)->mtu;
	ret = tap__create(&e, &why);
	if (ret) {
		errmsg__set(err, ret,
			    "host %s: no link for the VM: cannot make tap %s "
			    "for its link to %s: %s",
			    h->m->name, p->tap, peer->name, why);
		free(why);
		return ret;
	}
	p->tap_made = true;
	return 0;
}

static bool vm_running(const struct qemu_priv *p)
{
	return p->qemu.pid && !p->qemu.reaped;
}

/* Kill what is left of QEMU, reap it and forget it: no VM now. */
static void vm_forget(struct qemu_priv *p)
{
	spawn__release(&p->qemu);
	memset(&p->qemu, 0, sizeof(p->qemu));
}

static void stop_vm(struct host *h, struct qemu_priv *p)
{
	if (p->vm.ready) {
		agent_conn__close(p->vm.ready);
		p->vm.ready = NULL;
	}
	if (!vm_running(p))
		return;
	spawn__signal(&p->qemu, SIGTERM);
	if (spawn__wait(&p->qemu, STOP_GRACE_MS))
		pr_warn("host %s: QEMU (PID %d) ignored SIGTERM; killing it",
			h->m->name, (int)p->qemu.pid);
	vm_forget(p);
	unlink(p->vm.sock);
	unlink(p->qmp);
}

/*
 * The last lines of the guest's console, for an error message; where the
 * kernel oopsed or panicked, the first lines of its report before them,
 * since its call trace alone fills the tail.
 */
static char *console_tail(const struct qemu_priv *p)
{
	char *buf = NULL, *s, *out;
	const char *head, *end;
	size_t len = 0;
	int lines = 0;

	if (read_file(p->console, &buf, &len) < 0 || !len) {
		free(buf);
		return xstrdup("(the console is empty)");
	}
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	for (s = buf + len; s > buf; s--)
		if (s[-1] == '\n' && ++lines == CONSOLE_TAIL_LINES)
			break;
	head = console__report(buf);
	if (!head || head >= s) {
		out = xstrdup(s);
		goto out;
	}
	for (end = head, lines = 0; lines < CONSOLE_TROUBLE_LINES && end < s;
	     lines++)
		end = strchr(end, '\n') + 1;
	out = end >= s ? xasprintf("%.*s%s", (int)(end - head), head, s) :
			 xasprintf("%.*s...\n%s", (int)(end - head), head, s);
out:
	free(buf);
	return out;
}

/*
 * QEMU's stdout and stderr go to its log. Our death, even by SIGKILL, is
 * QEMU's too; and a Ctrl-C at the terminal is the controller's to handle.
 */
static int spawn_qemu(const struct host *h, struct qemu_priv *p,
		      const struct strvec *argv)
{
	const struct spawn_opts o = {
		.flags = SPAWN_ERR_TO_OUT | SPAWN_NEW_PGRP,
		.out_file = p->log,
		.pdeathsig = SIGKILL,
		.netns = p->netns,
		/* Every thread QEMU makes inherits it; vCPUs move later. */
		.pin = qemu_conf(h->m)->io_cpu >= 0,
		.cpu = qemu_conf(h->m)->io_cpu,
	};

	return spawn__argv(&p->qemu, strvec__argv(argv), &o);
}

/* What QEMU said when it exited, for an error message. */
static char *qemu_exit_reason(const struct qemu_priv *p, int status)
{
	char *log = NULL, *tail, *nl, *s;
	size_t len = 0;

	if (read_file(p->log, &log, &len) < 0)
		log = NULL;
	while (log && len && log[len - 1] == '\n')
		log[--len] = '\0';
	nl = log ? strrchr(log, '\n') : NULL;
	tail = console_tail(p);
	s = xasprintf(
		"QEMU exited (%s %d)%s%s; the guest's console ends "
		"with:\n%s",
		WIFEXITED(status) ? "status" : "signal",
		WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		log && *log ? ": " : "", log ? (nl ? nl + 1 : log) : "", tail);
	free(tail);
	free(log);
	return s;
}

/*
 * A signal that QEMU's own code raised: a fault of the emulator, not of
 * the guest (a guest's fault ends QEMU with a status, by panic=-1 and
 * -no-reboot), and not ours (we stop QEMU with SIGTERM or SIGKILL). Seen
 * here: QEMU 7.2's TCG vCPU thread dying of a general protection fault
 * while a 6.12 guest enumerated its PCI bus, on a busy host.
 */
static int emulator_crash(int status)
{
	if (!WIFSIGNALED(status))
		return 0;
	switch (WTERMSIG(status)) {
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGABRT:
		return WTERMSIG(status);
	}
	return 0;
}

/* The watch of agent_sock__wait(): QEMU is our child. */
static int vm_gone(void *arg, char **err)
{
	struct qemu_priv *p = arg;

	if (!vm_running(p) || spawn__wait(&p->qemu, 0))
		return 0;
	errmsg__move(err, 0, qemu_exit_reason(p, p->qemu.status));
	p->crash_sig = emulator_crash(p->qemu.status);
	vm_forget(p);
	return -ECHILD;
}

static char *vm_console(void *arg)
{
	return console_tail(arg);
}

/*
 * A guest that runs but never answered: where its CPUs are, asked of its
 * kernel (qemu-hang.c) before the VM is stopped, added to *@err. The
 * answer lands in the console, where tcg_patch_race() reads it too.
 */
static void ask_cpus(const struct host *h, struct qemu_priv *p, char **err)
{
	char *buf = NULL, *cpus = NULL, *why = NULL;
	bool int3;
	size_t len;

	if (!vm_running(p) || strcmp(qemu__machine(h->m)->arch, "x86_64"))
		return;
	pr_info("host %s: asking the silent guest's kernel for its CPUs' "
		"backtraces (sysrq-l)",
		h->m->name);
	if (qemu__ask_backtraces(p->qmp, p->console, &why)) {
		errmsg__set(err, 0, "%s\nasked for its CPUs' backtraces: %s",
			    *err, why);
		free(why);
		return;
	}
	if (read_file(p->console, &buf, &len) >= 0)
		cpus = qemu__cpus_said(buf, len, &int3);
	if (cpus)
		errmsg__set(err, 0, "%s\nits CPUs then, by sysrq-l: %s", *err,
			    cpus);
	free_all(buf, cpus);
}

/*
 * An agent that gave no answer: a VM that has gone says why (QEMU's exit
 * and the console), one still running says what its console said last.
 */
static char *qemu_host__explain(struct host *h)
{
	struct qemu_priv *p = h->priv;
	char *why = NULL, *tail;

	if (!p || !vm_running(p))
		return xstrdup("its VM is not running");
	/* A guest that panicked ends QEMU (panic=-1, -no-reboot), in a
	 * while under TCG: its exit says it better than a running VM. */
	tail = console_tail(p);
	if (strstr(tail, CONSOLE_PANIC) &&
	    !spawn__wait(&p->qemu, PANIC_EXIT_MS)) {
		free(tail);
		why = qemu_exit_reason(p, p->qemu.status);
		vm_forget(p);
		return why;
	}
	free(tail);
	if (vm_gone(p, &why))
		return why;
	tail = console_tail(p);
	why = xasprintf("QEMU (PID %d) still runs; the guest's console ends "
			"with:\n%s",
			(int)p->qemu.pid, tail);
	free(tail);
	/* A guest gone silent mid-trial: its next trial boots afresh. */
	ask_cpus(h, p, &why);
	return why;
}

static int wait_agent(struct host *h, struct qemu_priv *p, int timeout_ms,
		      const char *old_boot, struct agent_conn **out, char **err)
{
	const struct agent_sock_watch w = { vm_gone, vm_console, p };

	return agent_sock__wait(p->vm.sock, h->m->name, timeout_ms, old_boot,
				&w, out, err);
}

/*
 * The last boots' console and QEMU log, kept beside the new ones
 * (NAME.1 the boot before, NAME.2 the one before that): a boot whose
 * agent gave no answer is followed by another, and its console is
 * what explains it (docs/testbed-noise.md). Three boots bound what
 * /run holds across a night of reboots.
 */
static void rotate_log(const char *path)
{
	char *one = xasprintf("%s.1", path), *two = xasprintf("%s.2", path);

	rename(one, two);
	rename(path, one);
	free(one);
	free(two);
}

/*
 * One QEMU, up to its agent's hello. *@spawned says whether QEMU
 * started at all: if not, *@err is the whole story.
 */
static int boot_once(struct host *h, struct qemu_priv *p,
		     const struct matrix_kernel *k,
		     const struct qemu_kernel *qk, const char *const *args,
		     size_t nr_args, bool *spawned, char **err)
{
	struct qemu_boot b = { 0 };
	struct strvec argv = { 0 };
	char *cmdline;
	int ret;

	*spawned = false;
	p->crash_sig = 0;
	unlink(p->vm.sock);
	unlink(p->qmp);
	rotate_log(p->console);
	rotate_log(p->log);
	cmdline = qemu__cmdline(h->m, p->vm.agent, args, nr_args);
	b.accel = p->accel;
	b.image = qk->image;
	b.initrd = qk->initrd;
	b.cmdline = cmdline;
	b.tap = p->tap_made ? p->tap : NULL;
	b.agent_sock = p->vm.sock;
	b.qmp_sock = p->qmp;
	b.console = p->console;
	b.disks = p->disks.nr ? strvec__argv(&p->disks) : NULL;
	qemu__argv(h->m, &b, &argv);
	pr_info("host %s: booting %s: %s", h->m->name, k->name, cmdline);
	for (size_t i = 0; i < argv.nr; i++)
		pr_debug("host %s: qemu argv[%zu] %s", h->m->name, i,
			 argv.v[i]);
	ret = spawn_qemu(h, p, &argv);
	strvec__release(&argv);
	free(cmdline);
	if (ret)
		return errmsg__set(err, ret, "host %s: cannot start %s: %s%s",
				   h->m->name, qemu__machine(h->m)->binary,
				   strerror(-ret),
				   ret == -ENOENT ?
					   " (Debian's qemu-system-x86 "
					   "and qemu-system-arm have "
					   "it)" :
					   "");
	*spawned = true;
	return wait_agent(h, p, (int)h->m->boot_timeout_ms, NULL, &p->vm.ready,
			  err);
}

/* A boot the agent answered: counted, and its time logged. */
static void vm_answered(const struct host *h, struct qemu_priv *p,
			const char *how, long long t0)
{
	p->vm.boots++;
	pr_info("host %s: boot %u%s answered after %lld ms", h->m->name,
		p->vm.boots, how, mono_ms() - t0);
}

/*
 * A boot lost to the guest kernel's code patching under TCG: 1 boot in
 * 6 of Debian's 7.3 (an oops at the int3), and a hang once in four
 * make check runs of 6.1. The kernel's code is not at fault and the
 * next boot is as good; under KVM the hardware keeps cross-modified
 * code coherent, and nothing is retried.
 */
static const char *tcg_patch_race(const struct qemu_priv *p)
{
	const char *why = NULL;
	char *buf = NULL;
	size_t len = 0;

	if (p->accel == ACCEL_TCG && read_file(p->console, &buf, &len) >= 0)
		why = qemu__patch_race(buf, len);
	free(buf);
	return why;
}

static int qemu_host__restart(struct host *h, const struct matrix_kernel *k,
			      const char *const *args, size_t nr_args,
			      char **err)
{
	struct qemu_priv *p = h->priv;
	const struct qemu_kernel *qk;
	const char *race;
	bool spawned;
	long long t0;
	int ret;

	errmsg__reset(err);
	if (!p)
		return errmsg__set(err, -EINVAL, "host %s: restart before open",
				   h->m->name);
	qk = &p->vm.kernels[k - h->matrix->kernels];
	if (!qk->image)
		return errmsg__set(err, -EOPNOTSUPP,
				   "host %s: kernel '%s' (%s) cannot be booted "
				   "in the testbed yet",
				   h->m->name, k->name,
				   kernel_kind__name(k->kind));
	stop_vm(h, p);
	ret = ensure_tap(h, p, err);
	if (ret)
		return ret;
	t0 = mono_ms();
	ret = boot_once(h, p, k, qk, args, nr_args, &spawned, err);
	if (ret && p->crash_sig) {
		pr_warn("host %s: QEMU crashed (signal %d) while booting, a "
			"fault of the emulator, not of the guest: booting "
			"again",
			h->m->name, p->crash_sig);
		errmsg__clear(err);
		t0 = mono_ms();
		ret = boot_once(h, p, k, qk, args, nr_args, &spawned, err);
	}
	if (ret == -ETIMEDOUT && spawned)
		ask_cpus(h, p, err);
	if (ret && spawned && (race = tcg_patch_race(p))) {
		pr_warn("host %s: the guest's kernel %s, a race of its own "
			"boot-time code patching under TCG, not a fault of the "
			"kernel's code (docs/testbed-noise.md): booting again",
			h->m->name, race);
		errmsg__clear(err);
		stop_vm(h, p);
		t0 = mono_ms();
		ret = boot_once(h, p, k, qk, args, nr_args, &spawned, err);
	}
	if (ret && !spawned)
		return ret;
	if (ret) {
		errmsg__set(err, 0, "host %s: boot %u (kernel '%s') failed: %s",
			    h->m->name, p->vm.boots + 1, k->name, *err);
		stop_vm(h, p);
		return ret;
	}
	vm_answered(h, p, "", t0);
	ret = qemu__pin_vcpus(h->m, (int)p->qemu.pid);
	if (ret) {
		errmsg__set(err, 0,
			    "host %s: cannot pin the vCPUs' threads as "
			    "affinity.vcpus says: %s",
			    h->m->name, strerror(-ret));
		stop_vm(h, p);
		return ret;
	}
	return 0;
}

static int qemu_host__agent(struct host *h, struct agent_conn **out, char **err)
{
	struct qemu_priv *p = h->priv;
	char *why = NULL;
	int ret;

	if (!p || !vm_running(p))
		return errmsg__set(err, -ENOTCONN,
				   "host %s: no VM runs (not booted yet, or "
				   "it ended)",
				   h->m->name);
	if (qemu_vm__take_ready(&p->vm, out))
		return 0;
	ret = wait_agent(h, p, AGENT_TIMEOUT_MS, NULL, out, &why);
	if (ret)
		errmsg__set(err, ret, "host %s: %s", h->m->name, why);
	free(why);
	return ret;
}

/*
 * reboot = "kexec": the guest jumped to another kernel by itself, and the
 * same VM comes back with a new boot id on the same socket. A kernel
 * that panics ends QEMU (panic=-1, -no-reboot): the VM is gone, and the
 * next boot the run asks for is a fresh one.
 */
static int qemu_host__wait_boot(struct host *h, const char *old_boot_id,
				uint64_t timeout_ms, char **err)
{
	struct qemu_priv *p = h->priv;
	char *words = NULL;
	long long t0 = mono_ms();
	int ret;

	if (!p || !vm_running(p))
		return errmsg__set(err, -ENOTCONN, "host %s: no VM to wait for",
				   h->m->name);
	if (p->vm.ready) {
		agent_conn__close(p->vm.ready);
		p->vm.ready = NULL;
	}
	ret = wait_agent(
		h, p, timeout_ms ? (int)timeout_ms : (int)h->m->boot_timeout_ms,
		old_boot_id, &p->vm.ready, &words);
	if (ret == -ETIMEDOUT)
		ask_cpus(h, p, &words);
	if (ret) {
		errmsg__set(err, 0, "host %s: no new boot after the kexec: %s",
			    h->m->name, words);
		free(words);
		stop_vm(h, p);
		return ret;
	}
	vm_answered(h, p, " (kexec)", t0);
	return 0;
}

static int qemu_host__kernel_files(struct host *h,
				   const struct matrix_kernel *k,
				   const char **image, const char **initrd)
{
	struct qemu_priv *p = h->priv;
	const struct qemu_kernel *qk;

	if (!p || k < h->matrix->kernels ||
	    k >= h->matrix->kernels + h->matrix->nr_kernels)
		return -EINVAL;
	qk = &p->vm.kernels[k - h->matrix->kernels];
	if (!qk->image)
		return -ENOENT;
	*image = qk->image;
	*initrd = qk->initrd;
	return 0;
}

static void qemu_host__close(struct host *h)
{
	struct qemu_priv *p = h->priv;
	size_t i;

	if (!p)
		return;
	stop_vm(h, p);
	/* In a namespace it goes with the namespace; in the root, here. */
	if (p->tap_made && (!p->netns || netns__exists(p->netns)))
		link__delete(p->netns, p->tap);
	for (i = 0; i < p->disks.nr; i++)
		unlink(p->disks.v[i]);
	strvec__release(&p->disks);
	free_all(p->console, p->log, p->qmp);
	qemu_vm__release(h, &p->vm);
	free(p);
	h->priv = NULL;
}

/* utime + stime of the whole process, live threads and gone ones. */
static int qemu_host__cpu_ns(struct host *h, uint64_t *ns)
{
	struct qemu_priv *p = h->priv;
	unsigned long long ut, st;
	char path[64], *buf = NULL, *s;
	size_t len;
	int ret;

	if (!p || !vm_running(p))
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->qemu.pid);
	ret = read_file(path, &buf, &len);
	if (ret < 0)
		return ret;
	/* comm may hold spaces and parentheses: fields follow the last ')'. */
	s = strrchr(buf, ')');
	if (!s ||
	    sscanf(s + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &ut, &st) != 2) {
		free(buf);
		return -EPROTO;
	}
	free(buf);
	*ns = (ut + st) * (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
	return 0;
}

static json_t *qemu_host__platform(struct host *h)
{
	const struct qemu_machine *qm = qemu__machine(h->m);
	struct qemu_priv *p = h->priv;
	bool kvm = p && p->accel == ACCEL_KVM;

	json_t *disks = json_array();
	size_t i;

	if (!qm) {
		json_decref(disks);
		return NULL;
	}
	for (i = 0; i < qemu_conf(h->m)->nr_disks; i++) {
		const struct matrix_disk *d = &qemu_conf(h->m)->disks[i];

		json_array_append_new(disks,
				      json_pack("{s:s, s:s, s:I}", "name",
						d->name, "model",
						qemu_disk_model__name(d->model),
						"size", (json_int_t)d->size));
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}",
			 "emulator", qm->binary, "arch", qm->arch, "machine",
			 qm->machine, "cpu", kvm ? "host" : qm->tcg_cpu,
			 "accel", kvm ? "kvm" : "tcg", "viommu",
			 qemu_iommu__name(qemu_conf(h->m)->iommu), "nic",
			 qemu_nic__name(qemu_conf(h->m)->nic), "mtu",
			 qemu_conf(h->m)->mtu ?
				 json_integer(qemu_conf(h->m)->mtu) :
				 json_null(),
			 "disks", disks);
}

const struct host_ops host_qemu_ops = {
	.name = "qemu",
	.open = qemu_host__open,
	.agent = qemu_host__agent,
	.wait_boot = qemu_host__wait_boot,
	.restart = qemu_host__restart,
	.kernel_files = qemu_host__kernel_files,
	.cpu_ns = qemu_host__cpu_ns,
	.platform = qemu_host__platform,
	.explain = qemu_host__explain,
	.close = qemu_host__close,
};
