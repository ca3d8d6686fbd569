/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the hostfacts*.c files only. Paths are printf
 * formats of absolute paths ("/sys/class/net/%s/mtu") that are read
 * under the root prefix; the names filled in come from readdir() of the
 * same tree, which cannot hold a '/', and hf_list_dir() drops dot-names.
 */
#ifndef IOMMU_BENCH_HOSTFACTS_PRIV_H
#define IOMMU_BENCH_HOSTFACTS_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "collectors/hostfacts/hostfacts.h"
#include "json-util.h"
#include "strvec.h"

#define HF_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* True when @root is the running system, so ioctls and uname apply. */
bool hf_root_is_real(const char *root);

/* "@root@path": the path to open. */
char *hf_path(const char *root, const char *fmt, ...) HF_PRINTF(2, 3);

/* The file's contents, trailing whitespace trimmed. */
int hf_read_str(char **out, const char *root, const char *fmt, ...)
	HF_PRINTF(3, 4);
int hf_read_long(long *out, const char *root, const char *fmt, ...)
	HF_PRINTF(3, 4);
bool hf_exists(const char *root, const char *fmt, ...) HF_PRINTF(2, 3);
/* The last component of a symlink's target; NULL: not a link. */
char *hf_link_base(const char *root, const char *fmt, ...) HF_PRINTF(2, 3);
/*
 * The entries of a directory, sorted (numbers by value), without dot
 * names; @prefix (may be NULL) keeps only names starting with it.
 */
int hf_list_dir(char ***names, size_t *nr, const char *prefix, const char *root,
		const char *fmt, ...) HF_PRINTF(5, 6);

/* A count of CPUs in a list such as "0-3,8-11"; 0 for junk. */
unsigned int hf_cpulist_count(const char *list);

/* A warning "@what: strerror" when @err (a -errno) is not 0. */
void hf_warn_err(struct strvec *warn, const char *what, int err);

/* -1 means "none" in the typed structs, null in JSON. */
json_t *hf_json_int_or_null(long long v);

/*
 * A struct's string member (char *), named as its key in the JSON: a
 * table of them frees, or writes as JSON, every one in a loop.
 */
struct hf_str_field {
	const char *name;
	size_t off;
};
#define HF_STR_FIELD(type, member) #member, offsetof(type, member)
char **hf_str_at(const void *base, const struct hf_str_field *f);
void hf_str_fields_free(void *base, const struct hf_str_field *f, size_t nr);
/* Each into @o as its name: a string, or null where it is NULL. */
void hf_str_fields_json(json_t *o, const void *base,
			const struct hf_str_field *f, size_t nr);

/* The mode a whole command line asks for; see hostfacts-cmdline.c. */
enum hostfacts_dma_mode
hf_cmdline_mode(const struct hostfacts_cmdline_key *keys, size_t nr,
		bool *disabled);
/* ACPI tables that describe an IOMMU (DMAR, IVRS, IORT, VIOT). */
void hf_firmware_tables(const char *root, struct strvec *tables);

/* The kernel config: where it was found and its lines of interest. */
int hf_kernel_config(const char *root, const char *release, char **source,
		     struct strvec *lines);
/* The kernel log lines that hold one of @needles, prefixes stripped. */
int hf_kmsg_grep(const char *root, const char *const *needles,
		 struct strvec *lines);

/* As hf_kernel_config, for the options @names (NULL-terminated). */
int hf_kernel_config_names(const char *root, const char *release,
			   const char *const *names, char **source,
			   struct strvec *lines);

/* Caps on what files we do not control can make us hold. */
#define HF_STR_MAX 1024	       /* a title, a name, a version */
#define HF_ARGS_MAX 4096       /* a command line (the kernel's own cap) */
#define HF_FILE_MAX (8u << 20) /* a configuration file */

/* The first @len bytes of @s, at most @max of them. */
char *hf_strcap(const char *s, size_t len, size_t max);
/* @path under @root, -EFBIG when a regular file holds more than @max. */
int hf_read_capped(char **out, size_t *len, size_t max, const char *root,
		   const char *path);
/*
 * The next word of a line at *@pp, quoted as a shell or grub quotes
 * ('...', "..." with \" \\ \$ \`, \x), at most @max bytes kept; a quote
 * left open ends at the end of the line. -ENOENT at the line's end.
 */
int hf_word(const char **pp, size_t max, char **out);
/* The words of @s unquoted, one space apart; -ENOENT: none. */
int hf_words_join(const char *s, size_t max, char **out);
/*
 * The values of @keys (NULL-terminated) in a file of KEY=value lines,
 * into @vals (each replaced when found: the last line wins, as when a
 * shell sources it), unquoted by hf_word() when @unquote; never run.
 */
int hf_keyval_read(const char *root, const char *path, const char *const *keys,
		   char **vals, bool unquote);

/* An EFI variable's data, its attribute bytes dropped. */
int hf_efivar_read(const char *root, const char *name, unsigned char **data,
		   size_t *len);
/* grub.cfg's menu entries into @g (entries, truncated). */
void hf_grub_cfg_parse(const char *text, struct hostfacts_grub *g);
/* `systemd-analyze time`'s "Startup finished in ..." line. */
int hf_boot_time_parse(const char *text, struct hostfacts_boot_time *t);

/* One section of the gathered JSON each. */
json_t *hf_json_identity(const char *root, struct strvec *warn);
json_t *hf_json_kernel(const char *root, struct strvec *warn);
json_t *hf_json_iommu(const char *root, struct strvec *warn);
json_t *hf_json_policy(const char *root, struct strvec *warn);
json_t *hf_json_nics(const char *root, struct strvec *warn);
json_t *hf_json_cpu(const char *root, struct strvec *warn);
json_t *hf_json_memory(const char *root, struct strvec *warn);
json_t *hf_json_dmi(const char *root, struct strvec *warn);
json_t *hf_json_firmware(const char *root, struct strvec *warn);
json_t *hf_json_boot_loader(const char *root, struct strvec *warn);
json_t *hf_json_systemd(const char *root, struct strvec *warn);
json_t *hf_json_distro(const char *root, struct strvec *warn);
json_t *hf_json_kernel_config(const char *root, struct strvec *warn);

#endif /* IOMMU_BENCH_HOSTFACTS_PRIV_H */
