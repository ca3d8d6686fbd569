// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the running kernel offers the dma_map workload: the benchmark's
 * driver, debugfs for its file, the layout of its ioctl's struct (read
 * from BTF where the kernel has it), and the ioctl itself.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <linux/magic.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "bench/workload/dma-map-priv.h"
#include "errmsg.h"
#include "kconfig-file.h"
#include "util.h"

/*
 * The members this tool reads or writes, where it has them: the
 * kernel's must be at the same place and of the same size.
 */
#define MEMBER_SIZE(m) sizeof(((struct map_benchmark *)0)->m)
#define FIELD(m)                                                      \
	{                                                             \
		.name = #m, .off = offsetof(struct map_benchmark, m), \
		.size = MEMBER_SIZE(m),                               \
	}
static const struct field {
	const char *name;
	size_t off, size;
} fields[] = {
	FIELD(avg_map_100ns), FIELD(map_stddev), FIELD(avg_unmap_100ns),
	FIELD(unmap_stddev),  FIELD(threads),	 FIELD(seconds),
	FIELD(node),	      FIELD(dma_bits),	 FIELD(dma_dir),
	FIELD(dma_trans_ns),  FIELD(granule),
};
#undef FIELD
#undef MEMBER_SIZE

_Static_assert(sizeof(struct map_benchmark) == DMA_MAP_STRUCT_SIZE,
	       "struct map_benchmark is the kernel's 136 bytes");

/*
 * CONFIG_DMA_MAP_BENCHMARK as the running kernel was built: from
 * /boot/config-RELEASE, else /proc/config.gz. -ENOENT when neither is
 * readable; *@val NULL when the config does not name the option (its
 * dependencies were not met).
 */
static int kernel_config(const char *root, char **val)
{
	char *p = dma_map__path(root, "/proc/sys/kernel/osrelease");
	char *rel = NULL;
	size_t n;
	int ret = -ENOENT;

	if (!read_file(p, &rel, &n)) {
		rel[strcspn(rel, "\n")] = '\0';
		free(p);
		p = NULL;
		if (*rel && !strchr(rel, '/')) {
			p = dma_map__path(root, "/boot/config-%s", rel);
			ret = kconfig_file__value(p, DMA_MAP_CONFIG, val);
		}
	}
	free(p);
	free(rel);
	if (!ret)
		return 0;
	p = dma_map__path(root, "/proc/config.gz");
	ret = kconfig_file__value(p, DMA_MAP_CONFIG, val);
	free(p);
	return ret;
}

/* Why there is no driver, in the words of the kernel's config. */
static int not_built(const char *root, char **err)
{
	char *val = NULL;
	int ret = kernel_config(root, &val);

	if (!ret && (!val || strcmp(val, "y")))
		ret = errmsg__set(err, -EOPNOTSUPP, "%s", DMA_MAP_NOT_BUILT);
	else if (!ret)
		ret = errmsg__set(err, -EOPNOTSUPP,
				  "this kernel was built with "
				  "CONFIG_DMA_MAP_BENCHMARK=y but no driver "
				  "%s is registered (no %s/sys/bus/pci/drivers/"
				  "%s)",
				  DMA_MAP_DRIVER, root, DMA_MAP_DRIVER);
	else
		ret = errmsg__set(
			err, -EOPNOTSUPP,
			"this kernel has no dma_map_benchmark (no "
			"%s/sys/bus/pci/drivers/%s), and no config "
			"(/boot/config-RELEASE, /proc/config.gz) to "
			"say why: it needs CONFIG_DMA_MAP_BENCHMARK=y",
			root, DMA_MAP_DRIVER);
	free(val);
	return ret;
}

/* The benchmark's file is in debugfs, which not every system mounts. */
static int mount_debugfs(char **err)
{
	const char *dir = "/sys/kernel/debug";
	struct statfs sf;

	if (!statfs(dir, &sf) && sf.f_type == DEBUGFS_MAGIC)
		return 0;
	if (mount("debugfs", dir, "debugfs", 0, NULL))
		return errmsg__set(err, -errno,
				   "debugfs is not mounted on %s, where the "
				   "benchmark's file is, and mounting it "
				   "failed: %s",
				   dir, strerror(errno));
	return 0;
}

