/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel builds from a recipe: a git tree at a base revision, patches,
 * a base config and fragments, an architecture and a cross compiler.
 * The same recipe as a matrix's `[[kernels]] build = {...}` and the
 * options of `iommu-bench kernel build`.
 *
 * A build never touches the user's checkout: it happens in a temporary
 * git worktree under the cache, removed afterwards whatever happens.
 * Every option a fragment sets is checked in the final .config, because
 * an option whose dependency is missing silently vanishes in olddefconfig
 * and an A/B comparison then measures two identical kernels.
 *
 * Results are cached under a key of everything that changes the output
 * (base commit, patch, config and fragment contents, arch, cross prefix,
 * the compiler's version): KEY/ in the cache folder, holding the image,
 * System.map, config, modules.tar and modules/, build.log and
 * result.json. An entry is built in a ".tmp-KEY-*" folder and renamed
 * into place when complete, under an flock() of the key, so a killed
 * build never looks finished and two identical builds never run at once.
 *
 * Functions return 0 or a negative errno, with *err saying what went
 * wrong in words; -EINVAL means the recipe itself is wrong (a usage
 * error), anything else that the work failed.
 */
#ifndef IOMMU_BENCH_KBUILD_H
#define IOMMU_BENCH_KBUILD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"
#include "strvec.h"

/* Maps 1:1 from struct matrix_build, plus what only a command line says. */
struct kbuild_recipe {
	const char *tree;     /* a git tree (a checkout or a bare repository) */
	const char *base;     /* a revision; NULL: HEAD */
	char *const *patches; /* mbox (git am) or plain diffs (git apply) */
	size_t nr_patches;
	/*
	 * A .config file, or a make target (defconfig, tinyconfig,
	 * allnoconfig, alldefconfig, allmodconfig, allyesconfig, or a
	 * NAME_defconfig) when it names one and has no '/'. NULL: defconfig.
	 */
	const char *config;
	char *const *fragments; /* merged in order, later ones win */
	size_t nr_fragments;
	const char *arch;	   /* ARCH=; NULL: this machine's */
	const char *cross_compile; /* CROSS_COMPILE=; NULL: none */
	int jobs;		   /* make -j; 0: every online CPU */
	bool allow_missing_config; /* report, do not fail */
	bool config_only;	   /* stop after the verified .config */
	/*
	 * A folder kept across builds (bisect's): its worktree is checked
	 * out at each base and its objects kept, so that make rebuilds
	 * only what changed. NULL: a new worktree per build, removed
	 * afterwards. Never part of the key: where a kernel was compiled
	 * does not change it.
	 */
	const char *workdir;
};

/* A fragment's option that did not land in the final .config. */
struct kbuild_missing {
	char *option;	/* "CONFIG_INTEL_IOMMU" */
	char *wanted;	/* the value as written ("y", "\"x\""); NULL: unset */
	char *actual;	/* NULL: not set in the final .config */
	char *fragment; /* the file that asked for it */
	char *reason;	/* why, from the Kconfig files; NULL: not known */
};

struct kbuild_result {
	char *key; /* sha256 hex of the inputs */
	char *dir; /* the cache entry */
	/* Absolute paths in @dir; NULL where a config-only build has none. */
	char *image;	   /* bzImage, Image, zImage */
	char *system_map;  /* System.map */
	char *config;	   /* config: the final .config */
	char *modules_tar; /* modules.tar; NULL: CONFIG_MODULES is off */
	char *modules_dir; /* modules/lib/modules/RELEASE; NULL: no modules */
	char *log;	   /* build.log: every command's output */
	char *build_id;	   /* hex of vmlinux's GNU build-id note */
	char *release;	   /* `make kernelrelease` */
	char *arch;	   /* ARCH= as built */
	char *base_commit; /* the base revision resolved */
	struct kbuild_missing *missing; /* allowed with allow_missing_config */
	size_t nr_missing;
	bool cached;	  /* found in the cache, nothing was built */
	bool config_only; /* the entry holds a config and no image */
	json_t *meta;	  /* the entry's result.json */
};

/*
 * The default cache folder for builds (not created): $IOMMU_BENCH_CACHE,
 * else $XDG_CACHE_HOME/iommu-bench, else ~/.cache/iommu-bench, then
 * kernels/.
 */
int kbuild__cache_dir(char **out);

/*
 * Build @r into @cache_dir (NULL: kbuild__cache_dir()), or find it
 * there. 0 and *@out filled (release it), or a negative errno and *@err.
 * Progress goes to stderr through pr_info: the phase and elapsed time,
 * a line every ~10 s while make runs. A failed make leaves its log
 * beside the entry as KEY.failed.log and puts the log's tail in *@err.
 */
int kbuild__build(const struct kbuild_recipe *r, const char *cache_dir,
		  struct kbuild_result *out, char **err);

/* The same, but only from the cache: -ENOENT when not built yet. */
int kbuild__lookup(const struct kbuild_recipe *r, const char *cache_dir,
		   struct kbuild_result *out, char **err);

/*
 * The cache key of @r for a resolved base commit and the compiler's
 * `--version` first line: sha256 over those, the contents of every patch,
 * of the config (or its target name) and of every fragment, in order,
 * the arch and the cross prefix. The files are read here.
 */
int kbuild__key(const struct kbuild_recipe *r, const char *base_commit,
		const char *cc_version, char key[SHA256_HEX_SIZE], char **err);

void kbuild_result__release(struct kbuild_result *res);

/*
 * What @res was built from, for the store's kernels.recipe: the recipe
 * object of its result.json (tree, base, base_commit, patches and
 * fragments with their sha256, config, arch, cross_compile, compiler,
 * jobs) with the entry's key, elapsed_s and built_at added. Compact
 * JSON (free it), the same text for the same entry; NULL where the
 * entry's result.json has no recipe.
 */
char *kbuild_result__recipe(const struct kbuild_result *res);

/*
 * Internals, shared by the kbuild-*.c files and tests/unit/test-kbuild.c.
 */

/* Phases, for progress and the elapsed times in result.json. */
enum kbuild_phase {
	KBUILD_WORKTREE,
	KBUILD_PATCHES,
	KBUILD_CONFIG,
	KBUILD_BUILD,
	KBUILD_MODULES,
	KBUILD_PACK,
	KBUILD_NR_PHASES,
};

extern const char *const kbuild_phase_names[KBUILD_NR_PHASES];

struct kbuild_progress {
	double start;	    /* monotonic seconds */
	double phase_start; /* of the current phase */
	double last_tick;   /* the last "still building" line */
	int phase;	    /* -1: none yet */
	double elapsed[KBUILD_NR_PHASES];
};

void kbuild_progress__init(struct kbuild_progress *p);
/* End the current phase (its time recorded) and start @phase. */
void kbuild_progress__phase(struct kbuild_progress *p, enum kbuild_phase phase);
/* End the current phase. */
void kbuild_progress__done(struct kbuild_progress *p);
/* A "still at it" line with the log's last line, at most every ~10 s. */
void kbuild_progress__tick(struct kbuild_progress *p, int log_fd);

/* A .config or fragment: options in order; value NULL means "not set". */
struct kconfig_opt {
	char *name;   /* "CONFIG_FOO" */
	char *value;  /* "y", "m", "0x10", "\"text\""; NULL: not set */
	char *origin; /* the file that set it last (for messages) */
};

struct kconfig {
	struct kconfig_opt *opts;
	size_t nr, alloc;
};

/*
 * Add the options of @text, read from @origin, to @kc: a later line for
 * an option replaces the earlier one in place. Lines are CONFIG_X=V,
 * "# CONFIG_X is not set" (CONFIG_X=n means the same), comments and
 * blank lines. With @strict, any other line is -EINVAL, with
 * "ORIGIN:LINE: ..." in *@err; without, it is ignored (as a .config
 * written by Kconfig never has one).
 */
int kconfig__parse(struct kconfig *kc, const char *text, const char *origin,
		   bool strict, char **err);
const struct kconfig_opt *kconfig__get(const struct kconfig *kc,
				       const char *name);
void kconfig__set(struct kconfig *kc, const char *name, const char *value,
		  const char *origin);
/* @kc as .config text: one line per option, unset ones as comments. */
char *kconfig__format(const struct kconfig *kc);
void kconfig__release(struct kconfig *kc);

/* A symbol of the tree's Kconfig files (kbuild-kconfig-tree.c). */
struct kconfig_sym {
	char *name;	       /* without CONFIG_ */
	int choice;	       /* the choice it is a member of; 0: none */
	struct strvec depends; /* its "depends on" and enclosing "if"s */
};

struct kconfig_tree {
	struct kconfig_sym *syms;
	size_t nr, alloc;
	size_t *index, index_size; /* by name: 1 + the symbol's place */
	int nr_choices;
};

/* The Kconfig files of @src (of arch @srcarch only, under arch/). */
int kconfig_tree__load(struct kconfig_tree *t, const char *src,
		       const char *srcarch, char **err);
/* The symbols of one Kconfig file's @text into @t (zeroed, or loaded). */
void kconfig_tree__parse(struct kconfig_tree *t, const char *text);
/* "CONFIG_X" or "X"; NULL: no Kconfig file defines it. */
const struct kconfig_sym *kconfig_tree__find(const struct kconfig_tree *t,
					     const char *option);
/* The other members of @s's choice, as CONFIG_ names, into @out. */
void kconfig_tree__siblings(const struct kconfig_tree *t,
			    const struct kconfig_sym *s, struct strvec *out);
void kconfig_tree__release(struct kconfig_tree *t);

/*
 * merge_config.sh in C: @base with every option of the @fragments
 * (texts, with their file names in @names for messages) set over it in
 * order. 0 with the merged .config text in *@merged and what the
 * fragments ask for, the last word of each, in @wanted. With @tree, a
 * choice member a fragment sets to y unsets its siblings the fragments
 * leave alone: the fragment picks that member.
 */
int kconfig__merge(const char *base, const char *const *fragments,
		   const char *const *names, size_t nr,
		   const struct kconfig_tree *tree, char **merged,
		   struct kconfig *wanted, char **err);

/*
 * Every option of @wanted with its value in @final (a value "n" and an
 * absent option are both "not set"). The ones that differ are returned
 * in *@missing (*@nr of them; free with kbuild_missing__free).
 */
void kconfig__verify(const struct kconfig *wanted, const struct kconfig *final,
		     const struct kconfig_tree *tree,
		     struct kbuild_missing **missing, size_t *nr);
void kbuild_missing__free(struct kbuild_missing *m, size_t nr);
/*
 * "CONFIG_X: wanted y, got not set (from FILE): REASON", one per line.
 * With @tree, verify says why: no such symbol, a sibling of its choice
 * set, or the dependencies that are off.
 */
char *kbuild_missing__describe(const struct kbuild_missing *m, size_t nr);

/*
 * The GNU build-id note of the ELF file at @path (32 or 64 bit, either
 * byte order), found through its section headers or else its program
 * headers: 0 and its hex in *@hex, -ENOEXEC for a file that is not ELF,
 * -ENOENT when it has no build id.
 */
int kbuild__elf_build_id(const char *path, char **hex);

/* An architecture the kernel knows, with what a build makes of it. */
struct kbuild_arch {
	const char *name;    /* ARCH= */
	const char *srcarch; /* arch/SRCARCH */
	const char *image;   /* make target and arch/SRCARCH/boot/ file */
};

/* @name's entry, or NULL; NULL @name: this machine's. */
const struct kbuild_arch *kbuild__arch(const char *name);
/* A git revision: [A-Za-z0-9._/~^-], not starting with '-', no "..". */
bool kbuild__revision_is_valid(const char *rev);
/* A CROSS_COMPILE prefix: [A-Za-z0-9._/+-], not starting with '-'. */
bool kbuild__prefix_is_valid(const char *prefix);
/* The two above, with the words that say what is allowed: -EINVAL. */
int kbuild__check_revision(const char *rev, char **err);
int kbuild__check_prefix(const char *prefix, char **err);

/*
 * Running the commands of a build. Their stdout and stderr go to the
 * build log (@log_fd, O_APPEND) as they come, and progress ticks while
 * they run. 0 when the command exited 0; otherwise a negative errno and,
 * in *@output when not NULL, what this command wrote to the log (its
 * last 64 KiB), for the error message.
 */
int kbuild__run(const char *const *argv, int timeout_ms, int log_fd,
		struct kbuild_progress *p, char **output);
/* A short command whose stdout is wanted: 0 and *@out, or *@err. */
int kbuild__capture(const char *const *argv, int timeout_ms, char **out,
		    char **err);
/* The last @lines lines of @text (a pointer into it). */
const char *kbuild__tail(const char *text, int lines);

/* The state of one build, passed between the phases. */
struct kbuild_ctx {
	const struct kbuild_recipe *r;
	const struct kbuild_arch *arch;
	const char *tree;   /* absolute */
	const char *commit; /* the base, resolved */
	char *tmp;	    /* .tmp-KEY-XXXXXX */
	char *src;	    /* tmp/linux: the worktree */
	char *obj;	    /* tmp/build: O= */
	char *out;	    /* tmp/out: the entry-to-be */
	char *log_path;	    /* out/build.log */
	int log_fd;
	int jobs;
	bool worktree_added; /* remove it on the way out */
	bool kept;	     /* src and obj are the recipe's workdir's */
	bool failed_in_make; /* keep the log beside the entry */
	struct kbuild_progress progress;
	struct kbuild_missing *missing;
	size_t nr_missing;
	bool modules; /* CONFIG_MODULES=y */
	char *release;
	char *build_id;
};

/* kbuild-worktree.c */
/*
 * "git -c ... -C @dir": the user's hooks off, an identity of our own for
 * commits, no advice; the caller pushes the subcommand.
 */
void kbuild__git_argv(struct strvec *a, const char *dir);
/* git ARGS... (NULL-ended) in @dir, for its stdout (kbuild__capture). */
int kbuild__git(const char *dir, const char *const *args, int timeout_ms,
		char **out, char **err);
/* @s less its trailing newlines and spaces: git's one-line answers. */
char *kbuild__chomp(char *s);
int kbuild__resolve_base(const char *tree, const char *base, char **commit,
			 char **err);
int kbuild__worktree_add(struct kbuild_ctx *c, char **err);
/*
 * The kept worktree at c->src moved to c->commit (a new one where there
 * is none, or one git no longer knows): files that did not change keep
 * their times, so make rebuilds only what did.
 */
int kbuild__worktree_checkout(struct kbuild_ctx *c, char **err);
void kbuild__worktree_remove(struct kbuild_ctx *c);
/* git worktree prune, for worktrees of builds that were killed. */
void kbuild__worktree_prune(const char *tree);
int kbuild__apply_patches(struct kbuild_ctx *c, char **err);

/* kbuild-config.c: base config, fragments, olddefconfig, verification. */
int kbuild__configure(struct kbuild_ctx *c, char **err);
/* make -C SRC O=OBJ ARCH= [CROSS_COMPILE=] into @argv. */
struct strvec;
void kbuild__make_argv(const struct kbuild_ctx *c, struct strvec *argv);

/* kbuild-make.c: the image, modules and the entry's files. */
int kbuild__compile(struct kbuild_ctx *c, char **err);

/* kbuild-cache.c */
int kbuild__copy_file(const char *from, const char *to, char **err);
/* Lock KEY in @dir (its .locks/KEY), waiting for an identical build. */
int kbuild_cache__lock(const char *dir, const char *key, int *fd, char **err);
/* Remove the .tmp-KEY-* folders of builds of KEY that were killed. */
void kbuild_cache__sweep(const char *dir, const char *key);
/* The entry @dir into *@res; -ENOENT when it has no result.json. */
int kbuild_cache__load(const char *dir, const char *key,
		       struct kbuild_result *res, char **err);

#endif /* IOMMU_BENCH_KBUILD_H */
