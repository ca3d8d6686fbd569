// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lava transport's keys: [hosts.NAME.lava], the lab, the device
 * and the job that boots it; its [hosts.NAME.qemu], the VM the lab's
 * qemu device starts, of which a job sets less than the testbed does;
 * and what a multinode job of a SUT and its peer device needs.
 */
#include <stdlib.h>
#include <string.h>

#include "bench/host/host-transports.h"
#include "bench/host/lava/lava-conf.h"
#include "bench/host/qemu/qemu-conf.h"
#include "bench/matrix/matrix-priv.h"
#include "toml.h"
#include "util.h"

/* The lab boots it, once per job: no reboot of its own. */
static const char *const host_keys[] = {
	"address", "nic", "boot_timeout", "boot_estimate", "qemu", "lava", NULL,
};

static const struct toml_value *lava_tab(const struct matrix_host *h)
{
	return h->src ? toml_table__get(h->src, "lava") : NULL;
}

/* [hosts.NAME.lava]: the lab, the device, the token's whereabouts. */
static void parse_lava(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab)
{
	static const char *const keys[] = {
		"server",      "token_file", "token_env",    "device_type",
		"tags",	       "priority",   "peer_address", "queue_timeout",
		"job_timeout", "token",	     "controller",   "http_port",
		"agent_port",  "gateway",    "template",     NULL,
	};
	static const char *const lava_template_names[] = { "qemu",
							   "iommu-bench",
							   NULL };
	const struct toml_value *v;
	char where[96];
	int template;

	snprintf(where, sizeof(where), "[hosts.%s.lava]", h->name);
	if (!tab) {
		mx_err(mx, h->pos,
		       "host '%s' has transport \"lava\" but no %s table "
		       "(server, token_file or token_env, device_type)",
		       h->name, where);
		return;
	}
	if (!mx_is(mx, tab, TOML_TABLE, "lava"))
		return;
	mx_check_keys(mx, tab, keys, where);
	v = toml_table__get(tab, "token");
	if (v)
		/* Not even echoed: it would land in logs and the store. */
		mx_err(mx, v->pos,
		       "token: the API token never goes in the matrix (it "
		       "is stored with every run); name where it is with "
		       "token_file = \"/etc/iommu-bench/lava.token\" or "
		       "token_env = \"LAVA_TOKEN\"");
	if (!mx_string(mx, tab, "server", MX_URL, &lava_conf(h)->server))
		mx_err(mx, tab->pos,
		       "missing key 'server' in %s (the lab's URL, like "
		       "\"http://lava.example:8000\")",
		       where);
	mx_string(mx, tab, "token_file", MX_PATH, &lava_conf(h)->token_file);
	mx_string(mx, tab, "token_env", MX_ENVNAME, &lava_conf(h)->token_env);
	if (!!lava_conf(h)->token_file == !!lava_conf(h)->token_env && !v)
		mx_err(mx, tab->pos,
		       "%s needs one of token_file (a file holding the API "
		       "token) and token_env (a variable holding it)%s",
		       where, lava_conf(h)->token_file ? ", not both" : "");
	mx_string(mx, tab, "device_type", MX_NAME, &lava_conf(h)->device_type);
	if (mx_enum(mx, tab, "template", lava_template_names, &template) > 0)
		lava_conf(h)->template = template;
	mx_strings(mx, tab, "tags", MX_NAME, &lava_conf(h)->tags,
		   &lava_conf(h)->nr_tags);
	mx_uint32(mx, tab, "priority", 0, 100, &lava_conf(h)->priority);
	mx_string(mx, tab, "peer_address", MX_IP, &lava_conf(h)->peer_address);
	if (!mx_string(mx, tab, "controller", MX_IP, &lava_conf(h)->controller))
		mx_err(mx, tab->pos,
		       "missing key 'controller' in %s (this machine's "
		       "address as the lab's workers and devices reach it, "
		       "like \"192.0.2.10\": they fetch the job's files from "
		       "it and its agent connects to it)",
		       where);
	mx_string(mx, tab, "gateway", MX_IP, &lava_conf(h)->gateway);
	mx_uint32(mx, tab, "http_port", 1, 65535, &lava_conf(h)->http_port);
	mx_uint32(mx, tab, "agent_port", 1, 65535, &lava_conf(h)->agent_port);
	if (lava_conf(h)->http_port == lava_conf(h)->agent_port)
		mx_err(mx, mx_val_pos(tab, "agent_port", tab->pos),
		       "agent_port: %u is http_port's too; the two need "
		       "ports of their own",
		       lava_conf(h)->agent_port);
	mx_duration(mx, tab, "queue_timeout", &lava_conf(h)->queue_timeout_ms);
	if (mx_duration(mx, tab, "job_timeout", &lava_conf(h)->job_timeout_ms) >
		    0 &&
	    lava_conf(h)->job_timeout_ms < 60 * 1000)
		mx_err(mx, mx_val_pos(tab, "job_timeout", h->pos),
		       "job_timeout: at least 1m (every trial of a boot must "
		       "fit in it)");
}

