/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A matrix file, parsed and validated: which hosts, which kernels, which
 * IOMMU modes, which workloads, what to collect and how often to repeat.
 * docs/matrix.md describes every key; this header is what the plan and
 * the orchestrator read.
 *
 * All strings and arrays are owned by the matrix. Every object remembers
 * where it came from in the file (@pos, and @src, its TOML table) so
 * that checks made long after loading can still point at file:line:col;
 * objects that exist without being written (built-in modes, the implicit
 * running kernel) have a zero @pos and a NULL @src.
 *
 * Paths in the matrix are resolved against the matrix file's folder when
 * relative, and stored resolved.
 */
#ifndef IOMMU_BENCH_MATRIX_H
#define IOMMU_BENCH_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "config-error.h"
#include "iommu-mode.h"
#include "toml.h"

/* Generous limits that still catch a runaway generated file. */
#define MATRIX_MAX_REPETITIONS 10000
#define MATRIX_MAX_PROFILE_TRIALS 100
/* CPU numbers in affinities (iperf3 -A, QEMU threads). */
#define MATRIX_MAX_CPU 4095
#define MATRIX_MAX_WARMUP 100

enum matrix_order {
	ORDER_GROUPED,	   /* fewest mode switches and reboots */
	ORDER_INTERLEAVED, /* a round over every state per repetition */
	ORDER_RANDOM,	   /* shuffled per host, reproducible by seed */
};

struct matrix_run {
	char *name;
	char *description;
	unsigned int repetitions;
	unsigned int warmup; /* unrecorded trials after each state change */
	enum matrix_order order;
	uint64_t seed;
	uint64_t cooldown_ms; /* between two trials on a host */
	char *db; /* NULL: the tool's default (see global__db_path) */
	/* The modes to run, in order: indexes into matrix.modes. */
	size_t *modes;
	size_t nr_modes;
	/*
	 * until = { ci_width, max_repetitions }: rounds of repetitions
	 * added until every headline comparison's interval is this narrow
	 * (in percent of the baseline), at most max_repetitions; 0: none.
	 */
	double until_width_pct;
	unsigned int until_max;
	struct toml_pos pos;
	const struct toml_value *src;
};

enum host_transport { HOST_LOCAL, HOST_NETNS, HOST_SSH, HOST_QEMU, HOST_LAVA };
enum host_role { ROLE_PEER, ROLE_SUT };
enum host_reboot { REBOOT_NONE, REBOOT_KEXEC, REBOOT_GRUB, REBOOT_RESTART };
enum qemu_disk_model { QEMU_DISK_NVME };

/* Longest disk name: it is the NVMe serial number, 20 bytes. */
#define MATRIX_DISK_NAME_MAX 20

/*
 * A scratch disk of a qemu host: an image the tool makes per host in
 * its state folder, zero-filled, never a file of the user's; the guest
 * sees it as the device whose serial number is @name.
 */
struct matrix_disk {
	char *name;
	enum qemu_disk_model model;
	uint64_t size; /* bytes; 0 on an ssh or local host */
	char *path;    /* ssh, local: the block device; NULL on qemu */
	struct toml_pos pos;
};

/*
 * A transport as the matrix sees it. Each lives in its own folder
 * (bench/host/NAME/NAME-keys.c), which the matrix never includes: the
 * table of them is handed to matrix__set_transports() from above
 * (bench/host/host-transports.c) before a matrix is loaded. The matrix
 * reads the keys every host shares; a transport's own, and any table of
 * [hosts.NAME] named after it, are its hooks' to read into h->conf.
 */
