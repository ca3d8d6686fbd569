// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checks that span sections: can every SUT boot every kernel and reach
 * every mode the run asks for, with the permissions its host was given?
 * Run only on a matrix whose sections each parsed cleanly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel-target.h"
#include "matrix-priv.h"
#include "util.h"

/*
 * Where the run asks for mode @idx: its entry in [run] modes, else its
 * table, else (a built-in run by default) @fallback.
 */
static struct toml_pos mode_pos(const struct matrix *m, size_t idx,
				struct toml_pos fallback)
{
	const struct toml_value *list = toml_table__get(m->run.src, "modes");
	const struct matrix_mode *md = &m->modes[idx];
	size_t i;

	for (i = 0; list && list->type == TOML_ARRAY && i < list->u.arr.n;
	     i++) {
		const struct toml_value *e = list->u.arr.items[i];

		if (e->type == TOML_STRING && !strcmp(e->u.str.ptr, md->name))
			return e->pos;
	}
	return md->pos.line ? md->pos : fallback;
}

static bool host_has_workload(const struct matrix *m, size_t h)
{
	size_t i;

	for (i = 0; i < m->nr_workloads; i++)
		if (m->workloads[i].server == h || m->workloads[i].client == h)
			return true;
	return false;
}

static const char *boot_reason(const struct matrix_host *h,
			       const struct matrix_mode *md)
{
	if (md->method == METHOD_KEXEC)
		return "method = \"kexec\"";
	if (md->method == METHOD_GRUB)
		return "method = \"grub\"";
	if (md->method == METHOD_REBOOT)
		return "method = \"reboot\"";
	if (md->sysfs_equivalent && h->disk_workload)
		return "a fio or dma_map workload runs there, and a sysfs "
		       "switch would change the NIC's IOMMU group, not its "
		       "device's";
	if (md->sysfs_equivalent && !h->nic)
		return "no nic is set to switch its IOMMU group through sysfs";
	return "its cmdline takes a boot";
}

/* One mode on one SUT. */
static void check_mode(struct mx *mx, const struct matrix_host *h, size_t idx)
{
	const struct matrix *m = mx->m;
	const struct matrix_mode *md = &m->modes[idx];
	enum mode_apply a = matrix__apply(h, md);
	struct toml_pos at = mode_pos(m, idx, h->pos);
	bool boots = a == APPLY_KEXEC || a == APPLY_GRUB ||
		     a == APPLY_RESTART ||
		     (a == APPLY_NONE && md->method == METHOD_AUTO &&
		      md->nr_cmdline);

	if (a == APPLY_SYSFS && h->disk_workload) {
		mx_err(mx, mx_val_pos(md->src, "method", at),
		       "mode '%s' is applied through sysfs, which switches the "
		       "IOMMU group of host '%s''s NIC, but a fio or dma_map "
		       "workload there measures another device; use method "
		       "= \"reboot\"",
		       md->name, h->name);
		return;
	}
	if (a == APPLY_SYSFS && !h->nic) {
		mx_err(mx, h->pos,
		       "mode '%s' is applied through sysfs, but "
		       "host '%s' has no nic (the device whose IOMMU group is "
		       "switched); set nic in [hosts.%s]",
		       md->name, h->name, h->name);
		mx_note(mx, at, "mode '%s' is asked for here", md->name);
		return;
	}
	if (!boots)
		return;
	if (h->transport == HOST_LOCAL) {
		mx_err(mx, h->pos,
		       "mode '%s' needs a reboot (%s), but host "
		       "'%s' is this machine, which the run cannot reboot",
		       md->name, boot_reason(h, md), h->name);
		mx_note(mx, at, "mode '%s' is asked for here", md->name);
	} else if (!h->allow_reboot) {
		mx_err(mx, mx_val_pos(h->src, "allow_reboot", h->pos),
		       "mode '%s' needs a reboot (%s), but host '%s' does not "
		       "allow reboots; set allow_reboot = true in [hosts.%s]",
		       md->name, boot_reason(h, md), h->name, h->name);
		mx_note(mx, at, "mode '%s' is asked for here", md->name);
	} else if (a == APPLY_NONE) {
		mx_err(mx, mx_val_pos(h->src, "reboot", h->pos),
		       "mode '%s' needs a reboot (%s), but host '%s' has "
		       "reboot = \"none\"",
		       md->name, boot_reason(h, md), h->name);
		mx_note(mx, at, "mode '%s' is asked for here", md->name);
	}
}

/*
 * The kernel's arch, where the matrix says it: a package's flavour, a
 * build's arch (the controller's when not given). NULL: not said (an
 * image, whose arch only its bytes tell).
 */
static const struct arch *kernel_arch(const struct matrix_kernel *k)
{
	const char *a;

	if (k->kind == KERNEL_PACKAGE)
		return arch__of_package(k->package);
	if (k->kind != KERNEL_BUILD)
		return NULL;
	a = k->build.arch;
	if (!a)
		return arch__native();
	/* ARCH=x86 builds the 64-bit kernel on a 64-bit machine. */
	return arch__find(!strcmp(a, "x86") ? "x86_64" : a);
}

