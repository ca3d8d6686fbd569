// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernels from a Debian suite, the parts that need no network: suite
 * names and their did-you-mean, the matrix's suite key, control fields
 * and Depends lines as apt and dpkg-deb print them, what a meta-package
 * resolves to, the parts of a Debian 7.x kernel, both package layouts
 * on a scratch tree, and apt's failures told apart. The fetch itself is
 * tests/cli/testbed-suite.t's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/testbed/testbed.h"
#include "cache.h"
#include "debian-suite.h"
#include "matrix-load.h"
#include "scratch-files.h"
#include "tap.h"
#include "util.h"

static char scratch[] = "/tmp/iommu-bench-test-testbed-suite.XXXXXX";

static void test_suite_names(void)
{
	static const char *const good[] = { "sid", "trixie-backports",
					    "bookworm", "forky-updates", "x1" };
	static const char *const bad[] = {
		"",	"Trixie",	   "-sid", "trixie/../x", "sid main",
		"1sid", "trixie_backports"
	};
	char longname[42];

	check_names(debian_suite__is_valid, "suite", good, bad);
	memset(longname, 'a', 40);
	longname[40] = '\0';
	ok(debian_suite__is_valid(longname), "40 characters are allowed");
	longname[40] = 'a';
	longname[41] = '\0';
	ok(!debian_suite__is_valid(longname), "41 are not");

	is_str(debian_suite__suggest("trixie-backport"), "trixie-backports",
	       "a missing letter is a typo of trixie-backports");
	is_str(debian_suite__suggest("bookwrom"), "bookworm",
	       "two swapped letters are a typo of bookworm");
	ok(!debian_suite__suggest("trixie-backports"),
	   "a known suite has nothing to suggest");
	ok(!debian_suite__suggest("nosuchsuite"),
	   "nor has a name far from every suite (maybe a newer one)");
}

static void test_matrix_suite(void)
{
	/* The kernel last, so that its suite is on line 16. */
	static const char head[] =
		"[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"
		"address = \"10.77.0.2/24\"\nlink = \"peer\"\n"
		"[hosts.peer]\ntransport = \"netns\"\n"
		"address = \"10.77.0.1/24\"\n"
		"[[workloads]]\nname = \"rx\"\nserver = \"vm\"\n"
		"client = \"peer\"\n"
		"[[kernels]]\nname = \"k\"\n";
	struct matrix *m;
	char *toml;

	toml = xasprintf("%spackage = \"linux-image-7.3.4+deb13-amd64\"\n"
			 "suite = \"trixie-backports\"\n",
			 head);
	m = load(toml);
	ok(m && m->kernels[0].suite &&
		   !strcmp(m->kernels[0].suite, "trixie-backports"),
	   "suite is kept beside package");
	ok(m && m->kernels[0].release &&
		   !strcmp(m->kernels[0].release, "7.3.4+deb13-amd64"),
	   "and the release still comes from the package's name");
	matrix__free(m);
	free(toml);

	toml = xasprintf("%spackage = \"linux-image-amd64\"\n"
			 "suite = \"sid\"\n",
			 head);
	m = load(toml);
	ok(m && m->kernels[0].kind == KERNEL_PACKAGE && !m->kernels[0].release,
	   "a meta-package with a suite expects no release of its name");
	matrix__free(m);
	free(toml);

	toml = xasprintf("%spackage = \"linux-image-amd64\"\n", head);
	m = load(toml);
	ok(m && !m->kernels[0].suite, "without suite, none is set");
	matrix__free(m);
	free(toml);

	toml = xasprintf("%spackage = \"linux-image-amd64\"\n"
			 "suite = \"trixie-backport\"\n",
			 head);
	load_refused(toml,
		     "test.toml:16:9: error: suite: unknown suite "
		     "'trixie-backport' (did you mean 'trixie-backports'?)",
		     "a typo of a suite is refused at its place, with a "
		     "did-you-mean");
	free(toml);
	toml = xasprintf("%spackage = \"linux-image-amd64\"\n"
			 "suite = \"sid main\"\n",
			 head);
	load_refused(toml,
		     "test.toml:16:9: error: suite: 'sid main' is not a "
		     "Debian suite name",
		     "a suite that is not a name is refused");
	free(toml);
	toml = xasprintf("%simage = \"/boot/vmlinuz\"\nsuite = \"sid\"\n",
			 head);
	load_refused(toml, "has no package to fetch from suite 'sid'",
		     "a suite without a package is refused");
	free(toml);
}