struct mx;
struct matrix_host;
struct matrix_transport {
	const char *name; /* as transport = "NAME" says */
	enum host_transport id;
	/* The keys of [hosts.NAME] it takes beyond the common three. */
	const char *const *keys;
	/* A machine somebody starts per boot, the tool or a lab. */
	bool vm;
	/* The tool starts it: reboot = "restart" or "kexec" inside it. */
	bool restarts;
	/* The controller's own kernel, never rebooted: what the host is. */
	const char *never_reboots;
	/* Where kernels sent to it go; NULL: /var/lib/iommu-bench/kernels. */
	const char *kernel_dir;
	/* Its defaults and h->conf, before any key of @h is read. */
	void (*defaults)(struct matrix_host *h);
	/*
	 * Its own keys of [hosts.NAME] @tab, after the common ones, and
	 * its address (matrix_host__parse_address(), or its own words).
	 * NULL op: only the address, an IP or a CIDR.
	 */
	void (*parse)(struct mx *mx, struct matrix_host *h,
		      const struct toml_value *tab);
	/* What defaults() and parse() made; h->conf freed. */
	void (*release)(struct matrix_host *h);
	/* The guest's arch where the transport decides it; NULL op: any. */
	const struct arch *(*arch)(const struct matrix_host *h);
	/* Disks of its own making; NULL op: h->disks, devices by path. */
	const struct matrix_disk *(*disks)(const struct matrix_host *h,
					   size_t *nr);
	/*
	 * A dma_map workload lends a device of the machine's own, made
	 * for it (DMA_MAP_QEMU_SPARE_BDF); spare_held(): a driver holds
	 * it from boot. NULL op: a device is named by its address.
	 */
	void (*lend_spare)(struct matrix_host *h);
	bool (*spare_held)(const struct matrix_host *h);
	/*
	 * Its hosts boot in pairs (one lab job for a SUT and its peer
	 * device): what @sut and @peer need of each other. NULL op: every
	 * host boots by itself.
	 */
	void (*check_mate)(struct mx *mx, const struct matrix_host *sut,
			   const struct matrix_host *peer);
	/*
	 * Where @h reaches a workload's server on the controller, when
	 * not at the server's address (a device behind its lab's NAT);
	 * NULL: at the server's address.
	 */
	const char *(*server_ip)(const struct matrix_host *h);
};

/*
 * The transports a matrix may name, NULL-terminated; each entry's id
 * once. Called once, before the first matrix__load().
 */
void matrix__set_transports(const struct matrix_transport *const *table);
/* The transport named @name, or NULL. */
const struct matrix_transport *matrix__transport(const char *name);

struct matrix_host {
	char *name;
	char *description;
	enum host_transport transport;
	enum host_role role;
	/*
	 * ssh: the destination given to ssh (a name ~/.ssh/config may map);
	 * netns and qemu: the CIDR of its interface, "10.77.0.2/24";
	 * local: the address others reach it at, CIDR when linked.
	 */
	char *address;
	char *data_address; /* ssh: where iperf3 connects; NULL: address */
	char *user;	    /* ssh; NULL: whatever ssh's config says */
	char *ssh_key;	    /* ssh: the identity file; NULL: ssh's config's */
	char *known_hosts;  /* ssh: its host keys, pinned; NULL: ssh's own */
	/*
	 * ssh, local: the lab machine in a VM it is (labvm = "NAME"); its
	 * address and keys are read from it when it runs, else NULL until
	 * it does (plan warns, run refuses).
	 */
	char *labvm;
	unsigned int port; /* ssh; 0: whatever ssh's config says */
	char *nic;	   /* the interface under test, on the host */
	bool allow_reboot;
	enum host_reboot reboot; /* how it boots another kernel or cmdline */
	/*
	 * ssh, qemu: where kernels the controller holds (builds; for qemu
	 * booting by kexec, all) are copied to on the host.
	 */
	char *kernel_dir;
	/*
	 * ssh: the file its serial console is logged to, on the controller;
	 * a boot that panics or halts is given up when it says so there.
	 */
	char *console;
	char **power_cycle; /* argv run on the controller; NULL-terminated */
	size_t nr_power_cycle;
	uint64_t boot_timeout_ms;
	uint64_t boot_estimate_ms; /* for the plan's time estimate */
	char *netns;		   /* netns: the namespace's name */
	size_t link; /* netns/local/qemu: index of the veth peer */
	bool has_link;
	/*
	 * lava: the host booted with this one, as the other role of one
	 * LAVA multinode job (a SUT's peer device, a peer device's SUT),
	 * when has_mate; else this host's jobs are its own.
	 */
	size_t mate;
	bool has_mate;
	/*
	 * Its transport, and what that one alone reads of its own keys
	 * (the VM of a qemu host, the lab of a lava host): only the
	 * transport's folder (bench/host/NAME/) knows its shape.
	 */
	const struct matrix_transport *ops;
	void *conf;
	/* ssh, local: disks = [{ name, path }] a fio workload may target */
	struct matrix_disk *disks;
	size_t nr_disks;
	/*
	 * A workload here measures a device other than the NIC (fio's
	 * disk, dma_map's device): a sysfs switch changes the NIC's IOMMU
	 * group only, so every mode here is booted instead.
	 */
	bool disk_workload;
	struct toml_pos pos;
	const struct toml_value *src;
};

