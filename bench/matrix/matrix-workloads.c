// SPDX-License-Identifier: GPL-2.0-only
/*
 * [[workloads]]: what runs between two hosts. The keys every type shares
 * are read here; each type's own through its workload_type_ops.
 */
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "util.h"

static const struct workload_type_ops *const types[] = {
	[WORKLOAD_IPERF3] = &iperf3_workload_ops,
	[WORKLOAD_FIO] = &fio_workload_ops,
	[WORKLOAD_DMA_MAP] = &dma_map_workload_ops,
};

/* Every type's; server and client only where there are two ends. */
static const char *const common_keys[] = { "name", "type", "description",
					   "collect" };
static const char *const end_keys[] = { "server", "client" };

uint64_t matrix_workload__trial_ms(const struct matrix_workload *w)
{
	return w->ops->trial_ms(w);
}

void matrix_workload__release(struct matrix_workload *w)
{
	if (w->ops)
		w->ops->release(w);
	free(w->name);
	free(w->description);
}

/* The common keys and the type's own, NULL-terminated; free() it. */
static const char **keys_of(const struct workload_type_ops *ops)
{
	size_t n = 0, i, k = 0;
	const char **keys;

	while (ops->keys[n])
		n++;
	keys = xcalloc(ARRAY_SIZE(common_keys) + ARRAY_SIZE(end_keys) + n + 1,
		       sizeof(*keys));
	for (i = 0; i < ARRAY_SIZE(common_keys); i++)
		keys[k++] = common_keys[i];
	for (i = 0; ops->two_ends && i < ARRAY_SIZE(end_keys); i++)
		keys[k++] = end_keys[i];
	for (i = 0; i < n; i++)
		keys[k++] = ops->keys[i];
	return keys;
}

static long host_ref(struct mx *mx, const struct toml_value *tab,
		     const char *key, const struct matrix_workload *w)
{
	const struct matrix *m = mx->m;
	const struct toml_value *v = toml_table__get(tab, key);
	const char **names;
	char *name = NULL;
	long idx = -1;
	size_t i;

	if (!v) {
		mx_err(mx, w->pos,
		       "missing key '%s' in workload '%s' (a host "
		       "name)",
		       key, w->name);
		return -1;
	}
	if (mx_string(mx, tab, key, MX_NAME, &name) <= 0)
		return -1;
	names = xcalloc(m->nr_hosts + 1, sizeof(*names));
	for (i = 0; i < m->nr_hosts; i++)
		names[i] = m->hosts[i].name;
	idx = mx_ref(mx, v->pos, key, "host", name, names, m->nr_hosts);
	free(names);
	free(name);
	return idx;
}

/* Namespaces and VMs reach only the far end of their veth (or tap). */
static bool reachable(const struct matrix_host *a, size_t bi,
		      const struct matrix_host *b, size_t ai)
{
	if (a->transport == HOST_NETNS || a->transport == HOST_QEMU)
		return a->has_link && a->link == bi;
	if (b->transport == HOST_NETNS || b->transport == HOST_QEMU)
		return b->has_link && b->link == ai;
	return true;
}

static void check_ends(struct mx *mx, struct matrix_workload *w,
		       const struct toml_value *tab, long s, long c)
{
	struct matrix_host *hs = &mx->m->hosts[s], *hc = &mx->m->hosts[c];
	struct toml_pos cpos = mx_val_pos(tab, "client", w->pos);

	if (s == c) {
		mx_err(mx, cpos,
		       "client: workload '%s' has host '%s' as both "
		       "server and client; the load must cross a link",
		       w->name, hs->name);
		return;
	}
	if (hs->role == ROLE_SUT && hc->role == ROLE_SUT) {
		mx_err(mx, cpos,
		       "client: hosts '%s' and '%s' are both SUTs; a "
		       "workload measures one SUT against a peer",
		       hs->name, hc->name);
		return;
	}
	if (hs->role != ROLE_SUT && hc->role != ROLE_SUT) {
		mx_err(mx, w->pos,
		       "workload '%s' runs between two peers ('%s' "
		       "and '%s'); one end must be a host with role = \"sut\"",
		       w->name, hs->name, hc->name);
		return;
	}
	/* Two LAVA devices are one multinode job's, on the lab's network
	 * (matrix-mates.c): either end may listen. */
	if (hs->transport == HOST_LAVA && hc->transport != HOST_LAVA)
		mx_err(mx, mx_val_pos(tab, "server", w->pos),
		       "server: host '%s' is a LAVA device behind user-mode "
		       "networking, which nothing reaches into; make it the "
		       "client (reverse = true measures what it receives)",
		       hs->name);
	else if (!reachable(hs, c, hc, s))
		mx_err(mx, cpos,
		       "client: host '%s' cannot reach host '%s': a "
		       "namespace or VM reaches only the host at the other "
		       "end of its link",
		       hc->name, hs->name);
	w->server = s;
	w->client = c;
	w->sut = hs->role == ROLE_SUT ? s : c;
}

