// SPDX-License-Identifier: GPL-2.0-only
/*
 * The testbed's guest assets without the network: the cpio writer read
 * back by GNU cpio, package and release names, the module load order
 * from a hand-written modules.dep, the /init script parsed by busybox
 * (and its argument checks run by it), and an initramfs built into a
 * scratch cache from a scratch modules tree, compressed modules
 * included. The download itself is tests/cli/testbed-build.t's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/host/host-priv.h"
#include "cpio.h"
#include "bench/testbed/testbed.h"
#include "cache.h"
#include "log.h"
#include "scratch-files.h"
#include "tap.h"
#include "util.h"

static char scratch[] = "/tmp/iommu-bench-test-testbed.XXXXXX";

static void test_cpio_names(void)
{
	static const char *const good[] = { "a", "bin/busybox", "a.b/c-d_e",
					    "...", "a/.hidden" };
	static const char *const bad[] = { "",	     "/a",   "a/",   "a//b",
					   ".",	     "..",   "./a",  "a/./b",
					   "a/../b", "a/..", "a\nb", "a\tb" };

	check_names(cpio__name_is_valid, "cpio name", good, bad);
}

/* Everything the writer can write, in one archive. */
static int cpio_sample(struct cpio *c, const char *from)
{
	static const char bin[] = { 0, 1, 2, '\n', (char)0xff, 0 };
	int ret = 0;

	cpio__init(c);
	ret = ret ?: cpio__add_dir(c, "d", 0755);
	ret = ret ?: cpio__add_dir(c, "d/sub", 0700);
	ret = ret ?: cpio__add_file(c, "d/bin", 0600, bin, sizeof(bin));
	ret = ret ?: cpio__add_file(c, "empty", 0644, "", 0);
	/* Names of every length mod 4 exercise the padding. */
	ret = ret ?: cpio__add_file(c, "d/sub/x", 0755, "xx\n", 3);
	ret = ret ?: cpio__add_file(c, "d/sub/xy", 0644, "xyz\n", 4);
	ret = ret ?: cpio__add_file(c, "d/sub/xyz", 0644, "12345", 5);
	ret = ret ?: cpio__add_file_from(c, "copied", 0644, from);
	ret = ret ?: cpio__add_symlink(c, "link", "d/sub/x");
	ret = ret ?: cpio__finish(c);
	return ret;
}

static void test_cpio_roundtrip(void)
{
	static const char bin[] = { 0, 1, 2, '\n', (char)0xff, 0 };
	static const char *const want =
		"d\nd/sub\nd/bin\nempty\nd/sub/x\nd/sub/xy\nd/sub/xyz\n"
		"copied\nlink\n";
	char *from, *arch, *out_dir, *list = NULL, *p, target[64];
	struct cpio c, again;
	struct stat sb;
	ssize_t n;
	int ret;

	from = xasprintf("%s/source", scratch);
	arch = xasprintf("%s/sample.cpio", scratch);
	out_dir = xasprintf("%s/extracted", scratch);
	scratch__write(from, "from a path\n", 12, 0644);

	ret = cpio_sample(&c, from);
	is_int(ret, 0, "the sample archive builds");
	is_int(c.len % 512, 0, "it ends on a 512-byte block");
	ok(!memcmp(c.buf, "070701", 6), "it starts with the newc magic");
	/* mtime (7th field) and uid/gid are 0: reproducible bytes. */
	ok(!memcmp(c.buf + 6 + 2 * 8, "0000000000000000", 16) &&
		   !memcmp(c.buf + 6 + 5 * 8, "00000000", 8),
	   "uid, gid and mtime are 0");
	is_int(cpio_sample(&again, from), 0, "built twice");
	ok(again.len == c.len && !memcmp(again.buf, c.buf, c.len),
	   "the same inputs give the same bytes");
	cpio__release(&again);
	is_int(cpio__add_dir(&c, "late", 0755), -EINVAL,
	       "nothing is added after the trailer");
	is_int(cpio__add_file(&c, "/abs", 0644, "", 0), -EINVAL,
	       "an absolute name is refused");
	is_int(scratch__write(arch, c.buf, c.len, 0644), 0, "archive written");

	if (!scratch__have("cpio")) {
		tap_skip(
			"no cpio to read the archive back (apt-get install cpio)");
		goto out;
	}
	{
		const char *argv[] = { "cpio", "-it", "--quiet",
				       "-F",   arch,  NULL };

		is_int(scratch__run(argv, &list), 0, "cpio -it reads it");
		is_str(list, want, "cpio -it lists every entry, in order");
	}
	mkdir(out_dir, 0755);
	{
		const char *argv[] = { "cpio",	"-idm", "--quiet", "-D",
				       out_dir, "-F",	arch,	   NULL };

		is_int(scratch__run(argv, NULL), 0, "cpio -idm extracts it");
	}
	p = xasprintf("%s/d/bin", out_dir);
	ok(scratch__same(p, bin, sizeof(bin)), "binary data comes back intact");
	ok(!stat(p, &sb) && (sb.st_mode & 07777) == 0600 && sb.st_mtime == 0,
	   "with its mode and mtime 0");
	free(p);
	p = xasprintf("%s/d/sub", out_dir);
	ok(!stat(p, &sb) && S_ISDIR(sb.st_mode) && (sb.st_mode & 07777) == 0700,
	   "a directory with its mode");
	free(p);
	p = xasprintf("%s/d/sub/xyz", out_dir);
	ok(scratch__same(p, "12345", 5),
	   "a file whose size is not a multiple of 4");
	free(p);
	p = xasprintf("%s/empty", out_dir);
	ok(!stat(p, &sb) && S_ISREG(sb.st_mode) && !sb.st_size,
	   "an empty file");
	free(p);
	p = xasprintf("%s/copied", out_dir);
	ok(scratch__same(p, "from a path\n", 12), "a file copied from a path");
	free(p);
	p = xasprintf("%s/link", out_dir);
	n = readlink(p, target, sizeof(target) - 1);
	target[n < 0 ? 0 : n] = '\0';
	is_str(target, "d/sub/x", "a symlink with its target");
	free(p);
out:
	cpio__release(&c);
	free_all(list, from, arch, out_dir);
}

