// SPDX-License-Identifier: GPL-2.0-only
/*
 * A workload between a LAVA SUT and a LAVA device with role = "peer" is
 * one LAVA multinode job per boot of the SUT: the two devices are booted
 * together, as the job's roles sut and peer, and reach each other on the
 * lab's network at their `address`es. Here the two hosts are paired
 * (matrix_host.mate), one peer device per SUT, for any transport whose
 * hosts boot in pairs (its check_mate hook, which checks what such a
 * job needs: bench/host/lava/lava-keys.c).
 */
#include <string.h>

#include "bench/matrix/matrix-priv.h"
#include "toml.h"
#include "util.h"

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
		if (!s->ops || !s->ops->check_mate || s->ops != c->ops)
			continue;
		pair(mx, w, w->sut,
		     w->sut == w->server ? w->client : w->server);
	}
	for (i = 0; i < m->nr_hosts; i++) {
		const struct matrix_host *h = &m->hosts[i];

		if (!h->ops || !h->ops->check_mate || h->role != ROLE_PEER)
			continue;
		if (!h->has_mate)
			mx_err(mx, h->pos,
			       "host '%s': a LAVA device with role = \"peer\" "
			       "is booted as the peer of a LAVA SUT's "
			       "multinode job, and no workload pairs it with "
			       "one",
			       h->name);
		else
			h->ops->check_mate(mx, &m->hosts[h->mate], h);
	}
}
