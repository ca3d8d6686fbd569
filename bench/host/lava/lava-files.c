// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one boot of a lab's device fetches from us: the kernel, and an
 * initramfs that is the testbed's (busybox, /init, the kernel's
 * modules), then the agent's whole root (lava-root.c), then the job's
 * secret, three cpio archives end to end as the kernel unpacks them.
 * The secret's part is a few hundred bytes made per job and never
 * written to disk here; the others are files of the caches.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/host/lava/lava-artifacts.h"
#include "bench/host/lava/lava.h"
#include "bench/host/qemu/qemu.h"
#include "cpio.h"
#include "bench/testbed/testbed.h"
#include "chan-auth.h"
#include "errmsg.h"
#include "util.h"

char *lava__artifact_url(const struct matrix_host *m, const char *sha)
{
	char *hp = lava__hostport(lava_conf(m)->controller,
				  lava_conf(m)->http_port);
	char *url = xasprintf("http://%s/sha256/%s", hp, sha);

	free(hp);
	return url;
}

int lava__secret_part(const uint8_t *secret, size_t len, struct cpio *c)
{
	char hex[2 * CHAN_SECRET_SIZE + 2];
	int ret;

	if (len != CHAN_SECRET_SIZE)
		return -EINVAL;
	hex_encode(secret, len, hex);
	hex[2 * len] = '\n';
	cpio__init(c);
	ret = cpio__add_file(c, TESTBED_SECRET_FILE, 0600, hex, 2 * len + 1);
	if (!ret)
		ret = cpio__finish(c);
	explicit_bzero(hex, sizeof(hex));
	return ret;
}

/* The digest of @parts end to end, as the artifact server names them. */
static int parts_sha(const struct artifact_part *parts, size_t nr,
		     char sha[SHA256_HEX_SIZE], char **err)
{
	uint8_t buf[64 * 1024];
	struct sha256 s;
	size_t i;
	ssize_t n;
	int fd;

	sha256__init(&s);
	for (i = 0; i < nr; i++) {
		if (!parts[i].path) {
			sha256__update(&s, parts[i].buf, parts[i].len);
			continue;
		}
		fd = open(parts[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errmsg__set(err, -errno, "cannot read %s: %s",
					   parts[i].path, strerror(errno));
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			sha256__update(&s, buf, (size_t)n);
		close(fd);
		if (n < 0)
			return errmsg__set(err, -EIO, "cannot read %s",
					   parts[i].path);
	}
	sha256__final_hex(&s, sha);
	return 0;
}

int lava_files__make(const struct matrix_host *m, const struct qemu_kernel *qk,
		     const char *root, const uint8_t *secret, size_t len,
		     struct artifact_server *server, struct lava_files *out,
		     char **err)
{
	struct artifact_part kernel = { .path = qk->image };
	struct artifact_part initrd[3] = {
		{ .path = qk->initrd },
		{ .path = root },
	};
	struct cpio c;
	uint64_t size;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = lava__secret_part(secret, len, &c);
	if (ret) {
		cpio__release(&c);
		return errmsg__set(err, ret,
				   "cannot make the job's secret "
				   "part");
	}
	initrd[2].buf = c.buf;
	initrd[2].len = c.len;
	if (server) {
		ret = artifact_server__add(server, &kernel, 1, out->kernel_sha,
					   &size, err);
		if (!ret)
			ret = artifact_server__add(server, initrd, 3,
						   out->initrd_sha, &size, err);
	} else {
		ret = parts_sha(&kernel, 1, out->kernel_sha, err);
		if (!ret)
			ret = parts_sha(initrd, 3, out->initrd_sha, err);
	}
	explicit_bzero(c.buf, c.len);
	cpio__release(&c);
	if (ret)
		return ret;
	out->kernel_url = lava__artifact_url(m, out->kernel_sha);
	out->initrd_url = lava__artifact_url(m, out->initrd_sha);
	return 0;
}

void lava_files__release(struct lava_files *f)
{
	free_all(f->kernel_url, f->initrd_url);
	memset(f, 0, sizeof(*f));
}
