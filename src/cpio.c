// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpio "newc": a 110-byte ASCII header ("070701" and thirteen 8-digit hex
 * fields), the name with its NUL, padding to 4 bytes, the data, padding
 * to 4 bytes. The kernel's unpacker and GNU cpio both read it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpio.h"
#include "util.h"

#define CPIO_HEADER_SIZE 110
#define CPIO_NAME_MAX 1024
#define CPIO_BLOCK 512

void cpio__init(struct cpio *c)
{
	memset(c, 0, sizeof(*c));
}

void cpio__release(struct cpio *c)
{
	free(c->buf);
	cpio__init(c);
}

bool cpio__name_is_valid(const char *name)
{
	const char *p = name, *end;
	size_t len = strlen(name);

	if (!len || len > CPIO_NAME_MAX || name[0] == '/')
		return false;
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	/* "a//b", "a/", "./a" or "a/../b" could land outside the root. */
	for (p = name; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '/');
		if (end == p || (end - p == 1 && p[0] == '.') ||
		    (end - p == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (*end && !end[1])
			return false;
	}
	return true;
}

static void put(struct cpio *c, const void *data, size_t len)
{
	ALLOC_GROW(c->buf, c->len + len, c->alloc);
	memcpy(c->buf + c->len, data, len);
	c->len += len;
}

static void pad4(struct cpio *c)
{
	static const char zeros[4];

	put(c, zeros, (4 - c->len % 4) % 4);
}

static int add(struct cpio *c, const char *name, unsigned int mode,
	       unsigned int nlink, const void *data, size_t len)
{
	char hdr[CPIO_HEADER_SIZE + 1];
	unsigned int ino;
	size_t namesize = strlen(name) + 1;

	if (c->finished)
		return -EINVAL;
	/* The size field has 8 hex digits. */
	if ((uint64_t)len > UINT32_MAX)
		return -EFBIG;
	ino = strcmp(name, "TRAILER!!!") ? ++c->ino : 0;
	/* ino mode uid gid nlink mtime size maj min rmaj rmin namesize check */
	snprintf(hdr, sizeof(hdr),
		 "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ino & 0xffffffffu, mode & 0xffffu, 0u, 0u, nlink & 0xffu, 0u,
		 (unsigned int)len, 0u, 0u, 0u, 0u,
		 (unsigned int)namesize & 0xfffu, 0u);
	put(c, hdr, CPIO_HEADER_SIZE);
	put(c, name, namesize);
	pad4(c);
	if (len)
		put(c, data, len);
	pad4(c);
	return 0;
}

int cpio__add_dir(struct cpio *c, const char *name, unsigned int mode)
{
	if (!cpio__name_is_valid(name))
		return -EINVAL;
	return add(c, name, S_IFDIR | (mode & 07777), 2, NULL, 0);
}

int cpio__add_file(struct cpio *c, const char *name, unsigned int mode,
		   const void *data, size_t len)
{
	if (!cpio__name_is_valid(name))
		return -EINVAL;
	return add(c, name, S_IFREG | (mode & 07777), 1, data, len);
}

int cpio__add_file_from(struct cpio *c, const char *name, unsigned int mode,
			const char *path)
{
	size_t len;
	char *data;
	int err;

	if (!cpio__name_is_valid(name))
		return -EINVAL;
	err = read_file(path, &data, &len);
	if (err)
		return err;
	err = add(c, name, S_IFREG | (mode & 07777), 1, data, len);
	free(data);
	return err;
}

int cpio__add_symlink(struct cpio *c, const char *name, const char *target)
{
	if (!cpio__name_is_valid(name) || !*target)
		return -EINVAL;
	/* The target is the data, without its NUL. */
	return add(c, name, S_IFLNK | 0777, 1, target, strlen(target));
}

int cpio__finish(struct cpio *c)
{
	int err;

	static const char zeros[CPIO_BLOCK];

	err = add(c, "TRAILER!!!", 0, 1, NULL, 0);
	if (err)
		return err;
	/*
	 * Whole blocks, as cpio -o writes them: the kernel skips the zeros
	 * between concatenated archives, and `cpio -i` run once per archive
	 * on one descriptor then finds each where the last one ended.
	 */
	put(c, zeros, (CPIO_BLOCK - c->len % CPIO_BLOCK) % CPIO_BLOCK);
	c->finished = true;
	return 0;
}