static void test_names(void)
{
	static const char *const good[] = {
		"linux-image-6.1.0-57-amd64",
		"linux-image-6.12.117+deb12-amd64",
		"linux-image-6.12.117+deb12-cloud-amd64-unsigned",
		"linux-image-amd64",
	};
	static const char *const bad[] = {
		"",
		"linux-image-",
		"linux-headers-6.1.0-57-amd64",
		"linux-image-6.1.0-57-AMD64",
		"linux-image-6.1 0",
		"linux-image-../../etc",
		"linux-image-$(reboot)",
		"linux-image-a;b",
		"-linux-image-6.1",
		" linux-image-6.1",
	};
	char longname[128];

	check_names(testbed__package_is_valid, "package", good, bad);
	snprintf(longname, sizeof(longname), "linux-image-%088d", 0);
	ok(testbed__package_is_valid(longname), "100 characters are allowed");
	snprintf(longname, sizeof(longname), "linux-image-%089d", 0);
	ok(!testbed__package_is_valid(longname), "101 are not");

	ok(testbed__release_is_valid("6.12.117+deb12-amd64"),
	   "release 6.12.117+deb12-amd64 is valid");
	ok(testbed__release_is_valid("6.1.0-rc1_custom"),
	   "release 6.1.0-rc1_custom is valid");
	ok(!testbed__release_is_valid("../6.1"), "release ../6.1 is refused");
	ok(!testbed__release_is_valid("-6.1"), "release -6.1 is refused");
	ok(!testbed__release_is_valid("6.1/x"), "release 6.1/x is refused");
	ok(!testbed__release_is_valid(""), "an empty release is refused");
}

/* A scratch lib/modules/RELEASE holding @dep and @builtin. */
static char *modules_tree(const char *name, const char *dep,
			  const char *builtin)
{
	char *dir = xasprintf("%s/%s", scratch, name), *p;

	mkdir(dir, 0755);
	if (dep) {
		p = xasprintf("%s/modules.dep", dir);
		scratch__write_text(p, dep);
		free(p);
	}
	if (builtin) {
		p = xasprintf("%s/modules.builtin", dir);
		scratch__write_text(p, builtin);
		free(p);
	}
	return dir;
}

static char *joined(char **v)
{
	char *s = xstrdup(""), *p;
	size_t i;

	for (i = 0; v && v[i]; i++) {
		p = s;
		s = xasprintf("%s%s%s", p, *p ? " " : "", v[i]);
		free(p);
	}
	return s;
}

