/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Host facts: what this host's kernel, IOMMU, NICs, CPUs and memory are
 * and do right now, read from sysfs, procfs and the kernel log; and,
 * for a real machine, its DMI, firmware, boot loader, systemd and
 * distribution. `probe`
 * prints them; the agent stores them with each boot and VERIFIES a mode
 * after every change with hostfacts__dma_policy().
 *
 * Every function reads under @root, "/" when NULL, so that tests can
 * build a fake sysfs/procfs tree in a scratch directory. What cannot be
 * rooted (the ethtool ioctl, uname, the collectors) is only asked when
 * @root is the real "/". Functions return 0 or a negative errno and
 * print nothing: the caller decides whether a missing fact is an error.
 * Strings are malloc'ed; each struct has its release function.
 */
#ifndef IOMMU_BENCH_HOSTFACTS_H
#define IOMMU_BENCH_HOSTFACTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "iommu-mode.h"

/* The version of hostfacts__gather_opts()'s JSON (docs/probe.md). */
#define HOSTFACTS_FORMAT 2

struct hostfacts_opts {
	const char *root; /* NULL: "/" */
	/* Ask every collector kind what it supports here (slow-ish). */
	bool collectors;
};

/*
 * Everything, as the JSON object documented in docs/probe.md. Facts that
 * cannot be read are null and explained under "warnings"; only running
 * out of the root itself (no procfs) fails.
 */
int hostfacts__gather_opts(const struct hostfacts_opts *opts, json_t **out);

/* ---- identity and kernel ---- */

struct hostfacts_identity {
	/*
	 * What the store keys hosts on: "machine-id=HEX", then
	 * ";product-uuid=UUID" where DMI has a real one (cloned images share
	 * a machine-id; a reinstall changes it). With neither, the DMI
	 * product or board serial. Never anything that changes per boot.
	 */
	char *key;
	char *machine_id;     /* /etc/machine-id; NULL: none or uninitialised */
	char *product_uuid;   /* DMI; NULL: unreadable or a placeholder */
	char *product_serial; /* DMI; NULL likewise */
	char *board_serial;   /* DMI; NULL likewise */
	char *vendor;	      /* DMI sys_vendor, for people; may be NULL */
	char *product;	      /* DMI product_name, for people; may be NULL */
};

/*
 * -ENOENT when there is nothing stable to key on: @id->key is NULL, the
 * rest is filled as far as it goes. Release @id either way.
 */
int hostfacts__identity(const char *root, struct hostfacts_identity *id);
void hostfacts__identity_release(struct hostfacts_identity *id);

/* /proc/sys/kernel/random/boot_id: a new one proves a reboot. */
int hostfacts__boot_id(const char *root, char **out);
/* /proc/sys/kernel/osrelease, which is `uname -r`. */
int hostfacts__kernel_release(const char *root, char **out);
/* The GNU build-id note of /sys/kernel/notes, lower-case hex. */
int hostfacts__build_id(const char *root, char **out);
/* /proc/cmdline without its newline. */
int hostfacts__cmdline(const char *root, char **out);

/* ---- IOMMU hardware and groups ---- */

enum hostfacts_iommu_kind {
	HOSTFACTS_IOMMU_UNKNOWN,
	HOSTFACTS_IOMMU_INTEL,	 /* Intel VT-d, "dmarN" */
	HOSTFACTS_IOMMU_AMD,	 /* AMD-Vi, "ivhdN" */
	HOSTFACTS_IOMMU_SMMU_V3, /* Arm SMMUv3, "smmu3.0xADDR" */
	HOSTFACTS_IOMMU_SMMU,	 /* Arm SMMU v1/v2, "smmu.0xADDR" */
	HOSTFACTS_IOMMU_VIRTIO,	 /* virtio-iommu */
};

struct hostfacts_iommu_unit {
	char *name; /* as in /sys/class/iommu */
	enum hostfacts_iommu_kind kind;
	char *driver; /* driver of the device behind it; NULL: none */
	char *cap;    /* Intel/AMD capability register, hex; NULL: none */
	char *ecap;   /* Intel extended capability, AMD features; NULL */
	/* Intel CAP.CM: 1 forces strict (a virtual IOMMU); -1: not known */
	int caching_mode;
	size_t nr_devices; /* devices it translates */
};

const char *hostfacts__iommu_kind_name(enum hostfacts_iommu_kind k);
const char *hostfacts__iommu_kind_label(enum hostfacts_iommu_kind k);
int hostfacts__iommu_units(const char *root,
			   struct hostfacts_iommu_unit **units, size_t *nr);
