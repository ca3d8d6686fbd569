/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A lab machine in a VM: a whole Debian system, made from Debian's
 * packages alone, that boots through firmware and grub into systemd and
 * sshd, and is driven only as a real lab machine is: over ssh, with a
 * power cycle for when it hangs. Nothing of iommu-bench is in it; the
 * ssh transport deploys the agent as it would to any machine.
 *
 * The image is built once per recipe and cached; each start runs the VM
 * on a copy-on-write overlay of its own, so that a run never damages the
 * image. Functions return 0 or a negative errno with their words in
 * *@err.
 */
#ifndef IOMMU_BENCH_LABVM_H
#define IOMMU_BENCH_LABVM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"

enum labvm_firmware {
	LABVM_BIOS, /* SeaBIOS, grub-pc in the MBR */
	LABVM_UEFI, /* edk2, grub-efi at the removable path */
};

/* How an image is made. */
enum labvm_route {
	/* debootstrap into a loop-mounted disk, configured in a chroot */
	LABVM_DEBOOTSTRAP,
	/*
	 * For a foreign arch: the debs unpacked by this machine's dpkg, the
	 * disk made without mounts, then configured in one boot of a VM of
	 * the image's arch (labvm-foreign.c): 2-3 times faster than
	 * configuring under qemu-user.
	 */
	LABVM_UNPACK_VM,
};

/* What an image is made of, and the machine that boots it. */
struct labvm_recipe {
	const char *name;     /* "bookworm-amd64": also the image's folder */
	const char *arch;     /* struct arch's name: "x86_64", "arm64" */
	const char *suite;    /* Debian's: "bookworm" */
	const char *packages; /* debootstrap --include, comma-separated */
	enum labvm_route route;
	enum labvm_firmware firmware;
	const char *grub_target; /* grub-install --target */
	const char *console;	 /* the kernel's serial console */
	unsigned int size_mib;	 /* the disk */
	/* The machine: QEMU's binary, machine, CPU under TCG, vIOMMU. */
	const char *qemu;
	const char *machine;
	const char *tcg_cpu;
	const char *iommu_device; /* a -device; NULL: the machine's own */
	const char *bios;	  /* -bios; NULL: QEMU's default */
	/*
	 * UEFI as flash: its code, and the variables each VM gets a copy
	 * of; where this machine lacks them, @bios.
	 */
	const char *efi_code, *efi_vars;
	/* The NIC's name in the guest, from its fixed PCI slot. */
	const char *nic;
};

/* The recipe of @arch's lab machine ("x86_64", "arm64"), or NULL. */
const struct labvm_recipe *labvm_recipe__find(const char *arch);
extern const struct labvm_recipe labvm_recipes[];
extern const size_t labvm_nr_recipes;

/* A file the build writes into the image's root, as the recipe says. */
struct labvm_file {
	const char *path; /* in the image, absolute */
	unsigned int mode;
	char *content;
};

/*
 * The files of @r's image that are ours (networking, grub's defaults,
 * sshd, the key that may log in as root): *@nr of them, freed with
 * labvm_files__free(). @pubkey is the controller's public key.
 */
void labvm_recipe__files(const struct labvm_recipe *r, const char *pubkey,
			 struct labvm_file **out, size_t *nr);
void labvm_files__free(struct labvm_file *f, size_t nr);
/*
 * The recipe's key: a sha256 over everything that decides what the
 * build makes (the recipe, its files, the build's own version), so that
 * an image is built again when, and only when, any of it changes.
 */
void labvm_recipe__key(const struct labvm_recipe *r, const char *pubkey,
		       char hex[SHA256_HEX_SIZE]);

/* A built image, as the cache holds it. */
struct labvm_image {
	const struct labvm_recipe *recipe;
	char *dir;	   /* $cache/labvm/images/NAME-KEY */
	char *disk;	   /* dir/disk.raw */
	char *key;	   /* the controller's private key for root */
	char *known_hosts; /* dir/known_hosts: the image's host keys */
	char *release;	   /* the kernel the image boots by default */
	double build_s;	   /* how long its build took */
	unsigned long long allocated; /* bytes the disk really uses */
};

/*
 * The image of recipe @r: from the cache, or built now when it lacks
 * one and @build (else -ENOENT); @force builds it again regardless.
 * Progress goes to the log at info level.
 */
/*
 * Asked during a build: non-zero once the user wants it stopped (the
 * command's signal handler), and the build then undoes what it made.
 */
extern int (*labvm_interrupted)(void);
int labvm_image__get(const struct labvm_recipe *r, bool build, bool force,
		     struct labvm_image *img, char **err);
void labvm_image__release(struct labvm_image *img);
json_t *labvm_image__json(const struct labvm_image *img);

/* The controller's ssh key pair for lab machines, made once. */
int labvm_key__get(char **priv, char **pub_text, char **err);

/* ---- a running lab machine ---- */

struct labvm_start_opts {
	const char *name; /* [A-Za-z0-9._-], also the host's name */
	const struct labvm_image *img;
	unsigned int subnet;	    /* 10.91.SUBNET.0/24; -1u: the first free */
	unsigned int cpus, mem_mib; /* 0: 2 and 1024 */
	int wait_ms;		    /* for ssh; 0: return once started */
};

/*
 * Start the VM: an overlay of its own over the image, a tap link from
 * this machine (10.91.N.1) to its NIC, the address it gets by DHCP
 * (10.91.N.2, leased by a dnsmasq of its own), QEMU daemonized with its
 * monitor on a socket. With @wait_ms, 0 only once it answers over ssh.
 * -EEXIST when a lab machine of that name runs.
 */
int labvm__start(const struct labvm_start_opts *o, json_t **state, char **err);
/* What `labvm start` prints: the [hosts.NAME] stanza of a matrix. */
char *labvm__stanza(const json_t *state, const char *exe);

/*
 * The machine's state as start wrote it, with "running" as it is now
 * (QEMU's process checked by PID and start time). -ENOENT: no such VM.
 */
int labvm__status(const char *name, json_t **state, char **err);
/* Every lab machine with a state folder, by name. */
int labvm__list(json_t **out, char **err);

/*
 * A power cycle: QEMU's system_reset through its monitor, what an IPMI
 * chassis power cycle does to a real machine.
 */
int labvm__reset(const char *name, char **err);
/*
 * Power off (QEMU quits; killed by its PID if it will not), its dnsmasq
 * stopped, its tap removed, its overlay and state deleted.
 */
int labvm__stop(const char *name, char **err);

#endif /* IOMMU_BENCH_LABVM_H */
