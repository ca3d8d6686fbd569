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

#include "bench/matrix/matrix.h"

/* ---- the API ---- */

struct lava_api {
	char *server; /* no trailing '/' */
	char *token;  /* never printed */
	void *curl;
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
/* The names in a list answer (devicetypes/, tags/), NULL-terminated. */
char **lava__names(const json_t *j, size_t *nr);

/* ---- the job a boot is ---- */

struct lava_boot {
	const char *job_name;
	const char *image, *initrd; /* files on the worker */
	const char *cmdline;	    /* the guest's, whole */
	const char *agent_sock;	    /* the virtio-serial port's socket */
	uint64_t timeout_ms;	    /* the whole job */
};

/*
 * The YAML job definition booting @b on @m's device type: LAVA's qemu
 * device with the testbed's machine (q35, the vIOMMU, the controller's
 * root over 9p, the agent's port), the kernel and initramfs deployed
 * from the worker's files, and a monitor that keeps the job up from
 * the guest's "ready" line until it powers off. A new string.
 */
char *lava__definition(const struct matrix_host *m, const struct lava_boot *b);

/* The job's name: host, kernel, the boot's arguments; <= 200 chars. */
char *lava__job_name(const struct matrix_host *m, const char *kernel,
		     const char *const *args, size_t nr_args);

struct qemu_kernel;
/*
 * The whole job of one boot of @m: kernel @kernel's files @qk, the
 * guest's command line (new, in *@cmdline) for agent @exe and boot
 * arguments @args, the agent's socket @sock. A new string, or NULL
 * when a path or the command line cannot be quoted (*@cmdline NULL).
 */
char *lava__boot_definition(const struct matrix_host *m, const char *kernel,
			    const struct qemu_kernel *qk, const char *exe,
			    const char *sock, const char *const *args,
			    size_t nr_args, char **cmdline);
/* Where the agent's socket of @m's jobs is: its state folder's. */
char *lava__sock_path(const struct matrix_host *m, const char *state_dir);

#endif /* IOMMU_BENCH_LAVA_H */
