// SPDX-License-Identifier: GPL-2.0-only
/*
 * A workload between a LAVA SUT and a LAVA device with role = "peer" is
 * one LAVA multinode job per boot of the SUT: the two devices are booted
 * together, as the job's roles sut and peer, and reach each other on the
 * lab's network at their `address`es. Here the two hosts are paired
 * (matrix_host.mate) and what such a job needs is checked: one lab, one
 * peer device per SUT, our device type (it wires the lab's network),
 * addresses on that network, and ports of their own.
 */
#include <string.h>

#include "bench/matrix/matrix-priv.h"
#include "toml.h"
#include "util.h"

static const struct toml_value *lava_tab(const struct matrix_host *h)
{
	return h->src ? toml_table__get(h->src, "lava") : NULL;
}

static void pair(struct mx *mx, const struct matrix_workload *w, size_t sut,
		 size_t peer)
{
	struct matrix_host *s = &mx->m->hosts[sut], *p = &mx->m->hosts[peer];

	if (s->has_mate && s->mate != peer) {
		mx_err(mx, w->pos,
		       "workload '%s' pairs LAVA host '%s' with peer device "
		       "'%s', but its multinode jobs already have '%s' as "
		       "their peer: a SUT's jobs have one peer device",
		       w->name, s->name, p->name, mx->m->hosts[s->mate].name);
		return;
	}
	if (p->has_mate && p->mate != sut) {
		mx_err(mx, w->pos,
		       "workload '%s' pairs peer device '%s' with LAVA host "
		       "'%s', but it is already the peer of '%s': a peer "
		       "device is booted with one SUT",
		       w->name, p->name, s->name, mx->m->hosts[p->mate].name);
		return;
	}
	s->mate = peer;
	p->mate = sut;
	s->has_mate = p->has_mate = true;
}

/* What one multinode job of @s and its peer @p needs. */
static void check_pair(struct mx *mx, const struct matrix_host *s,
		       const struct matrix_host *p)
{
	const struct matrix_host *both[] = { s, p };
	size_t i;

	if (strcmp(s->lava.server, p->lava.server))
		mx_err(mx, p->pos,
		       "host '%s': server: a multinode job runs on one lab, "
		       "and its SUT '%s' is at %s",
		       p->name, s->name, s->lava.server);
	if (s->qemu.arch != p->qemu.arch)
		mx_err(mx, p->pos,
		       "host '%s': qemu.arch: a peer device boots its SUT's "
		       "kernel, so it has the SUT's arch (%s)",
		       p->name, s->qemu.arch ? s->qemu.arch->name : "x86_64");
	for (i = 0; i < ARRAY_SIZE(both); i++) {
		const struct matrix_host *h = both[i];

		if (h->lava.template != LAVA_TEMPLATE_IOMMU_BENCH)
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
	if (!strcmp(s->lava.controller, p->lava.controller) &&
	    (s->lava.http_port == p->lava.http_port ||
	     s->lava.http_port == p->lava.agent_port ||
	     s->lava.agent_port == p->lava.http_port ||
	     s->lava.agent_port == p->lava.agent_port))
		mx_err(mx, mx_val_pos(lava_tab(p), "agent_port", p->pos),
		       "host '%s': http_port %u and agent_port %u: its SUT "
		       "'%s' listens on %u and %u of the same controller; "
		       "give the peer device ports of its own",
		       p->name, p->lava.http_port, p->lava.agent_port, s->name,
		       s->lava.http_port, s->lava.agent_port);
}

void matrix__check_mates(struct mx *mx)
{
	struct matrix *m = mx->m;
	size_t i;

	for (i = 0; i < m->nr_workloads; i++) {
		const struct matrix_workload *w = &m->workloads[i];
		const struct matrix_host *s, *c;

		if (w->type != WORKLOAD_IPERF3)
			continue;
		s = &m->hosts[w->server];
		c = &m->hosts[w->client];
		if (s->transport != HOST_LAVA || c->transport != HOST_LAVA)
			continue;
		pair(mx, w, w->sut,
		     w->sut == w->server ? w->client : w->server);
	}
	for (i = 0; i < m->nr_hosts; i++) {
		const struct matrix_host *h = &m->hosts[i];

		if (h->transport != HOST_LAVA || h->role != ROLE_PEER)
			continue;
		if (!h->has_mate)
			mx_err(mx, h->pos,
			       "host '%s': a LAVA device with role = \"peer\" "
			       "is booted as the peer of a LAVA SUT's "
			       "multinode job, and no workload pairs it with "
			       "one",
			       h->name);
		else
			check_pair(mx, &m->hosts[h->mate], h);
	}
}