/* Shaped like Debian 6.1's, trimmed; virtio_console is built in here. */
static const char debian_dep[] =
	"kernel/drivers/virtio/virtio_pci.ko: "
	"kernel/drivers/virtio/virtio_pci_legacy_dev.ko "
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko "
	"kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/virtio/virtio_pci_legacy_dev.ko:\n"
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko:\n"
	"kernel/drivers/virtio/virtio.ko:\n"
	"kernel/drivers/virtio/virtio_ring.ko:\n"
	"kernel/drivers/net/virtio_net.ko: kernel/drivers/net/net_failover.ko "
	"kernel/net/core/failover.ko kernel/drivers/virtio/virtio.ko "
	"kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/net/net_failover.ko: kernel/net/core/failover.ko\n"
	"kernel/net/core/failover.ko:\n"
	"kernel/drivers/net/e1000e/e1000e.ko:\n"
	"kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko "
	"kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/net/9p/9pnet.ko:\n"
	"kernel/fs/9p/9p.ko.xz: kernel/net/9p/9pnet.ko "
	"kernel/fs/fscache/fscache.ko kernel/fs/netfs/netfs.ko\n"
	"kernel/fs/fscache/fscache.ko: kernel/fs/netfs/netfs.ko\n"
	"kernel/fs/netfs/netfs.ko:\n";

static void test_module_order(void)
{
	static const char *const wanted[] = {
		"virtio_pci",	"virtio_net", "virtio_console",
		"9pnet_virtio", "9p",	      NULL
	};
	/* A modules.dep that cannot give an order: the module asked for. */
	static const struct {
		const char *tree, *dep, *module;
		int ret;
		const char *what, *says;
	} broken[] = {
		{ "mods-broken", "kernel/a.ko: kernel/b.ko\n", "a", -ENOENT,
		  "a dependency without a line of its own fails",
		  "kernel/b.ko" },
		{ "mods-loop",
		  "kernel/a.ko: kernel/b.ko\nkernel/b.ko: kernel/a.ko\n", "a",
		  -ELOOP, "a dependency loop fails", NULL },
		{ "mods-escape", "../../etc/shadow.ko:\n", "shadow", -EINVAL,
		  "a path out of the modules folder is refused", NULL },
	};
	char *dir, *s, *err = NULL;
	struct strvec order = { 0 };
	size_t i;
	int ret;

	dir = modules_tree("mods-debian", debian_dep,
			   "kernel/drivers/char/virtio_console.ko\n"
			   "kernel/drivers/char/hw_random/virtio-rng.ko\n");
	ret = testbed__module_order(dir, wanted, &order, &err);
	is_int(ret, 0, "the module order of a Debian-shaped tree");
	s = joined(order.v);
	is_str(s,
	       "kernel/drivers/virtio/virtio_ring.ko "
	       "kernel/drivers/virtio/virtio.ko "
	       "kernel/drivers/virtio/virtio_pci_modern_dev.ko "
	       "kernel/drivers/virtio/virtio_pci_legacy_dev.ko "
	       "kernel/drivers/virtio/virtio_pci.ko "
	       "kernel/net/core/failover.ko "
	       "kernel/drivers/net/net_failover.ko "
	       "kernel/drivers/net/virtio_net.ko "
	       "kernel/net/9p/9pnet.ko kernel/net/9p/9pnet_virtio.ko "
	       "kernel/fs/netfs/netfs.ko kernel/fs/fscache/fscache.ko "
	       "kernel/fs/9p/9p.ko.xz",
	       "dependencies first, each once, the built-in virtio_console "
	       "left out, as modprobe --show-depends orders them");
	free(s);
	strvec__release(&order);
	free(dir);
	free(err);
	err = NULL;

	/* Listed the other way round: the order must still hold. */
	dir = modules_tree("mods-reversed",
			   "kernel/a/top.ko: kernel/a/low.ko kernel/a/mid.ko\n"
			   "kernel/a/mid.ko: kernel/a/low.ko\n"
			   "kernel/a/low.ko:\n"
			   "kernel/a/dash-name.ko.zst: kernel/a/top.ko\n",
			   NULL);
	{
		static const char *const w[] = { "dash_name", NULL };

		ret = testbed__module_order(dir, w, &order, &err);
	}
	is_int(ret, 0, "a module named with '-' is found as '_'");
	s = joined(order.v);
	is_str(s,
	       "kernel/a/low.ko kernel/a/mid.ko kernel/a/top.ko "
	       "kernel/a/dash-name.ko.zst",
	       "dependencies come first whatever order modules.dep uses");
	free(s);
	strvec__release(&order);
	{
		static const char *const w[] = { "nosuch", NULL };

		ret = testbed__module_order(dir, w, &order, &err);
	}
	is_int(ret, -ENOENT, "a module neither there nor built in fails");
	has_str(err, "nosuch", "naming it");
	free(err);
	err = NULL;
	free(dir);

	for (i = 0; i < ARRAY_SIZE(broken); i++) {
		const char *w[] = { broken[i].module, NULL };

		dir = modules_tree(broken[i].tree, broken[i].dep, NULL);
		ret = testbed__module_order(dir, w, &order, &err);
		is_int(ret, broken[i].ret, "%s", broken[i].what);
		if (broken[i].says)
			has_str(err, broken[i].says, "naming it");
		free(err);
		err = NULL;
		free(dir);
	}

	dir = modules_tree("mods-none", NULL, NULL);
	ret = testbed__module_order(dir, wanted, &order, &err);
	is_int(ret, -ENOENT, "no modules.dep fails");
	has_str(err, "depmod", "saying to run depmod");
	free(err);
	free(dir);
}

