// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arch table (src/arch.c) and the agent of a guest of another arch
 * (bench/agent-client/agent-exe.c): names translated between the kernel, Debian
 * and uname; a kernel package's arch read off its name; an ELF's off
 * its header; and the cross-built agent found, or refused with the
 * reason, by what its bytes say.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bench/agent-client/agent-exe.h"
#include "scratch-files.h"
#include "tap.h"
#include "util.h"

static void test_names(void)
{
	const struct arch *a = arch__find("arm64");

	ok(!arch__find(NULL), "no name, no arch");
	ok(a && !strcmp(a->deb, "arm64") && !strcmp(a->machine, "aarch64") &&
		   !strcmp(a->triplet, "aarch64-linux-gnu"),
	   "arm64: Debian's arm64, uname's aarch64");
	a = arch__find("x86_64");
	ok(a && !strcmp(a->deb, "amd64"), "x86_64 is Debian's amd64");
	ok(!arch__find("aarch64"), "aarch64 is not the kernel's name");
	ok(arch__by_machine("aarch64") == arch__find("arm64"),
	   "uname's aarch64 is arm64");
	ok(arch__native() != NULL, "this machine's arch is in the table");
}

static void test_packages(void)
{
	static const struct {
		const char *package, *arch;
	} cases[] = {
		{ "linux-image-6.1.0-57-amd64", "x86_64" },
		{ "linux-image-6.1.0-57-arm64", "arm64" },
		{ "linux-image-6.12.48+deb12-arm64", "arm64" },
		{ "linux-image-6.1.0-57-cloud-amd64", "x86_64" },
		{ "linux-image-6.1.0-57-arm64-unsigned", "arm64" },
		{ "linux-image-6.1.0-57-rt-arm64", "arm64" },
		{ "linux-image-6.1.0-57", NULL },
		{ "linux-image-amd64x", NULL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct arch *a = arch__of_package(cases[i].package);

		ok(a == arch__find(cases[i].arch), "%s: %s", cases[i].package,
		   a ? a->name : "no arch said");
	}
}

static void test_elf(void)
{
	unsigned char h[64] = { 0x7f, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB };
	char *data = NULL;
	size_t len;

	h[18] = EM_AARCH64;
	ok(arch__of_elf(h, sizeof(h)) == arch__find("arm64"),
	   "e_machine 183 is arm64");
	h[18] = EM_X86_64;
	ok(arch__of_elf(h, sizeof(h)) == arch__find("x86_64"),
	   "e_machine 62 is x86_64");
	h[4] = ELFCLASS32;
	ok(!arch__of_elf(h, sizeof(h)), "a 32-bit x86-64 header is nothing");
	ok(!arch__of_elf("#!/bin/sh\n", 10), "a script is not ELF");
	if (!read_file("/bin/true", &data, &len))
		ok(arch__of_elf(data, len) == arch__native(),
		   "/bin/true is this machine's arch");
	free(data);
}

static void copy_file(const char *from, const char *to)
{
	char *data = NULL;
	size_t len;
	FILE *f;

	if (read_file(from, &data, &len))
		return;
	f = fopen(to, "w");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
	free(data);
}

/*
 * A fake install: DIR/bin/iommu-bench as IOMMU_BENCH, and what sits at
 * DIR/bin/.output/arm64/iommu-bench decides.
 */
static void test_agent(void)
{
	const struct arch *arm64 = arch__find("arm64");
	char dir[] = "/tmp/test-arch-XXXXXX", *self, *p, *path = NULL;
	char *err = NULL, *srcdir = getenv("SRCDIR"), *real;
	char *saved = scratch__env_save("IOMMU_BENCH");
	int ret;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	self = xasprintf("%s/bin/iommu-bench", dir);
	ret = 0;
	for (int i = 0; i < 3; i++) {
		static const char *const sub[] = { "bin", "bin/.output",
						   "bin/.output/arm64" };

		p = xasprintf("%s/%s", dir, sub[i]);
		ret |= mkdir(p, 0755);
		free(p);
	}
	ok(!ret, "scratch folders");
	setenv("IOMMU_BENCH", self, 1);

	ret = agent_exe__find(arch__native(), &path, &err);
	ok(!ret && !strcmp(path, self), "this machine's arch: the tool itself");
	free(path);
	path = NULL;

	ret = agent_exe__find(arm64, &path, &err);
	is_int(ret, -ENOENT, "no arm64 agent: ENOENT");
	has_str(err, "make agent-arm64", "and how to build it");
	free(err);
	err = NULL;

	p = xasprintf("%s/bin/.output/arm64/iommu-bench", dir);
	copy_file("/bin/true", p);
	ret = agent_exe__find(arm64, &path, &err);
	ok(ret < 0, "an agent of this machine's arch in the arm64 place is "
		    "refused");
	has_str(err, "not arm64", "saying what it is built for");
	free(err);
	err = NULL;
	unlink(p);
	free(p);

	/* The real one, when the Makefile has cross-built it. */
	real = srcdir ? xasprintf("%s/.output/arm64/iommu-bench", srcdir) :
			NULL;
	if (real && !access(real, X_OK) && arch__native() != arm64) {
		p = xasprintf("%s/iommu-bench", srcdir);
		setenv("IOMMU_BENCH", p, 1);
		free(p);
		ret = agent_exe__find(arm64, &path, &err);
		ok(!ret && path && strstr(path, "/.output/arm64/iommu-bench"),
		   "the cross-built agent is found, its loader here: %s",
		   ret ? err : path);
		free(path);
		free(err);
	} else {
		tap_skip("no cross-built agent (make agent-arm64)");
	}
	free(real);

	scratch__env_restore("IOMMU_BENCH", saved);
	scratch__remove(dir);
	free(self);
}

int main(void)
{
	test_names();
	test_packages();
	test_elf();
	test_agent();
	return tap_done();
}