enum kernel_kind {
	KERNEL_RUNNING, /* whatever the host has booted */
	KERNEL_IMAGE,	/* a prebuilt image (+ initrd) to boot */
	KERNEL_BUILD,	/* built from a tree + patches by `kernel build` */
	KERNEL_PACKAGE, /* a Debian linux-image package (qemu hosts) */
};

struct matrix_build {
	char *tree;	/* kernel source (git) tree, on the controller */
	char *base;	/* git revision to start from; NULL: HEAD */
	char **patches; /* applied in order with git am */
	size_t nr_patches;
	char *config;	  /* base .config; NULL: defconfig */
	char **fragments; /* merged on top, in order */
	size_t nr_fragments;
	char *arch;	     /* kernel ARCH=; NULL: the controller's */
	char *cross_compile; /* CROSS_COMPILE= prefix; NULL: none */
};

struct matrix_kernel {
	char *name;
	char *description;
	enum kernel_kind kind;
	char *image;
	char *initrd;
	char **cmdline; /* extra arguments, one per element */
	size_t nr_cmdline;
	char *release; /* `uname -r` expected after boot; NULL: any */
	char *package; /* KERNEL_PACKAGE: "linux-image-6.1.0-57-amd64" */
	char *suite;   /* its Debian suite; NULL: the controller's apt */
	struct matrix_build build;
	/*
	 * KERNEL_BUILD, once `run` has built it (not from the file): @image
	 * and @release are the build's, and these complete them.
	 */
	char *modules_dir;  /* lib/modules/RELEASE of the build; NULL: none */
	char *build_id;	    /* the GNU build id of its vmlinux */
	char *built_config; /* its final .config, for the guest's /boot */
	char *modules_tar;  /* the build's modules packed; NULL: none */
	char *recipe;	    /* kbuild_result__recipe(), for the store */
	/*
	 * KERNEL_PACKAGE, once `run` has fetched it: the versioned package
	 * it is now (a meta-package's target) and its Debian version; the
	 * whole run boots that one, however the suite moves meanwhile.
	 */
	char *fetched;
	char *version;
	/* KERNEL_PACKAGE: left installed on lab hosts after the run. */
	bool keep;
	struct toml_pos pos;
	const struct toml_value *src;
};

/*
 * One past src/iommu-mode.h's modes and its list of group types, so that
 * GROUP_TYPE_X - GROUP_TYPE_DMA is the mode and g - 1 the sysfs word.
 */
enum group_type {
	GROUP_TYPE_UNSET,
	GROUP_TYPE_DMA = 1 + IOMMU_MODE_STRICT,
	GROUP_TYPE_DMA_FQ = 1 + IOMMU_MODE_LAZY,
	GROUP_TYPE_IDENTITY = 1 + IOMMU_MODE_PASSTHROUGH,
	GROUP_TYPE_AUTO = 1 + NR_IOMMU_MODES, /* the kernel's default */
};

enum mode_method {
	METHOD_AUTO,
	METHOD_SYSFS,
	METHOD_KEXEC,
	METHOD_GRUB,
	METHOD_NONE,   /* the user arranged it; only verified */
	METHOD_REBOOT, /* the host's own boot method, whichever it is */
};

struct matrix_mode {
	char *name;
	bool builtin;
	/*
	 * A built-in whose cmdline the user left alone: a sysfs switch of the
	 * NIC's group gives the same state for the NIC, so "auto" may prefer
	 * it over a reboot. A user's own cmdline may carry more than that.
	 */
	bool sysfs_equivalent;
	char **cmdline;
	size_t nr_cmdline;
	enum group_type group_type;
	enum mode_method method;
	char *description;
	struct toml_pos pos;
	const struct toml_value *src;
};