static void test_init_script(void)
{
	const char *s = testbed_init_script, *a, *b;
	char *path, *checks;

	ok(!strncmp(s, "#!/bin/busybox sh\n", 18), "/init runs busybox sh");
	has_str(s, TESTBED_READY_LINE " uptime=", "it prints the ready line");
	has_str(s, "= " TESTBED_PORT_NAME " ]", "it looks for the agent port");
	has_str(s, " " TESTBED_9P_TAG " /host", "it mounts the 9p tag");
	has_str(s, "0<>\"$P\" 1>&0", "the port is opened once, read-write");
	has_str(s, "agent connect \"$CTL\"",
		"or the agent dials the controller");
	has_str(s, "-e /host/" TESTBED_OWN_ROOT " ]",
		"a root the initramfs carries is not mounted over");
	if (!scratch__have("busybox")) {
		tap_skip("no busybox (apt-get install busybox-static)");
		return;
	}
	path = xasprintf("%s/init", scratch);
	scratch__write_text(path, s);
	{
		const char *argv[] = { "busybox", "sh", "-n", path, NULL };

		is_int(scratch__run(argv, NULL), 0,
		       "busybox sh -n accepts /init");
	}
	/* The argument checks, cut out of /init and run on their own. */
	a = strstr(s, "valid_ip() {");
	b = strstr(s, "\nIP= ");
	ok(a && b && a < b, "/init has its argument checks");
	if (!a || !b || a > b)
		goto out;
	checks = xasprintf(
		"%.*s\n"
		"for v in 10.77.0.2/24 fd00::2/64 10.0.0.1/8; do\n"
		"  valid_ip \"$v\" || echo \"bad ip $v\"; done\n"
		"for v in 10.0.0.1 /24 '1/2/3' '10.0.0.1/24;x' '$(id)/24' ''; do\n"
		"  valid_ip \"$v\" && echo \"good ip $v\"; done\n"
		"for v in eth0 enp0s1 v-eth.1; do\n"
		"  valid_nic \"$v\" || echo \"bad nic $v\"; done\n"
		"for v in '' -x eth0/1 'a b' 0123456789abcdef; do\n"
		"  valid_nic \"$v\" && echo \"good nic $v\"; done\n"
		"for v in /usr/bin/iommu-bench /work/main/iommu-bench; do\n"
		"  valid_exe \"$v\" || echo \"bad exe $v\"; done\n"
		"for v in iommu-bench / /a/../b '/a b' '/a;b' /a/ //a; do\n"
		"  valid_exe \"$v\" && echo \"good exe $v\"; done\n"
		"valid_machine_id 0123456789abcdef0123456789abcdef || echo bad id\n"
		"for v in 0123456789ABCDEF0123456789ABCDEF 0123 ''; do\n"
		"  valid_machine_id \"$v\" && echo \"good id $v\"; done\n"
		"for v in 10.92.0.1:7781 [fd00::1]:80 127.0.0.1:65535; do\n"
		"  valid_ctl \"$v\" || echo \"bad ctl $v\"; done\n"
		"for v in '' 10.0.0.1 10.0.0.1:0 10.0.0.1:65536 10.0.0.1:07 \\\n"
		"  'a.b:1;x' '$(id):80' 'h ost:80' 10.0.0.1:123456; do\n"
		"  valid_ctl \"$v\" && echo \"good ctl $v\"; done\n"
		"for v in 10.0.2.2 fd00::1; do\n"
		"  valid_gw \"$v\" || echo \"bad gw $v\"; done\n"
		"for v in '' 10.0.2.2/24 'a;b' '$(id)'; do\n"
		"  valid_gw \"$v\" && echo \"good gw $v\"; done\n"
		"echo done\n",
		(int)(b - a), a);
	scratch__write_text(path, checks);
	free(checks);
	{
		const char *argv[] = { "busybox", "sh", path, NULL };
		char *out = NULL;

		is_int(scratch__run(argv, &out), 0, "the checks run");
		is_str(out, "done\n",
		       "every good value passes and every bad one is refused");
		free(out);
	}
out:
	free(path);
}

