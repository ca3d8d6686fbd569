// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading an ELF64's program headers and dynamic section, no more: the
 * loader a binary asks for, and the libraries it needs. Everything read
 * is bounded by the file's size; a malformed file is -ENOEXEC, never a
 * read past its end.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/agent-client/agent-elf.h"
#include "util.h"

#define MAX_PHDRS 64
#define MAX_DYN 4096
#define MAX_NAME 256

static int read_ehdr(int fd, Elf64_Ehdr *eh)
{
	if (pread(fd, eh, sizeof(*eh), 0) != sizeof(*eh) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum > MAX_PHDRS)
		return -ENOEXEC;
	return 0;
}

static int read_phdrs(int fd, const Elf64_Ehdr *eh, Elf64_Phdr *ph)
{
	size_t len = (size_t)eh->e_phnum * sizeof(*ph);

	return pread(fd, ph, len, (off_t)eh->e_phoff) == (ssize_t)len ?
		       0 :
		       -ENOEXEC;
}

int elf__interp(int fd, char *buf, size_t size)
{
	Elf64_Phdr ph[MAX_PHDRS];
	Elf64_Ehdr eh;
	size_t i;

	buf[0] = '\0';
	if (read_ehdr(fd, &eh) || read_phdrs(fd, &eh, ph))
		return -ENOEXEC;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_INTERP)
			continue;
		if (!ph[i].p_filesz || ph[i].p_filesz >= size ||
		    pread(fd, buf, ph[i].p_filesz, (off_t)ph[i].p_offset) !=
			    (ssize_t)ph[i].p_filesz)
			return -ENOEXEC;
		buf[ph[i].p_filesz - 1] = '\0';
		return 0;
	}
	return 0;
}

/* The file offset of virtual address @va, through the PT_LOAD segments. */
static int va_offset(const Elf64_Phdr *ph, size_t n, uint64_t va, uint64_t *off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
		    va < ph[i].p_vaddr + ph[i].p_filesz) {
			*off = va - ph[i].p_vaddr + ph[i].p_offset;
			return 0;
		}
	return -ENOEXEC;
}

int elf__needed(const char *path, struct strvec *out)
{
	return elf__dynamic(path, out, NULL);
}

/* The absolute folders of a DT_RUNPATH or DT_RPATH ($ORIGIN's are not). */
static void push_dirs(struct strvec *out, const char *list)
{
	char *s = xstrdup(list), *save = NULL, *d;

	for (d = strtok_r(s, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (d[0] == '/' && !strvec__contains(out, d))
			strvec__push(out, d);
	free(s);
}

int elf__dynamic(const char *path, struct strvec *out, struct strvec *runpath)
{
	Elf64_Phdr ph[MAX_PHDRS];
	Elf64_Dyn *dyn = NULL;
	uint64_t strtab = 0, stroff, strsz = 0;
	size_t i, ndyn = 0;
	Elf64_Ehdr eh;
	struct stat sb;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = fstat(fd, &sb) ? -errno : read_ehdr(fd, &eh);
	if (!ret)
		ret = read_phdrs(fd, &eh, ph);
	for (i = 0; !ret && i < eh.e_phnum && !dyn; i++) {
		if (ph[i].p_type != PT_DYNAMIC)
			continue;
		ndyn = ph[i].p_filesz / sizeof(*dyn);
		if (!ndyn || ndyn > MAX_DYN ||
		    ph[i].p_offset + ph[i].p_filesz > (uint64_t)sb.st_size) {
			ret = -ENOEXEC;
			break;
		}
		dyn = xcalloc(ndyn, sizeof(*dyn));
		if (pread(fd, dyn, ndyn * sizeof(*dyn),
			  (off_t)ph[i].p_offset) !=
		    (ssize_t)(ndyn * sizeof(*dyn)))
			ret = -ENOEXEC;
	}
	if (!ret && !dyn)
		goto out; /* static: needs nothing */
	for (i = 0; !ret && i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
		else if (dyn[i].d_tag == DT_STRSZ)
			strsz = dyn[i].d_un.d_val;
	}
	if (!ret && (!strtab || va_offset(ph, eh.e_phnum, strtab, &stroff) ||
		     stroff + strsz > (uint64_t)sb.st_size))
		ret = -ENOEXEC;
	for (i = 0; !ret && i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		char name[MAX_NAME];
		ssize_t n;

		if (dyn[i].d_tag != DT_NEEDED &&
		    (!runpath ||
		     (dyn[i].d_tag != DT_RUNPATH && dyn[i].d_tag != DT_RPATH)))
			continue;
		if (dyn[i].d_un.d_val >= strsz) {
			ret = -ENOEXEC;
			break;
		}
		n = pread(fd, name, sizeof(name) - 1,
			  (off_t)(stroff + dyn[i].d_un.d_val));
		if (n <= 0) {
			ret = -ENOEXEC;
			break;
		}
		name[n] = '\0';
		if (strlen(name) == (size_t)n) {
			ret = -ENOEXEC; /* no NUL within MAX_NAME */
			break;
		}
		if (dyn[i].d_tag == DT_NEEDED)
			strvec__push(out, name);
		else
			push_dirs(runpath, name);
	}
out:
	free(dyn);
	close(fd);
	return ret;
}
