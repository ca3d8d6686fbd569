// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel builds without a kernel: the .config merge and verification on
 * synthetic files, the cache key's sensitivity to each input, build-id
 * parsing of ELF files made here with cc (and one big-endian ELF32 made
 * by hand), and the whole pipeline on a scratch git tree whose Makefile
 * stands in for the kernel's (worktree, mbox and plain patches, config,
 * image, modules, cache hit, failures leaving nothing behind). The real
 * kernel is tests/cli/kernel-build.t's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/host/host-priv.h"
#include "bench/kbuild/kbuild.h"
#include "bench/testbed/testbed.h"
#include "errmsg.h"
#include "kernel-target.h"
#include "log.h"
#include "scratch-files.h"
#include "tap.h"
#include "util.h"

static char scratch[] = "/tmp/iommu-bench-test-kbuild.XXXXXX";

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", scratch, name);
}

static void test_parse(void)
{
	struct kconfig kc = { 0 };
	const struct kconfig_opt *o;
	char *err = NULL, *text;
	int ret;

	ret = kconfig__parse(&kc,
			     "#\n# Automatically generated\n#\n"
			     "CONFIG_A=y\n# CONFIG_B is not set\n"
			     "CONFIG_S=\"a b=c\"\r\nCONFIG_H=0x10\n"
			     "  CONFIG_N=n  \n\nCONFIG_A=m\n",
			     "f", true, &err);
	is_int(ret, 0, "a .config with comments, CRLF and blanks parses");
	is_int(kc.nr, 5, "five options, the repeated one once");
	o = kconfig__get(&kc, "CONFIG_A");
	ok(o && o->value && !strcmp(o->value, "m"),
	   "a later line for an option wins (CONFIG_A=m)");
	is_int(o - kc.opts, 0, "in the place of the first");
	o = kconfig__get(&kc, "CONFIG_B");
	ok(o && !o->value, "'# CONFIG_B is not set' is an unset option");
	o = kconfig__get(&kc, "CONFIG_N");
	ok(o && !o->value, "CONFIG_N=n is unset too");
	o = kconfig__get(&kc, "CONFIG_S");
	is_str(o ? o->value : NULL, "\"a b=c\"",
	       "a string keeps its quotes and its '='");
	ok(!kconfig__get(&kc, "CONFIG_Automatically"),
	   "a comment is not an option");
	text = kconfig__format(&kc);
	is_str(text,
	       "CONFIG_A=m\n# CONFIG_B is not set\nCONFIG_S=\"a b=c\"\n"
	       "CONFIG_H=0x10\n# CONFIG_N is not set\n",
	       "formatted back as .config lines");
	free(text);
	kconfig__release(&kc);

	ret = kconfig__parse(&kc, "CONFIG_A=y\nCONFIG_B y\n", "frag.config",
			     true, &err);
	is_int(ret, -EINVAL, "a fragment line that is no option is refused");
	has_str(err, "frag.config:2: not a config line: 'CONFIG_B y'",
		"naming the file, line and text");
	free(err);
	err = NULL;
	kconfig__release(&kc);
	ret = kconfig__parse(&kc, "CONFIG_A=\nFOO=y\n", "f", false, &err);
	ok(!ret && kc.nr == 0,
	   "not strict (a .config): junk and empty values are skipped");
	kconfig__release(&kc);
}

static void test_merge(void)
{
	const char *frags[] = {
		"# first\nCONFIG_B=y\nCONFIG_C=m\nCONFIG_NEW=y\n",
		"CONFIG_C=y\n# CONFIG_A is not set\nCONFIG_S=\"two\"\n",
	};
	const char *names[] = { "one.config", "two.config" };
	struct kconfig wanted = { 0 }, merged_kc = { 0 };
	const struct kconfig_opt *o;
	char *merged = NULL, *err = NULL;
	int ret;

	ret = kconfig__merge("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=y\n"
			     "CONFIG_S=\"one\"\nCONFIG_KEEP=y\n",
			     frags, names, 2, NULL, &merged, &wanted, &err);
	is_int(ret, 0, "a base and two fragments merge");
	is_str(merged,
	       "# CONFIG_A is not set\nCONFIG_B=y\nCONFIG_C=y\n"
	       "CONFIG_S=\"two\"\nCONFIG_KEEP=y\nCONFIG_NEW=y\n",
	       "fragments override the base, the later fragment the earlier; "
	       "new options are appended");
	is_int(wanted.nr, 5, "what the fragments ask for: 5 options");
	o = kconfig__get(&wanted, "CONFIG_C");
	ok(o && !strcmp(o->value, "y") && !strcmp(o->origin, "two.config"),
	   "CONFIG_C: y, from two.config (the last word)");
	o = kconfig__get(&wanted, "CONFIG_B");
	ok(o && !strcmp(o->origin, "one.config"), "CONFIG_B from one.config");
	o = kconfig__get(&wanted, "CONFIG_A");
	ok(o && !o->value, "CONFIG_A wanted unset");
	ok(!kconfig__get(&wanted, "CONFIG_KEEP"),
	   "the base's own options are not wanted");
	kconfig__parse(&merged_kc, merged, "merged", true, &err);
	is_int(merged_kc.nr, 6, "the merged text parses back");
	kconfig__release(&merged_kc);
	kconfig__release(&wanted);
	free(merged);

	merged = NULL;
	ret = kconfig__merge("CONFIG_A=y\n", (const char *[]){ "oops\n" },
			     (const char *[]){ "bad.config" }, 1, NULL, &merged,
			     &wanted, &err);
	is_int(ret, -EINVAL, "a bad fragment fails the merge");
	has_str(err, "bad.config:1", "naming it");
	ok(!merged, "and nothing is merged");
	free(err);
	kconfig__release(&wanted);
}