/* As `apt-cache show` prints them (trixie-backports, 2026). */
static const char meta_stanza[] =
	"Package: linux-image-amd64\n"
	"Source: linux-signed-amd64 (7.3.4+1~bpo13+1)\n"
	"Version: 7.3.4-1~bpo13+1\n"
	"Architecture: amd64\n"
	"Depends: linux-base-amd64 (= 7.3.4-1~bpo13+1), "
	"linux-image-7.3.4+deb13-amd64 (= 7.3.4-1~bpo13+1),\n"
	" linux-modules-amd64 (= 7.3.4-1~bpo13+1)\n"
	"Description: Linux for 64-bit PCs (meta-package)\n";

static const char image_depends[] =
	"dracut | initramfs-tools (>= 0.120+deb8u2) | linux-initramfs-tool, "
	"linux-base-7.3.4+deb13-amd64 (= 7.3.4-1~bpo13+1), "
	"linux-binary-7.3.4+deb13-amd64 (= 7.3.4-1~bpo13+1), "
	"linux-modules-7.3.4+deb13-amd64 (= 7.3.4-1~bpo13+1)";

static char *joined(const struct strvec *sv)
{
	return strvec__join(sv, " ");
}

static void test_control(void)
{
	struct strvec names = { 0 }, parts = { 0 };
	char *v, *s;

	v = testbed__control_field(meta_stanza, "Version");
	is_str(v, "7.3.4-1~bpo13+1", "the Version field");
	free(v);
	v = testbed__control_field(meta_stanza, "depends");
	is_str(v,
	       "linux-base-amd64 (= 7.3.4-1~bpo13+1), "
	       "linux-image-7.3.4+deb13-amd64 (= 7.3.4-1~bpo13+1), "
	       "linux-modules-amd64 (= 7.3.4-1~bpo13+1)",
	       "a folded Depends field, its lines joined, any case of name");
	free(v);
	ok(!testbed__control_field(meta_stanza, "Pre-Depends"),
	   "a field not there is NULL");
	ok(!testbed__control_field("Package: x\nDependsX: y\n", "Depends"),
	   "a field whose name only starts the same is not it");

	testbed__depends_names(image_depends, &names);
	s = joined(&names);
	is_str(s,
	       "dracut initramfs-tools linux-initramfs-tool "
	       "linux-base-7.3.4+deb13-amd64 linux-binary-7.3.4+deb13-amd64 "
	       "linux-modules-7.3.4+deb13-amd64",
	       "Depends names: every alternative, versions dropped");
	free(s);
	strvec__release(&names);
	testbed__depends_names("libc6:any (>= 2.36) [amd64],foo\n", &names);
	s = joined(&names);
	is_str(s, "libc6 foo",
	       "arch qualifiers, lists and dpkg-deb's newline dropped too");
	free(s);
	strvec__release(&names);
	testbed__depends_names("", &names);
	ok(!names.nr, "an empty Depends names nothing");

	ok(testbed__package_is_meta("linux-image-amd64"),
	   "linux-image-amd64 is a meta-package");
	ok(testbed__package_is_meta("linux-image-cloud-arm64"),
	   "and linux-image-cloud-arm64");
	ok(!testbed__package_is_meta("linux-image-7.3.4+deb13-amd64"),
	   "a versioned name is not");

	v = testbed__control_field(meta_stanza, "Depends");
	s = testbed__meta_target("linux-image-amd64", v);
	is_str(s, "linux-image-7.3.4+deb13-amd64",
	       "the meta-package resolves to its versioned kernel");
	free(s);
	s = testbed__meta_target("linux-image-cloud-amd64", v);
	ok(!s, "a meta-package of another flavour takes none of them");
	free(s);
	free(v);
	s = testbed__meta_target(
		"linux-image-amd64-dbg",
		"linux-base-amd64 (= 7.3.4-1~bpo13+1), "
		"linux-image-7.3.4+deb13-amd64-dbg (= 7.3.4-1~bpo13+1)");
	ok(!s, "a -dbg meta-package resolves to no kernel");
	free(s);
	s = testbed__meta_target("linux-image-arm64",
				 "linux-image-6.1.0-57-amd64 (= 1)");
	ok(!s, "nor one whose versioned kernel is of another arch");
	free(s);
	s = testbed__meta_target("linux-image-arm64",
				 "linux-image-6.1.0-57-arm64 (= 6.1.192-3)");
	is_str(s, "linux-image-6.1.0-57-arm64",
	       "Debian 12's arm64 meta-package resolves too");
	free(s);

	testbed__kernel_parts("linux-image-7.3.4+deb13-amd64", image_depends,
			      &parts);
	s = joined(&parts);
	is_str(s,
	       "linux-binary-7.3.4+deb13-amd64 linux-modules-7.3.4+deb13-amd64 "
	       "linux-base-7.3.4+deb13-amd64",
	       "a 7.x image's parts: binary, modules and base");
	free(s);
	strvec__release(&parts);
	testbed__kernel_parts("linux-image-6.1.0-57-amd64",
			      "kmod, linux-base (>= 4.3~), initramfs-tools",
			      &parts);
	ok(!parts.nr, "a 6.1 image has none");
	strvec__release(&parts);
}

