/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A host of the matrix, as the orchestrator drives it: a transport (one
 * ops table per kind) that starts the agent there and hands back a
 * connection speaking bench/agent/agent-proto.h. Reboots are the agent's
 * verbs plus waiting for a new boot_id through the transport.
 */
#ifndef IOMMU_BENCH_HOST_H
#define IOMMU_BENCH_HOST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/matrix/matrix.h"

struct host;

/* wait_boot(): the boot hung, and a power cycle brought the host back. */
#define HOST_BOOT_RECOVERED 1

struct host_ops {
	const char *name; /* as [hosts.X] transport says */
	/*
	 * Make the host usable: netns creates its namespace and veth end
	 * (the pair is made once for both linked hosts), ssh opens its
	 * ControlMaster and installs the agent when missing or stale.
	 * Like every op that can fail, a negative errno and *@err, a
	 * sentence naming the host that the caller prints or stores.
	 */
	int (*open)(struct host *h, char **err);
	/* Start `iommu-bench agent serve` there. */
	int (*agent)(struct host *h, struct agent_conn **out, char **err);
	/*
	 * The host is gone (rebooting): wait until the agent answers hello
	 * again, with a boot_id other than @old_boot_id, within @timeout_ms;
	 * or a negative errno and *@err with what was seen last. A host
	 * that was back only after its power cycle is HOST_BOOT_RECOVERED,
	 * with *@err saying so: it runs its default boot, not the one asked
	 * for, and the boot asked for failed.
	 */
	int (*wait_boot)(struct host *h, const char *old_boot_id,
			 uint64_t timeout_ms, char **err);
	/*
	 * Boot kernel @k with the extra arguments @args (the kernel's and
	 * the mode's) in place of whatever runs: only for transports that
	 * start the machine themselves (qemu), NULL for those that reboot
	 * through the agent (reboot.prepare, reboot.now, wait_boot). Also
	 * the first boot: such a host has no agent until it is booted. A
	 * qemu host with reboot = "kexec" is restarted only when it has no
	 * VM; its other boots go through the agent like a lab host's.
	 * 0 once the agent answers on the new boot, which the next agent()
	 * hands out; or a negative errno and *@err with the evidence:
	 * -ENOLINK when the host came up but its mate did not (a LAVA
	 * multinode job's peer device), which no other cmdline mends.
	 */
	int (*restart)(struct host *h, const struct matrix_kernel *k,
		       const char *const *args, size_t nr_args, char **err);
	/*
	 * The controller's files that boot @k on this host, for a host
	 * that is sent its kernels (the testbed's image and initramfs);
	 * NULL op: the kernel's own image, and the host makes the initrd.
	 */
	int (*kernel_files)(struct host *h, const struct matrix_kernel *k,
			    const char **image, const char **initrd);
	/*
	 * The CPU time the machine has used so far, in ns, where the
	 * controller can see it (a VM: its QEMU process, every thread);
	 * NULL op where it cannot. Read around a workload: a guest's own
	 * clock cannot tell work from waiting for a host CPU, so under
	 * emulation on a busy host this is the steadier measure of cost.
	 */
	int (*cpu_ns)(struct host *h, uint64_t *ns);
	/*
	 * What the controller knows of the machine and its agent cannot
	 * see from inside: for a VM, its emulator, machine, accelerator
	 * and vIOMMU ({"emulator", "machine", "cpu", "accel", "viommu"}),
	 * stored with each boot's facts as "testbed". NULL op: nothing.
	 */
	json_t *(*platform)(struct host *h);
	/*
	 * What the controller itself sees of a machine whose agent gave no
	 * answer: for a VM, whether its emulator still runs and the last
	 * lines of its console. A new string, or NULL (NULL op: nothing).
	 */
	char *(*explain)(struct host *h);
	/* Undo open(): namespaces and veths removed, masters closed. */
	void (*close)(struct host *h);
};

/*
 * A job a transport submitted to a lab. A run killed and resumed must
 * find its jobs again (to adopt the one still booted for it, to cancel
 * the others), so the transport reports each job's life to the run,
 * which keeps it where it keeps everything else: a transport never
 * writes the store itself.
 */
struct host_job {
	char *server; /* the lab's URL */
	int64_t id;
	char *sha256; /* of the job's definition */
	char *kernel, *cmdline;
	char *state;  /* "submitted", "running", "ended" */
	char *health; /* the lab's word at the end; NULL: not known */
	char *device, *error;
	/* Only in what jobs_open() hands back: */
	int64_t run_id; /* the run that submitted it */
	bool this_run;	/* that run is this one (resumed) */
};

/* The run's end of host_job: each op 0 or a negative errno. */
struct host_jobs_ops {
	/* Job @j of host @h was just submitted; its state "submitted". */
	int (*add)(void *arg, const struct host *h, const struct host_job *j);
	/* Job @j->id of @j->server is now @j->state (health, device, error). */
	int (*set)(void *arg, const struct host_job *j);
	/*
	 * The jobs of host @h not known to have ended, this run's first:
	 * *@nr of them in *@out, freed with host_jobs__free().
	 */
	int (*open)(void *arg, const struct host *h, struct host_job **out,
		    size_t *nr);
};

void host_jobs__free(struct host_job *v, size_t nr);

struct host {
	const struct host_ops *ops;
	/* Where the run keeps a lab's jobs; NULL: nothing is kept. */
	const struct host_jobs_ops *jobs;
	void *jobs_arg;
	/* Non-zero once the run was asked to stop (SIGINT, SIGTERM). */
	int (*interrupted)(void);
	/* The run's progress, for what a slow step is waiting on. */
	void (*say)(void *arg, const char *msg);
	void *say_arg;
	const struct matrix_host *m; /* its [hosts.NAME] table */
	const struct matrix *matrix;
	/*
	 * The host booted with this one (m->has_mate: a LAVA multinode
	 * job's other role); NULL: none. A SUT's restart boots both.
	 */
	struct host *mate;
	char *state_dir; /* e.g. ControlPath sockets */
	void *priv;	 /* the transport's own */
};

extern const struct host_ops host_local_ops;
extern const struct host_ops host_netns_ops;
extern const struct host_ops host_ssh_ops;
extern const struct host_ops host_qemu_ops;
extern const struct host_ops host_lava_ops;

/* A line of progress: the run's when it listens, else the log's. */
void host__say(const struct host *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The ops for a transport. */
const struct host_ops *host_ops__find(enum host_transport t);

/*
 * The binary an agent runs: $IOMMU_BENCH when set (the binary under
 * test; a unit test's own /proc/self/exe has no agent), else this
 * process's executable.
 */
const char *host__self_exe(void);
/*
 * @h->state_dir/@sub (default /run/iommu-bench/@sub), created 0700.
 * 0 and a new string in *@out, or a negative errno and *@err.
 */
int host__state_dir(struct host *h, const char *sub, char **out, char **err);
/*
 * The state folder of a VM-like host, @kind-NAME under the above, held
 * for this run alone: two runs with a host of one name would share its
 * sockets. 0 with *@dir and the lock's *@lock_fd (closed at the host's
 * close), -EBUSY when another run holds it, or a negative errno; each
 * failure with its words in *@err.
 */
int host__state_dir_lock(struct host *h, const char *kind, char **dir,
			 int *lock_fd, char **err);

#endif /* IOMMU_BENCH_HOST_H */