static void test_verify(void)
{
	struct kconfig wanted = { 0 }, final = { 0 };
	struct kbuild_missing *m;
	char *err = NULL, *text;
	size_t nr;

	kconfig__parse(&wanted,
		       "CONFIG_SET=y\nCONFIG_GONE=y\n# CONFIG_OFF is not set\n"
		       "# CONFIG_ABSENT is not set\nCONFIG_OFFN=n\n"
		       "CONFIG_TRI=y\nCONFIG_MOD=m\nCONFIG_STR=\"abc\"\n"
		       "CONFIG_STR2=\"abc\"\nCONFIG_HEX=0x10\n"
		       "# CONFIG_FORCED is not set\n",
		       "want.config", true, &err);
	kconfig__parse(&final,
		       "CONFIG_SET=y\n# CONFIG_GONE is not set\n"
		       "# CONFIG_OFF is not set\nCONFIG_TRI=m\nCONFIG_MOD=m\n"
		       "CONFIG_STR=\"abc\"\nCONFIG_STR2=\"abd\"\n"
		       "CONFIG_HEX=0x10\nCONFIG_FORCED=y\n",
		       ".config", false, &err);
	kconfig__verify(&wanted, &final, NULL, &m, &nr);
	is_int(nr, 4, "four options did not land");
	if (nr == 4) {
		is_str(m[0].option, "CONFIG_GONE", "a =y that became unset");
		ok(m[0].wanted && !strcmp(m[0].wanted, "y") && !m[0].actual,
		   "wanted y, got not set");
		is_str(m[0].fragment, "want.config", "from its fragment");
		is_str(m[1].option, "CONFIG_TRI", "=y that became =m");
		is_str(m[1].actual, "m", "got m");
		is_str(m[2].option, "CONFIG_STR2", "a string that differs");
		is_str(m[2].actual, "\"abd\"", "got the other string");
		is_str(m[3].option, "CONFIG_FORCED",
		       "an unset option that something selected");
		ok(!m[3].wanted && !strcmp(m[3].actual, "y"),
		   "wanted not set, got y");
	}
	text = kbuild_missing__describe(m, nr);
	has_str(text,
		"  CONFIG_GONE: wanted y, got not set (from want.config)\n"
		"  CONFIG_TRI: wanted y, got m (from want.config)",
		"described one per line with wanted and actual values");
	has_str(text, "CONFIG_FORCED: wanted not set, got y",
		"an unset option too");
	free(text);
	kbuild_missing__free(m, nr);
	kconfig__release(&wanted);
	kconfig__release(&final);
}

/*
 * A tree's Kconfig files: choices, dependencies and enclosing ifs, help
 * texts that read like keywords, and another arch's folder left out.
 */
static void test_kconfig_tree(void)
{
	struct kconfig wanted = { 0 }, final = { 0 };
	const struct kconfig_sym *sym;
	struct kconfig_tree tree;
	struct strvec sibs = { 0 };
	struct kbuild_missing *m;
	char *top = path_in("ktree"), *p, *err = NULL, *merged = NULL;
	size_t nr;
	int ret;

	mkdir(top, 0755);
	for (int i = 0; i < 3; i++) {
		static const char *const sub[] = { "arch", "arch/x86",
						   "arch/arm64" };

		p = xasprintf("%s/%s", top, sub[i]);
		mkdir(p, 0755);
		free(p);
	}
	scratch__write_text(
		path_in("ktree/Kconfig"),
		"config PCI\n\tbool \"PCI\"\n\thelp\n"
		"\t  choice of words, in a help text\n"
		"\t  config NOTREAL\n\n"
		"config INTEL_IOMMU\n\tbool \"VT-d\"\n"
		"\tdepends on PCI && X86 && !BROKEN\n"
		"choice\n\tprompt \"default DMA mode\"\n"
		"config DMA_STRICT\n\tbool \"strict\"\n"
		"config DMA_LAZY\n\tbool \"lazy\"\n"
		"endchoice\n"
		"if PCI\nconfig UNDER_IF\n\tbool\nendif\n"
		"config BROKEN\n\tbool\n"
		"config ORDEP\n\tbool\n\tdepends on (BROKEN || PCI)\n"
		"\tdepends on X86 || (BROKEN && PCI)\n");
	scratch__write_text(path_in("ktree/arch/x86/Kconfig"),
			    "config X86\n\tdef_bool y\n");
	scratch__write_text(
		path_in("ktree/arch/arm64/Kconfig"),
		"choice\nconfig ARM_ONLY\n\tbool \"a\"\nendchoice\n");

	ret = kconfig_tree__load(&tree, top, "x86", &err);
	is_int(ret, 0, "a tree's Kconfig files load");
	sym = kconfig_tree__find(&tree, "CONFIG_DMA_STRICT");
	ok(sym && sym->choice, "DMA_STRICT is a member of a choice");
	kconfig_tree__siblings(&tree, sym, &sibs);
	ok(sibs.nr == 1 && !strcmp(sibs.v[0], "CONFIG_DMA_LAZY"),
	   "its sibling: CONFIG_DMA_LAZY");
	strvec__release(&sibs);
	ok(!kconfig_tree__find(&tree, "NOTREAL"),
	   "a help text's 'config NOTREAL' is no symbol");
	sym = kconfig_tree__find(&tree, "PCI");
	ok(sym && !sym->choice, "PCI is no choice's (help text skipped)");
	sym = kconfig_tree__find(&tree, "UNDER_IF");
	ok(sym && sym->depends.nr == 1 && !strcmp(sym->depends.v[0], "PCI"),
	   "an enclosing if is a dependency");
	ok(kconfig_tree__find(&tree, "X86"), "the built arch's folder is read");
	ok(!kconfig_tree__find(&tree, "ARM_ONLY"), "another arch's is not");

	ret = kconfig__merge("CONFIG_PCI=y\nCONFIG_DMA_LAZY=y\n"
			     "# CONFIG_DMA_STRICT is not set\n",
			     (const char *[]){ "CONFIG_DMA_STRICT=y\n" },
			     (const char *[]){ "strict.config" }, 1, &tree,
			     &merged, &wanted, &err);
	is_int(ret, 0, "a fragment picking a choice member merges");
	has_str(merged, "# CONFIG_DMA_LAZY is not set\nCONFIG_DMA_STRICT=y",
		"its sibling is unset, so the fragment's member wins");
	free(merged);
	kconfig__release(&wanted);

	kconfig__parse(&wanted,
		       "CONFIG_INTEL_IOMMU=y\nCONFIG_NOSUCH=y\n"
		       "CONFIG_DMA_STRICT=y\nCONFIG_ORDEP=y\n",
		       "want.config", true, &err);
	kconfig__parse(&final, "CONFIG_PCI=y\nCONFIG_DMA_LAZY=y\n", ".config",
		       false, &err);
	kconfig__verify(&wanted, &final, &tree, &m, &nr);
	is_int(nr, 4, "four options did not land");
	if (nr == 4) {
		is_str(m[0].reason,
		       "it depends on PCI && X86 && !BROKEN, and CONFIG_X86 "
		       "is off",
		       "a dependency that is off, by name (not the negated "
		       "one)");
		is_str(m[1].reason, "no Kconfig file of this tree defines it",
		       "no such symbol");
		is_str(m[2].reason,
		       "CONFIG_DMA_LAZY, another member of its choice, is set",
		       "a sibling that won the choice");
		is_str(m[3].reason,
		       "it depends on X86 || (BROKEN && PCI), and CONFIG_X86, "
		       "CONFIG_BROKEN are off",
		       "the line that is false, not an || that holds; the "
		       "off symbols of each alternative");
	}
	kbuild_missing__free(m, nr);
	kconfig__release(&wanted);
	kconfig__release(&final);
	kconfig_tree__release(&tree);
	free(top);
}

