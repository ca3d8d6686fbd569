// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller's half of sending a build to a lab host, against a real
 * `agent serve` on the other end of the same JSON-lines connection ssh
 * would carry: the image and modules sent in chunks and checked there,
 * the modules in the real /lib/modules (under a release no kernel has,
 * removed at the end), the initrd made by the host's generator (a stand-
 * in mkinitramfs first in the agent's PATH: this machine has none), the
 * second run finding it all by build id, and a host without a generator
 * failing with the reason. Which hosts need a kernel sent at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-test.h"
#include "bench/agent/agent-file.h"
#include "bench/agent-client/agent-conn.h"
#include "bench/host/host-transports.h"
#include "bench/host/host.h"
#include "bench/run/run-install.h"
#include "bench/run/run.h"
#include "log.h"
#include "tap.h"
#include "util.h"

static char scratch[PATH_MAX];
static char release[64];

static int write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int ret;

	if (fd < 0)
		return -errno;
	ret = write_all(fd, text, strlen(text));
	close(fd);
	return ret;
}

static int run_argv(const char *const *argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

static bool same_bytes(const char *a, const char *b)
{
	char *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	bool same;

	same = !read_file(a, &x, &nx) && !read_file(b, &y, &ny) && nx == ny &&
	       !memcmp(x, y, nx);
	free(x);
	free(y);
	return same;
}

static int count_lines(const char *path)
{
	char *s = NULL;
	size_t n = 0, i;
	int lines = 0;

	if (read_file(path, &s, &n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		lines += s[i] == '\n';
	free(s);
	return lines;
}

/* A 2.5 MiB image (three chunks) and a modules tree packed like kbuild. */
static int make_build(char **image, char **tar)
{
	const char *tar_argv[] = { "tar", "-C", NULL, "-cf", NULL, NULL, NULL };
	char *mods = xasprintf("%s/stage", scratch);
	char *d = xasprintf("%s/lib/modules/%s/kernel", mods, release);
	char *f, *rel = xasprintf("lib/modules/%s", release);
	size_t n = 5 << 19, i;
	char *buf = xmalloc(n);
	int fd, ret;

	*image = xasprintf("%s/bzImage", scratch);
	*tar = xasprintf("%s/modules.tar", scratch);
	for (i = 0; i < n; i++)
		buf[i] = (char)(i * 2654435761u >> 13);
	fd = open(*image, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ret = fd < 0 ? -errno : write_all(fd, buf, n);
	if (fd >= 0)
		close(fd);
	free(buf);
	if (!ret)
		ret = run_argv((const char *[]){ "mkdir", "-p", d, NULL });
	f = xasprintf("%s/x.ko", d);
	if (!ret)
		ret = write_text(f, "not really a module\n", 0644);
	free(f);
	f = xasprintf("%s/lib/modules/%s/modules.dep", mods, release);
	if (!ret)
		ret = write_text(f, "kernel/x.ko:\n", 0644);
	free(f);
	tar_argv[2] = mods;
	tar_argv[4] = *tar;
	tar_argv[5] = rel;
	if (!ret)
		ret = run_argv(tar_argv);
	free_all(rel, d, mods);
	return ret;
}

/* The host's initramfs generator, as the agent finds it in its PATH. */
static char *fake_generator(void)
{
	char *bin = xasprintf("%s/bin", scratch);
	char *gen = xasprintf("%s/mkinitramfs", bin);
	char *script = xasprintf(
		"#!/bin/sh\n"
		"# mkinitramfs -o OUT RELEASE, as initramfs-tools takes it\n"
		"echo \"$*\" >>%s/gen.argv\n"
		"[ \"$1\" = -o ] || exit 2\n"
		"echo \"initrd of $3\" >\"$2\"\n",
		scratch);

	if (mkdir(bin, 0755) || write_text(gen, script, 0755)) {
		free(bin);
		bin = NULL;
	}
	free(gen);
	free(script);
	return bin;
}

static int spawn_agent(struct run_host *h, const char *path_prefix)
{
	char bin[PATH_MAX];
	const char *argv[] = { bin, "agent", "serve", NULL };
	const char *old = getenv("PATH");
	char *saved = xstrdup(old ? old : "/usr/bin:/bin");
	char *path = path_prefix ? xasprintf("%s:%s", path_prefix, saved) :
				   xstrdup("/usr/bin:/bin");
	int ret;

	if (agent_test__find_bin(bin, sizeof(bin))) {
		free(saved);
		free(path);
		return -ENOENT;
	}
	/* The agent inherits it: its generator search is the host's. */
	setenv("PATH", path, 1);
	ret = agent_conn__spawn(argv, NULL, h->h.m->name, &h->agent);
	setenv("PATH", saved, 1);
	free(saved);
	free(path);
	return ret;
}

static void test_needed(void)
{
	struct matrix_host ssh = { .transport = HOST_SSH,
				   .ops = &ssh_transport };
	struct matrix_host vm = { .transport = HOST_QEMU,
				  .ops = &qemu_transport,
				  .reboot = REBOOT_RESTART };
	struct matrix_host vmk = { .transport = HOST_QEMU,
				   .ops = &qemu_transport,
				   .reboot = REBOOT_KEXEC };
	struct matrix_kernel build = { .kind = KERNEL_BUILD };
	struct matrix_kernel image = { .kind = KERNEL_IMAGE };
	struct matrix_kernel pkg = { .kind = KERNEL_PACKAGE };
	struct run_host h = { 0 };

	h.h.m = &ssh;
	ok(run_install__needed(&h, &build) && !run_install__needed(&h, &image),
	   "an ssh host is sent builds, not images (those are its own paths)");
	h.h.m = &vm;
	ok(!run_install__needed(&h, &build) && !run_install__needed(&h, &pkg),
	   "a VM booted afresh per kernel is sent nothing: QEMU loads it");
	h.h.m = &vmk;
	ok(run_install__needed(&h, &pkg) && run_install__needed(&h, &image),
	   "a VM that kexecs is sent every kernel, like a lab host");
}

static void test_send(struct run_ctx *ctx, struct matrix_host *mh,
		      struct matrix_kernel *k, const char *bin_dir)
{
	struct run_host h = { .h.m = mh, .h.ops = host_ops__find(HOST_SSH) };
	char *image = NULL, *initrd = NULL, *err = NULL, *want, *f;
	char *argv_log = xasprintf("%s/gen.argv", scratch);
	char *mod_dir = xasprintf("/lib/modules/%s", release);
	int ret;

	if (spawn_agent(&h, bin_dir)) {
		ok(0, "no agent to send to (set IOMMU_BENCH)");
		goto out;
	}
	ret = run_install__kernel(ctx, &h, k, &image, &initrd, &err);
	is_int(ret, 0, "the build is sent and installed (%s)",
	       err ? err : "no error");
	want = xasprintf("%s/kernels/%s-0123456789ab/vmlinuz", scratch,
			 release);
	ok(image && !strcmp(image, want) && same_bytes(image, k->image),
	   "the host's image is the build's, byte for byte (%s)",
	   image ? image : "none");
	free(want);
	f = xasprintf("%s/kernel/x.ko", mod_dir);
	ok(!access(f, F_OK), "the modules are in %s", mod_dir);
	free(f);
	ok(initrd && count_lines(argv_log) == 1 && !access(initrd, F_OK),
	   "the initrd made by the host's own mkinitramfs (%s)",
	   initrd ? initrd : "none");
	free_all(image, initrd, err);
	image = initrd = err = NULL;

	/* A second run: found by build id, nothing sent or generated. */
	ret = run_install__kernel(ctx, &h, k, &image, &initrd, &err);
	ok(!ret && image && initrd && count_lines(argv_log) == 1,
	   "asked again, it is found there: no second initrd (%s)",
	   err ? err : "found");
	agent_conn__close(h.agent);
	h.agent = NULL;
	free_all(image, initrd, err);
	image = initrd = err = NULL;

	/* Another build, on a host with no generator at all. */
	free(k->build_id);
	k->build_id = xstrdup("fedcba9876543210fedcba9876543210fedcba98");
	if (spawn_agent(&h, NULL)) {
		ok(0, "no agent to send to");
		goto out;
	}
	ret = run_install__kernel(ctx, &h, k, &image, &initrd, &err);
	ok(ret < 0 && err && strstr(err, "installing kernel 'patched'") &&
		   strstr(err, "no initramfs generator") && !image,
	   "no generator on the host: the install fails saying so (%s)",
	   err ? err : "no error");
	agent_conn__close(h.agent);
out:
	free_all(image, initrd, err, argv_log, mod_dir);
}

int main(void)
{
	char tmpl[] = "/tmp/test-run-install.XXXXXX", *mods, *bin_dir;
	struct matrix_host mh = { .name = "lab",
				  .transport = HOST_SSH,
				  .reboot = REBOOT_KEXEC };
	struct matrix_kernel k = { .name = "patched", .kind = KERNEL_BUILD };
	struct run_ctx ctx = { .progress.quiet = true };

	log_verbosity = -1;
	if (geteuid())
		tap_skip_all("installing modules needs root (/lib/modules)");
	if (access("/lib/modules", W_OK) && mkdir("/lib/modules", 0755))
		tap_skip_all("/lib/modules is not writable here");
	if (!mkdtemp(tmpl) || !realpath(tmpl, scratch))
		tap_skip_all("no scratch folder");
	test_needed();
	/* A release no kernel has, so the real /lib/modules is not at risk. */
	snprintf(release, sizeof(release), "0.0.0-iommu-bench-test-%d",
		 (int)getpid());
	mh.kernel_dir = xasprintf("%s/kernels", scratch);
	k.release = release;
	k.build_id = xstrdup("0123456789abcdef0123456789abcdef01234567");
	bin_dir = fake_generator();
	if (!bin_dir || make_build(&k.image, &k.modules_tar)) {
		ok(0, "cannot make the scratch build");
	} else {
		test_send(&ctx, &mh, &k, bin_dir);
	}
	mods = xasprintf("/lib/modules/%s", release);
	agent_file__remove_tree(mods, NULL);
	free(mods);
	agent_file__remove_tree(scratch, NULL);
	free_all(bin_dir, k.image, k.modules_tar, k.build_id, mh.kernel_dir);
	return tap_done();
}