static void lava_defaults(struct matrix_host *h)
{
	struct lava_host_conf *c = xcalloc(1, sizeof(*c));

	h->conf = c;
	h->allow_reboot = true;
	h->reboot = REBOOT_RESTART;
	/* The scheduler's and the worker's 20 s polls, then a TCG boot. */
	h->boot_estimate_ms = 60 * 1000;
	qemu_conf__defaults(&c->qemu, 1ULL << 30, arch__find("x86_64"));
	c->qemu.iommu = QEMU_IOMMU_INTEL;
	c->qemu.nic = QEMU_NIC_E1000E;
	c->lava.device_type = xstrdup("qemu");
	c->lava.priority = 50;
	/* QEMU's user-mode networking: the guest's gateway is the
	 * worker's loopback. */
	c->lava.gateway = xstrdup("10.0.2.2");
	c->lava.http_port = LAVA_HTTP_PORT;
	c->lava.agent_port = LAVA_AGENT_PORT;
	c->lava.queue_timeout_ms = 30 * 60 * 1000;
	c->lava.job_timeout_ms = 2 * 60 * 60 * 1000;
}

/* What LAVA's stock device type cannot give the VM. */
static void check_stock_vm(struct mx *mx, struct matrix_host *h,
			   const struct toml_value *tab)
{
	if (qemu_conf(h)->arch != arch__find("x86_64"))
		mx_err(mx, mx_val_pos(tab, "arch", h->pos),
		       "arch: LAVA's stock qemu device type runs the x86_64 "
		       "guest only; an arm64 guest (virt, SMMUv3) needs the "
		       "lab's device type to extend ours (template = "
		       "\"iommu-bench\", docs/lava.md)");
	/* LAVA's template adds the NIC as -net nic,model=...: no device
	 * properties, so no virtio-net behind the vIOMMU. */
	if (qemu_conf(h)->nic != QEMU_NIC_E1000E)
		mx_err(mx, mx_val_pos(tab, "nic", h->pos),
		       "nic: LAVA's stock qemu device type adds the NIC "
		       "without device properties, so a virtio NIC would not "
		       "go through the vIOMMU; use \"e1000e\", or a device "
		       "type that extends ours (template = \"iommu-bench\")");
}

static void lava_parse(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab)
{
	const struct toml_value *q = toml_table__get(tab, "qemu");

	/* user-mode networking's own guest address */
	if (!toml_table__get(tab, "address"))
		h->address = xstrdup("10.0.2.15/24");
	matrix_host__parse_address(mx, h, tab);
	parse_lava(mx, h, toml_table__get(tab, "lava"));
	if (!q)
		return;
	qemu_conf__parse(mx, h, q);
	if (q->type == TOML_TABLE &&
	    lava_conf(h)->template != LAVA_TEMPLATE_IOMMU_BENCH)
		check_stock_vm(mx, h, q);
}