static void test_names(void)
{
	const struct kbuild_arch *a;

	ok(kernel_target__is_config("defconfig") &&
		   kernel_target__is_config("tinyconfig") &&
		   kernel_target__is_config("allnoconfig") &&
		   kernel_target__is_config("x86_64_defconfig"),
	   "defconfig, tinyconfig, allnoconfig and NAME_defconfig are targets");
	ok(!kernel_target__is_config("./defconfig") &&
		   !kernel_target__is_config("/boot/config-6.1") &&
		   !kernel_target__is_config("_defconfig") &&
		   !kernel_target__is_config("x;_defconfig") &&
		   !kernel_target__is_config("randconfig"),
	   "paths, bare suffixes and randconfig are not");
	ok(kbuild__revision_is_valid("v6.1") &&
		   kbuild__revision_is_valid("HEAD~2") &&
		   kbuild__revision_is_valid("origin/master^"),
	   "tags, HEAD~2 and origin/master^ are revisions");
	ok(!kbuild__revision_is_valid("--upload-pack=x") &&
		   !kbuild__revision_is_valid("a..b") &&
		   !kbuild__revision_is_valid("a b") &&
		   !kbuild__revision_is_valid(""),
	   "options, ranges, spaces and nothing are not");
	ok(kbuild__prefix_is_valid("aarch64-linux-gnu-") &&
		   kbuild__prefix_is_valid("/opt/x-tools/bin/arm-"),
	   "a cross prefix may be a path");
	ok(!kbuild__prefix_is_valid("-x") && !kbuild__prefix_is_valid("a b") &&
		   !kbuild__prefix_is_valid("a;b"),
	   "but not an option or shell text");
	a = kbuild__arch("arm64");
	ok(a && !strcmp(a->image, "Image") && !strcmp(a->srcarch, "arm64"),
	   "arm64 builds arch/arm64/boot/Image");
	a = kbuild__arch("x86_64");
	ok(a && !strcmp(a->image, "bzImage") && !strcmp(a->srcarch, "x86"),
	   "x86_64 builds arch/x86/boot/bzImage");
	ok(!kbuild__arch("aarch64"), "aarch64 is not the kernel's name");
	ok(kbuild__arch(NULL), "this machine has an ARCH");
}

static void test_tail(void)
{
	is_str(kbuild__tail("a\nb\nc\n", 2), "b\nc\n", "the last two lines");
	is_str(kbuild__tail("a\nb\nc", 2), "b\nc", "without a final newline");
	is_str(kbuild__tail("a\nb\n", 5), "a\nb\n", "fewer lines than asked");
	is_str(kbuild__tail("", 3), "", "nothing");
}