/* A guest boots only kernels of its own arch. */
static void check_kernel_arch(struct mx *mx, const struct matrix_host *h,
			      const struct matrix_kernel *k, struct toml_pos at)
{
	const struct arch *ka = kernel_arch(k), *ha = matrix_host__arch(h);
	const char *key = k->kind == KERNEL_PACKAGE ? "package" : "build";

	if (!ka || !ha || ka == ha)
		return;
	mx_err(mx, mx_val_pos(k->src, key, at),
	       "kernel '%s' is an %s kernel, but host '%s' is an %s guest; "
	       "set arch = \"%s\" in [hosts.%s.qemu], or give the host a "
	       "kernel of its arch",
	       k->name, ka->name, h->name, ha->name, ka->name, h->name);
}

/* A build for another arch than this machine's needs a cross compiler. */
static void check_cross(struct mx *mx, const struct matrix_kernel *k,
			struct toml_pos at)
{
	const struct arch *ka = kernel_arch(k), *native = arch__native();

	if (k->kind != KERNEL_BUILD || !ka || !native || ka == native ||
	    k->build.cross_compile)
		return;
	mx_err(mx, mx_val_pos(k->src, "build", at),
	       "kernel '%s' is built for %s on this %s machine, which needs "
	       "a cross compiler: cross_compile = \"%s-\" in its build "
	       "(Debian's gcc-%s)",
	       k->name, ka->name, native->name, ka->triplet, ka->triplet);
}

static void check_kernel(struct mx *mx, const struct matrix_host *h,
			 const struct matrix_kernel *k)
{
	struct toml_pos at = k->pos.line ? k->pos : h->pos;

	check_cross(mx, k, at);
	if (matrix_host__is_vm(h)) {
		if (k->kind == KERNEL_RUNNING)
			mx_err(mx, at,
			       "kernel '%s' is the running kernel, but "
			       "host '%s' is a VM the tool boots; give the "
			       "kernel a package, an image or a build",
			       k->name, h->name);
		else if (k->initrd)
			mx_err(mx, mx_val_pos(k->src, "initrd", at),
			       "initrd: host '%s' is a VM that boots the "
			       "testbed's own initramfs (it starts the agent); "
			       "leave initrd out for kernel '%s'",
			       h->name, k->name);
		else
			check_kernel_arch(mx, h, k, at);
		return;
	}
	/* A lab machine installs it with its own dpkg (run-install-pkg.c). */
	if (k->kind == KERNEL_PACKAGE && h->transport != HOST_SSH) {
		mx_err(mx, mx_val_pos(k->src, "package", at),
		       "kernel '%s' is a Debian package, which a qemu host "
		       "boots from the testbed's cache and an ssh host "
		       "installs with its dpkg; host '%s' is neither: install "
		       "it there and give its image",
		       k->name, h->name);
		return;
	}
	if (k->kind == KERNEL_RUNNING)
		return;
	if (h->transport == HOST_LOCAL || h->transport == HOST_NETNS) {
		mx_err(mx, at,
		       "kernel '%s' must be booted, but host '%s' is "
		       "%s; it runs only the running kernel",
		       k->name, h->name,
		       h->transport == HOST_LOCAL ?
			       "this machine" :
			       "a namespace of this machine");
	} else if (!h->allow_reboot) {
		mx_err(mx, mx_val_pos(h->src, "allow_reboot", h->pos),
		       "kernel '%s' must be booted, but host '%s' does not "
		       "allow reboots; set allow_reboot = true in [hosts.%s]",
		       k->name, h->name, h->name);
		mx_note(mx, at, "kernel '%s' is defined here", k->name);
	} else if (h->reboot == REBOOT_NONE) {
		mx_err(mx, mx_val_pos(h->src, "reboot", h->pos),
		       "kernel '%s' must be booted, but host '%s' has reboot = "
		       "\"none\"",
		       k->name, h->name);
		mx_note(mx, at, "kernel '%s' is defined here", k->name);
	}
}

/* Two modes both left to the host would be the same state twice. */
static void check_untouched(struct mx *mx, const struct matrix_host *h)
{
	const struct matrix *m = mx->m;
	long first = -1;
	size_t i;

	for (i = 0; i < m->run.nr_modes; i++) {
		const struct matrix_mode *md = &m->modes[m->run.modes[i]];

		if (md->method != METHOD_NONE)
			continue;
		if (first < 0) {
			first = m->run.modes[i];
			continue;
		}
		mx_err(mx, mode_pos(m, m->run.modes[i], h->pos),
		       "modes '%s' and '%s' "
		       "are both left as host '%s' has them (method \"none\"), "
		       "so the run cannot tell them apart",
		       m->modes[first].name, md->name, h->name);
	}
}