/* How a mode is put in place on a host; see matrix__apply(). */
enum mode_apply {
	APPLY_NONE,    /* nothing to do: verify (or only record) */
	APPLY_SYSFS,   /* write the NIC group's type, no reboot */
	APPLY_KEXEC,   /* kexec into the kernel with the cmdline */
	APPLY_GRUB,    /* a one-shot grub entry and a reboot */
	APPLY_RESTART, /* restart the VM (qemu) with the cmdline */
};

enum workload_type { WORKLOAD_IPERF3, WORKLOAD_FIO, WORKLOAD_DMA_MAP };
enum iperf3_protocol { PROTO_TCP, PROTO_UDP };

struct iperf3_affinity {
	int *cpus; /* one per process; NULL: not pinned */
	size_t nr;
};

struct matrix_iperf3 {
	enum iperf3_protocol protocol;
	unsigned int streams;	/* -P */
	unsigned int processes; /* parallel iperf3 pairs, ports port.. */
	uint64_t duration_ms;	/* -t, whole seconds */
	uint64_t omit_ms;	/* -O, whole seconds */
	bool reverse;		/* -R: the server sends */
	bool bidir;		/* --bidir */
	uint64_t length;	/* -l bytes; 0: iperf3's default */
	uint64_t window;	/* -w bytes; 0: the kernel's autotuning */
	uint64_t bitrate;	/* -b bits/s; 0: unlimited */
	bool has_bitrate;	/* UDP's default is 1 Mbit/s, so tell apart */
	char *congestion;	/* -C; NULL: the host's default */
	bool zerocopy;		/* -Z */
	unsigned int mss;	/* -M; 0: default */
	bool no_delay;		/* -N */
	unsigned int port;	/* -p, of the first process */
	struct iperf3_affinity server_cpus, client_cpus;
};

/* In the order of fio_rw_names (matrix-fio.c): fio's own --rw values. */
enum fio_rw {
	FIO_READ,
	FIO_WRITE,
	FIO_RANDREAD,
	FIO_RANDWRITE,
	FIO_READWRITE,
	FIO_RANDRW,
};

/* fio on one host against one of its disks; no peer, no network. */
struct matrix_fio {
	size_t disk; /* index into the host's disks */
	enum fio_rw rw;
	uint64_t bs;	      /* bytes */
	unsigned int iodepth; /* per job */
	unsigned int numjobs;
	bool direct;	  /* O_DIRECT: every I/O reaches the device's DMA */
	bool destructive; /* a write may hit a disk that holds data */
	/*
	 * No ramp_time: fio would not count its I/O, and the probes would,
	 * so calls per GB would be off by the ramp's share.
	 */
	uint64_t duration_ms;
};

/*
 * The kernel's DMA map benchmark on one PCI device of one host, lent to
 * it for the trial (bench/workload/dma-map.h). No peer, no network.
 */
struct matrix_dma_map {
	char *device; /* DDDD:BB:DD.F, lower-cased */
	bool unbind;  /* may it be taken from the driver that holds it */
	unsigned int threads, seconds, granule, dma_bits, trans_ns;
	unsigned int dir; /* enum dma_map_dir */
	int node;	  /* -1: any node */
};

struct matrix_workload {
	char *name;
	char *description;
	enum workload_type type;
	const struct workload_type_ops *ops;
	size_t server, client; /* host indexes */
	size_t sut;	       /* whichever of them is the SUT */
	/*
	 * false: no collector runs in its trials. The same workload with
	 * and without, interleaved on one boot, is what the collectors
	 * cost; throughput alone is measured then.
	 */
	bool collect;
	union {
		struct matrix_iperf3 iperf3;
		struct matrix_fio fio;
		struct matrix_dma_map dma_map;
	} u;
	struct toml_pos pos;
	const struct toml_value *src;
};

struct mx;
struct matrix;
struct json_t;

/*
 * One per workload type. The matrix knows how to read and check a type's
 * own keys; running it is the orchestrator's business.
 */