static void test_key(void)
{
	char *p1 = path_in("k-p1"), *p2 = path_in("k-p2");
	char *f1 = path_in("k-f1"), *cfg = path_in("k-cfg");
	char *list[] = { p1, p2 }, *frags[] = { f1 };
	char *swapped[] = { p2, p1 };
	char base[SHA256_HEX_SIZE], k[SHA256_HEX_SIZE], *err = NULL;
	struct kbuild_recipe r = { .tree = "/nonexistent",
				   .patches = list,
				   .nr_patches = 2,
				   .config = cfg,
				   .fragments = frags,
				   .nr_fragments = 1,
				   .arch = "x86_64" },
			     r2;
	const char *c = "c0ffee", *cc = "gcc (Debian 12.2.0-14) 12.2.0";
	int ret;

	scratch__write_text(p1, "patch one\n");
	scratch__write_text(p2, "patch two\n");
	scratch__write_text(f1, "CONFIG_A=y\n");
	scratch__write_text(cfg, "CONFIG_B=y\n");
	ret = kbuild__key(&r, c, cc, base, &err);
	is_int(ret, 0, "a key from files");
	is_int(strlen(base), 64, "64 hex digits");
	kbuild__key(&r, c, cc, k, &err);
	is_str(k, base, "the same inputs give the same key");
	r2 = r;
	r2.jobs = 7;
	r2.tree = "/elsewhere";
	r2.allow_missing_config = true;
	kbuild__key(&r2, c, cc, k, &err);
	is_str(k, base, "-j, the tree's path and allow_missing do not count");

#define CHANGED(what) ok(strcmp(k, base), "the key changes with " what)
	kbuild__key(&r, "c0ffef", cc, k, &err);
	CHANGED("the base commit");
	kbuild__key(&r, c, "gcc 13", k, &err);
	CHANGED("the compiler version");
/* One field of the recipe other than @r's, and the key must move. */
#define CHANGED_WITH(field, value, what)          \
	do {                                      \
		r2 = r;                           \
		r2.field = value;                 \
		kbuild__key(&r2, c, cc, k, &err); \
		CHANGED(what);                    \
	} while (0)
	CHANGED_WITH(patches, swapped, "the order of the patches");
	CHANGED_WITH(nr_patches, 1, "one patch fewer");
	CHANGED_WITH(arch, "arm64", "the arch");
	CHANGED_WITH(cross_compile, "aarch64-linux-gnu-", "the cross prefix");
	CHANGED_WITH(config, "tinyconfig",
		     "a config target instead of the file");
	r2.config = NULL;
	kbuild__key(&r2, c, cc, k, &err);
	ok(strcmp(k, base), "no config (defconfig) differs from the file");
	{
		char dflt[SHA256_HEX_SIZE];

		r2.config = "defconfig";
		kbuild__key(&r2, c, cc, dflt, &err);
		is_str(dflt, k, "and is the same as asking for defconfig");
	}
	CHANGED_WITH(nr_fragments, 0, "a fragment fewer");
	scratch__write_text(p2, "patch two, edited\n");
	kbuild__key(&r, c, cc, k, &err);
	CHANGED("a patch's contents");
	scratch__write_text(p2, "patch two\n");
	scratch__write_text(f1, "CONFIG_A=m\n");
	kbuild__key(&r, c, cc, k, &err);
	CHANGED("a fragment's contents");
	scratch__write_text(f1, "CONFIG_A=y\n");
	scratch__write_text(cfg, "CONFIG_B=m\n");
	kbuild__key(&r, c, cc, k, &err);
	CHANGED("the config file's contents");
	scratch__write_text(cfg, "CONFIG_B=y\n");
	kbuild__key(&r, c, cc, k, &err);
	is_str(k, base, "and comes back when they come back");
	/* "ab" + "c" and "a" + "bc" must not hash alike. */
	scratch__write_text(p1, "patch onepatch");
	scratch__write_text(p2, " two\n");
	kbuild__key(&r, c, cc, k, &err);
	CHANGED("the split between two patches");
#undef CHANGED_WITH
#undef CHANGED
	unlink(p2);
	ret = kbuild__key(&r, c, cc, k, &err);
	is_int(ret, -EINVAL, "a missing patch is a recipe error");
	has_str(err, "k-p2", "naming it");
	free_all(err, p1, p2, f1, cfg);
}

/* Compile a tiny program with @ldflag; the path of the result. */
static char *cc_elf(const char *name, const char *ldflag)
{
	char *src = path_in("hello.c"), *out = path_in(name);
	const char *argv[] = { "cc", "-o", out, src, ldflag, NULL };

	scratch__write_text(src, "int main(void) { return 0; }\n");
	if (scratch__run(argv, NULL)) {
		free(out);
		out = NULL;
	}
	free(src);
	return out;
}