/* xz and zstd compress a module as Debian's 6.12 packages have them. */
static int compress(const char *tool, const char *path)
{
	const char *argv[] = { tool, "-q", "--", path, NULL };

	return scratch__run(argv, NULL);
}

static void test_initrd(void)
{
	static const char *const order_want =
		"virtio_ring.ko\nvirtio.ko\nvirtio_pci.ko\nvirtio_net.ko\n"
		"9pnet.ko\n9pnet_virtio.ko\n9p.ko\n";
	static const char *const mods[] = {
		"kernel/virtio_ring.ko", "kernel/virtio.ko",
		"kernel/virtio_pci.ko",	 "kernel/virtio_net.ko",
		"kernel/9pnet.ko",	 "kernel/9pnet_virtio.ko",
		"kernel/9p.ko",
	};
	char *dir, *p, *cache, *initrd = NULL, *again = NULL, *err = NULL;
	char *base = NULL, *tail_path, *out_dir, *config;
	size_t i, base_len, len;
	bool cached = true;
	char *data;
	int ret;

	if (!cache__has_file(TESTBED_BUSYBOX)) {
		tap_skip("no " TESTBED_BUSYBOX
			 " (apt-get install busybox-static)");
		return;
	}
	if (!scratch__have("xz") || !scratch__have("zstd") ||
	    !scratch__have("cpio")) {
		tap_skip("needs xz, zstd and cpio");
		return;
	}
	cache = xasprintf("%s/cache", scratch);
	setenv("IOMMU_BENCH_CACHE", cache, 1);
	dir = modules_tree("lib-modules",
			   "kernel/virtio_pci.ko: kernel/virtio.ko "
			   "kernel/virtio_ring.ko\n"
			   "kernel/virtio.ko: kernel/virtio_ring.ko\n"
			   "kernel/virtio_ring.ko:\n"
			   "kernel/virtio_net.ko.xz: kernel/virtio.ko "
			   "kernel/virtio_ring.ko\n"
			   "kernel/9pnet_virtio.ko.zst: kernel/9pnet.ko "
			   "kernel/virtio.ko kernel/virtio_ring.ko\n"
			   "kernel/9pnet.ko:\n"
			   "kernel/9p.ko: kernel/9pnet.ko\n",
			   "kernel/drivers/char/virtio_console.ko\n");
	p = xasprintf("%s/kernel", dir);
	mkdir(p, 0755);
	free(p);
	/* Each module's content is its own name, to check it lands right. */
	for (i = 0; i < ARRAY_SIZE(mods); i++) {
		p = xasprintf("%s/%s", dir, mods[i]);
		scratch__write_text(p, mods[i]);
		if (strstr(p, "virtio_net"))
			compress("xz", p);
		if (strstr(p, "9pnet_virtio"))
			ret = compress("zstd", p) ?: unlink(p);
		free(p);
	}
	config = xasprintf("%s/config", scratch);
	scratch__write(config, "CONFIG_INTEL_IOMMU=y\n", 21, 0644);

	ret = testbed__initrd_get(NULL, dir, NULL, config, "6.1.0-test", false,
				  &initrd, &cached, &err);
	is_int(ret, 0, "an initramfs from a scratch modules tree");
	if (ret) {
		tap_diag("%s", err);
		goto out;
	}
	ok(!cached, "built, not cached, the first time");
	ok(!strncmp(initrd, cache, strlen(cache)) &&
		   strstr(initrd, "/testbed/initrd/initrd-6.1.0-test-"),
	   "it lives in the cache: %s", initrd);

	/* The base is the initramfs's first part, byte for byte. */
	ret = testbed__initrd_get(NULL, NULL, NULL, NULL, NULL, false, &base,
				  &cached, &err);
	is_int(ret, 0, "the base alone, for a kernel with everything built in");
	ok(cached, "the base came from the cache");
	read_file(base, &data, &base_len);
	free(data);
	read_file(initrd, &data, &len);
	ok(len > base_len && scratch__same(base, data, base_len),
	   "the initramfs starts with the base");
	tail_path = xasprintf("%s/kernel-part.cpio", scratch);
	scratch__write(tail_path, data + base_len, len - base_len, 0644);
	free(data);

	out_dir = xasprintf("%s/initrd-out", scratch);
	mkdir(out_dir, 0755);
	{
		const char *x1[] = { "cpio",  "-idm", "--quiet", "-D",
				     out_dir, "-F",   base,	 NULL };
		const char *x2[] = { "cpio",  "-idm", "--quiet", "-D",
				     out_dir, "-F",   tail_path, NULL };

		ok(!scratch__run(x1, NULL) && !scratch__run(x2, NULL),
		   "both parts extract");
	}
	p = xasprintf("%s/init", out_dir);
	ok(scratch__same(p, testbed_init_script, strlen(testbed_init_script)),
	   "/init is the script");
	free(p);
	p = xasprintf("%s/bin/busybox", out_dir);
	ok(access(p, X_OK) == 0, "/bin/busybox is there, executable");
	free(p);
	p = xasprintf("%s/modules.load", out_dir);
	ok(scratch__same(p, order_want, strlen(order_want)),
	   "/modules.load lists the modules in load order");
	free(p);
	for (i = 0; i < ARRAY_SIZE(mods); i++) {
		p = xasprintf("%s/lib/modules/%s", out_dir, mods[i] + 7);
		ok(scratch__same(p, mods[i], strlen(mods[i])),
		   "%s is in /lib/modules, uncompressed", mods[i] + 7);
		free(p);
	}
	p = xasprintf("%s/boot/config-6.1.0-test", out_dir);
	ok(scratch__same(p, "CONFIG_INTEL_IOMMU=y\n", 21),
	   "the kernel's config is /boot/config-RELEASE");
	free(p);

	ret = testbed__initrd_get(NULL, dir, NULL, config, "6.1.0-test", false,
				  &again, &cached, &err);
	ok(!ret && cached && !strcmp(again, initrd),
	   "a second build is a cache hit, at the same path");
	free(again);
	again = NULL;
	ret = testbed__initrd_get(NULL, dir, NULL, config, "6.1.0-test", true,
				  &again, &cached, &err);
	ok(!ret && !cached && !strcmp(again, initrd),
	   "--force builds it again, at the same path");
	free(again);
	again = NULL;
	p = xasprintf("%s/kernel/9p.ko", dir);
	scratch__write(p, "a patched 9p", 12, 0644);
	free(p);
	ret = testbed__initrd_get(NULL, dir, NULL, config, "6.1.0-test", false,
				  &again, &cached, &err);
	ok(!ret && !cached && strcmp(again, initrd),
	   "a changed module gives a new initramfs");

	ret = testbed__initrd_get(NULL, dir, NULL, NULL, "../x", false, &again,
				  &cached, &err);
	is_int(ret, -EINVAL, "a bad release is refused");
	free(err);
	err = NULL;

	free(tail_path);
	free(out_dir);
out:
	unsetenv("IOMMU_BENCH_CACHE");
	free_all(config, again, err, base, initrd, dir, cache);
}

