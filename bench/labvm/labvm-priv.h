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

#endif /* IOMMU_BENCH_LABVM_PRIV_H */