static void test_build_id(void)
{
	char *elf, *hex = NULL, *readelf = NULL, *p, *copy, *bad;
	uint64_t zero = 0;
	int fd, ret;

	if (!scratch__have("cc")) {
		tap_skip("no cc to make ELF files with");
		return;
	}
	elf = cc_elf("fixed", "-Wl,--build-id=0x0123456789abcdef");
	ret = elf ? kbuild__elf_build_id(elf, &hex) : -1;
	is_int(ret, 0, "an ELF linked with --build-id=0x0123456789abcdef");
	is_str(hex, "0123456789abcdef", "has that build id");
	free(hex);
	hex = NULL;

	/* The section headers gone, the PT_NOTE segment must do. */
	copy = path_in("no-sections");
	kbuild__copy_file(elf, copy, &p);
	fd = open(copy, O_WRONLY);
	ret = fd >= 0 && pwrite(fd, &zero, 8, 0x28) == 8 ? 0 : -1;
	if (fd >= 0)
		close(fd);
	ret = ret ?: kbuild__elf_build_id(copy, &hex);
	is_int(ret, 0, "without section headers (e_shoff 0)");
	is_str(hex, "0123456789abcdef", "it comes from the program headers");
	free(hex);
	hex = NULL;
	free(copy);
	free(elf);

	elf = cc_elf("sha1", "-Wl,--build-id=sha1");
	ret = elf ? kbuild__elf_build_id(elf, &hex) : -1;
	is_int(ret, 0, "an ELF linked with --build-id=sha1");
	is_int(hex ? strlen(hex) : 0, 40, "has 40 hex digits");
	if (hex && scratch__have("readelf")) {
		const char *argv[] = { "readelf", "-n", elf, NULL };

		scratch__run(argv, &readelf);
		p = readelf ? strstr(readelf, "Build ID: ") : NULL;
		ok(p && !strncmp(p + 10, hex, 40),
		   "the same as readelf -n says");
		free(readelf);
	}
	free(hex);
	hex = NULL;
	free(elf);

	elf = cc_elf("none", "-Wl,--build-id=none");
	ret = elf ? kbuild__elf_build_id(elf, &hex) : -1;
	is_int(ret, -ENOENT, "an ELF without a build id is -ENOENT");
	free(elf);

	bad = path_in("not-elf");
	scratch__write_text(bad, "#!/bin/sh\necho not an ELF file at all\n");
	is_int(kbuild__elf_build_id(bad, &hex), -ENOEXEC,
	       "a script is -ENOEXEC");
	scratch__write_text(bad, "\177ELF\002\001\001");
	is_int(kbuild__elf_build_id(bad, &hex), -ENOEXEC,
	       "a truncated header is -ENOEXEC");
	free(bad);
	is_int(kbuild__elf_build_id("/nonexistent/vmlinux", &hex), -ENOENT,
	       "a missing file is -ENOENT");
}

/* A big-endian ELF32 with one PT_NOTE segment, byte by byte. */
static void test_build_id_be32(void)
{
	unsigned char f[52 + 32 + 20] = { 0x7f, 'E', 'L', 'F', 1, 2, 1 };
	char *path = path_in("be32"), *hex = NULL;
	unsigned char *ph = f + 52, *note = f + 84;
	int fd;

	f[17] = 2;    /* e_type ET_EXEC */
	f[19] = 8;    /* e_machine MIPS */
	f[23] = 1;    /* e_version */
	f[31] = 52;   /* e_phoff */
	f[41] = 52;   /* e_ehsize */
	f[43] = 32;   /* e_phentsize */
	f[45] = 1;    /* e_phnum */
	f[47] = 40;   /* e_shentsize; e_shoff and e_shnum stay 0 */
	ph[3] = 4;    /* p_type PT_NOTE */
	ph[7] = 84;   /* p_offset */
	ph[19] = 20;  /* p_filesz */
	ph[23] = 20;  /* p_memsz */
	ph[31] = 4;   /* p_align */
	note[3] = 4;  /* n_namesz */
	note[7] = 4;  /* n_descsz */
	note[11] = 3; /* NT_GNU_BUILD_ID */
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, "\xde\xad\xbe\xef", 4);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && write(fd, f, sizeof(f)) == (ssize_t)sizeof(f),
	   "a big-endian ELF32 written");
	if (fd >= 0)
		close(fd);
	is_int(kbuild__elf_build_id(path, &hex), 0,
	       "its build id is read, byte order and class honoured");
	is_str(hex, "deadbeef", "deadbeef");
	free(hex);
	hex = NULL;
	/* A note that claims more than the segment holds is no build id. */
	note[7] = 200;
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd >= 0) {
		if (write(fd, f, sizeof(f)) != (ssize_t)sizeof(f))
			tap_diag("short write");
		close(fd);
	}
	is_int(kbuild__elf_build_id(path, &hex), -ENOENT,
	       "an oversized note is ignored, not read past");
	free(path);
}

/*
 * A Makefile that behaves like the kernel's where kernel build looks:
 * O=, ARCH=, config targets and olddefconfig (which drops
 * CONFIG_NEEDS_DEP as Kconfig drops an option without its dependency),
 * the image from the patched source, a vmlinux with a known build id,
 * kernelrelease, modules and modules_install.
 */
static const char fake_makefile[] =
	"O ?= .\n"
	"R := 6.1.0-fake\n"
	"defconfig:\n"
	"\tprintf 'CONFIG_A=y\\n# CONFIG_B is not set\\n' > $(O)/.config\n"
	"tinyconfig:\n"
	"\tprintf '# CONFIG_A is not set\\n' > $(O)/.config\n"
	"olddefconfig:\n"
	"\tsed -i '/^CONFIG_NEEDS_DEP=/d' $(O)/.config\n"
	"bzImage:\n"
	"\t@if grep -q '^CONFIG_FAIL=y' $(O)/.config; then "
	"echo 'fake.c:1: error: the build broke'; exit 2; fi\n"
	"\tmkdir -p $(O)/arch/x86/boot\n"
	"\tcat file.txt $(O)/.config > $(O)/arch/x86/boot/bzImage\n"
	"\techo 'ffffffff81000000 T _stext' > $(O)/System.map\n"
	"\tprintf 'int main(void) { return 0; }\\n' > $(O)/v.c\n"
	"\tcc -Wl,--build-id=0x00112233445566778899aabbccddeeff00112233 "
	"-o $(O)/vmlinux $(O)/v.c\n"
	"kernelrelease:\n"
	"\t@echo $(R)\n"
	"modules:\n"
	"\t@echo '  LD [M]  fake.ko'\n"
	"modules_install:\n"
	"\tmkdir -p $(INSTALL_MOD_PATH)/lib/modules/$(R)/kernel\n"
	"\techo fake > $(INSTALL_MOD_PATH)/lib/modules/$(R)/kernel/fake.ko\n"
	"\tln -sfn $(O) $(INSTALL_MOD_PATH)/lib/modules/$(R)/build\n";