int dma_map__available(const char *root, char **err)
{
	char *drv =
		dma_map__path(root, "/sys/bus/pci/drivers/%s", DMA_MAP_DRIVER);
	struct stat sb;
	int ret;

	/* Built in only (a bool): registered at boot, or not at all. */
	if (stat(drv, &sb) || !S_ISDIR(sb.st_mode))
		ret = not_built(root, err);
	else
		ret = *root ? 0 : mount_debugfs(err);
	free(drv);
	return ret;
}

static int member_index(const struct btf *btf, const struct btf_type *t,
			const char *name)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), name))
			return i;
	return -1;
}

int dma_map__layout_btf(const struct btf *btf, struct dma_map_layout *l,
			char **err)
{
	const struct btf_type *t;
	long long size, at;
	size_t i;
	int id, k;

	id = btf__find_by_name_kind(btf, "map_benchmark", BTF_KIND_STRUCT);
	if (id < 0)
		return errmsg__set(err, -ENOENT,
				   "struct map_benchmark is not in the "
				   "kernel's BTF");
	t = btf__type_by_id(btf, id);
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		k = member_index(btf, t, fields[i].name);
		if (k < 0)
			return errmsg__set(err, -EPROTO,
					   "the running kernel's struct "
					   "map_benchmark has no member %s",
					   fields[i].name);
		at = btf_member_bit_offset(t, k);
		size = btf__resolve_size(btf, btf_members(t)[k].type);
		if (btf_member_bitfield_size(t, k) || at % 8 ||
		    at / 8 != (long long)fields[i].off ||
		    size != (long long)fields[i].size)
			return errmsg__set(
				err, -EPROTO,
				"the running kernel's struct map_benchmark "
				"has %s at byte %lld, %lld bytes long, where "
				"this tool has it at byte %zu, %zu bytes "
				"long: refused, the kernel would read the "
				"parameters from elsewhere",
				fields[i].name, at / 8, size, fields[i].off,
				fields[i].size);
	}
	if (t->size > DMA_MAP_BUF_SIZE)
		return errmsg__set(err, -EPROTO,
				   "the running kernel's struct map_benchmark "
				   "is %u bytes, more than the %d this tool "
				   "hands it",
				   t->size, DMA_MAP_BUF_SIZE);
	l->size = t->size;
	l->btf = true;
	return 0;
}

static void assume(struct dma_map_layout *l, char *note)
{
	l->size = DMA_MAP_STRUCT_SIZE;
	l->btf = false;
	l->note = note;
}

int dma_map__layout(const char *root, struct dma_map_layout *l, char **err)
{
	char *p = NULL, *e = NULL;
	struct btf *btf;
	int ret;

	memset(l, 0, sizeof(*l));
	if (*root) {
		p = dma_map__path(root, "/sys/kernel/btf/vmlinux");
		errno = ENOENT;
		btf = access(p, R_OK) ? NULL : btf__parse(p, NULL);
	} else {
		btf = btf__load_vmlinux_btf();
	}
	if (!btf) {
		assume(l, xasprintf("the kernel has no BTF (%s)",
				    strerror(errno)));
		free(p);
		return 0;
	}
	ret = dma_map__layout_btf(btf, l, &e);
	if (ret == -ENOENT) {
		assume(l, e);
		e = NULL;
		ret = 0;
	} else if (ret) {
		ret = errmsg__set(err, ret, "%s", e);
	}
	btf__free(btf);
	free(e);
	free(p);
	return ret;
}

void dma_map__layout_release(struct dma_map_layout *l)
{
	free(l->note);
	l->note = NULL;
}

/*
 * The kernel sleeps out the run in msleep_interruptible(): a signal
 * would end it early and the ioctl still succeed, with the numbers of a
 * shorter run. Signals wait until it is over (SIGKILL cannot; the
 * journal covers that).
 */
static int kernel_run(int fd, size_t size, struct map_benchmark *mb,
		      int64_t *ops, char **ops_why)
{
	struct dma_map_loops *loops = NULL;
	unsigned int threads = mb->threads;
	sigset_t all, old;
	int ret;

	*ops = -1;
	dma_map_loops__attach(&loops, ops_why);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	ret = ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, 'd', 1, size), mb);
	ret = ret < 0 ? -errno : 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!ret && loops) {
		*ops = dma_map_loops__read(loops, threads);
		if (*ops < 0)
			*ops_why = xasprintf("only some of the %u threads "
					     "were seen to return",
					     threads);
	}
	dma_map_loops__detach(loops);
	return ret;
}

const struct dma_map_ops dma_map_kernel_ops = {
	.run = kernel_run,
};
