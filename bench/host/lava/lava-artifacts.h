/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The artifact server: the files a LAVA job deploys (kernel, initramfs),
 * served over HTTP from the controller to the lab's workers, which need
 * not share its filesystem. A file is named by the sha256 of its bytes
 * and by nothing else, so a URL says nothing of the controller's paths,
 * cannot be walked to a file that was not registered, and LAVA checks
 * what it fetched against the same name (its sha256sum).
 */
#ifndef IOMMU_BENCH_LAVA_ARTIFACTS_H
#define IOMMU_BENCH_LAVA_ARTIFACTS_H

#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

struct artifact_server;

/* A piece of an artifact: a file here (@path) or bytes (@buf, @len, copied). */
struct artifact_part {
	const char *path;
	const void *buf;
	size_t len;
};

/*
 * Listen on @addr (an IPv4 or IPv6 literal; "0.0.0.0" allowed) port
 * @port (0: the kernel picks; artifact_server__port() says which) and
 * serve from a thread of its own. @label names it in messages ("host
 * lab"). 0 and *@out, or a negative errno and *@err ("host lab: the
 * artifact server cannot listen on 10.1.2.3:7780: Cannot assign
 * requested address").
 */
int artifact_server__start(const char *addr, uint16_t port, const char *label,
			   struct artifact_server **out, char **err);
uint16_t artifact_server__port(const struct artifact_server *s);

/*
 * Serve the concatenation of @parts as one file, named by the sha256 of
 * its bytes (computed here, streaming, into @sha), @size bytes long.
 * Adding the same content twice is one entry. A file part is served
 * only while its size and mtime are those it had here. 0, or a negative
 * errno and *@err (a part unreadable, or not a regular file).
 */
int artifact_server__add(struct artifact_server *s,
			 const struct artifact_part *parts, size_t nr,
			 char sha[SHA256_HEX_SIZE], uint64_t *size, char **err);
/* How many artifacts @s serves. */
size_t artifact_server__nr(struct artifact_server *s);

/* "http://ADDR:PORT/sha256/HEX" (IPv6 in brackets); a new string. */
char *artifact_server__url(const struct artifact_server *s, const char *sha);

/*
 * How many times the artifact @sha was served whole (GET completed),
 * and to whom last (*@last_peer: the address, a new string, or NULL
 * when never; @last_peer may be NULL).
 */
unsigned artifact_server__fetched(struct artifact_server *s, const char *sha,
				  char **last_peer);
/*
 * How many requests (GET or HEAD, served whole or not) named @sha: the
 * lab reached us for it (LAVA checks a job's URLs with HEAD first).
 */
unsigned artifact_server__asked(struct artifact_server *s, const char *sha);
/*
 * The connections holding a slot now (at most 16; one more is answered
 * 503): a served one holds it until its client closes or a second
 * passes.
 */
unsigned artifact_server__conns(struct artifact_server *s);

/*
 * Stop the thread and the connections, close everything, free; the
 * bytes parts are wiped first (they may carry a secret). NULL is fine.
 */
void artifact_server__stop(struct artifact_server *s);

#endif /* IOMMU_BENCH_LAVA_ARTIFACTS_H */