static const char good_mbox[] =
	"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 "
	"2001\n"
	"From: iommu-bench tests <iommu-bench@localhost>\n"
	"Date: Wed, 1 Jan 2025 00:00:00 +0000\n"
	"Subject: [PATCH] fake: Shout the second line\n\n"
	"---\n file.txt | 2 +-\n\n"
	"diff --git a/file.txt b/file.txt\n"
	"--- a/file.txt\n+++ b/file.txt\n"
	"@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
	"-- \n2.39.5\n";

static const char good_diff[] = "--- a/file.txt\n+++ b/file.txt\n"
				"@@ -1,3 +1,3 @@\n one\n TWO\n-three\n+THREE\n";

static const char bad_mbox[] =
	"From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 "
	"2001\n"
	"From: iommu-bench tests <iommu-bench@localhost>\n"
	"Subject: [PATCH] fake: A patch for another tree\n\n---\n"
	"diff --git a/file.txt b/file.txt\n"
	"index 1111111..2222222 100644\n"
	"--- a/file.txt\n+++ b/file.txt\n"
	"@@ -2,3 +2,3 @@\n two\n-four\n+FOUR\n five\n"
	"-- \n2.39.5\n";

static char *tree, *cache;

static int make_tree(void)
{
	char *mk = xasprintf("%s/Makefile", tree);
	char *file = xasprintf("%s/file.txt", tree);
	const char *init[] = { "git", "init", "-q", tree, NULL };
	const char *add[] = { "git", "-C", tree, "add", "-A", NULL };
	const char *commit[] = { "git",
				 "-C",
				 tree,
				 "-c",
				 "user.name=t",
				 "-c",
				 "user.email=t@t",
				 "commit",
				 "-q",
				 "-m",
				 "base",
				 NULL };
	int ret;

	mkdir(tree, 0755);
	ret = scratch__write_text(mk, fake_makefile);
	ret = ret ?: scratch__write_text(file, "one\ntwo\nthree\n");
	ret = ret ?: scratch__run(init, NULL);
	ret = ret ?: scratch__run(add, NULL);
	ret = ret ?: scratch__run(commit, NULL);
	free(mk);
	free(file);
	return ret;
}

/* `git worktree list` of the tree: one line, the tree itself, or not. */
static bool no_worktrees(void)
{
	const char *argv[] = { "git",  "-C",	      tree, "worktree",
			       "list", "--porcelain", NULL };
	char *out = NULL;
	bool one;

	if (scratch__run(argv, &out))
		return false;
	one = !strstr(out + 1, "\nworktree ");
	if (!one)
		tap_diag("%s", out);
	free(out);
	return one;
}

static bool tree_untouched(void)
{
	const char *argv[] = {
		"git", "-C", tree, "status", "--porcelain", NULL
	};
	const char *log[] = { "git",	 "-C",	 tree, "rev-list",
			      "--count", "HEAD", NULL };
	char *out = NULL, *count = NULL;
	bool clean;

	clean = !scratch__run(argv, &out) && !*out &&
		!scratch__run(log, &count) && !strcmp(count, "1\n");
	free(out);
	free(count);
	return clean;
}

/* Nothing in the cache but @keep entries, the locks and failed logs. */
static int cache_entries(void)
{
	const char *argv[] = { "sh", "-c",
			       "ls -A \"$0\" | grep -v -e '^.locks$' "
			       "-e 'failed.log$' | wc -l",
			       cache, NULL };
	char *out = NULL;
	int n;

	if (scratch__run(argv, &out))
		return -1;
	n = atoi(out);
	free(out);
	return n;
}

static bool file_has(const char *path, const char *text)
{
	size_t len;
	char *buf;
	bool yes;

	if (!path || read_file(path, &buf, &len))
		return false;
	yes = strstr(buf, text);
	free(buf);
	return yes;
}

/*
 * What a run stores as the kernel's recipe: result.json's recipe with
 * the build's key, duration and time, the same text for a cache hit.
 */
static void check_recipe(const struct kbuild_result *res,
			 const struct kbuild_result *again)
{
	struct kbuild_result none = { .meta = json_object() };
	char *text = kbuild_result__recipe(res);
	char *text2 = kbuild_result__recipe(again);
	json_t *o = text ? json_loads(text, 0, NULL) : NULL, *p;
	size_t i, hashed = 0;

	ok(json_is_object(o), "the recipe for the store is a JSON object");
	is_str(json_string_value(json_object_get(o, "base_commit")),
	       res->base_commit, "with the base commit resolved");
	p = json_object_get(o, "patches");
	for (i = 0; i < json_array_size(p); i++)
		if (strlen(json_string_value(json_object_get(json_array_get(p, i), "sha256")) ?:
				   "") == 64)
			hashed++;
	ok(json_array_size(p) == 2 && hashed == 2,
	   "both patches with their sha256, in order");
	ok(json_string_length(json_object_get(o, "compiler")) > 0 &&
		   json_is_string(json_object_get(o, "tree")) &&
		   json_is_object(json_object_get(o, "config")),
	   "the tree, the config and the compiler");
	ok(json_is_number(json_object_get(o, "elapsed_s")) &&
		   json_number_value(json_object_get(o, "elapsed_s")) >= 0 &&
		   json_string_length(json_object_get(o, "built_at")) == 20,
	   "the build's duration and when it was built");
	is_str(json_string_value(json_object_get(o, "key")), res->key,
	       "and the cache entry's key");
	is_str(text2, text, "a cache hit gives the same recipe");
	ok(!kbuild_result__recipe(&none), "an entry without a recipe: none");
	json_decref(none.meta);
	json_decref(o);
	free_all(text, text2);
}