void hostfacts__iommu_units_free(struct hostfacts_iommu_unit *units, size_t nr);

struct hostfacts_device {
	char *name;    /* 0000:00:03.0, or a platform device's name */
	char *bus;     /* pci, platform ...; NULL: unknown */
	char *driver;  /* NULL: no driver bound */
	char *class;   /* PCI class, "0x020000"; NULL: not PCI */
	char *vendor;  /* PCI vendor id, "0x1af4"; NULL: not PCI */
	char *device;  /* PCI device id; NULL: not PCI */
	int numa_node; /* -1: none */
	char **net;    /* network interfaces of the device */
	size_t nr_net;
};

struct hostfacts_group {
	unsigned int id;
	char *type; /* sysfs's word: DMA, DMA-FQ, identity ...; NULL: unread */
	struct hostfacts_device *devices;
	size_t nr_devices;
};

/* Groups sorted by number, their devices by name. */
int hostfacts__iommu_groups(const char *root, struct hostfacts_group **groups,
			    size_t *nr);
void hostfacts__iommu_groups_free(struct hostfacts_group *groups, size_t nr);

/* ---- the DMA policy in effect ---- */

/* The modes of src/iommu-mode.h in its order, from HOSTFACTS_DMA_STRICT. */
enum hostfacts_dma_mode {
	HOSTFACTS_DMA_UNKNOWN,
	HOSTFACTS_DMA_NONE, /* no IOMMU: DMA is not translated */
	HOSTFACTS_DMA_STRICT = 2 + IOMMU_MODE_STRICT,
	HOSTFACTS_DMA_LAZY = 2 + IOMMU_MODE_LAZY,
	HOSTFACTS_DMA_PASSTHROUGH = 2 + IOMMU_MODE_PASSTHROUGH,
	HOSTFACTS_DMA_MIXED = 2 + NR_IOMMU_MODES, /* the groups disagree */
};

const char *hostfacts__dma_mode_name(enum hostfacts_dma_mode m);
/* What a group's type means: DMA strict, DMA-FQ lazy, identity ... */
enum hostfacts_dma_mode hostfacts__group_mode(const struct hostfacts_group *g);

/* Which witness decided hostfacts_dma_policy.mode. */
enum hostfacts_dma_source {
	HOSTFACTS_SRC_NONE,    /* nothing to decide: no IOMMU, or no clue */
	HOSTFACTS_SRC_GROUPS,  /* the groups' types: what is in effect */
	HOSTFACTS_SRC_KMSG,    /* the kernel's boot-time log line */
	HOSTFACTS_SRC_CMDLINE, /* iommu.strict=, iommu=pt ... */
	HOSTFACTS_SRC_CONFIG,  /* CONFIG_IOMMU_DEFAULT_* */
};

const char *hostfacts__dma_source_name(enum hostfacts_dma_source s);

/* One IOMMU-related parameter of the kernel command line. */
struct hostfacts_cmdline_key {
	char *key;   /* iommu.strict, intel_iommu ... */
	char *value; /* as written; "" for a bare key */
	/* What it asks for: a mode, or UNKNOWN when it asks for none. */
	enum hostfacts_dma_mode means;
	bool disables; /* intel_iommu=off, amd_iommu=off, iommu=off */
};

struct hostfacts_dma_policy {
	enum hostfacts_dma_mode mode;
	enum hostfacts_dma_source source;
	char *summary;	 /* one line for people */
	char **evidence; /* how we know, one sentence each */
	size_t nr_evidence;
	/* What each witness says on its own; UNKNOWN when it is silent. */
	enum hostfacts_dma_mode groups, kmsg, cmdline, config;
	/* Groups by type: in each mode of src/iommu-mode.h, and the rest. */
	size_t nr_mode[NR_IOMMU_MODES], nr_other;
	size_t nr_units;
	struct hostfacts_cmdline_key *keys;
	size_t nr_keys;
	char **kmsg_lines; /* the kernel's own IOMMU policy lines */
	size_t nr_kmsg_lines;
	char *config_source; /* the kernel config read; NULL: none found */
	char **config_lines; /* its IOMMU options, as written there */
	size_t nr_config_lines;
};

/*
 * The effective policy and the evidence for it. The group types are what
 * the DMA API uses now and win over everything else; the log line, the
 * command line and the config only say what the boot asked for, and a
 * disagreement is spelled out in the evidence.
 */
