// SPDX-License-Identifier: GPL-2.0-only
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "arch.h"
#include "util.h"

static const struct arch arches[] = {
	{ "x86_64", "amd64", "x86_64", "x86_64-linux-gnu", EM_X86_64, true },
	{ "arm64", "arm64", "aarch64", "aarch64-linux-gnu", EM_AARCH64, true },
	{ "i386", "i386", "i686", "i686-linux-gnu", EM_386, false },
	{ "arm", "armhf", "armv7l", "arm-linux-gnueabihf", EM_ARM, false },
	{ "riscv", "riscv64", "riscv64", "riscv64-linux-gnu", EM_RISCV, true },
	{ "powerpc", "ppc64el", "ppc64le", "powerpc64le-linux-gnu", EM_PPC64,
	  true },
	{ "s390", "s390x", "s390x", "s390x-linux-gnu", EM_S390, true },
};

const struct arch *arch__find(const char *name)
{
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(arches); i++)
		if (!strcmp(name, arches[i].name))
			return &arches[i];
	return NULL;
}

const struct arch *arch__by_machine(const char *machine)
{
	size_t i;

	for (i = 0; machine && i < ARRAY_SIZE(arches); i++)
		if (!strcmp(machine, arches[i].machine))
			return &arches[i];
	/* i386 and i586 kernels report themselves so too. */
	if (machine && (!strcmp(machine, "i386") || !strcmp(machine, "i586")))
		return arch__find("i386");
	return NULL;
}

const struct arch *arch__native(void)
{
	struct utsname u;

	if (uname(&u))
		return NULL;
	return arch__by_machine(u.machine);
}

const struct arch *arch__of_package(const char *package)
{
	const char *w = package, *end;
	size_t i;

	while (w && *w) {
		end = strchrnul(w, '-');
		for (i = 0; i < ARRAY_SIZE(arches); i++)
			if (strlen(arches[i].deb) == (size_t)(end - w) &&
			    !strncmp(w, arches[i].deb, end - w))
				return &arches[i];
		w = *end ? end + 1 : end;
	}
	return NULL;
}

const struct arch *arch__of_elf(const void *data, size_t len)
{
	const unsigned char *e = data;
	uint16_t machine;
	size_t i;

	/* e_machine sits at 18 in both classes; the files are little-endian
	 * for every arch the testbed boots. */
	if (len < 20 || memcmp(e, ELFMAG, SELFMAG) || e[EI_DATA] != ELFDATA2LSB)
		return NULL;
	machine = (uint16_t)(e[18] | e[19] << 8);
	for (i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].elf_machine == machine &&
		    arches[i].elf64 == (e[EI_CLASS] == ELFCLASS64))
			return &arches[i];
	return NULL;
}

bool arch__kvm_works(void)
{
	char *cpuinfo = NULL;
	size_t len;
	bool virt;
	int fd;

	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	if (read_file("/proc/cpuinfo", &cpuinfo, &len) < 0)
		return false;
	virt = strstr(cpuinfo, " vmx") || strstr(cpuinfo, " svm");
	free(cpuinfo);
	return virt;
}