/* The layout's config file of @release under @tree holds @want. */
static void is_config(const char *tree, enum testbed_layout layout,
		      const char *release, const char *want, const char *what)
{
	char *p = testbed__layout_config(tree, layout, release);

	ok(p && strstr(p, want), "%s", what);
	free(p);
}

static void test_layout(void)
{
	char *tree, *release = NULL, *err = NULL, *p;
	enum testbed_layout layout = TESTBED_LAYOUT_BOOT;
	int ret;

	tree = xasprintf("%s/old", scratch);
	scratch__mkdir_p(tree);
	ret = testbed__tree_layout(tree, &layout, &release, &err);
	is_int(ret, -ENOENT, "an empty tree has no kernel");
	has_str(err, "not a kernel image", "saying so");
	free(err);
	err = NULL;

	scratch__put_at("image", "%s/boot/vmlinuz-6.1.0-57-amd64", tree);
	ret = testbed__tree_layout(tree, &layout, &release, &err);
	ok(!ret && layout == TESTBED_LAYOUT_BOOT &&
		   !strcmp(release, "6.1.0-57-amd64"),
	   "boot/vmlinuz-RELEASE is the boot layout");
	is_config(tree, layout, release, "/old/boot/config-6.1.0-57-amd64",
		  "its config is boot/config-RELEASE");
	free(release);
	release = NULL;
	free(tree);

	tree = xasprintf("%s/new", scratch);
	/* linux-modules alone: a folder of modules, no image. */
	scratch__put_at("",
			"%s/usr/lib/modules/7.3.4+deb13-amd64/kernel/x.ko.xz",
			tree);
	ret = testbed__tree_layout(tree, &layout, &release, &err);
	is_int(ret, -ENOENT, "modules without linux-binary are no kernel");
	free(err);
	err = NULL;
	scratch__put_at("image", "%s/usr/lib/modules/7.3.4+deb13-amd64/vmlinuz",
			tree);
	ret = testbed__tree_layout(tree, &layout, &release, &err);
	ok(!ret && layout == TESTBED_LAYOUT_MODULES &&
		   !strcmp(release, "7.3.4+deb13-amd64"),
	   "usr/lib/modules/RELEASE/vmlinuz is the 7.x layout");
	p = testbed__layout_image(tree, layout, release);
	ok(scratch__same(p, "image", 5), "its image path is that file");
	free(p);
	is_config(
		tree, layout, release,
		"/new/usr/lib/modules/7.3.4+deb13-amd64/config",
		"and its config is linux-base's usr/lib/modules/RELEASE/config");
	free(release);
	release = NULL;

	scratch__put_at("image",
			"%s/usr/lib/modules/7.2.13+deb14-amd64/vmlinuz", tree);
	ret = testbed__tree_layout(tree, &layout, &release, &err);
	is_int(ret, -EINVAL, "two kernels in one tree are refused");
	has_str(err, "2 kernel images", "saying how many");
	free(err);
	free(tree);

	is_str(testbed_layout__name(TESTBED_LAYOUT_MODULES), "modules",
	       "the layout's name for testbed.json");
	is_int(testbed_layout__find("boot"), TESTBED_LAYOUT_BOOT, "and back");
	is_int(testbed_layout__find("usr"), -1, "an unknown one is -1");
}

