/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the matrix-*.c files only: typed getters that report what is
 * wrong with a value at its position, and the per-section parsers.
 *
 * Getters return 1 when the key is present and valid (the output is
 * set), 0 when it is absent (the output keeps its default) and -1 when
 * it is present but wrong (an error was reported, the output kept).
 * So a section parser sets its defaults, calls one getter per key, and
 * moves on: one run reports every mistake in the file.
 */
#ifndef IOMMU_BENCH_MATRIX_PRIV_H
#define IOMMU_BENCH_MATRIX_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "config-error.h"
#include "matrix.h"
#include "strvec.h"
#include "toml.h"

struct mx {
	struct matrix *m;
	struct config_errors *errs;
};

#define mx_err(mx, pos, ...) config_errors__add((mx)->errs, (pos), __VA_ARGS__)
#define mx_warn(mx, pos, ...) \
	config_errors__warn((mx)->errs, (pos), __VA_ARGS__)
#define mx_note(mx, pos, ...) \
	config_errors__note((mx)->errs, (pos), __VA_ARGS__)

/* Report every key of @tab not in @allowed, with a suggestion. */
void mx_check_keys(struct mx *mx, const struct toml_value *tab,
		   const char *const *allowed, const char *where);
/*
 * Whether the array @v of @key is empty, which is refused: "KEY: the
 * list is empty; @hint".
 */
bool mx_empty(struct mx *mx, const struct toml_value *v, const char *key,
	      const char *hint);
/*
 * Whether @v is an array of tables ([[KEY]]); else it says so. Each
 * item's name is then read by mx_item_name().
 */
bool mx_tables(struct mx *mx, const struct toml_value *v, const char *key);
/*
 * The name of item @i of an array of tables ("name" in @tab): true with
 * it in *@name; false with "#I" there, said where it is missing, so
 * that the item is still checked for its other errors, never kept.
 */
bool mx_item_name(struct mx *mx, const struct toml_value *tab, size_t i,
		  const char *what, char **name);
/*
 * Whether the key of table @kv ([KEY.NAME]) is a safe name of a @what
 * and its value a table; else it says why.
 */
bool mx_table_key(struct mx *mx, const struct toml_kv *kv, const char *what);
/* "KEY: expected an integer, found a string" unless @v is @type. */
bool mx_is(struct mx *mx, const struct toml_value *v, enum toml_type type,
	   const char *key);
/* The kv of @key in @tab (its position is the key's). */
const struct toml_kv *mx_kv(const struct toml_value *tab, const char *key);
/* Where @key is in @tab, or @fallback when absent. */
struct toml_pos mx_key_pos(const struct toml_value *tab, const char *key,
			   struct toml_pos fallback);
/* Where @key's value is in @tab, or @fallback when absent. */
struct toml_pos mx_val_pos(const struct toml_value *tab, const char *key,
			   struct toml_pos fallback);

int mx_bool(struct mx *mx, const struct toml_value *tab, const char *key,
	    bool *out);
int mx_uint(struct mx *mx, const struct toml_value *tab, const char *key,
	    uint64_t min, uint64_t max, uint64_t *out);
int mx_uint32(struct mx *mx, const struct toml_value *tab, const char *key,
	      unsigned int min, unsigned int max, unsigned int *out);
/*
 * A CPU number, or a list of exactly @count, one per process or vCPU
 * (@one, @many name them in messages); a single number only when
 * @count is 1. *@cpus is allocated.
 */
int mx_cpus(struct mx *mx, const struct toml_value *tab, const char *key,
	    unsigned int count, const char *one, const char *many, int **cpus,
	    size_t *nr);
/* A string from @names; *@out is its index. */
int mx_enum(struct mx *mx, const struct toml_value *tab, const char *key,
	    const char *const *names, int *out);
/* Any string without NUL bytes or control characters. */
int mx_text(struct mx *mx, const struct toml_value *tab, const char *key,
	    char **out);

/* What a string may be, for mx_string() and mx_strings(). */
enum mx_kind {
	MX_NAME,     /* name_is_safe(), not starting with '-' */
	MX_IFNAME,   /* a network interface name */
	MX_PATH,     /* a local path; resolved against the matrix folder */
	MX_KARG,     /* one kernel command-line argument */
	MX_ARGV,     /* one element of a command's argument vector */
	MX_HOSTADDR, /* a host name or IP address for ssh */
	MX_IP,	     /* an IPv4 or IPv6 address */
	MX_CIDR,     /* an address with its prefix length */
	MX_REVISION, /* a git revision */
	MX_RELEASE,  /* a kernel release string */
	MX_EVENT,    /* a perf event name */
	MX_PREFIX,   /* a CROSS_COMPILE prefix */
	MX_HOSTPATH, /* an absolute path on a host, of a safe charset */
	MX_URL,	     /* http(s)://host[:port][/path], of a safe charset */
	MX_ENVNAME,  /* an environment variable's name */
};

int mx_string(struct mx *mx, const struct toml_value *tab, const char *key,
	      enum mx_kind kind, char **out);