static void test_cache_dir(void)
{
	char *home = scratch__env_save("HOME");
	char *dir = NULL, *want;

	setenv("IOMMU_BENCH_CACHE", "/srv/cache/", 1);
	is_int(cache__dir(TESTBED_CACHE_SUB, &dir), 0,
	       "cache dir from IOMMU_BENCH_CACHE");
	is_str(dir, "/srv/cache/testbed", "is its testbed/ folder");
	free(dir);
	setenv("IOMMU_BENCH_CACHE", "rel", 1);
	cache__dir(TESTBED_CACHE_SUB, &dir);
	ok(dir[0] == '/' && strstr(dir, "/rel/testbed"),
	   "a relative IOMMU_BENCH_CACHE is made absolute: %s", dir);
	free(dir);
	unsetenv("IOMMU_BENCH_CACHE");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	cache__dir(TESTBED_CACHE_SUB, &dir);
	is_str(dir, "/xdg/iommu-bench/testbed", "else $XDG_CACHE_HOME");
	free(dir);
	setenv("XDG_CACHE_HOME", "relative", 1);
	setenv("HOME", "/home/someone", 1);
	cache__dir(TESTBED_CACHE_SUB, &dir);
	is_str(dir, "/home/someone/.cache/iommu-bench/testbed",
	       "a relative XDG_CACHE_HOME is ignored: $HOME/.cache");
	free(dir);
	unsetenv("XDG_CACHE_HOME");
	scratch__env_restore("HOME", home);
	want = xasprintf("%s/cache", scratch);
	setenv("IOMMU_BENCH_CACHE", want, 1);
	free(want);
}