/* A workload of one host (fio, dma_map). The host must be the SUT. */
static bool one_host(struct mx *mx, struct matrix_workload *w,
		     const struct toml_value *tab)
{
	long h = host_ref(mx, tab, "host", w);

	if (h < 0)
		return false;
	if (mx->m->hosts[h].role != ROLE_SUT) {
		mx_err(mx, mx_val_pos(tab, "host", w->pos),
		       "host: '%s' is a peer; workload '%s' measures the "
		       "host it runs on, which must have role = \"sut\"",
		       mx->m->hosts[h].name, w->name);
		return false;
	}
	w->server = w->client = w->sut = h;
	mx->m->hosts[h].disk_workload = true;
	return true;
}

static void parse_workload(struct mx *mx, struct matrix_workload *w,
			   const struct toml_value *tab)
{
	/* In the order of enum workload_type. */
	static const char *const type_names[] = { "iperf3", "fio", "dma_map",
						  NULL };
	const char **keys;
	char where[96];
	long s, c;
	int type = WORKLOAD_IPERF3;

	/* iperf3 by default: the files written before fio came. */
	mx_enum(mx, tab, "type", type_names, &type);
	w->type = type;
	w->ops = types[w->type];
	keys = keys_of(w->ops);
	snprintf(where, sizeof(where), "workload '%s'", w->name);
	mx_check_keys(mx, tab, keys, where);
	free(keys);
	mx_text(mx, tab, "description", &w->description);
	w->collect = true;
	mx_bool(mx, tab, "collect", &w->collect);
	if (!w->ops->two_ends) {
		/* The type's keys refer to its host: none without one. */
		if (one_host(mx, w, tab))
			w->ops->parse(mx, w, tab);
		return;
	}
	s = host_ref(mx, tab, "server", w);
	c = host_ref(mx, tab, "client", w);
	if (s >= 0 && c >= 0)
		check_ends(mx, w, tab, s, c);
	w->ops->parse(mx, w, tab);
}

/* How many workloads @tab makes: a dma_map sweep makes several. */
static size_t workloads_of(const struct toml_value *tab)
{
	const struct toml_value *t = toml_table__get(tab, "type");

	if (tab->type != TOML_TABLE || !t || t->type != TOML_STRING ||
	    strcmp(t->u.str.ptr, "dma_map"))
		return 1;
	return matrix_dma_map__sweep_size(tab);
}

static void check_dup(struct mx *mx, const struct matrix *m, size_t idx)
{
	const struct matrix_workload *w = &m->workloads[idx];
	size_t j;

	for (j = 0; j < idx; j++) {
		const struct matrix_workload *o = &m->workloads[j];

		if (strcmp(o->name, w->name))
			continue;
		mx_err(mx, mx_val_pos(w->src, "name", w->pos),
		       "duplicate workload name '%s'", w->name);
		mx_note(mx, mx_val_pos(o->src, "name", o->pos),
			"workload '%s' is first defined here", o->name);
		break;
	}
}

void matrix__parse_workloads(struct mx *mx, const struct toml_value *v)
{
	struct matrix *m = mx->m;
	size_t i, j, n, nr_errors, cap = 0;

	if (!mx_tables(mx, v, "workloads") ||
	    mx_empty(mx, v, "workloads", "nothing to run"))
		return;
	for (i = 0; i < v->u.arr.n; i++)
		cap += workloads_of(v->u.arr.items[i]);
	m->workloads = xcalloc(cap, sizeof(*m->workloads));
	for (i = 0; i < v->u.arr.n; i++) {
		const struct toml_value *tab = v->u.arr.items[i];
		struct matrix_workload *w;

		if (!mx_is(mx, tab, TOML_TABLE, "workloads"))
			continue;
		w = &m->workloads[m->nr_workloads];
		w->pos = tab->pos;
		w->src = tab;
		if (!mx_item_name(mx, tab, i, "workload", &w->name)) {
			parse_workload(mx, w, tab);
			matrix_workload__release(w);
			memset(w, 0, sizeof(*w));
			continue;
		}
		j = m->nr_workloads++;
		nr_errors = mx->errs->nr_errors;
		parse_workload(mx, w, tab);
		n = w->type == WORKLOAD_DMA_MAP ? workloads_of(tab) : 1;
		/* A refused item would only add a name twice to its error. */
		if (n > 1 && mx->errs->nr_errors == nr_errors) {
			matrix_dma_map__expand(mx, w, w + 1, n - 1);
			m->nr_workloads += n - 1;
		}
		for (; j < m->nr_workloads; j++)
			check_dup(mx, m, j);
	}
}
