// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for what a kernel build reads of a kernel tree and
 * of its own output: the Kconfig files (kconfig_tree__parse()), the base
 * .config, the fragments merged over it (kconfig__merge(), strict), and
 * the final .config checked against what the fragments asked for
 * (kconfig__verify(), with the reasons from "depends on"), as
 * bench/kbuild/kbuild-config.c does in a build. The input is those
 * texts in that order, each part ending at a line "=====":
 *
 *   KCONFIG ===== BASE ===== FRAGMENT ===== FRAGMENT ===== FINAL
 *
 * Missing parts are empty. The merged .config must read back as the
 * fragments set it.
 */
#include <errno.h>

#include "bench/kbuild/kbuild.h"
#include "fuzz/fuzz-util.h"

#define SEP "\n=====\n"
#define NR_PARTS 5

FUZZ_INITIALIZE()

/* Every option the fragments set reads back from the merged text. */
static void check_merged(const char *merged, const struct kconfig *wanted)
{
	struct kconfig back = { 0 };
	char *err = NULL;
	size_t i;

	CHECK(!kconfig__parse(&back, merged, "merged", true, &err));
	for (i = 0; i < wanted->nr; i++) {
		const struct kconfig_opt *w = &wanted->opts[i];
		const struct kconfig_opt *b = kconfig__get(&back, w->name);

		CHECK(b);
		CHECK(w->value ? b->value && !strcmp(w->value, b->value) :
				 !b->value);
	}
	kconfig__release(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "a.config", "b.config" };
	struct kconfig wanted = { 0 }, final = { 0 };
	struct kconfig_tree tree = { 0 };
	struct kbuild_missing *missing;
	char *parts[NR_PARTS] = { 0 }, *merged = NULL, *err = NULL, *text;
	const char *frags[2];
	size_t n, nr, i;
	int ret;

	n = fuzz_split(data, size, SEP, parts, NR_PARTS);
	for (i = n; i < NR_PARTS; i++)
		parts[i] = xstrdup("");
	kconfig_tree__parse(&tree, parts[0]);
	frags[0] = parts[2];
	frags[1] = parts[3];
	ret = kconfig__merge(parts[1], frags, names, 2, &tree, &merged, &wanted,
			     &err);
	if (ret) {
		/* A fragment line that is not a config line, named. */
		CHECK(ret == -EINVAL && err && strstr(err, ".config:"));
		goto out;
	}
	check_merged(merged, &wanted);
	kconfig__parse(&final, parts[4], "final", false, &err);
	kconfig__verify(&wanted, &final, &tree, &missing, &nr);
	text = kbuild_missing__describe(missing, nr);
	CHECK(text);
	free(text);
	kbuild_missing__free(missing, nr);
out:
	free(err);
	free(merged);
	kconfig__release(&wanted);
	kconfig__release(&final);
	kconfig_tree__release(&tree);
	fuzz_free_parts(parts, NR_PARTS);
	return 0;
}
