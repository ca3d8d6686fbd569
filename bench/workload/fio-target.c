// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which block device a fio workload runs on, and whether it may: the
 * device is found by its serial number (the testbed's disks, whose
 * /dev name depends on probe order) or named by path (an ssh host's
 * disks), and a write is refused where it would destroy something.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/workload/blockdev-use.h"
#include "bench/workload/fio.h"
#include "errmsg.h"
#include "util.h"

/* Whitespace off both ends, in place (NVMe pads its serial with spaces). */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* /sys/block/@name's serial: its own file (virtio) or its device's. */
static bool serial_is(const char *name, const char *serial)
{
	static const char *const where[] = { "/sys/block/%s/serial",
					     "/sys/block/%s/device/serial" };
	char path[300], *buf;
	size_t i, len;
	bool match = false;

	for (i = 0; i < ARRAY_SIZE(where) && !match; i++) {
		snprintf(path, sizeof(path), where[i], name);
		if (read_file(path, &buf, &len) < 0)
			continue;
		match = !strcmp(trim(buf), serial);
		free(buf);
	}
	return match;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_serial(const char *serial, char **dev, char **err)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0, i;
	int ret = -ENODEV;

	if (!d) {
		ret = -errno;
		return errmsg__set(err, ret, "cannot list /sys/block: %s",
				   strerror(-ret));
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !name_is_safe(de->d_name))
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	/* nvme0n1 before nvme0n2: the first namespace of the controller. */
	qsort(names, nr, sizeof(*names), cmp_names);
	for (i = 0; i < nr; i++) {
		if (ret && serial_is(names[i], serial)) {
			*dev = xasprintf("/dev/%s", names[i]);
			ret = 0;
		}
		free(names[i]);
	}
	free(names);
	if (ret)
		errmsg__set(err, 0,
			    "no block device has the serial number '%s' "
			    "(looked in /sys/block/*/serial and "
			    "*/device/serial)",
			    serial);
	return ret;
}

int fio__resolve(const char *serial, const char *path, char **dev, char **err)
{
	struct stat st;

	*dev = NULL;
	errmsg__reset(err);
	if (serial)
		return by_serial(serial, dev, err);
	if (!path || strncmp(path, "/dev/", 5) || strstr(path, ".."))
		return errmsg__set(err, -EINVAL,
				   "'%s' is not a device under /dev",
				   path ? path : "(none)");
	if (stat(path, &st)) {
		int ret = -errno;

		return errmsg__set(err, ret, "%s: %s", path, strerror(-ret));
	}
	if (!S_ISBLK(st.st_mode))
		return errmsg__set(err, -ENOTBLK, "%s is not a block device",
				   path);
	*dev = xstrdup(path);
	return 0;
}

/* Entries of a folder, "." and ".." aside; -1 when it cannot be read. */
static int entries(const char *path, const char *prefix, char *first,
		   size_t size)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (prefix && !blockdev__is_partition_of(de->d_name, prefix))
			continue;
		if (!n++ && first)
			snprintf(first, size, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

/* What the first sectors say the device holds; NULL: nothing known. */
static const char *signature(const char *device)
{
	static const struct {
		size_t off;
		const char *magic;
		size_t len;
		const char *what;
	} sigs[] = {
		{ 512, "EFI PART", 8, "a GPT partition table" },
		{ 510, "\x55\xaa", 2,
		  "an MBR (boot sector or partition table)" },
		{ 1080, "\x53\xef", 2, "an ext2/3/4 file system" },
		{ 0, "XFSB", 4, "an XFS file system" },
		{ 512, "LABELONE", 8, "an LVM physical volume" },
		{ 4086, "SWAPSPACE2", 10, "a swap area" },
		{ 0, NULL, 0, NULL },
	};
	unsigned char buf[4096];
	ssize_t n;
	size_t i;
	int fd;

	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	for (i = 0; n > 0 && sigs[i].what; i++)
		if (sigs[i].off + sigs[i].len <= (size_t)n &&
		    !memcmp(buf + sigs[i].off, sigs[i].magic, sigs[i].len))
			return sigs[i].what;
	return NULL;
}

int fio__check_target(const struct fio_opts *o, const char *root, char **err)
{
	const char *name = strrchr(o->device, '/');
	bool writes = strstr(o->rw, "write") || !strcmp(o->rw, "randrw");
	char why[512], path[300], first[256] = "";
	const char *sig;
	int n;

	errmsg__reset(err);
	root = root ? root : "";
	name = name ? name + 1 : o->device;
	if (!writes)
		return 0;
	if (blockdev__in_use(root, name, why, sizeof(why)))
		return errmsg__set(err, -EPERM, "refusing to write to %s: %s",
				   o->device, why);
	if (o->destructive)
		return 0;
	snprintf(path, sizeof(path), "%s/sys/block/%s", root, name);
	n = entries(path, name, first, sizeof(first));
	if (n > 0)
		return errmsg__set(err, -EPERM,
				   "refusing to write to %s: it holds %d "
				   "partition%s (%s); set destructive = true "
				   "in the workload to overwrite it",
				   o->device, n, n == 1 ? "" : "s", first);
	sig = signature(o->device);
	if (sig)
		return errmsg__set(err, -EPERM,
				   "refusing to write to %s: it holds %s; set "
				   "destructive = true in the workload to "
				   "overwrite it",
				   o->device, sig);
	return 0;
}