int hostfacts__dma_policy(const char *root, struct hostfacts_dma_policy *p);
void hostfacts__dma_policy_release(struct hostfacts_dma_policy *p);

/* The IOMMU-related keys of a command line, in order; init's args after
 * "--" are not the kernel's and are skipped. */
int hostfacts__cmdline_keys(const char *cmdline,
			    struct hostfacts_cmdline_key **keys, size_t *nr);
void hostfacts__cmdline_keys_free(struct hostfacts_cmdline_key *keys,
				  size_t nr);

/* ---- NICs ---- */

struct hostfacts_nic {
	char *name;
	char *driver;	      /* NULL: unknown */
	char *driver_version; /* ethtool's; NULL: unknown */
	char *firmware;	      /* NULL: none reported */
	char *bus_info;	      /* ethtool's; NULL: none */
	char *pci;	      /* the PCI device behind it; NULL: none */
	bool is_virtual;      /* no device behind it: veth, bridge, ifb */
	unsigned int rx_queues, tx_queues;
	int numa_node;	 /* -1: none */
	int iommu_group; /* -1: none */
	long speed_mbps; /* -1: unknown (down, or virtual) */
	unsigned int mtu;
	char *operstate; /* up, down ...; NULL: unknown */
};

/* Every interface of this network namespace but loopback, by name. */
int hostfacts__nics(const char *root, struct hostfacts_nic **nics, size_t *nr);
void hostfacts__nics_free(struct hostfacts_nic *nics, size_t nr);

/* ---- CPUs and memory ---- */

struct hostfacts_cpu {
	char *model;  /* NULL: unknown */
	char *vendor; /* NULL: unknown */
	unsigned int possible, present, online;
	char *online_list;			/* "0-7,9" */
	unsigned int sockets, threads_per_core; /* 0: unknown */
	char *smt_control; /* on, off, notsupported ...; NULL: unknown */
	int smt_active;	   /* -1: unknown */
	char *governor;	   /* distinct governors, comma-separated; NULL */
	char *cpufreq_driver;
};

int hostfacts__cpu(const char *root, struct hostfacts_cpu *cpu);
void hostfacts__cpu_release(struct hostfacts_cpu *cpu);

struct hostfacts_memory {
	unsigned long long total_kib, available_kib; /* 0: unknown */
	unsigned long long hugepages, hugepage_kib;
	char *numa_nodes; /* "0-1"; NULL: no NUMA information */
};

int hostfacts__memory(const char *root, struct hostfacts_memory *mem);
void hostfacts__memory_release(struct hostfacts_memory *mem);

/* ---- the machine, its firmware, its boot and its distribution ---- */

/* Non-secret DMI strings, as firmware wrote them; serials are identity's. */
struct hostfacts_dmi {
	char *sys_vendor, *product_name, *product_version;
	char *board_vendor, *board_name;
	char *bios_vendor, *bios_version, *bios_date;
	int chassis_type; /* the SMBIOS number; -1: unknown */
};

/* -ENOENT without /sys/class/dmi/id; a field it lacks is NULL. */
int hostfacts__dmi(const char *root, struct hostfacts_dmi *dmi);
void hostfacts__dmi_release(struct hostfacts_dmi *dmi);
/* SMBIOS's word for a chassis type ("rack mount chassis"); NULL: none. */
const char *hostfacts__chassis_name(int type);

enum hostfacts_firmware_kind {
	HOSTFACTS_FW_UNKNOWN, /* no EFI, no DMI, no devicetree */
	HOSTFACTS_FW_BIOS,    /* DMI but no EFI: a legacy BIOS (SeaBIOS) */
	HOSTFACTS_FW_UEFI,    /* /sys/firmware/efi */
	/* a devicetree, no EFI and no DMI: a board booted directly */
	HOSTFACTS_FW_DEVICETREE,
};

struct hostfacts_firmware {
	enum hostfacts_firmware_kind kind;
	int secure_boot;   /* 1, 0; -1: unknown or not UEFI */
	int platform_bits; /* UEFI's 64 or 32; -1: unknown */
};

const char *hostfacts__firmware_name(enum hostfacts_firmware_kind k);
int hostfacts__firmware(const char *root, struct hostfacts_firmware *fw);

/* Entries of grub.cfg kept; a menu longer than this is cut there. */
#define HOSTFACTS_GRUB_MAX_ENTRIES 64

