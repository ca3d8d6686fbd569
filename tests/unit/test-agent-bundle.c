// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent as it is sent to a machine that shares nothing with the
 * controller: the DT_NEEDED closure of the binary under test ($IOMMU_BENCH)
 * found in this machine's library folders, the C library left out, and
 * a bundle id that names exactly those files. The ELF reader against
 * real binaries and against files that are not what they claim.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "bench/agent-client/agent-bundle.h"
#include "bench/agent-client/agent-elf.h"
#include "bench/agent-client/agent-exe.h"
#include "errmsg.h"
#include "tap.h"
#include "util.h"

static bool has_lib(const struct agent_bundle *b, const char *soname)
{
	size_t i;

	for (i = 0; i < b->libs.nr; i++)
		if (!strcmp(strrchr(b->libs.v[i], '/') + 1, soname))
			return true;
	return false;
}

static bool any_libc(const struct agent_bundle *b)
{
	size_t i;

	for (i = 0; i < b->libs.nr; i++)
		if (agent_bundle__is_libc(strrchr(b->libs.v[i], '/') + 1))
			return true;
	return false;
}

static void test_libc(void)
{
	ok(agent_bundle__is_libc("libc.so.6") &&
		   agent_bundle__is_libc("libm.so.6") &&
		   agent_bundle__is_libc("ld-linux-x86-64.so.2") &&
		   agent_bundle__is_libc("ld-linux-aarch64.so.1") &&
		   agent_bundle__is_libc("libresolv.so.2") &&
		   agent_bundle__is_libc("libnss_files.so.2"),
	   "glibc's own objects are the machine's");
	ok(!agent_bundle__is_libc("libjansson.so.4") &&
		   !agent_bundle__is_libc("libcurl.so.4") &&
		   !agent_bundle__is_libc("libcrypto.so.3"),
	   "the rest are sent");
}

static void test_elf(void)
{
	struct strvec v = { 0 };
	char path[] = "/tmp/test-elf-XXXXXX";
	unsigned char head[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	int fd;

	is_int(elf__needed(getenv("IOMMU_BENCH"), &v), 0,
	       "the binary under test is read");
	ok(strvec__contains(&v, "libc.so.6") &&
		   strvec__contains(&v, "libjansson.so.4"),
	   "it needs libc.so.6 and libjansson.so.4 (%zu needed)", v.nr);
	strvec__release(&v);
	fd = mkstemp(path);
	write_all(fd, "#!/bin/sh\nexit 0\n", 17);
	is_int(elf__needed(path, &v), -ENOEXEC, "a script is not an ELF");
	/* A header that claims 50 program headers past the file's end. */
	head[16] = 2;
	head[54] = sizeof(Elf64_Phdr) & 0xff; /* e_phentsize */
	head[56] = 50;			      /* e_phnum */
	head[32] = 200;			      /* e_phoff */
	ftruncate(fd, 0);
	pwrite(fd, head, sizeof(head), 0);
	is_int(elf__needed(path, &v), -ENOEXEC,
	       "program headers past the end of the file: refused");
	ok(!v.nr, "and nothing read from them");
	close(fd);
	unlink(path);
	strvec__release(&v);
}

static void test_bundle(void)
{
	struct agent_bundle a, b;
	char *err = NULL;

	if (!is_int(agent_bundle__make(arch__native(), &a, &err), 0,
		    "the bundle of this arch: %s", err ? err : "made"))
		return;
	ok(!strcmp(a.exe, getenv("IOMMU_BENCH")), "its binary is the one "
						  "under test");
	ok(has_lib(&a, "libjansson.so.4") && has_lib(&a, "libbpf.so.1") &&
		   has_lib(&a, "libsqlite3.so.0"),
	   "the libraries it names are in (%zu in all, %.1f MiB)", a.libs.nr,
	   a.bytes / 1048576.0);
	ok(has_lib(&a, "libelf.so.1") || has_lib(&a, "libz.so.1"),
	   "and the ones they name in turn");
	ok(!any_libc(&a), "and no object of the C library's");
	ok(a.lib_shas.nr == a.libs.nr && strlen(a.id) == 16,
	   "each with its sha256; the bundle's id is 16 hex digits");
	agent_bundle__make(arch__native(), &b, &err);
	is_str(b.id, a.id, "the same files are the same id");
	agent_bundle__release(&a);
	agent_bundle__release(&b);
	free(err);
}

/* An arm64 machine gets the cross-built agent and arm64's libraries. */
static void test_foreign(void)
{
	const struct arch *arm = arch__find("arm64");
	struct agent_bundle b;
	char *err = NULL, *exe = NULL;
	size_t i;
	bool all = true;

	if (agent_exe__find(arm, &exe, &err)) {
		tap_skip("no arm64 agent here (make agent-arm64)");
		errmsg__clear(&err);
		return;
	}
	free(exe);
	if (!is_int(agent_bundle__make(arm, &b, &err), 0,
		    "the arm64 bundle: %s", err ? err : "made"))
		return;
	for (i = 0; i < b.libs.nr; i++)
		all = all && strstr(b.libs.v[i], "/aarch64-linux-gnu/");
	ok(strstr(b.exe, "arm64") && has_lib(&b, "libjansson.so.4") && all,
	   "the cross-built agent, its %zu libraries all arm64's", b.libs.nr);
	agent_bundle__release(&b);
}

int main(void)
{
	if (!getenv("IOMMU_BENCH"))
		tap_skip_all("needs $IOMMU_BENCH, the binary under test");
	test_libc();
	test_elf();
	test_bundle();
	test_foreign();
	return tap_done();
}
