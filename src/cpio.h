/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A writer of cpio "newc" archives (the initramfs format the kernel
 * unpacks, Documentation/driver-api/early-userspace/buffer-format.rst),
 * built in memory. Every entry is owned by root with mtime 0, so the
 * same inputs always give the same bytes and the archive can be cached
 * by a hash of what went into it.
 *
 * Names are relative ("bin/busybox"), without "." or ".." components.
 * Functions return 0 or a negative errno.
 */
#ifndef IOMMU_BENCH_CPIO_H
#define IOMMU_BENCH_CPIO_H

#include <stdbool.h>
#include <stddef.h>

struct cpio {
	char *buf;
	size_t len, alloc;
	unsigned int ino; /* the last inode number handed out */
	bool finished;	  /* the trailer is written */
};

void cpio__init(struct cpio *c);
/* A directory; @mode is its permission bits (0755). */
int cpio__add_dir(struct cpio *c, const char *name, unsigned int mode);
/* A regular file holding @len bytes of @data. */
int cpio__add_file(struct cpio *c, const char *name, unsigned int mode,
		   const void *data, size_t len);
/* A regular file holding what the file at @path holds. */
int cpio__add_file_from(struct cpio *c, const char *name, unsigned int mode,
			const char *path);
/* A symbolic link to @target. */
int cpio__add_symlink(struct cpio *c, const char *name, const char *target);
/* The TRAILER!!! entry; nothing can be added after it. */
int cpio__finish(struct cpio *c);
void cpio__release(struct cpio *c);

/* A name the writer accepts (see above), at most 1024 bytes. */
bool cpio__name_is_valid(const char *name);

#endif /* IOMMU_BENCH_CPIO_H */