/*
 * Two builds of one tree at once: one's `git worktree prune` (each build
 * prunes at its start and after its removal) must not forget the other's
 * worktree between git's mkdir of its admin folder and its lock file,
 * which made `git worktree add` fail ("could not open
 * '.git/worktrees/linux/locked'"). Without the tree's lock, about one
 * add in a hundred failed here under a pruning loop.
 */
static void test_worktree_race(void)
{
	struct kbuild_ctx c = { .tree = tree, .commit = "HEAD", .log_fd = -1 };
	int i, failed = 0, status = 0;
	char *err = NULL;
	pid_t pid;

	kbuild_progress__init(&c.progress);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 600; i++)
			kbuild__worktree_prune(tree);
		_exit(0);
	}
	for (i = 0; i < 150 && pid > 0; i++) {
		c.src = xasprintf("%s/race-%d/linux", cache, i);
		if (kbuild__worktree_add(&c, &err)) {
			if (!failed++)
				tap_diag("worktree add %d: %s", i, err);
			errmsg__clear(&err);
		}
		kbuild__worktree_remove(&c);
		free(c.src);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	ok(pid > 0 && WIFEXITED(status), "a second process pruned the tree");
	is_int(failed, 0, "150 worktrees added while it pruned, none lost");
	ok(no_worktrees(), "none left behind");
}

