/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A LAVA lab as the lava transport sees it: its REST API (v0.2, the one
 * LAVA 2023.01 serves: lavacli's XML-RPC would need the token in a
 * config file or on a command line, and gives nothing REST does not),
 * the job that boots one of its devices for one boot of a cell, and
 * LAVA's answers read into plain structs (pure, for the unit tests and
 * the fuzzer).
 */
#ifndef IOMMU_BENCH_LAVA_H
#define IOMMU_BENCH_LAVA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/host/lava/lava-conf.h"
#include "bench/matrix/matrix.h"
#include "sha256.h"

/* ---- the API ---- */

struct lava_api {
	char *server; /* no trailing '/' */
	char *token;  /* never printed */
	struct http *http;
};

/* 0, or -ENOMEM. @token is copied and wiped at release. */
int lava_api__init(struct lava_api *a, const char *server, const char *token);
void lava_api__release(struct lava_api *a);

/*
 * @method ("GET", "POST") @path ("/api/v0.2/jobs/") with @body (JSON
 * text or NULL), within @timeout_ms. 0 with *@out the parsed answer
 * (may be NULL for an empty one) when LAVA said 2xx; otherwise a
 * negative errno and *@err: the server unreachable (-EHOSTUNREACH),
 * the token refused (-EACCES: LAVA's status and words, not the token),
 * not found (-ENOENT), a request LAVA refused (-EINVAL, its message).
 */
int lava_api__call(struct lava_api *a, const char *method, const char *path,
		   const char *body, int timeout_ms, json_t **out, char **err);

/* GET @path's answer as text (a device type's template): as above. */
int lava_api__text(struct lava_api *a, const char *path, int timeout_ms,
		   char **text, char **err);

/* What names our device type's template, in it or in one extending it. */
#define LAVA_TEMPLATE_NAME "iommu-bench-qemu"

/* ---- LAVA's answers ---- */

enum lava_state {
	LAVA_SUBMITTED, /* queued: "Submitted", "Scheduling", "Scheduled" */
	LAVA_RUNNING,	/* "Running" */
	LAVA_ENDING,	/* "Canceling" */
	LAVA_FINISHED,	/* "Finished": health says how */
};

struct lava_job {
	int64_t id;
	enum lava_state state;
	char *health; /* "Unknown", "Complete", "Incomplete", "Canceled" */
	char *device; /* the actual device; NULL until scheduled */
	char *submit_time, *start_time, *end_time; /* LAVA's, or NULL */
	/* A multinode job's: its role and group, from its definition. */
	char *role, *group;
};

/* GET /api/v0.2/jobs/ID/'s answer. 0, or -EPROTO and *@err. */
int lava_job__parse(const json_t *j, struct lava_job *out, char **err);
void lava_job__release(struct lava_job *j);
/*
 * Why a job ended badly, from its results (/api/v0.2/jobs/ID/tests/):
 * the "job" case's error_type and error_msg, else the failed cases'
 * names. A new string, or NULL when nothing failed.
 */
char *lava_job__error(const json_t *tests);
/* POST /api/v0.2/jobs/'s answer: the job's id, or -EPROTO. */
int lava_job__submitted(const json_t *j, int64_t *id);
/*
 * A multinode submission's answer: its sub-jobs "N.0", "N.1", ... (LAVA
 * names them by the group's first job N, which is the first role's).
 * 0 with *@first = N and *@nr sub-jobs, or -EPROTO.
 */
int lava_job__submitted_group(const json_t *j, int64_t *first, size_t *nr);
/* The names in a list answer (devicetypes/, tags/), NULL-terminated. */
char **lava__names(const json_t *j, size_t *nr);

/* ---- the job a boot is ---- */

/* A boot's files as the lab's workers fetch them from us. */
struct lava_files {
	char *kernel_url, *initrd_url;
	char kernel_sha[SHA256_HEX_SIZE], initrd_sha[SHA256_HEX_SIZE];
};