static void test_cache(void)
{
	char *cache = xasprintf("%s/cache2", scratch), *tmp = NULL, *err = NULL;
	char *final, *p, *leftover;
	struct testbed_kernel k;
	int lock = -1, ret;
	pid_t pid;

	ret = testbed_cache__lock(cache, &lock, &err);
	is_int(ret, 0, "the cache is created and locked");
	/* Another process must wait for us. */
	pid = fork();
	if (pid == 0) {
		int fd = open(xasprintf("%s/.lock", cache), O_RDWR);

		_exit(flock(fd, LOCK_EX | LOCK_NB) ? 0 : 1);
	}
	waitpid(pid, &ret, 0);
	ok(WIFEXITED(ret) && WEXITSTATUS(ret) == 0,
	   "another process cannot take the lock meanwhile");

	final = xasprintf("%s/entry", cache);
	cache__mkdtemp(cache, &tmp, &err);
	p = xasprintf("%s/v", tmp);
	scratch__write(p, "one", 3, 0644);
	free(p);
	is_int(cache__commit(tmp, final, &err), 0, "committed");
	free(tmp);
	cache__mkdtemp(cache, &tmp, &err);
	p = xasprintf("%s/v", tmp);
	scratch__write(p, "two", 3, 0644);
	free(p);
	is_int(cache__commit(tmp, final, &err), 0,
	       "committed again over the first");
	p = xasprintf("%s/v", final);
	ok(scratch__same(p, "two", 3), "the second one is in place");
	free(p);
	ok(access(tmp, F_OK) && errno == ENOENT, "and the old one is gone");
	free(tmp);
	cache__unlock(lock);

	/* A build killed midway leaves a .tmp-*: the next lock sweeps it. */
	leftover = xasprintf("%s/.tmp-killed", cache);
	mkdir(leftover, 0755);
	ret = testbed_cache__lock(cache, &lock, &err);
	ok(!ret && access(leftover, F_OK), "a leftover .tmp-* is swept");
	cache__unlock(lock);
	free(leftover);

	setenv("IOMMU_BENCH_CACHE", cache, 1);
	ret = testbed__kernel("linux-image-6.1.0-57-amd64", NULL, false, &k,
			      &err);
	is_int(ret, -ENOENT, "without fetch, a kernel not in the cache fails");
	has_str(err, "iommu-bench testbed build --kernel",
		"saying how to get it");
	free(err);
	err = NULL;
	ret = testbed__kernel("linux-image-$(id)", NULL, true, &k, &err);
	is_int(ret, -EINVAL, "a bad package name is refused");
	has_str(err, "not a kernel package name", "saying so");
	free_all(err, final, cache);
}

int main(void)
{
	scratch__begin(scratch);
	test_cpio_names();
	test_cpio_roundtrip();
	test_names();
	test_module_order();
	test_init_script();
	test_cache_dir();
	test_initrd();
	test_cache();
	return scratch__end(scratch);
}
