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
#include <stddef.h>
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

/*
 * Where the notes are listed: the section headers, or the program
 * headers of a file stripped of its sections. Each field's offset for
 * ELF64 [0] and ELF32 [1], in the file header and in one entry.
 */
struct note_table {
	size_t off[2], entsize[2], num[2];	/* in the file header */
	size_t size[2], type[2], at[2], len[2]; /* in an entry */
	uint32_t note; /* the type of an entry of notes */
};

#define NOTE_FIELD(t64, t32, f)                    \
	{                                          \
		offsetof(t64, f), offsetof(t32, f) \
	}

/*
 * The header table @t ("sh" or "ph": e_shoff, e_phnum...) of @hdr
 * entries (Shdr, Phdr) in both classes, and the fields of an entry.
 */
#define NOTE_TABLE(t, hdr, type_f, at_f, len_f, note_type)                     \
	{                                                                      \
		.off = NOTE_FIELD(Elf64_Ehdr, Elf32_Ehdr, e_##t##off),         \
		.entsize = NOTE_FIELD(Elf64_Ehdr, Elf32_Ehdr, e_##t##entsize), \
		.num = NOTE_FIELD(Elf64_Ehdr, Elf32_Ehdr, e_##t##num),         \
		.size = { sizeof(Elf64_##hdr), sizeof(Elf32_##hdr) },          \
		.type = NOTE_FIELD(Elf64_##hdr, Elf32_##hdr, type_f),          \
		.at = NOTE_FIELD(Elf64_##hdr, Elf32_##hdr, at_f),              \
		.len = NOTE_FIELD(Elf64_##hdr, Elf32_##hdr, len_f),            \
		.note = note_type                                              \
	}

static const struct note_table sections =
	NOTE_TABLE(sh, Shdr, sh_type, sh_offset, sh_size, SHT_NOTE);
static const struct note_table segments =
	NOTE_TABLE(ph, Phdr, p_type, p_offset, p_filesz, PT_NOTE);

/* Every entry of notes in @t; -ENOENT when none holds a build id. */
static int from_table(const struct elf_file *e, const uint8_t *ehdr,
		      const struct note_table *t, char **hex)
{
	int c = e->is64 ? 0 : 1;
	uint64_t off = getaddr(e, ehdr + t->off[c]);
	uint16_t entsize = get16(e, ehdr + t->entsize[c]);
	uint16_t num = get16(e, ehdr + t->num[c]);
	uint8_t ent[sizeof(Elf64_Shdr)];
	int i, ret;

	_Static_assert(sizeof(Elf64_Shdr) >= sizeof(Elf64_Phdr),
		       "an entry buffer holds either kind");
	if (!off || entsize < t->size[c])
		return -ENOENT;
	for (i = 0; i < num; i++) {
		ret = read_at(e, ent, t->size[c], off + (uint64_t)i * entsize);
		if (ret)
			return ret;
		if (get32(e, ent + t->type[c]) != t->note)
			continue;
		ret = scan_notes(e, getaddr(e, ent + t->at[c]),
				 getaddr(e, ent + t->len[c]), hex);
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
	ret = from_table(&e, ehdr, &sections, hex);
	if (ret == -ENOENT)
		ret = from_table(&e, ehdr, &segments, hex);
out:
	close(e.fd);
	return ret;
}