struct workload_type_ops {
	const char *name;
	const char *const *keys; /* its own keys, NULL-terminated */
	/* Parse the type's keys of @tab into @w (see matrix-priv.h). */
	void (*parse)(struct mx *mx, struct matrix_workload *w,
		      const struct toml_value *tab);
	void (*release)(struct matrix_workload *w);
	/* Wall time of one trial as the workload itself sees it. */
	uint64_t (*trial_ms)(const struct matrix_workload *w);
	/* One line for `plan`: "udp peer -> guest, 1 stream, 5s". */
	void (*describe)(const struct matrix *m,
			 const struct matrix_workload *w, char *buf,
			 size_t size);
	/* The type's own keys into `plan --json`'s workload object @o. */
	void (*plan_json)(const struct matrix *m,
			  const struct matrix_workload *w, struct json_t *o);
	/*
	 * false: the workload runs on one host (w->server == w->client ==
	 * w->sut), and takes `host` where the others take server, client.
	 */
	bool two_ends;
};

/* The disk a fio workload targets, on its host. */
const struct matrix_disk *matrix_fio__disk(const struct matrix *m,
					   const struct matrix_workload *w);
/* fio's --rw value of @rw; whether it writes. */
const char *fio_rw__name(enum fio_rw rw);
bool fio_rw__writes(enum fio_rw rw);

/* In the order of perf_callgraph_names (collectors/perf/perf-events.h). */
enum perf_callgraph {
	CALLGRAPH_NONE,
	CALLGRAPH_FP,
	CALLGRAPH_DWARF,
	CALLGRAPH_LBR
};

enum perf_record_where {
	RECORD_SEPARATE, /* in profile trials of their own */
	RECORD_EVERY,	 /* in every measured trial, which it bends */
	RECORD_OFF,	 /* never: counters only */
};

/* "separate", "every", "off": matrix_record_names[where]. */
extern const char *const matrix_record_names[];

struct matrix_collect {
	struct {
		bool enabled;
		char **probes; /* logical names, "default" expanded */
		size_t nr_probes;
		char *device; /* PCI address or "nic"; NULL: every device */
		bool cost;    /* the kernel's run-time stats of our programs */
	} bpf;
	struct {
		bool enabled;
		char *event;
		unsigned int frequency;
		enum perf_callgraph callgraph;
		char **counters;
		size_t nr_counters;
		/*
		 * Which trials sample (perf record): it costs throughput
		 * (make bench), so by default only extra ones, left out of
		 * the statistics; counting runs on every trial.
		 */
		enum perf_record_where record;
		unsigned int profile_trials; /* per cell, with SEPARATE */
	} perf;
	struct {
		bool enabled;
		uint64_t interval_ms;
	} procstat;
};

/* [regress]: what the nightly gate judges; none: matrix__gate_metrics(). */
struct matrix_regress {
	char **metrics;
	size_t nr_metrics;
};

/*
 * [nightly]: what the robot follows and whom it tells. @kernel is the
 * followed one's name; @remote and @branch are set for a build kernel
 * (its tree's remote and branch), unset for a Debian package.
 */
struct matrix_nightly_mail {
	char *from, *reported_by;
	char **to, **cc; /* "author": the commit's author */
	size_t nr_to, nr_cc;
	char **sendmail; /* argv; [0] an absolute path */
	size_t nr_sendmail;
};

struct matrix_nightly {
	bool present;
	char *kernel, *remote, *branch;
	char *pinned; /* a kernel run beside it each night; NULL: none */
	unsigned int history;		  /* nights the change points see */
	unsigned int confirm_repetitions; /* a side; 0: twice the run's */
	bool bisect, improvements;
	char *output; /* mails and materials; NULL: beside the database */
	char *url;    /* where @output is published; NULL: not */
	struct matrix_nightly_mail mail;
	struct toml_pos pos;
};

/*
 * [kcidb]: the kcidb-ng REST service the nightly submits to. The token
 * file is a path (resolved against the matrix's folder), read only when
 * a report is submitted.
 */
struct matrix_kcidb {
	bool present;
	char *url;	  /* http(s), with a host */
	char *token_file; /* its first line is the bearer token */
	char *origin;	  /* [a-z0-9_]+; "iommu_bench" unless named */
	struct toml_pos pos;
};