/* An array of strings of @kind; *@out is NULL-terminated. */
int mx_strings(struct mx *mx, const struct toml_value *tab, const char *key,
	       enum mx_kind kind, char ***out, size_t *nr);
/* Check one string; NULL when fine, else why not (static text). */
const char *mx_kind__check(enum mx_kind kind, const char *s);

int mx_duration(struct mx *mx, const struct toml_value *tab, const char *key,
		uint64_t *ms);
int mx_size(struct mx *mx, const struct toml_value *tab, const char *key,
	    uint64_t *bytes);
int mx_bitrate(struct mx *mx, const struct toml_value *tab, const char *key,
	       uint64_t *bps);

/*
 * A reference to a named object: report "unknown WHAT 'x' (WHATs: a, b);
 * did you mean 'a'?" at @pos unless @name is in @names.
 */
long mx_ref(struct mx *mx, struct toml_pos pos, const char *key,
	    const char *what, const char *name, const char *const *names,
	    size_t nr);

/* One per section; each reports into mx->errs and fills mx->m. */
void matrix__init_modes(struct matrix *m);
void matrix__parse_modes(struct mx *mx, const struct toml_value *v);
void matrix__parse_hosts(struct mx *mx, const struct toml_value *v);
void matrix__parse_kernels(struct mx *mx, const struct toml_value *v);
void matrix__parse_workloads(struct mx *mx, const struct toml_value *v);
void matrix__parse_collect(struct mx *mx, const struct toml_value *v);
void matrix__parse_nightly(struct mx *mx, const struct toml_value *tab);
void matrix_nightly__release(struct matrix_nightly *n);
void matrix__parse_kcidb(struct mx *mx, const struct toml_value *tab);
void matrix_kcidb__release(struct matrix_kcidb *k);
void matrix__parse_regress(struct mx *mx, const struct toml_value *tab);
void matrix__parse_run(struct mx *mx, const struct toml_value *v);
/* Checks across sections, after all of them are parsed. */
void matrix__check(struct mx *mx);
/* LAVA SUTs and their peer devices, paired into multinode jobs. */
void matrix__check_mates(struct mx *mx);
/* Local files a run will need; missing ones are warnings, see docs. */
void matrix__check_files(struct mx *mx);

void matrix_host__release(struct matrix_host *h);
/* The names of the transports set, and every key of [hosts.NAME] any of
 * them takes; NULL-terminated. */
const char *const *matrix__transport_names(void);
const char *const *matrix__host_keys(void);
/* address = "IP" or "CIDR" of @tab, as most transports take it. */
void matrix_host__parse_address(struct mx *mx, struct matrix_host *h,
				const struct toml_value *tab);
/* Whether [hosts.NAME] of transport @t may hold @key. */
bool matrix_transport__takes(const struct matrix_transport *t, const char *key);
/*
 * disks = [...] @v of @h into *@disks, *@nr of them: images of a size
 * the tool makes when @vm, else block devices by path.
 */
void matrix_host__parse_disks(struct mx *mx, struct matrix_host *h,
			      const struct toml_value *v, bool vm,
			      struct matrix_disk **disks, size_t *nr);
void matrix_kernel__release(struct matrix_kernel *k);
void matrix_mode__release(struct matrix_mode *md);
void matrix_workload__release(struct matrix_workload *w);
void matrix_collect__release(struct matrix_collect *c);
void matrix_regress__release(struct matrix_regress *r);

extern const struct workload_type_ops iperf3_workload_ops;
extern const struct workload_type_ops fio_workload_ops;
extern const struct workload_type_ops dma_map_workload_ops;

/*
 * A type's ops, @type_workload_ops, wired to its @type_keys and its
 * functions @type__parse, __release, __trial_ms, __describe and
 * __plan_json: every type names them so.
 */
#define WORKLOAD_TYPE_OPS(type, ends)                          \
	const struct workload_type_ops type##_workload_ops = { \
		.name = #type,                                 \
		.keys = type##_keys,                           \
		.parse = type##__parse,                        \
		.release = type##__release,                    \
		.trial_ms = type##__trial_ms,                  \
		.describe = type##__describe,                  \
		.plan_json = type##__plan_json,                \
		.two_ends = (ends),                            \
	}

/*
 * A dma_map workload whose threads, granule or direction is a list is
 * a sweep: one workload per combination. How many @tab makes; and the
 * parsed @w made the first of them, the @n others into @out, each
 * named NAME-tN-gM-DIRECTION (only the axes that are lists).
 */
size_t matrix_dma_map__sweep_size(const struct toml_value *tab);
void matrix_dma_map__expand(struct mx *mx, struct matrix_workload *w,
			    struct matrix_workload *out, size_t n);

/* labvm = "NAME": a lab machine's address and keys (matrix-labvm.c). */
void mx_labvm(struct mx *mx, struct matrix_host *h,
	      const struct toml_value *tab);

#endif /* IOMMU_BENCH_MATRIX_PRIV_H */