static void test_pipeline(void)
{
	char *mbox = path_in("0001-good.patch"), *diff = path_in("plain.diff");
	char *bad = path_in("0001-bad.patch"), *frag = path_in("frag.config");
	char *dep = path_in("dep.config"), *fail = path_in("fail.config");
	char *patches[] = { mbox, diff }, *bads[] = { mbox, bad };
	char *frags[] = { frag }, *deps[] = { frag, dep }, *fails[] = { fail };
	struct kbuild_recipe r = { .patches = patches,
				   .nr_patches = 2,
				   .config = "defconfig",
				   .fragments = frags,
				   .nr_fragments = 1,
				   .arch = "x86_64",
				   .jobs = 2 },
			     r2;
	/* A recipe with one of these is refused before anything runs. */
	static const struct {
		size_t off;
		const char *value, *what;
	} usage[] = {
		{ offsetof(struct kbuild_recipe, tree), scratch,
		  "a folder that is no git tree too" },
		{ offsetof(struct kbuild_recipe, arch), "aarch64",
		  "an unknown arch too" },
		{ offsetof(struct kbuild_recipe, cross_compile), "-fplugin=x",
		  "a cross prefix like an option too" },
	};
	struct kbuild_result res = { 0 }, again = { 0 };
	char *err = NULL, *first_dir = NULL, *p;
	size_t i;
	int ret;

	if (!scratch__have("git") || !scratch__have("make") ||
	    !scratch__have("gcc") || !scratch__have("tar")) {
		tap_skip("no git, make, gcc or tar");
		return;
	}
	tree = path_in("tree");
	cache = path_in("cache");
	if (make_tree()) {
		tap_skip("cannot make a scratch git tree");
		return;
	}
	r.tree = tree;
	scratch__write_text(mbox, good_mbox);
	scratch__write_text(diff, good_diff);
	scratch__write_text(bad, bad_mbox);
	scratch__write_text(frag,
			    "CONFIG_B=y\nCONFIG_MODULES=y\nCONFIG_S=\"x y\"\n");
	scratch__write_text(dep, "CONFIG_NEEDS_DEP=y\n");
	scratch__write_text(fail, "CONFIG_FAIL=y\n");

	r.config_only = true;
	ret = kbuild__build(&r, cache, &res, &err);
	is_int(ret, 0, "config-only build of the fake tree");
	if (ret)
		tap_diag("%s", err);
	ok(res.config_only && !res.image && !res.cached,
	   "made, config only, no image");
	ok(file_has(res.config, "CONFIG_B=y\n") &&
		   file_has(res.config, "CONFIG_A=y\n") &&
		   file_has(res.config, "CONFIG_S=\"x y\"\n"),
	   "its config is defconfig with the fragment over it");
	ok(res.dir && strstr(res.dir, "-config"), "in a KEY-config entry");
	kbuild_result__release(&res);

	r.config_only = false;
	ret = kbuild__build(&r, cache, &res, &err);
	is_int(ret, 0, "a full build: mbox and plain patches, modules");
	if (ret)
		tap_diag("%s", err);
	ok(!res.cached && !res.config_only, "built, not cached");
	ok(file_has(res.image, "one\nTWO\nTHREE\n"),
	   "the image was built from the patched source");
	ok(file_has(res.image, "CONFIG_MODULES=y"), "with the merged config");
	is_str(res.build_id, "00112233445566778899aabbccddeeff00112233",
	       "the build id is vmlinux's");
	is_str(res.release, "6.1.0-fake", "the release is kernelrelease's");
	ok(file_has(res.system_map, "_stext"), "System.map copied");
	ok(res.modules_tar && scratch__exists(res.modules_tar),
	   "modules.tar packed");
	p = res.modules_dir ? xasprintf("%s/kernel/fake.ko", res.modules_dir) :
			      NULL;
	ok(p && scratch__exists(p), "the staged modules are in the entry");
	free(p);
	p = res.modules_dir ? xasprintf("%s/build", res.modules_dir) : NULL;
	ok(p && !scratch__exists(p), "without the dangling build link");
	free(p);
	ok(file_has(res.log, "+ git") && file_has(res.log, "+ make"),
	   "the log has every command");
	ok(json_is_object(json_object_get(res.meta, "phases")) &&
		   json_is_object(json_object_get(res.meta, "recipe")),
	   "result.json has the phases and the recipe");
	is_int(json_array_size(json_object_get(
		       json_object_get(res.meta, "recipe"), "patches")),
	       2, "and both patches with their sha256");
	ok(no_worktrees(), "the worktree is gone");
	ok(tree_untouched(), "the tree's checkout and history are untouched");
	first_dir = res.dir ? xstrdup(res.dir) : NULL;

	ret = kbuild__build(&r, cache, &again, &err);
	ok(!ret && again.cached, "asked again: cached");
	is_str(again.dir, first_dir, "the same entry");
	is_str(again.build_id, res.build_id, "the same build id");
	check_recipe(&res, &again);
	kbuild_result__release(&again);
	r2 = r;
	r2.config_only = true;
	r2.jobs = 1;
	ret = kbuild__lookup(&r2, cache, &again, &err);
	ok(!ret && again.cached,
	   "a config-only lookup is answered (by the config entry)");
	kbuild_result__release(&again);
	kbuild_result__release(&res);

	r2 = r;
	r2.patches = bads;
	ret = kbuild__build(&r2, cache, &res, &err);
	ok(ret && ret != -EINVAL,
	   "a patch that does not apply fails the build");
	has_str(err, "0001-bad.patch does not apply", "naming the patch");
	has_str(err, "file.txt:2", "and the file and line of the hunk");
	has_str(err, "\nthe hunk, not found:\ntwo\nfour\nfive",
		"and showing the hunk");
	free(err);
	err = NULL;
	ok(no_worktrees(), "no worktree left behind");
	is_int(cache_entries(), 2, "no entry and no temporary folder left");
	ok(tree_untouched(), "the tree is untouched");

	r2 = r;
	r2.fragments = deps;
	r2.nr_fragments = 2;
	ret = kbuild__build(&r2, cache, &res, &err);
	is_int(ret, -EDOM, "an option that did not land fails the build");
	has_str(err, "CONFIG_NEEDS_DEP: wanted y, got not set", "naming it");
	has_str(err, "dep.config", "and its fragment");
	free(err);
	err = NULL;
	is_int(cache_entries(), 2, "and leaves no entry");
	r2.allow_missing_config = true;
	ret = kbuild__build(&r2, cache, &res, &err);
	ok(!ret && res.nr_missing == 1 &&
		   !strcmp(res.missing[0].option, "CONFIG_NEEDS_DEP"),
	   "allowed, it builds and reports the option");
	kbuild_result__release(&res);
	r2.allow_missing_config = false;
	ret = kbuild__build(&r2, cache, &res, &err);
	ok(ret == -EDOM && strstr(err, "cached build"),
	   "that entry does not satisfy a recipe that does not allow it");
	free(err);
	err = NULL;

	r2 = r;
	r2.fragments = fails;
	ret = kbuild__build(&r2, cache, &res, &err);
	ok(ret && ret != -EINVAL, "a make that fails fails the build");
	has_str(err, "make bzImage failed", "saying which make");
	has_str(err, "fake.c:1: error: the build broke",
		"with the end of the log");
	has_str(err, ".failed.log", "and where the whole log is");
	free(err);
	err = NULL;
	ok(no_worktrees(), "no worktree left behind");
	is_int(cache_entries(), 3, "no entry (the allowed one is the third)");

	/* git runs in the tree: a relative cache must not land there. */
	r2 = r;
	r2.config_only = true;
	ret = chdir(scratch) ?: kbuild__build(&r2, "relative", &res, &err);
	is_int(ret, 0, "a relative cache folder works");
	p = path_in("relative");
	ok(res.dir && !strncmp(res.dir, p, strlen(p)),
	   "and is taken from the current folder, not the tree");
	free(p);
	p = xasprintf("%s/relative", tree);
	ok(!scratch__exists(p), "nothing was made inside the tree");
	free(p);
	kbuild_result__release(&res);
	ok(no_worktrees(), "and no worktree is left");

	r2 = r;
	r2.base = "no-such-branch";
	ret = kbuild__build(&r2, cache, &res, &err);
	is_int(ret, -EINVAL, "a base that is no commit is a recipe error");
	has_str(err, "'no-such-branch' is not a commit", "saying so");
	free(err);
	err = NULL;
	for (i = 0; i < ARRAY_SIZE(usage); i++) {
		r2 = r;
		*(const char **)((char *)&r2 + usage[i].off) = usage[i].value;
		ret = kbuild__build(&r2, cache, &res, &err);
		is_int(ret, -EINVAL, "%s", usage[i].what);
		free(err);
		err = NULL;
	}
	r2 = r;
	r2.cross_compile = "no-such-cross-";
	ret = kbuild__build(&r2, cache, &res, &err);
	ok(ret && ret != -EINVAL, "a cross compiler that is not installed "
				  "fails (not a usage error)");
	has_str(err, "no-such-cross-gcc", "naming the compiler");
	free(err);
	err = NULL;

	test_worktree_race();
	free_all(first_dir, mbox, diff, bad, frag, dep, fail, tree, cache);
}

int main(void)
{
	scratch__begin(scratch);
	test_parse();
	test_merge();
	test_verify();
	test_kconfig_tree();
	test_names();
	test_tail();
	test_key();
	test_build_id();
	test_build_id_be32();
	test_pipeline();
	return scratch__end(scratch);
}