struct lava_boot {
	const char *job_name;
	const struct lava_files *files;
	const char *cmdline; /* the guest's, whole */
	uint64_t timeout_ms; /* the whole job */
};

/*
 * The YAML job definition booting @b on @m's device type: LAVA's qemu
 * device with the testbed's machine (q35, the vIOMMU), the kernel and
 * initramfs fetched over HTTP from the controller's artifact server and
 * checked by sha256, and a monitor that keeps the job up from the
 * guest's "ready" line until it powers off. A new string, or NULL when
 * the command line holds a quote.
 */
char *lava__definition(const struct matrix_host *m, const struct lava_boot *b);

/* A multinode job's roles, as its definition and LAVA's jobs name them. */
#define LAVA_ROLE_SUT "sut"
#define LAVA_ROLE_PEER "peer"
/*
 * A multinode job's device has two NICs: the first (eth0) on the lab's
 * network, under test, at the host's address; this one, on user-mode
 * networking, is the agent's way to the controller.
 */
#define LAVA_CTL_NIC "eth1"
#define LAVA_CTL_IP "10.0.2.15/24"

/*
 * The multinode job booting @b on @m's device (role sut) and @pb on its
 * peer device @pm's (role peer) at once, both essential (one's job
 * ending early cancels the other's), each with its own VM and files; the
 * devices reach each other on the lab's network (the device type's
 * lab_network). A new string, or NULL when a command line holds a quote.
 */
char *lava__multinode_definition(const struct matrix_host *m,
				 const struct lava_boot *b,
				 const struct matrix_host *pm,
				 const struct lava_boot *pb);

/* The job's name: host, kernel, the boot's arguments; <= 200 chars. */
char *lava__job_name(const struct matrix_host *m, const char *kernel,
		     const char *const *args, size_t nr_args);

/* "ADDRESS:PORT", an IPv6 address in brackets; a new string. */
char *lava__hostport(const char *addr, unsigned int port);
/*
 * The guest's command line for boot arguments @args: the testbed's,
 * with the agent at LAVA_ROOT_AGENT dialing the controller's agent port
 * (iommu_bench.ctl=). A new string.
 */
char *lava__boot_cmdline(const struct matrix_host *m, const char *const *args,
			 size_t nr_args);
/*
 * One boot of @m, kernel @kernel's @files with boot arguments @args: its
 * job's name, its guest's command line (both new strings, freed by
 * lava_boot__release()) and its job's timeout.
 */
void lava_boot__init(struct lava_boot *b, const struct matrix_host *m,
		     const char *kernel, const struct lava_files *files,
		     const char *const *args, size_t nr_args);
void lava_boot__release(struct lava_boot *b);

struct artifact_server;
struct cpio;
struct qemu_kernel;

/* Where the lab fetches the artifact @sha from us; a new string. */
char *lava__artifact_url(const struct matrix_host *m, const char *sha);
/* The initramfs part holding the job's @secret (for /init), in @c. */
int lava__secret_part(const uint8_t *secret, size_t len, struct cpio *c);
/*
 * The files of one boot of kernel @qk with the agent's @root and the
 * job's @secret: served by @server (NULL: only named, for a plan's
 * review). 0 and *@out, or a negative errno and *@err.
 */
int lava_files__make(const struct matrix_host *m, const struct qemu_kernel *qk,
		     const char *root, const uint8_t *secret, size_t len,
		     struct artifact_server *server, struct lava_files *out,
		     char **err);
void lava_files__release(struct lava_files *f);

/* ---- what the device runs on ---- */

/* The agent's path in the device: what iommu_bench.exe= says. */
#define LAVA_ROOT_AGENT "/usr/bin/iommu-bench"

struct arch;
/*
 * The initramfs part that is the agent's whole root in a device of
 * @arch that shares nothing with us (bench/host/lava/lava-root.c),
 * cached: 0 and its path here in *@path (new), or a negative errno.
 */
int lava_root__make(const struct arch *arch, char **path, char **err);

#endif /* IOMMU_BENCH_LAVA_H */
