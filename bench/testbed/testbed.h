/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The testbed's guest parts, kept in a cache on the controller: Debian
 * kernel packages downloaded (never installed) and unpacked, and the
 * initramfs that boots them into this tool's agent.
 *
 * Cache: $IOMMU_BENCH_CACHE, else $XDG_CACHE_HOME/iommu-bench, else
 * $HOME/.cache/iommu-bench; the testbed lives in its testbed/ folder.
 * Everything is built in a temporary folder beside its final place and
 * renamed into place when complete, under an flock() of the cache, so a
 * killed build leaves nothing half made and two runs never build the
 * same thing at once.
 *
 * The guest contract (what the initramfs's /init does; the qemu
 * transport relies on it):
 *   - mounts proc, sysfs, devtmpfs, tracefs, debugfs, bpffs; loads the
 *     modules in /modules.load, in order (absent for kernels with the
 *     drivers built in);
 *   - brings lo up, waits (bounded) for the NIC named by
 *     iommu_bench.nic= (default eth0), brings it up and adds
 *     iommu_bench.ip= (a CIDR) to it when given, and a default route
 *     through iommu_bench.gw=;
 *   - mounts the controller's root, shared read-only over 9p with the
 *     mount tag TESTBED_9P_TAG, at /host, unless the initramfs carries
 *     a root of its own there (/host/TESTBED_OWN_ROOT: a LAVA device
 *     that shares nothing with the controller); binds /proc, /sys, /dev into
 *     it and puts tmpfs on /host/tmp, /host/run and /host/var/tmp, and
 *     a machine-id of its own (iommu_bench.machine_id=) over
 *     /host/etc/machine-id; and, when the initramfs has the kernel's
 *     config, a tmpfs on /host/boot holding it as config-<release> (the
 *     controller's /boot describes other kernels);
 *   - prints TESTBED_READY_LINE and the uptime on the console;
 *   - then, forever: opens the virtio-serial port named
 *     TESTBED_PORT_NAME read-write and runs, chrooted into /host,
 *     `iommu_bench.exe= agent serve` with stdin and stdout on it and
 *     stderr on the console; or, given iommu_bench.ctl=ADDRESS:PORT,
 *     runs `agent connect ADDRESS:PORT` with the job's secret, which
 *     the initramfs carries in /TESTBED_SECRET_FILE (copied to the
 *     guest's /run, mode 0600, never on the command line). The agent
 *     exits when the controller disconnects (EOF) and is started again;
 *     any other exit is said on the console with its status.
 *   Values from the command line are checked against a safe character
 *   set before use; a bad one is reported on the console and ignored.
 */
#ifndef IOMMU_BENCH_TESTBED_H
#define IOMMU_BENCH_TESTBED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include <stdint.h>

#include "strvec.h"

struct arch;

#define TESTBED_9P_TAG "hostfs"
#define TESTBED_PORT_NAME "iommu-bench.agent"
#define TESTBED_READY_LINE "iommu-bench-guest: ready"
/* Under /host: the root is the initramfs's own, not mounted over 9p. */
#define TESTBED_OWN_ROOT ".iommu-bench-root"
/* At the initramfs's top: the secret `agent connect` proves. */
#define TESTBED_SECRET_FILE "iommu-bench-secret"

/*
 * Where a kernel package keeps its image and config. Debian 7.x splits
 * a kernel: linux-image-VER is empty and depends on linux-binary-VER
 * (the image), linux-modules-VER and linux-base-VER (config, System.map,
 * modules.builtin), all under usr/lib/modules/VER.
 */
enum testbed_layout {
	TESTBED_LAYOUT_BOOT,	/* boot/vmlinuz-VER, boot/config-VER */
	TESTBED_LAYOUT_MODULES, /* usr/lib/modules/VER/{vmlinuz,config} */
};

/*
 * A guest kernel from a Debian package, ready to boot. @package,
 * @version and @suite say what was measured: for a meta-package
 * (@asked, "linux-image-amd64") they are the versioned package it
 * resolved to in its suite at the time, which the caller records.
 */
struct testbed_kernel {
	char *package; /* "linux-image-6.1.0-57-amd64" */
	char *version; /* the package's version, "6.1.192-3" */
	char *release; /* `uname -r` in the guest, "6.1.0-57-amd64" */
	char *suite;   /* the suite asked for, else the one it came from;
			* NULL: the machine's apt */
	char *asked;   /* the meta-package asked for; NULL: @package was */
	char *dir;     /* where it is unpacked */
	char *image;   /* .../boot/vmlinuz-<release>, or per @layout */
	char *initrd;  /* the initramfs: the base plus its modules */
	char *config;  /* .../boot/config-<release>, or per @layout */
	enum testbed_layout layout;
	bool cached; /* nothing had to be downloaded or built */
};

/* The testbed cache's folder, under cache__dir(). */
#define TESTBED_CACHE_SUB "testbed"

/*
 * A Debian linux-image package name: "linux-image-" and [a-z0-9.+-]
 * after it, no more than 100 characters.
 */
bool testbed__package_is_valid(const char *package);

/* A package named by flavour only ("linux-image-amd64"), no version. */
bool testbed__package_is_meta(const char *package);

/*
 * @package ready to boot: downloaded with `apt-get download`, unpacked
 * with `dpkg -x`, `depmod -b` run, and its initramfs built, each step
 * only when the cache does not hold it already. With @suite (NULL: the
 * machine's apt), from that Debian suite through a private apt
 * configuration in the cache (testbed-apt.c), where a meta-package
 * resolves to the versioned one it depends on now. With @fetch false a
 * kernel not in the cache is -ENOENT (nothing is downloaded).
 * 0 and *@k filled, or a negative errno and *@err saying what failed in
 * words (the package name, the tool's last stderr line: "E: Unable to
 * locate package ..." for a typo).
 */
int testbed__kernel(const char *package, const char *suite, bool fetch,
		    struct testbed_kernel *k, char **err);
/*
 * What @package is in @suite now, downloading no kernel: apt-get update
 * of the suite, then the versioned package (a meta-package's, else
 * @package itself, checked to be there) in *@name and its version in
 * *@version. The errors are testbed__kernel()'s for bad input.
 */
int testbed__kernel_resolve(const char *package, const char *suite, char **name,
			    char **version, char **err);
/* The same with the modules @extra in its initramfs (see initrd_get). */
int testbed__kernel_with(const char *package, const char *suite,
			 const char *const *extra, struct testbed_kernel *k,
			 char **err);
void testbed_kernel__release(struct testbed_kernel *k);
/*
 * @option ("CONFIG_VIRTIO_IOMMU") in the config of @package as the cache
 * holds it: 'y', 'm' or 'n'; 0 when the cache holds no such kernel or
 * no config for it. Downloads nothing, so that a plan can ask.
 */
int testbed__kernel_option(const char *package, const char *option);

/*
 * An initramfs for a kernel that is not a package (an image of the
 * matrix, a `kernel build` output) of @arch (NULL: this machine's):
 * the base, plus the modules under
 * @modules_dir (a lib/modules/<release> folder) when not NULL. 0 and a
 * new path in *@initrd (cached by the content of its inputs), or a
 * negative errno and *@err.
 */
int testbed__initrd(const struct arch *arch, const char *modules_dir,
		    const char *release, char **initrd, char **err);

/*
 * Internals, shared by the testbed-*.c files, the testbed command and
 * tests/unit/test-testbed.c.
 */

/* Where the base takes its busybox from (Debian's busybox-static). */
#define TESTBED_BUSYBOX "/bin/busybox"

/* The initramfs's /init, a busybox sh script doing the contract above. */
extern const char testbed_init_script[];

/* The guest's modules, loaded with their dependencies first. */
extern const char *const testbed_modules[];

/* A kernel release: [A-Za-z0-9._+-], not starting with '.' or '-'. */
bool testbed__release_is_valid(const char *release);

/* testbed__kernel(); with @force, downloaded and built again regardless. */
int testbed__kernel_get(const char *package, const char *suite,
			const char *const *extra, bool fetch, bool force,
			struct testbed_kernel *k, char **err);

/*
 * The value of @field in a control stanza (dpkg-deb -f, apt-cache
 * show), continuation lines joined; NULL: not there. free() it.
 */
char *testbed__control_field(const char *stanza, const char *field);
/*
 * The package names of a Depends value, each alternative of each
 * group, in order, without versions or arch qualifiers.
 */
void testbed__depends_names(const char *depends, struct strvec *names);
/*
 * The versioned kernel a meta-package's Depends names for its flavour
 * ("linux-image-amd64" depends on "linux-image-7.3.4+deb13-amd64"),
 * never a -dbg one. NULL: none. free() it.
 */
char *testbed__meta_target(const char *meta, const char *depends);
/*
 * The packages a Debian 7.x linux-image-VER depends on that hold the
 * kernel: linux-binary-VER, linux-modules-VER, linux-base-VER, those
 * of them its @depends names, in that order.
 */
void testbed__kernel_parts(const char *package, const char *depends,
			   struct strvec *parts);

/*
 * Which layout the unpacked @tree has, and its release. -ENOENT: no
 * image in either (a meta-package, or a 7.x image package alone).
 */
int testbed__tree_layout(const char *tree, enum testbed_layout *layout,
			 char **release, char **err);
/* The image and config of @release unpacked in @dir, by @layout. */
char *testbed__layout_image(const char *dir, enum testbed_layout layout,
			    const char *release);
char *testbed__layout_config(const char *dir, enum testbed_layout layout,
			     const char *release);
/* "boot", "modules"; and back (-1: none such). */
const char *testbed_layout__name(enum testbed_layout layout);
int testbed_layout__find(const char *name);

/*
 * A private apt configuration for one suite and guest arch, in the
 * cache's apt/SUITE-ARCH: its own sources.list (Debian's mirror, the
 * suite's main, signed-by Debian's keyring), lists, cache, preferences
 * and an empty dpkg status, so the machine's apt is neither read nor
 * changed. The mirror is $IOMMU_BENCH_DEBIAN_MIRROR, else the machine's
 * own for Debian (debian.sources), else deb.debian.org.
 */
struct testbed_apt {
	char *dir;
	char *suite;
	const struct arch *arch;
	struct strvec opts; /* the -o options every apt command takes */
};
int testbed_apt__open(struct testbed_apt *apt, const char *cache,
		      const char *suite, const struct arch *arch, char **err);
void testbed_apt__release(struct testbed_apt *apt);
/*
 * `apt-get update`: an unknown suite (no Release file) is -ENOENT, with
 * a did-you-mean; a failed signature -EPERM, naming the suite.
 */
int testbed_apt__update(struct testbed_apt *apt, char **err);
/*
 * The candidate stanza of @package in the suite (apt-cache show); one
 * the suite lacks is -ENOENT, naming the nearest linux-image-* it has.
 */
int testbed_apt__show(struct testbed_apt *apt, const char *package,
		      char **stanza, char **err);
/* `apt-get download` @package into the empty @dir; the .deb in *@deb. */
int testbed_apt__download(struct testbed_apt *apt, const char *package,
			  const char *dir, char **deb, char **err);
/*
 * What apt's failed update said, classified: 1 no Release file (an
 * unknown suite), 2 a failed signature, 0 other; the line in @buf.
 */
int testbed__apt_failure(const char *text, char *buf, size_t size);

/*
 * testbed__initrd() with the modules @extra (NULL-terminated, may be
 * NULL: a host's NIC and disk drivers) beside testbed_modules, and the
 * kernel's config (@config, when not NULL)
 * as the initramfs's boot/config-<release>; with @force, built again
 * regardless. *@cached (may be NULL): nothing had to be built.
 */
int testbed__initrd_get(const struct arch *arch, const char *modules_dir,
			const char *const *extra, const char *config,
			const char *release, bool force, char **initrd,
			bool *cached, char **err);

/*
 * The path of the busybox for a guest of @arch (NULL: this machine's):
 * TESTBED_BUSYBOX, or busybox-static of that arch fetched into the
 * cache. 0 and a new string in *@path, or a negative errno and *@err.
 */
int testbed__busybox(const struct arch *arch, char **path, char **err);

/*
 * The paths, relative to @modules_dir, of the modules named in @wanted
 * (NULL-terminated) and all they depend on, each once, dependencies
 * first, from @modules_dir/modules.dep. A module built into the kernel
 * (modules.builtin) is left out; one neither there nor built in is
 * -ENOENT. 0 and the paths in *@paths, or a negative errno and *@err.
 */
int testbed__module_order(const char *modules_dir, const char *const *wanted,
			  struct strvec *paths, char **err);

/* Debian's version syntax, as far as it may reach a file name. */
bool testbed__version_is_valid(const char *version);

/*
 * Run @argv, in @dir when not NULL (apt-get download writes where it
 * runs, and only there), for at most @timeout_ms; its stdout in *@out
 * when @out is not NULL. The child dies with us: a build killed midway
 * must not go on writing into a folder the next build sweeps. apt's
 * "E:" line, when it has one, is what *@err quotes.
 */
int testbed__run(const char *const *argv, const char *dir, int timeout_ms,
		 char **out, char **err);
/*
 * The same, with its stderr in *@errout (may be NULL) whenever it ran
 * to its end, for callers that read more of it than the E: line.
 */
int testbed__run_std(const char *const *argv, const char *dir, int timeout_ms,
		     char **out, char **errout, char **err);
/* The one *.deb that apt-get put in @dir. */
int testbed__find_deb(const char *dir, const char *package, char **deb,
		      char **err);
/*
 * `apt-get download` @package (of @arch; NULL: this machine's) into the
 * empty folder @dir; the .deb's path in *@deb.
 */
/*
 * The .deb files of cached kernel @k (the package, and the parts a
 * Debian 7.x image depends on), fetched into its folder the first time
 * (testbed-debs.c): the very version the cache unpacked, or -ESTALE.
 */
int testbed__kernel_debs(const struct testbed_kernel *k, struct strvec *debs,
			 char **err);
/* What @debs take installed (Installed-Size), and the part in /boot. */
int testbed__debs_sizes(const struct testbed_kernel *k,
			const struct strvec *debs, uint64_t *installed,
			uint64_t *boot, char **err);
int testbed__deb_fetch(const char *package, const struct arch *arch,
		       const char *dir, char **deb, char **err);
/* The value of the package's control @field ("" when it has none). */
int testbed__deb_field(const char *deb, const char *field, char **value,
		       char **err);
/* The package's Version field, checked. */
int testbed__deb_version(const char *deb, char **version, char **err);
/* `dpkg -x @deb @dir`. */
int testbed__deb_unpack(const char *deb, const char *dir, char **err);

/*
 * Create @dir and take the testbed cache's lock, waiting a bounded time
 * for another build; leftovers of killed builds are swept (cache.h).
 */
int testbed_cache__lock(const char *dir, int *fd, char **err);

#endif /* IOMMU_BENCH_TESTBED_H */