struct matrix {
	char *path; /* as given */
	char *dir;  /* its folder, for relative paths */
	struct toml_value *root;
	struct matrix_run run;
	struct matrix_host *hosts;
	size_t nr_hosts;
	struct matrix_kernel *kernels;
	size_t nr_kernels;
	struct matrix_mode *modes; /* the built-ins first */
	size_t nr_modes;
	struct matrix_workload *workloads;
	size_t nr_workloads;
	struct matrix_collect collect;
	struct matrix_regress regress;
	struct matrix_nightly nightly;
	struct matrix_kcidb kcidb;
};

/*
 * Load and validate @path. Every problem goes to @errs (initialise it
 * with the same @path); warnings may be there on success too.
 * Returns 0 and *@mp; -EINVAL when the file is not a valid matrix; or a
 * negative errno when it cannot be read. *@mp is NULL on failure.
 */
int matrix__load(const char *path, struct matrix **mp,
		 struct config_errors *errs);
/* The same from a buffer; @path names it in messages and anchors paths. */
int matrix__load_buf(const char *path, const char *buf, size_t len,
		     struct matrix **mp, struct config_errors *errs);
void matrix__free(struct matrix *m);

/*
 * The metrics the gate judges (and until watches): [regress] metrics,
 * else what the workloads measure, throughput for iperf3 and fio,
 * map_ns and unmap_ns for dma_map. A NULL-terminated array that lives
 * as long as @m.
 */
const char *const *matrix__gate_metrics(const struct matrix *m, size_t *nr);

/* A deep copy of @k, which matrix_kernel__release() frees. */
void matrix_kernel__dup(const struct matrix_kernel *k, struct matrix_kernel *d);
/* What a kernel owns; the matrix frees its own. */
void matrix_kernel__release(struct matrix_kernel *k);

/* Index of the named object, or -1. */
long matrix__find_host(const struct matrix *m, const char *name);
long matrix__find_kernel(const struct matrix *m, const char *name);
long matrix__find_mode(const struct matrix *m, const char *name);
long matrix__find_workload(const struct matrix *m, const char *name);

/*
 * How @mode is applied on @host. Also used by validation, which rejects
 * every combination that cannot work, so on a loaded matrix it is total.
 */
enum mode_apply matrix__apply(const struct matrix_host *host,
			      const struct matrix_mode *mode);
/* The boot method of @host: APPLY_KEXEC, APPLY_GRUB, APPLY_RESTART or NONE. */
enum mode_apply matrix__boot_method(const struct matrix_host *host);

/* Per-trial wall time of a workload, without the tool's own overhead. */
uint64_t matrix_workload__trial_ms(const struct matrix_workload *w);

/* Names for enums, as the file spells them. */
const char *matrix_order__name(enum matrix_order o);
const char *host_transport__name(enum host_transport t);
const char *host_role__name(enum host_role r);
const char *qemu_disk_model__name(enum qemu_disk_model model);
/* The disk of @h named @name (a VM's own, or by path), or NULL. */
const struct matrix_disk *matrix_host__disk(const struct matrix_host *h,
					    const char *name);
/*
 * A machine somebody else starts per boot, the tool's QEMU or a LAVA
 * job: every kernel it runs is handed over, none is installed.
 */
bool matrix_host__is_vm(const struct matrix_host *h);
/* @h's disks: its transport's (a VM's images), else disks by path. */
const struct matrix_disk *matrix_host__disks(const struct matrix_host *h,
					     size_t *nr);
/* The arch of @h's guest, where its transport decides it; else NULL. */
const struct arch *matrix_host__arch(const struct matrix_host *h);
/* Where @h reaches a workload's server on the controller, or NULL: at
 * the server's own address (its transport's server_ip). */
const char *matrix_host__server_ip(const struct matrix_host *h);
/* The sysfs spelling of @g ("" unset) and its IOMMU mode, or -ENOENT. */
const char *group_type__name(enum group_type g);
int group_type__mode(enum group_type g);
const char *mode_method__name(enum mode_method m);
/* The built-in mode "default": a boot with no DMA-policy argument. */
bool matrix_mode__is_default(const struct matrix_mode *md);
/* "current" and "default": nothing asked of the kernel, only recorded. */
bool matrix_mode__records_only(const struct matrix_mode *md);
const char *mode_apply__name(enum mode_apply a);
const char *kernel_kind__name(enum kernel_kind k);

#endif /* IOMMU_BENCH_MATRIX_H */
