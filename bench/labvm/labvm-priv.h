/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of the lab machine's image build and VM, shared by the
 * labvm-*.c files and their unit test.
 */
#ifndef IOMMU_BENCH_LABVM_PRIV_H
#define IOMMU_BENCH_LABVM_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/labvm/labvm.h"

/* An image build in progress: its log, its phases, its clock. */
struct labvm_build {
	int log_fd;
	char *log_path;
	const char *phase;
	double start, phase_start, last_tick;
};

void labvm_build__phase(struct labvm_build *b, const char *phase);
/* The progress line, when ~10 s have gone by since the last one. */
void labvm_build__tick(struct labvm_build *b);
/*
 * Run @argv with its output appended to the build's log, progress every
 * ~10 s, for at most @timeout_ms, @in fed to its stdin (NULL: none).
 * Failure: -EIO (or the errno) and *@err with the log's last lines.
 */
int labvm_build__run(struct labvm_build *b, const char *const *argv,
		     int timeout_ms, const char *in, char **err);
/* The same, its stdout returned in *@out instead of logged. */
int labvm_build__capture(struct labvm_build *b, const char *const *argv,
			 int timeout_ms, char **out, char **err);

/* The image's disk while it is built: a loop device, mounted. */
struct labvm_disk {
	char *loop;	     /* /dev/loopN */
	char *root_dev;	     /* its root partition */
	char *esp_dev;	     /* its EFI system partition; NULL: BIOS */
	char root_uuid[37];  /* chosen here: fstab and grub need it */
	char esp_serial[10]; /* the ESP's volume id, "ABCD-1234" */
	char *mnt;	     /* the root, mounted */
	char *mounts[8];     /* what we mounted, unmounted backwards */
	size_t nr_mounts;
	char *uuid_link; /* /dev/disk/by-uuid/UUID, made for grub */
	bool made_uuid_dir;
};

/* A sparse disk at @path, partitioned, on a loop device, formatted. */
int labvm_disk__create(struct labvm_build *b, const struct labvm_recipe *r,
		       const char *path, struct labvm_disk *d, char **err);
/* The root at @mnt; with the ESP at @mnt/boot/efi when there is one. */
int labvm_disk__mount_root(struct labvm_build *b, struct labvm_disk *d,
			   const char *mnt, char **err);
int labvm_disk__mount_esp(struct labvm_build *b, struct labvm_disk *d,
			  char **err);
/* /dev, /dev/pts, /proc and /sys inside, for the chroot's commands. */
int labvm_disk__bind(struct labvm_disk *d, char **err);
/*
 * grub-mkconfig writes root=UUID= only where udev's link for the UUID
 * exists, and the controller may have no udev: make it, for the build.
 */
int labvm_disk__uuid_link(struct labvm_disk *d, char **err);
/* Everything undone, whatever state the build stopped in. */
void labvm_disk__teardown(struct labvm_disk *d);
/*
 * What a killed build left under @images (".tmp-*" folders): their
 * mounts and loop devices let go, so that the cache can remove them.
 */
void labvm_disk__sweep(const char *images);

/* A random RFC 4122 version 4 UUID, lower-case. */
void labvm__uuid(char out[37]);

/* The lab machine's state folder: /run/iommu-bench/labvm/NAME. */
char *labvm__state_dir(const char *name);
bool labvm__name_ok(const char *name);

/* ---- its network: a tap link and a DHCP server of its own ---- */

struct labvm_net {
	unsigned int subnet; /* 10.91.SUBNET.0/24 */
	char tap[16];
	char mac[18];
	char host_ip[16], vm_ip[16];
	int dnsmasq_pid; /* 0: none started */
	unsigned long long dnsmasq_start;
};

/*
 * Choose the link of lab machine @name: @subnet, or with -1u the first
 * 10.91.N.0/24 that no interface here is on. The tap and the MAC follow
 * from it.
 */
int labvm_net__plan(const char *name, unsigned int subnet, struct labvm_net *n,
		    char **err);
/* The tap, addressed; then dnsmasq leasing the VM its address. */
int labvm_net__up(struct labvm_net *n, const char *dir, char **err);
/* dnsmasq stopped (by its PID, if it is still that process), tap gone. */
void labvm_net__down(const struct labvm_net *n);

/* ---- processes we started, known by PID and start time ---- */

/* Field 22 of /proc/PID/stat; 0 when the process is gone. */
unsigned long long labvm__starttime(int pid);
/* @pid still the process that had @starttime. */
bool labvm__alive(int pid, unsigned long long starttime);
/* The PID in a pidfile, or 0. */
int labvm__pidfile(const char *path);

/* ---- shared by both routes ---- */

/* @tool is a program in $PATH. */
bool labvm__have(const char *tool);
/* $cache/labvm[/SUB]; NULL with *@err when there is no cache. */
char *labvm__dir(const char *sub, char **err);
/*
 * Write @content at image path @path under @root (created with its
 * folders, 0700 under /root, 0755 elsewhere; never through a link).
 */
int labvm__write_in(const char *root, const char *path, unsigned int mode,
		    const char *content, char **err);
/* known_hosts at @out from the host keys under @root/etc/ssh. */
int labvm__known_hosts(const char *root, const char *out, char **err);
/* The release of the one kernel under @root/boot, or NULL. */
char *labvm__image_release(const char *root);

/* What a route leaves for image.json. */
struct labvm_built {
	char *release;
	char root_uuid[37];
};

/* ---- the unpack route (a foreign arch's image, labvm-foreign.c) ---- */

