/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers every file wants. Allocation failure is fatal, as in git:
 * a benchmark controller that cannot allocate a few bytes has no useful
 * way to carry on, and checking every strdup() would bury the real logic.
 */
#ifndef IOMMU_BENCH_UTIL_H
#define IOMMU_BENCH_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The entry of a table of structs named @name: the const char * at @off
 * in each of its @nr entries of @stride bytes, up to the first NULL.
 * NULL if none. Through TABLE_FIND(table, nr, field, name), which finds
 * the stride and the offset and gives back the entry's own type.
 */
const void *table__find(const void *table, size_t nr, size_t stride, size_t off,
			const char *name);
#define TABLE_FIND(table, nr, field, name)         \
	((__typeof__(&(table)[0]))table__find(     \
		(table), (nr), sizeof((table)[0]), \
		offsetof(__typeof__((table)[0]), field), (name)))

/*
 * free() each pointer given: a release function reads as one list of
 * what its struct owns rather than a column of free() calls.
 */
#define free_all(...)                                                          \
	do {                                                                   \
		void *__fa_v[] = { __VA_ARGS__ };                              \
		for (size_t __fa_i = 0; __fa_i < ARRAY_SIZE(__fa_v); __fa_i++) \
			free(__fa_v[__fa_i]);                                  \
	} while (0)

/* Exit status of the tool, documented in the man page and kept. */
enum {
	EXIT_OK = 0,
	EXIT_WORK_FAILED = 1, /* the work failed, or a regression was found */
	EXIT_USAGE = 2,	      /* bad usage or bad config */
	/* agent connect: this agent and the controller hold other secrets */
	EXIT_REFUSED = 3,
	/* 128 + SIGINT, as a shell reports a command stopped by Ctrl-C */
	EXIT_INTERRUPTED = 130,
};

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* @path's last component without @suffix: ("a/demo.toml", ".toml") -> "demo". */
char *path_stem(const char *path, const char *suffix);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* Grow @ptr (of @alloc elements) so that it holds at least @nr. */
#define ALLOC_GROW(ptr, nr, alloc)                                         \
	do {                                                               \
		if ((nr) > (alloc)) {                                      \
			(alloc) = (alloc) ? (alloc)*2 : 8;                 \
			if ((alloc) < (nr))                                \
				(alloc) = (nr);                            \
			(ptr) = xrealloc((ptr), (alloc) * sizeof(*(ptr))); \
		}                                                          \
	} while (0)

/*
 * Read a whole file into a NUL-terminated buffer.
 * Returns 0 or a negative errno.
 */
int read_file(const char *path, char **buf, size_t *len);
/* read(), again after EINTR: the bytes read, 0 at the end, or -errno. */
ssize_t read_retry(int fd, void *buf, size_t len);
/* All of @buf to @fd, through short writes and EINTR: 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);
/*
 * The same to a non-blocking @fd: @wait(@arg) before each write (0, or
 * an error that ends it), and EAGAIN is one more wait.
 */
int write_all_wait(int fd, const void *buf, size_t len, int (*wait)(void *arg),
		   void *arg);

/* @len bytes of @data as lower-case hex, NUL-terminated: 2 * @len + 1. */
void hex_encode(const void *data, size_t len, char *out);
/* Exactly 2 * @len hex digits of @s (either case) into @out: 0 or -EINVAL. */
int hex_decode(const char *s, size_t len, void *out);
/*
 * Whether @a and @b hold the same @len bytes, in a time that does not
 * depend on where they differ: for MACs, where an early exit would tell
 * a forger how much of a guess was right.
 */
bool memeq_ct(const void *a, const void *b, size_t len);

/*
 * A name that may reach a path, a command line or a unit of the store:
 * non-empty, at most 64 bytes, only [A-Za-z0-9._-], not "." or "..",
 * and not starting with '-'.
 */
bool name_is_safe(const char *name);

/*
 * This tool's binary: $IOMMU_BENCH when set (the binary under test; a
 * unit test's own /proc/self/exe is the test), else the executable of
 * this process, the path it was started from.
 */
const char *self_exe(void);
/*
 * @prog's path in $PATH (Debian's root PATH when unset), a regular
 * executable file, absolute entries only; NULL if none. free() it.
 */
char *path__which(const char *prog);

#endif /* IOMMU_BENCH_UTIL_H */