static void lava_release(struct matrix_host *h)
{
	struct lava_host_conf *c = h->conf;

	if (!c)
		return;
	qemu_conf__release(&c->qemu);
	free_all(c->lava.server, c->lava.token_file, c->lava.token_env,
		 c->lava.device_type);
	strv_free(c->lava.tags, c->lava.nr_tags);
	free_all(c->lava.peer_address, c->lava.controller, c->lava.gateway);
	free(c);
	h->conf = NULL;
}

static const struct arch *lava_arch(const struct matrix_host *h)
{
	return qemu_conf(h)->arch;
}

/* What one multinode job of @s and its peer @p needs. */
static void lava_check_mate(struct mx *mx, const struct matrix_host *s,
			    const struct matrix_host *p)
{
	const struct matrix_host *both[] = { s, p };
	size_t i;

	if (strcmp(lava_conf(s)->server, lava_conf(p)->server))
		mx_err(mx, p->pos,
		       "host '%s': server: a multinode job runs on one lab, "
		       "and its SUT '%s' is at %s",
		       p->name, s->name, lava_conf(s)->server);
	if (qemu_conf(s)->arch != qemu_conf(p)->arch)
		mx_err(mx, p->pos,
		       "host '%s': qemu.arch: a peer device boots its SUT's "
		       "kernel, so it has the SUT's arch (%s)",
		       p->name,
		       qemu_conf(s)->arch ? qemu_conf(s)->arch->name :
					    "x86_64");
	for (i = 0; i < ARRAY_SIZE(both); i++) {
		const struct matrix_host *h = both[i];

		if (lava_conf(h)->template != LAVA_TEMPLATE_IOMMU_BENCH)
			mx_err(mx, mx_val_pos(lava_tab(h), "template", h->pos),
			       "host '%s': template: a multinode job's devices "
			       "reach each other on the lab's network, which "
			       "iommu-bench's device type wires "
			       "(lab_network); set template = \"iommu-bench\"",
			       h->name);
		if (!h->src || !toml_table__get(h->src, "address"))
			mx_err(mx, h->pos,
			       "host '%s': missing key 'address': in a "
			       "multinode job it is the device's address on "
			       "the lab's network, like '10.93.0.%zu/24'",
			       h->name, i + 1);
	}
	if (!strcmp(lava_conf(s)->controller, lava_conf(p)->controller) &&
	    (lava_conf(s)->http_port == lava_conf(p)->http_port ||
	     lava_conf(s)->http_port == lava_conf(p)->agent_port ||
	     lava_conf(s)->agent_port == lava_conf(p)->http_port ||
	     lava_conf(s)->agent_port == lava_conf(p)->agent_port))
		mx_err(mx, mx_val_pos(lava_tab(p), "agent_port", p->pos),
		       "host '%s': http_port %u and agent_port %u: its SUT "
		       "'%s' listens on %u and %u of the same controller; "
		       "give the peer device ports of its own",
		       p->name, lava_conf(p)->http_port,
		       lava_conf(p)->agent_port, s->name,
		       lava_conf(s)->http_port, lava_conf(s)->agent_port);
}

/*
 * A device behind user-mode networking has its own name for the
 * server's machine: peer_address, else the controller's, which it
 * reaches already (its agent dialed it); a multinode job's other
 * device is at its address on the lab's network.
 */
static const char *lava_server_ip(const struct matrix_host *h)
{
	const struct matrix_lava *l = lava_conf(h);

	if (h->has_mate)
		return NULL;
	return l->peer_address ? l->peer_address : l->controller;
}

const struct matrix_transport lava_transport = {
	.name = "lava",
	.id = HOST_LAVA,
	.keys = host_keys,
	/* The lab starts the VM, once per job: no reboot of its own. */
	.vm = true,
	.kernel_dir = "/run/iommu-bench/kernels",
	.defaults = lava_defaults,
	/* Its [hosts.NAME.lava] and the VM's [hosts.NAME.qemu]. */
	.parse = lava_parse,
	.release = lava_release,
	.arch = lava_arch,
	/* A SUT and its peer device boot in one multinode job. */
	.check_mate = lava_check_mate,
	.server_ip = lava_server_ip,
};
