// SPDX-License-Identifier: GPL-2.0-only
/*
 * The part of a VM host that does not depend on who starts the VM: the
 * qemu transport and the lava one had each written it out.
 */
#include <stdlib.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/agent-client/agent-exe.h"
#include "bench/host/host.h"
#include "bench/host/qemu/qemu.h"
#include "errmsg.h"
#include "util.h"

int qemu_vm__lock(struct host *h, struct qemu_vm *vm, const char *kind,
		  char **err)
{
	vm->lock_fd = -1;
	return host__state_dir_lock(h, kind, &vm->dir, &vm->lock_fd, err);
}

int qemu_vm__files(struct host *h, struct qemu_vm *vm, char **err)
{
	char *why = NULL;
	int ret;

	ret = agent_exe__find(qemu_conf(h->m)->arch, &vm->agent, &why);
	if (ret) {
		errmsg__set(err, ret, "host %s: %s", h->m->name, why);
		free(why);
		return ret;
	}
	return qemu__kernels(h, &vm->kernels, err);
}

bool qemu_vm__take_ready(struct qemu_vm *vm, struct agent_conn **out)
{
	if (!vm->ready)
		return false;
	*out = vm->ready;
	vm->ready = NULL;
	return true;
}

void qemu_vm__release(struct host *h, struct qemu_vm *vm)
{
	if (vm->ready)
		agent_conn__close(vm->ready);
	vm->ready = NULL;
	qemu__kernels_free(h, vm->kernels);
	if (vm->lock_fd >= 0 && vm->dir) {
		char *lock = xasprintf("%s/lock", vm->dir);

		/*
		 * Taken with LOCK_NB, so nobody waits on this inode: unlinked
		 * while held, the next run makes its own. The folder goes
		 * only if nothing else is in it (a console kept for a
		 * post-mortem keeps it); else each run left one behind.
		 */
		unlink(lock);
		rmdir(vm->dir);
		free(lock);
	}
	free_all(vm->agent, vm->sock, vm->dir);
	if (vm->lock_fd >= 0)
		close(vm->lock_fd);
}
