/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The eBPF probes of the IOMMU DMA paths, as the bpf collector, `trace`
 * and the probe-cost benchmark use them.
 *
 * A *probe* is what a user names: a logical probe ("unmap"), a kernel
 * function ("fn:NAME") or a tracepoint ("tp:CAT:NAME", or the pair
 * "tp:CAT:BEGIN:END" for latency). It resolves against this kernel into
 * *targets*: the functions it has (BTF, /proc/kallsyms) and a tracepoint
 * to fall back on. Each target climbs an attach chain chosen at run
 * time, as bcc's libbpf-tools do: fentry/fexit, then kprobe/kretprobe,
 * then the tracepoint; what failed on the way is kept, with its errno,
 * so that "not measured" never reads as "never called".
 *
 * Everything here returns 0 or a negative errno.
 */
#ifndef IOMMU_BENCH_BPF_PROBES_H
#define IOMMU_BENCH_BPF_PROBES_H

#include <jansson.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/probe.h"
#include "collectors/bpf/bpf-defs.h"
#include "strvec.h"

struct btf;
struct bpf_link;

/* ---- /proc/kallsyms ---- */

struct ksyms;

/* Index the text of /proc/kallsyms (or a file in its format). */
int ksyms__parse(const char *text, struct ksyms **out);
int ksyms__load(const char *path, struct ksyms **out);
void ksyms__free(struct ksyms *ks);

struct ksym_match {
	const char *symbol; /* as kallsyms has it: "foo" or "foo.isra.0" */
	const char *module; /* NULL: vmlinux */
	unsigned int count; /* symbols that matched; >1 is ambiguous */
};

/*
 * Find function @name, or the compiler's clone of it when only that
 * exists ("foo.isra.0", "foo.constprop.0", "foo.part.0"; never the
 * ".cold" split-off, which is not an entry point). -ENOENT if neither.
 */
int ksyms__find(const struct ksyms *ks, const char *name, struct ksym_match *m);
/*
 * Of the functions named @name (several drivers may define one), the
 * address of the one nearest in kallsyms to the function @near, which
 * must be unique and in the same module: 0, -ENOENT, -ENOTUNIQ (@near is
 * not unique), -EPERM (addresses hidden).
 */
int ksyms__nearest(const struct ksyms *ks, const char *name, const char *near,
		   unsigned long long *addr);

/* ---- what is asked for ---- */

enum bpf_spec_kind {
	BPF_SPEC_LOGICAL,
	BPF_SPEC_FN,
	BPF_SPEC_TP,	  /* one tracepoint: calls */
	BPF_SPEC_TP_PAIR, /* begin and end tracepoints: calls and latency */
};

struct bpf_spec {
	enum bpf_spec_kind kind;
	char *name; /* as written: "unmap", "fn:foo", "tp:tcp:tcp_probe" */
	const struct bpf_probe_def *def;
	char *fn;
	char *cat, *tp, *tp_end;
};

/*
 * Parse one event: a logical probe name, "fn:NAME", "tp:CAT:NAME" or
 * "tp:CAT:BEGIN:END". Syntax only; -EINVAL with a message in @err.
 */
int bpf_spec__parse(const char *s, struct bpf_spec *spec, char *err,
		    size_t errsz);
void bpf_spec__release(struct bpf_spec *spec);

/* ---- this kernel ---- */

struct bpf_env {
	struct ksyms *ksyms; /* NULL: /proc/kallsyms unreadable */
	struct btf *btf;     /* NULL: no /sys/kernel/btf/vmlinux */
	char *tracefs;	     /* tracefs root; NULL: none */
	char *tracefs_note;  /* how it was found, or why not */
	bool kprobes;	     /* a kprobe PMU or kprobe_events exists */
	char release[65];
};

int bpf_env__open(struct bpf_env *env);
void bpf_env__close(struct bpf_env *env);
/* Does tracepoint CAT:NAME exist (tracefs events/CAT/NAME)? */
bool bpf_env__has_tp(const struct bpf_env *env, const char *cat,
		     const char *name);
