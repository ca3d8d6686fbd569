// SPDX-License-Identifier: GPL-2.0-only
/*
 * The GNU build-id of a vmlinux, read by hand. The build id is what a
 * booted host reports in /sys/kernel/notes and what perf keys its
 * symbols on, so it is the proof that a host booted this build; reading
 * it needs a few headers, not a library, and works for a cross-built
 * (other byte order, other class) image as well.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/kbuild/kbuild.h"
#include "util.h"

/* Notes are small; a bigger one is a corrupt file, not a build id. */
#define NOTES_MAX (1u << 20)

struct elf_file {
	int fd;
	off_t size;
	bool is64, swap;
};

static uint16_t get16(const struct elf_file *e, const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap16(v) : v;
}

static uint32_t get32(const struct elf_file *e, const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const struct elf_file *e, const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return e->swap ? __builtin_bswap64(v) : v;
}

static uint64_t getaddr(const struct elf_file *e, const void *p)
{
	return e->is64 ? get64(e, p) : get32(e, p);
}

static int read_at(const struct elf_file *e, void *buf, size_t len,
		   uint64_t off)
{
	ssize_t n;

	if (off > (uint64_t)e->size || len > (uint64_t)e->size - off)
		return -ENOEXEC;
	n = pread(e->fd, buf, len, off);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -ENOEXEC;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Look through the notes at @off for NT_GNU_BUILD_ID "GNU". */
static int scan_notes(const struct elf_file *e, uint64_t off, uint64_t size,
		      char **hex)
{
	size_t pos = 0, i;
	uint8_t *buf;
	int ret;

	if (size > NOTES_MAX)
		return -ENOENT;
	buf = xmalloc(size ? size : 1);
	ret = read_at(e, buf, size, off);
	if (ret)
		goto out;
	ret = -ENOENT;
	while (pos + 12 <= size) {
		uint32_t namesz = get32(e, buf + pos);
		uint32_t descsz = get32(e, buf + pos + 4);
		uint32_t type = get32(e, buf + pos + 8);
		size_t name_at = pos + 12;
		size_t desc_at = name_at + align4(namesz);

		if (namesz > size || descsz > size || desc_at > size ||
		    descsz > size - desc_at)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(buf + name_at, "GNU", 4) && descsz) {
			*hex = xmalloc(2 * descsz + 1);
			for (i = 0; i < descsz; i++)
				snprintf(*hex + 2 * i, 3, "%02x",
					 buf[desc_at + i]);
			ret = 0;
			break;
		}
		pos = desc_at + align4(descsz);
	}
out:
	free(buf);
	return ret;
}

/* Every SHT_NOTE section; -ENOENT when none holds a build id. */
static int from_sections(const struct elf_file *e, const uint8_t *ehdr,
			 char **hex)
{
	uint64_t shoff = getaddr(e, ehdr + (e->is64 ? 0x28 : 0x20));
	uint16_t shentsize = get16(e, ehdr + (e->is64 ? 0x3a : 0x2e));
	uint16_t shnum = get16(e, ehdr + (e->is64 ? 0x3c : 0x30));
	size_t want = e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint8_t sh[sizeof(Elf64_Shdr)];
	int i, ret;

	if (!shoff || shentsize < want)
		return -ENOENT;
	for (i = 0; i < shnum; i++) {
		ret = read_at(e, sh, want, shoff + (uint64_t)i * shentsize);
		if (ret)
			return ret;
		if (get32(e, sh + 4) != SHT_NOTE)
			continue;
		ret = scan_notes(e, getaddr(e, sh + (e->is64 ? 0x18 : 0x10)),
				 getaddr(e, sh + (e->is64 ? 0x20 : 0x14)), hex);
		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

/* Every PT_NOTE segment, for files stripped of their section headers. */
static int from_segments(const struct elf_file *e, const uint8_t *ehdr,
			 char **hex)
{
	uint64_t phoff = getaddr(e, ehdr + (e->is64 ? 0x20 : 0x1c));
	uint16_t phentsize = get16(e, ehdr + (e->is64 ? 0x36 : 0x2a));
	uint16_t phnum = get16(e, ehdr + (e->is64 ? 0x38 : 0x2c));
	size_t want = e->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	uint8_t ph[sizeof(Elf64_Phdr)];
	int i, ret;

	if (!phoff || phentsize < want)
		return -ENOENT;
	for (i = 0; i < phnum; i++) {
		ret = read_at(e, ph, want, phoff + (uint64_t)i * phentsize);
		if (ret)
			return ret;
		if (get32(e, ph) != PT_NOTE)
			continue;
		ret = scan_notes(e, getaddr(e, ph + (e->is64 ? 0x08 : 0x04)),
				 getaddr(e, ph + (e->is64 ? 0x20 : 0x10)), hex);
		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

int kbuild__elf_build_id(const char *path, char **hex)
{
	struct elf_file e = { .fd = -1 };
	uint8_t ehdr[sizeof(Elf64_Ehdr)];
	struct stat sb;
	int ret;

	e.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e.fd < 0)
		return -errno;
	if (fstat(e.fd, &sb)) {
		ret = -errno;
		goto out;
	}
	e.size = sb.st_size;
	ret = read_at(&e, ehdr, EI_NIDENT, 0);
	if (ret)
		goto out;
	ret = -ENOEXEC;
	if (memcmp(ehdr, ELFMAG, SELFMAG) ||
	    (ehdr[EI_CLASS] != ELFCLASS32 && ehdr[EI_CLASS] != ELFCLASS64) ||
	    (ehdr[EI_DATA] != ELFDATA2LSB && ehdr[EI_DATA] != ELFDATA2MSB))
		goto out;
	e.is64 = ehdr[EI_CLASS] == ELFCLASS64;
	e.swap = (ehdr[EI_DATA] == ELFDATA2LSB) !=
		 (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
	ret = read_at(&e, ehdr,
		      e.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr), 0);
	if (ret)
		goto out;
	ret = from_sections(&e, ehdr, hex);
	if (ret == -ENOENT)
		ret = from_segments(&e, ehdr, hex);
out:
	close(e.fd);
	return ret;
}
