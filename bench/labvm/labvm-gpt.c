// SPDX-License-Identifier: GPL-2.0-only
/*
 * A UEFI image's disk made as a file, without a loop device or a mount
 * (the unpack route needs neither, and a killed build leaves none):
 * the GPT by sfdisk, the ESP by mkfs.fat at its offset, the root by
 * mkfs.ext4 at its offset filled from the unpacked folder (-d).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/labvm/labvm-priv.h"
#include "errmsg.h"
#include "util.h"

#define SECTOR 512ULL
/* 1 MiB: sfdisk's and every partitioner's alignment. */
#define ALIGN_SECTORS 2048ULL
/* The backup GPT: 32 sectors of entries and its header at the end. */
#define BACKUP_SECTORS 33ULL
#define MKFS_TIMEOUT_MS (10 * 60 * 1000)
#define CMD_TIMEOUT_MS 120000

int labvm_gpt__layout(unsigned long long disk_bytes, unsigned int esp_mib,
		      struct labvm_gpt *g)
{
	unsigned long long total = disk_bytes / SECTOR, end;

	memset(g, 0, sizeof(*g));
	g->esp_start = ALIGN_SECTORS;
	g->esp_sectors = (unsigned long long)esp_mib * (1048576 / SECTOR);
	g->root_start = g->esp_start + g->esp_sectors;
	g->root_start = (g->root_start + ALIGN_SECTORS - 1) / ALIGN_SECTORS *
			ALIGN_SECTORS;
	/* The first sector after the last usable one, aligned down. */
	if (total < BACKUP_SECTORS + 1)
		return -EINVAL;
	end = (total - BACKUP_SECTORS) / ALIGN_SECTORS * ALIGN_SECTORS;
	if (!esp_mib || end <= g->root_start ||
	    end - g->root_start < ALIGN_SECTORS)
		return -EINVAL;
	g->root_sectors = end - g->root_start;
	return 0;
}

char *labvm_gpt__script(const struct labvm_gpt *g)
{
	/* U: the EFI system partition; L: Linux's file system. */
	return xasprintf("label: gpt\n"
			 "start=%llu, size=%llu, type=U, name=ESP\n"
			 "start=%llu, size=%llu, type=L, name=root\n",
			 g->esp_start, g->esp_sectors, g->root_start,
			 g->root_sectors);
}

int labvm_gpt__make(struct labvm_build *b, const struct labvm_recipe *r,
		    const char *path, const struct labvm_gpt *g,
		    const char *root, const char *root_uuid, const char *esp_id,
		    char **err)
{
	char *script = labvm_gpt__script(g), *offset, *blocks, *eopt, *size;
	int fd, ret;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)r->size_mib << 20)) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		free(script);
		return errmsg__set(err, ret, "cannot make the disk %s: %s",
				   path, strerror(-ret));
	}
	close(fd);
	/* sfdisk reads its script on stdin: data, never a command line. */
	ret = labvm_build__run(
		b, (const char *const[]){ "sfdisk", "-q", path, NULL },
		CMD_TIMEOUT_MS, script, err);
	free(script);
	if (ret)
		return ret;
	/*
	 * One sector a cluster: FAT32 wants 65525 clusters at least, and
	 * with mkfs.fat's default for 200 MiB it has fewer, which EDK2
	 * (and mtools) then take for no file system at all.
	 */
	offset = xasprintf("--offset=%llu", g->esp_start);
	blocks = xasprintf("%llu", g->esp_sectors * SECTOR / 1024);
	ret = labvm_build__run(b,
			       (const char *const[]){ "mkfs.fat", "-F", "32",
						      "-s", "1", "-n", "ESP",
						      "-i", esp_id, offset,
						      path, blocks, NULL },
			       CMD_TIMEOUT_MS, NULL, err);
	free_all(offset, blocks);
	if (ret)
		return ret;
	eopt = xasprintf("offset=%llu", g->root_start * SECTOR);
	size = xasprintf("%lluk", g->root_sectors * SECTOR / 1024);
	ret = labvm_build__run(
		b,
		(const char *const[]){ "mkfs.ext4", "-q", "-F", "-L", "labroot",
				       "-U", root_uuid, "-E", eopt, "-d", root,
				       path, size, NULL },
		MKFS_TIMEOUT_MS, NULL, err);
	free_all(eopt, size);
	return ret;
}