static void test_apt_failures(void)
{
	char buf[256];

	is_int(testbed__apt_failure(
		       "E: The repository 'http://deb.debian.org/debian "
		       "trixie-backportz Release' does not have a Release "
		       "file.\n",
		       buf, sizeof(buf)),
	       1, "no Release file: an unknown suite");
	has_str(buf, "trixie-backportz Release", "its line is kept");
	is_int(testbed__apt_failure(
		       "W: GPG error: http://deb.debian.org/debian sid "
		       "InRelease: The following signatures couldn't be "
		       "verified because the public key is not available: "
		       "NO_PUBKEY 6ED0E7B82643E131\n"
		       "E: The repository 'http://deb.debian.org/debian sid "
		       "InRelease' is not signed.\n",
		       buf, sizeof(buf)),
	       2, "a GPG error: a failed signature");
	has_str(buf, "NO_PUBKEY 6ED0E7B82643E131",
		"apt's reason, not only 'not signed'");
	ok(!strncmp(buf, "GPG error", 9), "without apt's W: prefix");
	is_int(testbed__apt_failure("E: The repository 'x sid InRelease' is "
				    "not signed.\n",
				    buf, sizeof(buf)),
	       2, "an unsigned repository alone is one too");
	is_int(testbed__apt_failure("W: something\nE: Could not get lock\n",
				    buf, sizeof(buf)),
	       0, "anything else is neither");
	is_str(buf, "Could not get lock", "and its E: line is kept");
}

/*
 * A kernel in the cache, as a build leaves it: @json its testbed.json,
 * @image relative to its folder, and modules.builtin holding every
 * module the initramfs wants, so that none needs packing.
 */
static void cached_kernel(const char *cache, const char *package,
			  const char *json, const char *image,
			  const char *modules)
{
	static const char builtin[] =
		"kernel/drivers/virtio/virtio_pci.ko\n"
		"kernel/drivers/net/virtio_net.ko\n"
		"kernel/drivers/char/virtio_console.ko\n"
		"kernel/net/9p/9pnet_virtio.ko\nkernel/fs/9p/9p.ko\n";

	scratch__put_at(json, "%s/testbed/kernels/%s/testbed.json", cache,
			package);
	scratch__put_at("image", "%s/testbed/kernels/%s/%s", cache, package,
			image);
	scratch__put_at(builtin, "%s/testbed/kernels/%s/%s/modules.builtin",
			cache, package, modules);
	scratch__put_at("", "%s/testbed/kernels/%s/%s/modules.dep", cache,
			package, modules);
}