/*
 * The kernel's run-time stats of BPF programs, on while the returned
 * descriptor is open: what each program costs, per run (bpf_prog_info
 * run_time_ns and run_cnt). A negative errno if this kernel cannot.
 */
int bpf_env__stats_on(void);
/*
 * Add what the kernel counts of program @fd (-1: none) to *@missed (runs
 * skipped as recursive), *@ns and *@runs (with its run-time stats on).
 */
void bpf_prog__run_stats(int fd, __u64 *missed, __u64 *ns, __u64 *runs);
/* Route libbpf's messages (verifier logs) to pr_debug. */
void bpf_env__quiet_libbpf(void);
/*
 * What the verifier said last when it refused a program: the line of
 * its log that gives the reason, "" if none since the last take.
 */
#define BPF_VERIFIER_SAID 160
void bpf_env__verifier_take(char *out, size_t size);

/* ---- targets and the attach chain ---- */

enum bpf_rung {
	BPF_RUNG_NONE,
	BPF_RUNG_FENTRY,
	BPF_RUNG_KPROBE,
	BPF_RUNG_RAW_TP,     /* a tracepoint, by its raw arguments */
	BPF_RUNG_TRACEPOINT, /* a tracepoint, by its perf record */
};

const char *bpf_rung__name(enum bpf_rung r);

/* One rung that did not work, and why. */
struct bpf_fail {
	enum bpf_rung rung;
	const char *stage;		  /* "resolve", "load" or "attach" */
	int err;			  /* positive errno */
	const char *why;		  /* what that errno means here */
	char verifier[BPF_VERIFIER_SAID]; /* at "load": its reason, or "" */
};

enum bpf_target_kind { BPF_TARGET_FN, BPF_TARGET_TP };

struct bpf_target {
	enum bpf_target_kind kind;
	char *name; /* "iommu_dma_unmap_phys", "dma:dma_unmap_phys",
		     * "syscalls:sys_enter_x>sys_exit_x" */
	/* functions */
	char *symbol; /* kallsyms name (may be "foo.isra.0"); NULL: none */
	char *module; /* NULL: vmlinux */
	bool in_btf;
	unsigned int nr_syms; /* kallsyms entries that matched */
	/* Of an ambiguous name, the one to probe: kprobes by address. */
	unsigned long long addr;
	int dev_arg, size_arg; /* of the function, or the raw tracepoint */
	/* tracepoints */
	char *cat, *tp, *tp_end; /* tp_end: NULL unless a pair */
	bool raw_ok;		 /* BTF knows it as a raw tracepoint */
	int dev_loc_off, size_off, size_len; /* in the perf record */
	/* the chain */
	bool tried; /* false: a tracepoint the functions made unneeded */
	enum bpf_rung rung; /* attached with; NONE: not attached */
	struct bpf_fail fails[4];
	unsigned int nr_fails;
	void *obj;		   /* the skeleton of the rung attached */
	struct bpf_link *links[2]; /* [0] entry or only, [1] exit */
	int prog_fds[2];
	int stats_fd;
	/*
	 * The nesting map its collector's objects share (self time): -1
	 * until the first object loads, which sets it; NULL: a map of its
	 * own, nothing nests.
	 */
	int *nest_fd;
	struct probe_stats stats; /* summed over CPUs by bpf_probe__read() */
	__u64 missed;		  /* runs the kernel skipped (recursion) */
	/* With the kernel's run-time stats on ([collect.bpf] cost): */
	__u64 run_ns, runs; /* of its programs, summed */
};

struct bpf_filter {
	bool on;
	char dev_name[PROBE_DEV_NAME_LEN]; /* dev_name() of the device */
};

