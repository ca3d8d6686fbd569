/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the libFuzzer targets (tests/fuzz/fuzz-*.c) share: the entry
 * points' prototypes, invariant checks that abort (a broken invariant is
 * a bug even when no sanitizer notices it), the input as a C string or
 * cut into parts, scratch directories that a fuzzing process removes
 * at exit, and a scratch store with one trial for the targets that
 * store. Each target includes this once; everything here is static.
 */
#ifndef IOMMU_BENCH_FUZZ_UTIL_H
#define IOMMU_BENCH_FUZZ_UTIL_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "scratch-store.h"
#include "store/store.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

/*
 * The input as the C string a parser is handed: what follows a NUL
 * byte is what the caller's read would have cut off too.
 */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	return xstrndup((const char *)data, size);
}

/*
 * Cut @data at every @sep (not included) into at most @max parts, each
 * a new C string; the last part takes the rest. The number of parts.
 */
static inline size_t fuzz_split(const uint8_t *data, size_t size,
				const char *sep, char **parts, size_t max)
{
	const char *p = (const char *)data, *end = p + size, *s;
	size_t n = 0, seplen = strlen(sep);

	while (n + 1 < max && (s = memmem(p, (size_t)(end - p), sep, seplen))) {
		parts[n++] = xstrndup(p, (size_t)(s - p));
		p = s + seplen;
	}
	parts[n++] = xstrndup(p, (size_t)(end - p));
	return n;
}

static inline void fuzz_free_parts(char **parts, size_t n)
{
	while (n)
		free(parts[--n]);
}

/* The parsers' diagnostics are expected on bad input: not the fuzzer's. */
static inline void fuzz_quiet(void)
{
	log_verbosity = -1;
}

/*
 * The targets' LLVMFuzzerInitialize(): the parsers quiet, then what a
 * target makes once before the first input (statements: a store, a
 * folder, a file to write to), none for most.
 */
#define FUZZ_INITIALIZE(...)                              \
	int LLVMFuzzerInitialize(int *argc, char ***argv) \
	{                                                 \
		(void)argc;                               \
		(void)argv;                               \
		fuzz_quiet();                             \
		__VA_ARGS__;                              \
		return 0;                                 \
	}

static int fuzz__rm_one(const char *path, const struct stat *sb, int flag,
			struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Remove @dir and everything below it, links not followed. */
static inline void fuzz_rm_rf(const char *dir)
{
	nftw(dir, fuzz__rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char fuzz__tmpdir[256];

static void fuzz__tmpdir_remove(void)
{
	if (fuzz__tmpdir[0])
		fuzz_rm_rf(fuzz__tmpdir);
}

/*
 * This process's scratch directory, made on first use and removed at
 * its exit; NULL when none can be made. Under $FUZZ_SCRATCH when set
 * (a crash exits without atexit(): tests/fuzz/fuzz-run.sh removes that
 * folder itself), else in memory where /dev/shm is: the targets that
 * write files do so for every input.
 */
static inline const char *fuzz_tmpdir(void)
{
	const char *base = getenv("FUZZ_SCRATCH");
	struct stat sb;

	if (fuzz__tmpdir[0])
		return fuzz__tmpdir;
	if (!base || base[0] != '/' || strlen(base) > 200)
		base = !stat("/dev/shm", &sb) && S_ISDIR(sb.st_mode) &&
				       !access("/dev/shm", W_OK) ?
			       "/dev/shm" :
			       "/tmp";
	snprintf(fuzz__tmpdir, sizeof(fuzz__tmpdir),
		 "%s/iommu-bench-fuzz.XXXXXX", base);
	if (!mkdtemp(fuzz__tmpdir)) {
		fuzz__tmpdir[0] = '\0';
		return NULL;
	}
	atexit(fuzz__tmpdir_remove);
	return fuzz__tmpdir;
}

/* fuzz_tmpdir(), for a target that cannot run without it: aborts. */
static inline const char *fuzz_need_tmpdir(void)
{
	const char *tmp = fuzz_tmpdir();

	if (!tmp)
		abort();
	return tmp;
}

/*
 * A real store in the scratch folder with one running trial, for the
 * targets that store what they parsed; each input's rows are rolled
 * back by the target. Aborts when it cannot be made.
 */
static inline struct store *fuzz_store(int64_t *trial_id)
{
	static const struct scratch_trial t = { "fuzz", "machine-1", "boot-1",
						"6.1",	"running",   "lazy",
						"key-1" };
	char *path = xasprintf("%s/results.db", fuzz_need_tmpdir());
	struct store *st;
	int64_t run;

	if (scratch_store__open(path, &t, &st, &run, trial_id) ||
	    store__commit(st))
		abort();
	free(path);
	return st;
}

#endif /* IOMMU_BENCH_FUZZ_UTIL_H */
