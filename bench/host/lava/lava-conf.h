/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A lava host's own part of the matrix (lava-keys.c): the lab, the
 * device and the job, and the VM its qemu device starts.
 */
#ifndef IOMMU_BENCH_LAVA_CONF_H
#define IOMMU_BENCH_LAVA_CONF_H

#include <stdint.h>

#include "bench/host/qemu/qemu-conf.h"
#include "bench/matrix/matrix.h"

/*
 * [hosts.NAME.lava]: a device of a LAVA lab, booted by a job per boot
 * (bench/host/lava/host-lava.c). Its VM's shape is the host's qemu table.
 */
/* The lab reaches the controller on these unless the matrix says. */
#define LAVA_HTTP_PORT 7780
#define LAVA_AGENT_PORT 7781

/*
 * What the lab's device type extends: LAVA's stock qemu.jinja2 (the NIC
 * a "-net nic,model=" without properties, x86_64), or ours
 * (bench/host/lava/device-type/), which leaves the machine and the NIC
 * to the job: virtio-net behind the vIOMMU, arm64 with SMMUv3.
 */
enum lava_template { LAVA_TEMPLATE_QEMU, LAVA_TEMPLATE_IOMMU_BENCH };

struct matrix_lava {
	char *server;	   /* "http://lava.example:8000", no path */
	char *token_file;  /* the API token's file, or */
	char *token_env;   /* the variable that holds it */
	char *device_type; /* "qemu" */
	enum lava_template template;
	char **tags; /* the job's device tags */
	size_t nr_tags;
	unsigned int priority; /* 0..100 */
	/*
	 * Where the device reaches the workload's other end; NULL: at
	 * @controller, where a peer on this machine listens.
	 */
	char *peer_address;
	/*
	 * This machine as the lab's workers and devices reach it: the
	 * artifact server (the job's files by sha256) on @http_port, the
	 * agents' channel on @agent_port. Fixed ports: a resumed run must
	 * be where the killed run's job looks.
	 */
	char *controller;
	uint32_t http_port, agent_port;
	/* The device's default route: user-mode networking's "10.0.2.2". */
	char *gateway;
	uint64_t queue_timeout_ms; /* submitted to running, at most */
	/*
	 * How long a job may hold the device once booted: every trial of
	 * one boot must fit, and a job a killed run leaves holds it that
	 * long unless a later run cancels it.
	 */
	uint64_t job_timeout_ms;
};

/* A lava host's conf: its VM first, which qemu_conf() reads. */
struct lava_host_conf {
	struct matrix_qemu qemu;
	struct matrix_lava lava;
};

static inline struct matrix_lava *lava_conf(const struct matrix_host *h)
{
	return &((struct lava_host_conf *)h->conf)->lava;
}

#endif /* IOMMU_BENCH_LAVA_CONF_H */