struct bpf_probe {
	char *name;
	const struct bpf_probe_def *def; /* NULL for fn: and tp: */
	struct bpf_target *targets;	 /* functions first, then the tp */
	size_t nr_targets, alloc_targets;
	struct strvec missing; /* groups with no function: "a|b: why" */
	struct probe_stats total;
	__u64 missed;
	__u64 run_ns, runs;
	bool timed; /* an attached target gives latency */
};

/*
 * Resolve @spec against @env into @p. A logical probe always resolves
 * (whatever is missing is recorded); fn: and tp: that name nothing on
 * this kernel are -ENOENT with a message in @err, for a usage error.
 */
int bpf_probe__resolve(struct bpf_probe *p, const struct bpf_spec *spec,
		       const struct bpf_env *env, char *err, size_t errsz);
/*
 * Climb the chain for every target. Not attaching is recorded, never an
 * error; only running out of memory is. *@nest_fd is the nesting map
 * the probes of one collector share, so that each probe's self time
 * leaves out the calls of the others nested in it: -1 before the first
 * probe attaches, which sets it (the caller closes it when done); NULL:
 * the probe's calls nest only in its own.
 */
int bpf_probe__attach(struct bpf_probe *p, const struct bpf_env *env,
		      const struct bpf_filter *filter, int *nest_fd);
/* Sum the per-CPU stats of every attached target into p->total. */
int bpf_probe__read(struct bpf_probe *p);
void bpf_probe__detach(struct bpf_probe *p);
/* Detach @n probes at once (faster than one by one). */
void bpf_probes__detach(struct bpf_probe *probes, size_t n);
void bpf_probe__release(struct bpf_probe *p);

/* The wire form, as documented in docs/trace.md. */
json_t *bpf_probe__json(const struct bpf_probe *p);
/* What bpf_prog__run_stats() summed, into @o: "missed", "run_ns", "runs". */
void bpf_prog__stats_json(json_t *o, __u64 missed, __u64 run_ns, __u64 runs);

/*
 * The rungs, one target at a time, for the benchmark and the tests.
 * bpf_target__attach() tries them in order (fentry, kprobe for a
 * function; raw_tp, tracepoint for a tracepoint); @only limits it to
 * one (BPF_RUNG_NONE: all).
 */
int bpf_target__attach(struct bpf_target *t, const struct bpf_env *env,
		       const struct bpf_filter *filter, enum bpf_rung only);
int bpf_target__read(struct bpf_target *t);
void bpf_target__detach(struct bpf_target *t);
/* Record that @rung failed at @stage (the target's fails[]). */
void bpf_target__fail(struct bpf_target *t, const struct bpf_env *env,
		      enum bpf_rung rung, const char *stage, int err);
/* Fill @f: @err (either sign), what it means, at "load" the verifier's. */
void bpf_fail__set(struct bpf_fail *f, const struct bpf_env *env,
		   enum bpf_rung rung, const char *stage, int err);
struct bpf_program;
/* A kprobe (or kretprobe) of @prog on @t: by name, or by its address. */
struct bpf_link *bpf_target__kprobe(const struct bpf_program *prog,
				    bool retprobe, const struct bpf_target *t);
/*
 * The links of @t's programs on @rung: the exit's (@exit; NULL: none,
 * a tracepoint that counts) into links[1] first, then the entry's into
 * links[0], so that no call is timed from a start without its end. On
 * failure neither is left and the failure is recorded.
 */
int bpf_target__link(struct bpf_target *t, const struct bpf_env *env,
		     enum bpf_rung rung, const struct bpf_program *entry,
		     const struct bpf_program *exit, struct bpf_link *links[2]);
/* "EPERM"; the kernel's own ENOTSUPP (524) too. */
const char *bpf_errno__name(int err, char *buf, size_t size);
/* What @err at @stage of @rung means, for the report. */
const char *bpf_fail__explain(const struct bpf_env *env, enum bpf_rung rung,
			      const char *stage, int err);