static void test_cached_layouts(void)
{
	static const char pkg7[] = "linux-image-7.3.4+deb13-amd64";
	static const char pkg6[] = "linux-image-6.1.0-57-amd64";
	static const char rel7[] = "7.3.4+deb13-amd64";
	char *cache = xasprintf("%s/cache", scratch), *err = NULL;
	char *data = NULL;
	struct testbed_kernel k;
	size_t len;
	int ret;

	if (!cache__has_file(TESTBED_BUSYBOX)) {
		tap_skip("no " TESTBED_BUSYBOX
			 " (apt-get install busybox-static)");
		free(cache);
		return;
	}
	setenv("IOMMU_BENCH_CACHE", cache, 1);
	cached_kernel(cache, pkg7,
		      "{\"package\": \"linux-image-7.3.4+deb13-amd64\", "
		      "\"version\": \"7.3.4-1~bpo13+1\", "
		      "\"release\": \"7.3.4+deb13-amd64\", "
		      "\"layout\": \"modules\", "
		      "\"suite\": \"trixie-backports\"}",
		      "usr/lib/modules/7.3.4+deb13-amd64/vmlinuz",
		      "usr/lib/modules/7.3.4+deb13-amd64");
	scratch__put_at("CONFIG_IOMMU_DMA=y\n",
			"%s/testbed/kernels/%s/usr/lib/modules/%s/config",
			cache, pkg7, rel7);

	ret = testbed__kernel(pkg7, NULL, false, &k, &err);
	is_int(ret, 0, "a cached 7.x kernel is found without apt");
	if (ret)
		tap_diag("%s", err);
	ok(k.layout == TESTBED_LAYOUT_MODULES, "in the modules layout");
	ok(k.image && strstr(k.image, "/usr/lib/modules/7.3.4+deb13-amd64/"
				      "vmlinuz"),
	   "its image is linux-binary's");
	ok(k.config && strstr(k.config, "/usr/lib/modules/7.3.4+deb13-amd64/"
					"config"),
	   "its config is linux-base's");
	is_str(k.suite, "trixie-backports", "the suite its testbed.json says");
	ok(!k.asked, "nothing resolved: it was asked by name");
	ok(k.initrd && !read_file(k.initrd, &data, &len) &&
		   memmem(data, len, "boot/config-7.3.4+deb13-amd64", 29),
	   "its initramfs carries its config as boot/config-RELEASE");
	free(data);
	testbed_kernel__release(&k);
	free(err);
	err = NULL;

	ret = testbed__kernel(pkg7, "sid", false, &k, &err);
	ok(!ret && k.suite && !strcmp(k.suite, "sid"),
	   "asked from another suite, the suite asked for comes back");
	testbed_kernel__release(&k);
	free(err);
	err = NULL;

	/* Written before 7.x: no layout key, boot/ it is. */
	cached_kernel(cache, pkg6,
		      "{\"package\": \"linux-image-6.1.0-57-amd64\", "
		      "\"version\": \"6.1.192-3\", "
		      "\"release\": \"6.1.0-57-amd64\"}",
		      "boot/vmlinuz-6.1.0-57-amd64",
		      "lib/modules/6.1.0-57-amd64");
	ret = testbed__kernel(pkg6, NULL, false, &k, &err);
	ok(!ret && k.layout == TESTBED_LAYOUT_BOOT && !k.suite &&
		   strstr(k.image, "/boot/vmlinuz-6.1.0-57-amd64"),
	   "a testbed.json without a layout is the boot layout, no suite");
	testbed_kernel__release(&k);
	free(err);
	err = NULL;

	ret = testbed__kernel(pkg6, "sid main", false, &k, &err);
	is_int(ret, -EINVAL, "a bad suite is refused before anything else");
	has_str(err, "not a Debian suite name", "saying so");
	free(err);
	free(cache);
}

int main(void)
{
	scratch__begin(scratch);
	test_suite_names();
	test_matrix_suite();
	test_control();
	test_layout();
	test_apt_failures();
	test_cached_layouts();
	return scratch__end(scratch);
}
