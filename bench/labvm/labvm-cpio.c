// SPDX-License-Identifier: GPL-2.0-only
/*
 * A newc cpio archive in memory, what the kernel unpacks as an
 * initramfs: the stage-2 boot's is a handful of files, written here
 * rather than by cpio(1) from a folder made for it. Uncompressed: the
 * kernel takes it so, and it is a few MiB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/labvm/labvm-priv.h"
#include "util.h"

#define NEWC_HEADER 110

static void put(struct labvm_cpio *c, const void *data, size_t size)
{
	ALLOC_GROW(c->buf, c->len + size + 1, c->alloc);
	memcpy(c->buf + c->len, data, size);
	c->len += size;
}

static void pad4(struct labvm_cpio *c)
{
	static const char zero[4];

	put(c, zero, (4 - c->len % 4) % 4);
}

void labvm_cpio__add(struct labvm_cpio *c, const char *name, unsigned int mode,
		     unsigned int rdev_major, unsigned int rdev_minor,
		     const void *data, size_t size)
{
	char hdr[NEWC_HEADER + 1];
	size_t namesize = strlen(name) + 1;

	/* Magic, then ino mode uid gid nlink mtime filesize devmajor
	 * devminor rdevmajor rdevminor namesize check, 8 hex digits each. */
	snprintf(hdr, sizeof(hdr),
		 "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ++c->ino, mode, 0, 0, (mode & 0170000) == 0040000 ? 2 : 1, 0,
		 (unsigned int)size, 0, 0, rdev_major, rdev_minor,
		 (unsigned int)namesize, 0);
	put(c, hdr, NEWC_HEADER);
	put(c, name, namesize);
	pad4(c);
	if (size) {
		put(c, data, size);
		pad4(c);
	}
}

void labvm_cpio__finish(struct labvm_cpio *c)
{
	labvm_cpio__add(c, "TRAILER!!!", 0, 0, 0, NULL, 0);
}

void labvm_cpio__release(struct labvm_cpio *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}