/*
 * The attach chain, whatever climbs it: a target (@who, one object per
 * rung) or the exposure window (one object for all its roles, and no
 * @filter). Rungs @first to @last in order, until one takes; each rung
 * records its own failure. @only: that rung alone (BPF_RUNG_NONE: every
 * one). An error equal to @fatal (0: none) ends the climb: running out
 * of memory on one rung is no reason to try the next. The rung that
 * took in *@took (BPF_RUNG_NONE if none), and 0; else the last rung's
 * error (-ENOENT if none was tried).
 */
struct bpf_chain {
	int (*rungs[BPF_RUNG_TRACEPOINT + 1])(void *who,
					      const struct bpf_env *env,
					      const struct bpf_filter *filter);
	enum bpf_rung first, last;
};
int bpf_chain__climb(const struct bpf_chain *c, void *who,
		     const struct bpf_env *env, const struct bpf_filter *filter,
		     enum bpf_rung only, int fatal, enum bpf_rung *took);

/* ---- tracefs ---- */

/*
 * The record fields probe_tp uses, from events/CAT/NAME/format: the
 * __data_loc "device" name and a 4- or 8-byte "size". -1: absent.
 */
int tracefs__fields(const char *root, const char *cat, const char *name,
		    int *dev_loc_off, int *size_off, int *size_len);
/* Parse the text of a format file (for the tests). */
void tracefs__parse_format(const char *text, int *dev_loc_off, int *size_off,
			   int *size_len);

/* ---- histograms (log2 ns: bucket i is [2^i, 2^(i+1))) ---- */

void probe_stats__add(struct probe_stats *acc, const struct probe_stats *s);
__u64 hist__sum(const __u64 *hist, size_t n);
/* Length without the trailing empty buckets. */
size_t hist__len(const __u64 *hist, size_t n);
/*
 * The @p-th percentile (0..100) in ns, interpolated linearly within the
 * log2 bucket it falls in; NAN for an empty histogram.
 */
double hist__percentile(const __u64 *hist, size_t n, double p);
/* The same over buckets of other widths: @bounds gives bucket i's [lo, hi). */
double hist__percentile_in(const __u64 *hist, size_t n, double p,
			   void (*bounds)(unsigned int i, double *lo,
					  double *hi));
/* funclatency's layout: "  256 -> 511   : 10   |*****   |". */
void hist__print(FILE *fp, const __u64 *hist, size_t n);

/* ---- the device filter ---- */

/*
 * The dev_name() the filter compares: a PCI address ("3b:00.0" gains
 * its domain, "0000:3b:00.0") or a network interface, resolved through
 * sysfs to the PCI device that does its DMA. -ENOENT, -EINVAL with a
 * message in @err.
 */
int bpf_filter__set(struct bpf_filter *f, const char *dev, char *err,
		    size_t errsz);

/* ---- the attach floor, for the probe-cost benchmark ---- */

/* The time a probe adds to each call it times; < 0: not known. */
struct bpf_calibration {
	double floor_ns;  /* the least batch mean */
	double spread_ns; /* the median batch's distance above it */
};

/*
 * That time, measured here on sys_ni_syscall() with the same programs
 * (bpf-calibrate.c): 0 with *@cal set, or a negative errno
 * (-EOPNOTSUPP: no such syscall known for this arch; -ENOENT: it could
 * not be timed). @nest_fd as bpf_probe__attach.
 */
int bpf_calibrate__floor(const struct bpf_env *env, int *nest_fd,
			 struct bpf_calibration *cal);

struct bpf_floor;

/* An empty program on perf tracepoint CAT:NAME. */
int bpf_floor__attach(const char *cat, const char *name,
		      struct bpf_floor **out);
void bpf_floor__detach(struct bpf_floor *f);

/* ---- results ---- */

/* The collector's results JSON, as trace prints it (docs/trace.md). */
void bpf_results__print(FILE *fp, const json_t *results);

#endif /* IOMMU_BENCH_BPF_PROBES_H */
