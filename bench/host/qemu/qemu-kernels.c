// SPDX-License-Identifier: GPL-2.0-only
/*
 * A VM's kernels as files QEMU boots: shared by the testbed's QEMU and a
 * LAVA job's, which boot the same image and initramfs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/qemu/qemu.h"
#include "bench/testbed/testbed.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

int qemu__kernel_check(const struct matrix_host *m,
		       const struct matrix_kernel *k, char **err)
{
	if (qemu_conf(m)->iommu != QEMU_IOMMU_VIRTIO ||
	    k->kind != KERNEL_PACKAGE ||
	    testbed__kernel_option(k->package, "CONFIG_VIRTIO_IOMMU") != 'n')
		return 0;
	return errmsg__set(err, -EOPNOTSUPP,
			   "host %s: kernel '%s' (%s) has no virtio-iommu "
			   "driver: CONFIG_VIRTIO_IOMMU is not set in its "
			   "config (Debian builds it, as a module, from 6.12)",
			   m->name, k->name, k->package);
}

/* Package kernels come from the testbed cache, images get its initrd. */
int qemu__kernels(const struct host *h, struct qemu_kernel **out, char **err)
{
	const struct matrix *m = h->matrix;
	struct strvec mods = { 0 };
	size_t i;
	int ret = 0;

	qemu__guest_modules(h->m, &mods);
	struct qemu_kernel *kernels = xcalloc(m->nr_kernels, sizeof(*kernels));

	*out = kernels;
	for (i = 0; i < m->nr_kernels && !ret; i++) {
		const struct matrix_kernel *k = &m->kernels[i];
		struct qemu_kernel *q = &kernels[i];
		struct testbed_kernel tk = { 0 };
		char *why = NULL;

		ret = qemu__kernel_check(h->m, k, err);
		if (ret)
			break;
		switch (k->kind) {
		case KERNEL_PACKAGE:
			/* What `run` fetched, not what the suite has now. */
			ret = testbed__kernel_with(
				k->fetched ? k->fetched : k->package, k->suite,
				strvec__argv(&mods), &tk, &why);
			if (!ret) {
				q->image = xstrdup(tk.image);
				q->initrd = xstrdup(tk.initrd);
			}
			testbed_kernel__release(&tk);
			break;
		case KERNEL_IMAGE:
			/* Drivers built in: the base initramfs serves. */
			ret = testbed__initrd(qemu_conf(h->m)->arch, NULL,
					      k->release, &q->initrd, &why);
			if (!ret)
				q->image = xstrdup(k->image);
			break;
		case KERNEL_BUILD:
			/* `run` built it already; its modules, if any,
			 * go into the initramfs. */
			if (!k->image)
				break;
			ret = testbed__initrd_get(
				qemu_conf(h->m)->arch, k->modules_dir,
				strvec__argv(&mods), k->built_config,
				k->release, false, &q->initrd, NULL, &why);
			if (!ret)
				q->image = xstrdup(k->image);
			break;
		case KERNEL_RUNNING:
			/* The matrix refuses a running kernel on a VM. */
			break;
		}
		if (ret)
			errmsg__set(err, ret, "host %s: kernel '%s': %s",
				    h->m->name, k->name,
				    why ? why : strerror(-ret));
		free(why);
	}
	strvec__release(&mods);
	return ret;
}

void qemu__kernels_free(const struct host *h, struct qemu_kernel *kernels)
{
	size_t i;

	for (i = 0; kernels && i < h->matrix->nr_kernels; i++) {
		free(kernels[i].image);
		free(kernels[i].initrd);
	}
	free(kernels);
}