static void check_unused(struct mx *mx)
{
	const struct matrix *m = mx->m;
	size_t i, j;

	for (i = 0; i < m->nr_hosts; i++)
		if (!host_has_workload(m, i))
			mx_warn(mx, m->hosts[i].pos,
				"host '%s' is in no "
				"workload",
				m->hosts[i].name);
	for (i = 0; i < m->nr_modes; i++) {
		if (!m->modes[i].pos.line)
			continue;
		for (j = 0; j < m->run.nr_modes; j++)
			if (m->run.modes[j] == i)
				break;
		if (j == m->run.nr_modes)
			mx_warn(mx, m->modes[i].pos,
				"mode '%s' is defined but "
				"not in [run] modes",
				m->modes[i].name);
	}
}

/* A namespace has no device of its own behind an IOMMU to switch. */
static void check_netns(struct mx *mx, const struct matrix_host *h)
{
	const struct matrix *m = mx->m;
	size_t i;

	for (i = 0; i < m->run.nr_modes; i++) {
		const struct matrix_mode *md = &m->modes[m->run.modes[i]];

		if (md->method == METHOD_NONE)
			continue;
		mx_err(mx, mode_pos(m, m->run.modes[i], h->pos),
		       "mode '%s' cannot run on host '%s': a namespace shares "
		       "this machine's kernel and IOMMU; set modes = "
		       "[\"current\"] in [run]",
		       md->name, h->name);
		return;
	}
}

void matrix__check(struct mx *mx)
{
	const struct matrix *m = mx->m;
	size_t i, j;
	bool sut = false;

	for (i = 0; i < m->nr_hosts; i++) {
		const struct matrix_host *h = &m->hosts[i];

		if (h->role != ROLE_SUT || !host_has_workload(m, i))
			continue;
		sut = true;
		for (j = 0; j < m->nr_kernels; j++)
			check_kernel(mx, h, &m->kernels[j]);
		if (h->transport == HOST_NETNS)
			check_netns(mx, h);
		else
			for (j = 0; j < m->run.nr_modes; j++)
				check_mode(mx, h, m->run.modes[j]);
		check_untouched(mx, h);
	}
	if (!sut && m->nr_workloads)
		mx_err(mx, (struct toml_pos){ 0 },
		       "no workload runs on a host "
		       "with role = \"sut\"");
	check_unused(mx);
}

/*
 * A matrix is often planned before its kernels are built or copied, so
 * missing files are warnings here; the run refuses to start without them.
 */
static void want_file(struct mx *mx, const struct matrix_kernel *k,
		      struct toml_pos at, const char *key, const char *path,
		      bool dir)
{
	struct stat st;

	if (!path)
		return;
	if (stat(path, &st)) {
		mx_warn(mx, at, "kernel '%s': %s '%s': %s", k->name, key, path,
			strerror(errno));
		return;
	}
	if (dir && !S_ISDIR(st.st_mode))
		mx_warn(mx, at, "kernel '%s': %s '%s' is not a folder", k->name,
			key, path);
	else if (!dir && !S_ISREG(st.st_mode))
		mx_warn(mx, at, "kernel '%s': %s '%s' is not a file", k->name,
			key, path);
	else if (access(path, R_OK))
		mx_warn(mx, at, "kernel '%s': %s '%s' is not readable", k->name,
			key, path);
}

/* Position of the @i-th string of array @key, for per-file messages. */
static struct toml_pos item_pos(const struct toml_value *tab, const char *key,
				size_t i, struct toml_pos fallback)
{
	const struct toml_value *v = toml_table__get(tab, key);

	if (!v || v->type != TOML_ARRAY || i >= v->u.arr.n)
		return fallback;
	return v->u.arr.items[i]->pos;
}

void matrix__check_files(struct mx *mx)
{
	const struct matrix *m = mx->m;
	size_t i, j;

	for (i = 0; i < m->nr_kernels; i++) {
		const struct matrix_kernel *k = &m->kernels[i];
		const struct matrix_build *b = &k->build;
		const struct toml_value *bt = toml_table__get(k->src, "build");
		struct toml_pos bpos = bt ? bt->pos : k->pos;

		want_file(mx, k, mx_val_pos(k->src, "image", k->pos), "image",
			  k->image, false);
		want_file(mx, k, mx_val_pos(k->src, "initrd", k->pos), "initrd",
			  k->initrd, false);
		want_file(mx, k, mx_val_pos(bt, "tree", bpos), "tree", b->tree,
			  true);
		if (!b->config || !kernel_target__is_config(b->config))
			want_file(mx, k, mx_val_pos(bt, "config", bpos),
				  "config", b->config, false);
		for (j = 0; j < b->nr_patches; j++)
			want_file(mx, k, item_pos(bt, "patches", j, bpos),
				  "patch", b->patches[j], false);
		for (j = 0; j < b->nr_fragments; j++)
			want_file(mx, k, item_pos(bt, "fragments", j, bpos),
				  "fragment", b->fragments[j], false);
	}
}
