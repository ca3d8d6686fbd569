// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the host-facts readers: what a host's /proc,
 * /sys, /dev/kmsg and /boot hold, read by hostfacts__gather_opts() as
 * `probe` and the agent's facts verb do, and by hostfacts__dma_policy()
 * as every mode switch is verified. The input is a scratch tree,
 * written under a directory of this process before each run:
 *
 *   anything before the first record (a comment)
 *   @@ /proc/cmdline
 *   console=ttyS0 iommu.strict=0
 *   @@ /sys/class/iommu/dmar0 -> /sys/devices/virtual/iommu/dmar0
 *   @@ /sys/kernel/iommu_groups/
 *
 * A record is a line "@@ PATH" and the bytes up to the newline before
 * the next record: a file; "@@ PATH -> TARGET", a symlink to TARGET
 * (absolute, inside the tree, as sysfs links are followed); "@@ PATH/",
 * a directory. Paths are absolute, without "..": the tree never reaches
 * out of its directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "collectors/hostfacts/hostfacts.h"
#include "fuzz/fuzz-util.h"

#define REC "@@ "
#define LINK " -> "
/* A tree of a few dozen entries is what a seed needs; bounded per run. */
#define MAX_RECORDS 128
#define MAX_PATH 512

static char *root;

FUZZ_INITIALIZE(root = xasprintf("%s/root", fuzz_need_tmpdir()))

/* Absolute, no "." or ".." component, not too long: a path of the tree. */
static bool path_ok(const char *p, size_t len)
{
	size_t i;

	if (!len || len >= MAX_PATH || p[0] != '/' || memchr(p, '\0', len))
		return false;
	for (i = 0; i < len; i++)
		if (p[i] == '/' && i + 1 < len && p[i + 1] == '.' &&
		    (i + 2 == len || p[i + 2] == '/' ||
		     (p[i + 2] == '.' && (i + 3 == len || p[i + 3] == '/'))))
			return false;
	return true;
}

/* The parents of @full (a path under root), made as needed. */
static void parents(char *full)
{
	char *s = strrchr(full, '/');
	int ret;

	/* Most records go where an earlier one made the folder. */
	*s = '\0';
	ret = access(full, F_OK);
	*s = '/';
	if (!ret)
		return;
	for (s = full + strlen(root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(full, 0755);
		*s = '/';
	}
}

static void record(const char *hdr, size_t hlen, const char *body, size_t blen)
{
	const char *arrow = memmem(hdr, hlen, LINK, strlen(LINK));
	size_t plen = arrow ? (size_t)(arrow - hdr) : hlen;
	char *full, *target;
	int fd;

	if (!path_ok(hdr, plen))
		return;
	full = xasprintf("%s%.*s", root, (int)plen, hdr);
	parents(full);
	if (arrow) {
		const char *t = arrow + strlen(LINK);
		size_t tlen = hlen - plen - strlen(LINK);

		if (path_ok(t, tlen)) {
			target = xasprintf("%s%.*s", root, (int)tlen, t);
			if (symlink(target, full)) {
				/* A link over what a seed made first. */
			}
			free(target);
		}
	} else if (hdr[plen - 1] == '/') {
		mkdir(full, 0755);
	} else {
		fd = open(full,
			  O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			  0644);
		if (fd >= 0) {
			CHECK(!blen || write(fd, body, blen) == (ssize_t)blen);
			close(fd);
		}
	}
	free(full);
}

static void tree_write(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nl, *next;
	int n = 0;

	fuzz_rm_rf(root);
	CHECK(!mkdir(root, 0755));
	/* The first record may open the input; the others follow a "\n". */
	if (size >= strlen(REC) && !memcmp(p, REC, strlen(REC)))
		next = p;
	else
		next = memmem(p, size, "\n" REC, strlen(REC) + 1);
	while (next && n++ < MAX_RECORDS) {
		const char *hdr = next + (*next == '\n') + strlen(REC);

		nl = memchr(hdr, '\n', (size_t)(end - hdr));
		if (!nl) {
			record(hdr, (size_t)(end - hdr), "", 0);
			return;
		}
		next = memmem(nl, (size_t)(end - nl), "\n" REC,
			      strlen(REC) + 1);
		record(hdr, (size_t)(nl - hdr), nl + 1,
		       (size_t)((next ? next : end) - (nl + 1)));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hostfacts_opts o = { .root = root };
	struct hostfacts_dma_policy p;
	json_t *j = NULL;
	char *s;
	size_t i;

	tree_write(data, size);
	if (!hostfacts__gather_opts(&o, &j)) {
		CHECK(json_is_object(j));
		CHECK(json_is_array(json_object_get(j, "warnings")));
		s = json_dumps(j, JSON_COMPACT);
		CHECK(s);
		free(s);
		json_decref(j);
	}
	/* What the agent checks after every switch, with its evidence. */
	if (!hostfacts__dma_policy(root, &p)) {
		CHECK(hostfacts__dma_mode_name(p.mode));
		CHECK(p.summary);
		for (i = 0; i < p.nr_evidence; i++)
			CHECK(p.evidence[i]);
		hostfacts__dma_policy_release(&p);
	}
	return 0;
}