struct hostfacts_grub_entry {
	char *title;
	char *id;      /* --id (Debian: $menuentry_id_option); NULL: none */
	char *submenu; /* the submenu's title; NULL: the top menu */
	char *image;   /* the linux command's kernel; NULL: not Linux */
	char *args;    /* its arguments, unquoted, one space apart */
	/*
	 * Its commands as grub.cfg has them (a line each, the braces
	 * left out, at most HOSTFACTS_GRUB_MAX_BODY bytes): what a copy
	 * of the entry with other arguments needs (reboot = "grub").
	 */
	char *body;
};

#define HOSTFACTS_GRUB_MAX_BODY 8192

struct hostfacts_grub {
	char *config; /* "/boot/grub/grub.cfg"; NULL: not read */
	int config_err;
	struct hostfacts_grub_entry *entries;
	size_t nr_entries;
	bool truncated; /* more than HOSTFACTS_GRUB_MAX_ENTRIES */
	bool env;	/* /boot/grub/grubenv was read */
	char *saved_entry, *next_entry; /* grubenv; NULL: unset */
	/* /etc/default/grub, then grub.d's .cfg files: the last one wins */
	char **defaults_files;
	size_t nr_defaults_files;
	char *grub_default, *cmdline_linux, *cmdline_linux_default;
	char *grub_reboot, *grub_editenv; /* their paths; NULL: missing */
};

/* -ENOENT when no grub file exists at all. Release @g either way. */
int hostfacts__grub(const char *root, struct hostfacts_grub *g);
void hostfacts__grub_release(struct hostfacts_grub *g);
/*
 * The entry a kernel with @cmdline was booted from: the one whose image
 * is its BOOT_IMAGE= and whose arguments it all got (@exact), else the
 * first with that image; -1: none.
 */
long hostfacts__grub_booted(const struct hostfacts_grub *g, const char *cmdline,
			    bool *exact);

struct hostfacts_boot_loader {
	char *name;	    /* "grub", "systemd-boot"; NULL: no trace */
	char *loader_info;  /* the LoaderInfo EFI variable; NULL: none */
	char *loader_entry; /* LoaderEntrySelected (systemd-boot); NULL */
	char *boot_image;   /* BOOT_IMAGE= of the command line; NULL */
	char **evidence;    /* how we know, one sentence each */
	size_t nr_evidence;
	long booted;	   /* index in grub.entries; -1: not found */
	bool booted_exact; /* its arguments are all on the command line */
	int grub_err;	   /* hostfacts__grub()'s */
	struct hostfacts_grub grub;
};

/* -ENOENT when no loader left a trace; release @bl either way. */
int hostfacts__boot_loader(const char *root, struct hostfacts_boot_loader *bl);
void hostfacts__boot_loader_release(struct hostfacts_boot_loader *bl);

/* /run/systemd/system exists: systemd is PID 1. */
bool hostfacts__systemd_running(const char *root);

/* The split of `systemd-analyze time`, in ms; -1: not reported. */
struct hostfacts_boot_time {
	long long firmware_ms, loader_ms, kernel_ms, initrd_ms, userspace_ms;
	long long total_ms;
};

/*
 * Asks the running systemd (see hostfacts-systemd.c for why it runs
 * systemd-analyze): -EOPNOTSUPP under another root, -ESRCH without
 * systemd, -EAGAIN while the boot is not finished; the words in *@err
 * (may be NULL), which the caller frees.
 */
int hostfacts__boot_time(const char *root, struct hostfacts_boot_time *t,
			 char **err);

/* os-release's ID, VERSION_ID and PRETTY_NAME; NULL where unset. */
struct hostfacts_distro {
	char *id, *version_id, *pretty_name;
	char *source; /* the file read */
};

int hostfacts__distro(const char *root, struct hostfacts_distro *d);
void hostfacts__distro_release(struct hostfacts_distro *d);

/* The options "kernel_config" reports, NULL-terminated. */
extern const char *const hostfacts_kconfig_names[];

struct hostfacts_kconfig {
	char *source; /* /boot/config-RELEASE, or /proc/config.gz */
	char **lines; /* "CONFIG_X=y", "CONFIG_Y=n" (not set) */
	size_t nr_lines;
};

/* -ENOENT when no config is readable. */
int hostfacts__kernel_config(const char *root, struct hostfacts_kconfig *kc);
void hostfacts__kernel_config_release(struct hostfacts_kconfig *kc);
/* @name's value ("y", "m", "n", a number ...); NULL: not in the config. */
const char *hostfacts__kernel_config_value(const struct hostfacts_kconfig *kc,
					   const char *name);

#endif /* IOMMU_BENCH_HOSTFACTS_H */