/*
 * The image of @r into folder @tmp (disk.raw, known_hosts): debs
 * fetched, unpacked natively, a disk made without loop devices or
 * mounts, then configured by one boot of the image's own arch.
 */
int labvm_foreign__build(struct labvm_build *b, const struct labvm_recipe *r,
			 const char *tmp, const char *pubkey,
			 struct labvm_built *out, char **err);

/* The debs of an image, in the order dpkg unpacks them. */
enum labvm_deb_rank {
	LABVM_DEB_PASSWD,    /* base-passwd: the users the others chown to */
	LABVM_DEB_FILES,     /* base-files: the tree's skeleton */
	LABVM_DEB_ESSENTIAL, /* Essential: yes or Priority: required */
	LABVM_DEB_REST,
};

struct labvm_deb {
	char *name;
	char *file; /* absolute, in the debs cache */
	enum labvm_deb_rank rank;
};

struct labvm_debs {
	struct labvm_deb *v;
	size_t nr;
};

/*
 * `apt-get -s install`'s "Inst NAME (VERSION ... [ARCH])" lines as debs
 * under @archives, by apt's own file names (a version's ':' as %3a).
 * -EINVAL for a name or version that could reach a path wrongly.
 */
int labvm_debs__parse_sim(const char *text, const char *archives,
			  struct labvm_debs *out, char **err);
/* A deb's rank from its name and its control fields (dpkg-deb -f). */
enum labvm_deb_rank labvm_debs__rank(const char *name, const char *control);
/* Sorted by rank, then by name: base-passwd, base-files, essential... */
void labvm_debs__order(struct labvm_debs *d);
void labvm_debs__release(struct labvm_debs *d);
/*
 * The private apt of recipe @r (its own sources, state and archives in
 * $cache/labvm/debs/SUITE-ARCH; /etc/apt is never written): its index
 * updated once per call with @update, then @pkgs and what they need
 * downloaded (kept: a rebuild downloads nothing) and listed, ranked.
 */
int labvm_debs__fetch(struct labvm_build *b, const struct labvm_recipe *r,
		      const char *const *pkgs, bool update,
		      struct labvm_debs *out, char **err);

/*
 * binfmt_misc mounted and qemu-aarch64 (that of @r's arch) registered
 * with the F flag, so that a root of that arch runs its scripts in a
 * chroot; a clear error when it cannot be.
 */
int labvm_unpack__binfmt(struct labvm_build *b, const struct labvm_recipe *r,
			 char **err);
/*
 * Root @root made from @debs on this machine: merged-/usr, every deb
 * extracted, then registered and unpacked by this machine's dpkg (only
 * the preinsts run, in the root's arch), services kept from starting
 * and update-initramfs diverted until stage 2.
 */
int labvm_unpack__root(struct labvm_build *b, const struct labvm_recipe *r,
		       const struct labvm_debs *debs, const char *root,
		       char **err);

/* The GPT of a UEFI image: an ESP then the root, in 512-byte sectors. */
struct labvm_gpt {
	unsigned long long esp_start, esp_sectors;
	unsigned long long root_start, root_sectors;
};

/*
 * The layout of a @disk_bytes disk with an @esp_mib ESP: 1 MiB aligned,
 * the root up to the backup GPT. -EINVAL when it does not fit.
 */
int labvm_gpt__layout(unsigned long long disk_bytes, unsigned int esp_mib,
		      struct labvm_gpt *g);
/* sfdisk's script for @g. */
char *labvm_gpt__script(const struct labvm_gpt *g);
/*
 * Disk @path made of @r's size without a loop device or a mount: @g's
 * partitions, the ESP as FAT32 (volume id @esp_id, 8 hex digits), the
 * root as ext4 of UUID @root_uuid filled from folder @root.
 */
int labvm_gpt__make(struct labvm_build *b, const struct labvm_recipe *r,
		    const char *path, const struct labvm_gpt *g,
		    const char *root, const char *root_uuid, const char *esp_id,
		    char **err);

/* A newc cpio archive in memory: the stage-2 initramfs. */
struct labvm_cpio {
	char *buf;
	size_t len, alloc;
	unsigned int ino;
};

void labvm_cpio__add(struct labvm_cpio *c, const char *name, unsigned int mode,
		     unsigned int rdev_major, unsigned int rdev_minor,
		     const void *data, size_t size);
/* The trailer: the archive is complete. */
void labvm_cpio__finish(struct labvm_cpio *c);
void labvm_cpio__release(struct labvm_cpio *c);

/* The scripts stage 2 runs in the VM (labvm-stage2*.sh), embedded. */
extern const char labvm_stage2_sh[];
extern const char labvm_stage2_init_sh[];

/*
 * Stage 2's files in @root (/labvm-stage2/: its script, its settings,
 * the recipe's files that it puts in place once packages are
 * configured); @pubkey is the controller's key.
 */
int labvm_stage2__prepare(const struct labvm_recipe *r, const char *root,
			  const char *pubkey, const char *root_uuid,
			  char **err);
/*
 * Boot disk @disk once in @r's arch with the kernel under @root and an
 * initramfs of @busybox_deb's busybox and the root's own modules; its
 * init runs stage 2, which configures the packages, makes the
 * initramfs, installs grub and powers off. Its success is read back
 * from its console, the ESP from the disk.
 */
int labvm_stage2__run(struct labvm_build *b, const struct labvm_recipe *r,
		      const char *root, const char *busybox_deb,
		      const char *disk, const struct labvm_gpt *g,
		      const char *tmp, char **err);

#endif /* IOMMU_BENCH_LABVM_PRIV_H */
