// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exposure window's loader: resolves its three roles on this
 * kernel, decides whether the device under test is translated at all,
 * attaches bpf/exposure.bpf.c on the best rung, and reads what it left.
 *
 * One object for every role, unlike the counting probes (one object per
 * target): the roles share the windows in flight. So the rung is chosen
 * for the whole, up the same chain a target climbs (bpf_chain__climb):
 * fentry when every target can take it, else kprobes.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "collectors/bpf/bpf-exposure.h"
#include "log.h"
#include "util.h"

#include "exposure.skel.h"

/* The logical probes whose functions the roles take, and what each is. */
static const struct {
	const char *spec;
	const char *what;
} roles[EXPO_NR_ROLES] = {
	[EXPO_OPEN] = { "fn:iommu_unmap_fast",
			"where iommu-dma takes an IOVA out of the page table" },
	[EXPO_SYNC] = { "iotlb_sync", "the strict end: the unmap's own sync" },
	[EXPO_FLUSH] = { "flush_all",
			 "the lazy end: a flush of the domain's IOTLB" },
};

static void set_state(struct bpf_exposure *x, enum expo_state s, char *why)
{
	x->state = s;
	free(x->why);
	x->why = why;
}

static size_t role__nr_fns(const struct bpf_probe *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr_targets; i++)
		n += p->targets[i].kind == BPF_TARGET_FN;
	return n;
}

/* Why role @r has nothing to attach to, naming what was looked for. */
static char *role__missing(enum expo_role_id r)
{
	const struct bpf_probe_def *d;
	struct strvec names = { 0 };
	char *list, *why;
	size_t i;

	if (r == EXPO_OPEN)
		return xstrdup("no iommu_unmap_fast on this kernel (kallsyms, "
			       "BTF): where an IOVA leaves the page table "
			       "cannot be seen");
	d = bpf_probe_def__find(roles[r].spec);
	/* As people know them: "name", not the table's "name@near". */
	for (i = 0; d && d->groups[i]; i++)
		strvec__pushf(&names, "%.*s", (int)strcspn(d->groups[i], "@"),
			      d->groups[i]);
	list = strvec__join(&names, ", ");
	why = xasprintf("%s: none of %s on this kernel", roles[r].what, list);
	free(list);
	strvec__release(&names);
	return why;
}

int bpf_exposure__resolve(struct bpf_exposure *x, const struct bpf_env *env)
{
	char err[256];
	size_t r;

	memset(x, 0, sizeof(*x));
	x->state = EXPO_MEASURED;
	for (r = 0; r < EXPO_NR_ROLES; r++) {
		struct bpf_spec spec;

		if (bpf_spec__parse(roles[r].spec, &spec, err, sizeof(err)))
			return -EINVAL; /* the table is ours */
		if (bpf_probe__resolve(&x->roles[r], &spec, env, err,
				       sizeof(err)))
			pr_debug("bpf: exposure: %s", err);
		bpf_spec__release(&spec);
		if (!role__nr_fns(&x->roles[r]) && x->state == EXPO_MEASURED)
			set_state(x, EXPO_NOT_MEASURED, role__missing(r));
	}
	return 0;
}

/* ---- is the device translated at all? ---- */

static char *slurp_word(const char *path)
{
	char buf[64], *nl;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return xstrdup(buf);
}

static bool any_iommu(void)
{
	DIR *d = opendir("/sys/class/iommu");
	struct dirent *de;
	bool any = false;

	if (!d)
		return false;
	while (!any && (de = readdir(d)))
		any = de->d_name[0] != '.';
	closedir(d);
	return any;
}

/*
 * The domain type of the IOMMU group @nic's DMA goes through: that of
 * the first device up from /sys/class/net/NIC/device that has a group
 * (virtio-net's device is a virtio one; the PCI function above it
 * does the DMA). NULL if none has.
 */
static char *nic_domain_type(const char *nic)
{
	char *link = xasprintf("/sys/class/net/%s/device", nic);
	char *dev = realpath(link, NULL), *type = NULL, *slash, *path;

	free(link);
	while (dev && !type && strncmp(dev, "/sys/devices/", 13) == 0) {
		path = xasprintf("%s/iommu_group/type", dev);
		type = slurp_word(path);
		free(path);
		slash = strrchr(dev, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	free(dev);
	return type;
}

/*
 * NULL when @nic's DMA goes through a translating domain ("DMA" is
 * strict, "DMA-FQ" lazy), else why not. Without a NIC, every IOMMU group
 * is looked at: one that translates is enough to measure.
 */
static char *untranslated(const char *nic)
{
	char *path, *type;
	DIR *d;
	struct dirent *de;
	bool translating = false;

	if (!any_iommu())
		return xstrdup("no IOMMU on this host: DMA is not translated");
	if (nic && name_is_safe(nic)) {
		type = nic_domain_type(nic);
		if (!type)
			return xasprintf("%s is in no IOMMU group: its DMA is "
					 "not translated",
					 nic);
		if (!strncmp(type, "DMA", 3)) {
			free(type);
			return NULL;
		}
		path = xasprintf("%s's IOMMU domain is %s (passthrough): its "
				 "DMA is not translated",
				 nic, type);
		free(type);
		return path;
	}
	d = opendir("/sys/kernel/iommu_groups");
	while (d && !translating && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("/sys/kernel/iommu_groups/%s/type",
				 de->d_name);
		type = slurp_word(path);
		free(path);
		translating = type && !strncmp(type, "DMA", 3);
		free(type);
	}
	if (d)
		closedir(d);
	return translating ? NULL :
			     xstrdup("no IOMMU group translates DMA "
				     "(every domain is identity)");
}

/* ---- attaching ---- */

static void add_link(struct bpf_exposure *x, struct bpf_link *l)
{
	ALLOC_GROW(x->links, x->nr_links + 1, x->alloc_links);
	x->links[x->nr_links++] = l;
}

static void drop_links(struct bpf_exposure *x)
{
	/* In reverse: the opening program goes first, the ends last. */
	while (x->nr_links)
		bpf_link__destroy(x->links[--x->nr_links]);
}

static struct exposure_bpf *open_obj(struct bpf_exposure *x)
{
	struct exposure_bpf *o = exposure_bpf__open();
	struct bpf_program *prog;
	int ncpus = libbpf_num_possible_cpus();

	if (!o)
		return NULL;
	/* A ring of lazy windows per CPU: bpf/exposure.h. */
	x->nr_rings = ncpus > 0 ? (unsigned int)ncpus : 1;
	x->pending_slots = EXPOSURE_RING_SLOTS;
	bpf_map__set_max_entries(o->maps.rings, x->nr_rings);
	o->rodata->nr_rings = x->nr_rings;
	bpf_object__for_each_program(prog, o->obj)
		bpf_program__set_autoload(prog, false);
	return o;
}

static void fentry_fail(struct bpf_exposure *x, const struct bpf_env *env,
			const char *stage, int err, const char *target)
{
	bpf_fail__set(&x->fentry_fail, env, BPF_RUNG_FENTRY, stage, err);
	pr_debug("bpf: exposure: fentry %s failed%s%s: %s", stage,
		 target ? " on " : "", target ? target : "",
		 strerror(x->fentry_fail.err));
}

static int fentry_targets(struct bpf_exposure *x, const struct bpf_env *env)
{
	size_t r, i;

	for (r = 0; r < EXPO_NR_ROLES; r++) {
		const struct bpf_probe *p = &x->roles[r];

		if (role__nr_fns(p) > EXPO_MAX_TARGETS) {
			fentry_fail(x, env, "resolve", E2BIG, p->name);
			return -E2BIG;
		}
		for (i = 0; i < p->nr_targets; i++) {
			const struct bpf_target *t = &p->targets[i];

			if (t->kind != BPF_TARGET_FN)
				continue;
			if (!t->in_btf || t->addr) {
				fentry_fail(x, env, "resolve",
					    t->addr ? ENOTUNIQ : ESRCH,
					    t->name);
				return t->addr ? -ENOTUNIQ : -ESRCH;
			}
		}
	}
	return 0;
}

/* The @n-th of the programs the BPF side stamps out as @stem##n. */
static struct bpf_program *prog_nth(struct bpf_object *obj, const char *stem,
				    size_t n)
{
	char name[32];

	snprintf(name, sizeof(name), "%s%zu", stem, n);
	return bpf_object__find_program_by_name(obj, name);
}

/* @prog on @fn, and next in the order of loading and attaching. */
static int aim(struct bpf_program *prog, const char *fn,
	       struct bpf_program **order, size_t *nr_order)
{
	order[(*nr_order)++] = prog;
	return bpf_program__set_attach_target(prog, 0, fn);
}

/* A rung of the chain: @filter is NULL, the window has none. */
static int try_fentry(void *exposure, const struct bpf_env *env,
		      const struct bpf_filter *filter)
{
	struct bpf_exposure *x = exposure;
	struct exposure_bpf *o;
	struct bpf_program *sync[EXPO_MAX_TARGETS], *fl_in[EXPO_MAX_TARGETS],
		*fl_out[EXPO_MAX_TARGETS];
	struct bpf_program *order[2 * EXPO_MAX_TARGETS * 2 + 1];
	size_t i, n, nr_order = 0;
	int err;

	(void)filter;
	x->fentry_tried = true;
	err = fentry_targets(x, env);
	if (err)
		return err;
	o = open_obj(x);
	if (!o) {
		err = -errno;
		fentry_fail(x, env, "load", err, NULL);
		return err;
	}
	/* The BPF side stamps them out by number (SYNC_PROG(n)). */
	for (i = 0; i < EXPO_MAX_TARGETS; i++) {
		sync[i] = prog_nth(o->obj, "sync_exit", i);
		fl_in[i] = prog_nth(o->obj, "flush_entry", i);
		fl_out[i] = prog_nth(o->obj, "flush_exit", i);
		if (!sync[i] || !fl_in[i] || !fl_out[i]) {
			err = -ENOENT;
			goto load_fail;
		}
	}
	/* The ends first, so that no window opens without them. */
	for (i = n = 0; i < x->roles[EXPO_SYNC].nr_targets; i++) {
		const struct bpf_target *t = &x->roles[EXPO_SYNC].targets[i];

		if (t->kind != BPF_TARGET_FN)
			continue;
		err = aim(sync[n++], t->name, order, &nr_order);
		if (err)
			goto load_fail;
	}
	for (i = n = 0; i < x->roles[EXPO_FLUSH].nr_targets; i++) {
		const struct bpf_target *t = &x->roles[EXPO_FLUSH].targets[i];

		if (t->kind != BPF_TARGET_FN)
			continue;
		err = aim(fl_out[n], t->name, order, &nr_order);
		if (!err)
			err = aim(fl_in[n], t->name, order, &nr_order);
		n++;
		if (err)
			goto load_fail;
	}
	err = aim(o->progs.fast_exit, x->roles[EXPO_OPEN].targets[0].name,
		  order, &nr_order);
	if (err)
		goto load_fail;
	for (i = 0; i < nr_order; i++)
		bpf_program__set_autoload(order[i], true);
	err = exposure_bpf__load(o);
	if (err)
		goto load_fail;
	for (i = 0; i < nr_order; i++) {
		struct bpf_link *l = bpf_program__attach(order[i]);

		if (!l) {
			err = -errno;
			fentry_fail(x, env, "attach", err,
				    bpf_program__name(order[i]));
			goto fail;
		}
		add_link(x, l);
	}
	x->obj = o;
	return 0;
load_fail:
	fentry_fail(x, env, "load", err, NULL);
fail:
	drop_links(x);
	exposure_bpf__destroy(o);
	return err;
}

/* Every function of @role, entry and return; 0 if one of them took. */
static int kprobe_role(struct bpf_exposure *x, const struct bpf_env *env,
		       enum expo_role_id r, struct bpf_program *entry,
		       struct bpf_program *ret)
{
	struct bpf_probe *p = &x->roles[r];
	int err = -ENOENT, any = 0;
	size_t i;

	for (i = 0; i < p->nr_targets; i++) {
		struct bpf_target *t = &p->targets[i];
		struct bpf_link *l[2] = { NULL, NULL };

		if (t->kind != BPF_TARGET_FN)
			continue;
		if (!t->symbol) {
			bpf_target__fail(t, env, BPF_RUNG_KPROBE, "resolve",
					 ENOENT);
			continue;
		}
		err = bpf_target__link(t, env, BPF_RUNG_KPROBE, entry, ret, l);
		if (err)
			continue;
		t->rung = BPF_RUNG_KPROBE;
		add_link(x, l[1]);
		add_link(x, l[0]);
		any = 1;
	}
	return any ? 0 : err;
}

static int try_kprobe(void *exposure, const struct bpf_env *env,
		      const struct bpf_filter *filter)
{
	struct bpf_exposure *x = exposure;
	struct exposure_bpf *o = open_obj(x);
	struct bpf_program *prog;
	int err;

	(void)filter;
	if (!o)
		return -errno;
	bpf_object__for_each_program(prog, o->obj) bpf_program__set_autoload(
		prog, !strncmp(bpf_program__name(prog), "kp_", 3));
	err = exposure_bpf__load(o);
	if (err) {
		bpf_target__fail(&x->roles[EXPO_OPEN].targets[0], env,
				 BPF_RUNG_KPROBE, "load", err);
		goto fail;
	}
	err = kprobe_role(x, env, EXPO_SYNC, o->progs.kp_sync_entry,
			  o->progs.kp_sync_exit);
	if (!err)
		err = kprobe_role(x, env, EXPO_FLUSH, o->progs.kp_flush_entry,
				  o->progs.kp_flush_exit);
	if (!err)
		err = kprobe_role(x, env, EXPO_OPEN, o->progs.kp_fast_entry,
				  o->progs.kp_fast_exit);
	if (err)
		goto fail;
	x->obj = o;
	return 0;
fail:
	drop_links(x);
	exposure_bpf__destroy(o);
	return err;
}

static void mark_rung(struct bpf_exposure *x, enum bpf_rung rung)
{
	size_t r, i;

	x->rung = rung;
	for (r = 0; r < EXPO_NR_ROLES; r++)
		for (i = 0; i < x->roles[r].nr_targets; i++)
			if (x->roles[r].targets[i].kind == BPF_TARGET_FN &&
			    (rung == BPF_RUNG_FENTRY ||
			     x->roles[r].targets[i].rung == rung))
				x->roles[r].targets[i].rung = rung;
}

int bpf_exposure__attach(struct bpf_exposure *x, const struct bpf_env *env,
			 const char *nic)
{
	static const struct bpf_chain chain = {
		.rungs = { [BPF_RUNG_FENTRY] = try_fentry,
			   [BPF_RUNG_KPROBE] = try_kprobe },
		.first = BPF_RUNG_FENTRY,
		.last = BPF_RUNG_KPROBE,
	};
	enum bpf_rung took;
	char buf[16], *why;
	int err;

	/* No translation, no window: whether or not it could be seen. */
	why = untranslated(nic);
	if (why) {
		set_state(x, EXPO_UNPROTECTED, why);
		return 0;
	}
	if (x->state != EXPO_MEASURED)
		return 0;
	err = bpf_chain__climb(&chain, x, env, NULL, BPF_RUNG_NONE, -ENOMEM,
			       &took);
	if (!err) {
		mark_rung(x, took);
		return 0;
	}
	if (err == -ENOMEM)
		return err;
	set_state(x, EXPO_NOT_MEASURED,
		  xasprintf("neither fentry (%s) nor kprobes (%s) attached",
			    x->fentry_fail.why ? x->fentry_fail.why : "-",
			    bpf_errno__name(-err, buf, sizeof(buf))));
	return 0;
}

/* ---- reading ---- */

static void stats_add(struct exposure_stats *acc,
		      const struct exposure_stats *s)
{
	size_t i;

	for (i = 0; i < EXPOSURE_NR_CLOSE; i++)
		acc->closed[i] += s->closed[i];
	acc->lost += s->lost;
	acc->unpaired += s->unpaired;
	acc->sum_ns += s->sum_ns;
	if (s->max_ns > acc->max_ns)
		acc->max_ns = s->max_ns;
	for (i = 0; i < EXPOSURE_HIST_SLOTS; i++)
		acc->hist[i] += s->hist[i];
}

/* The lazy windows still open: counted, and the oldest's age so far. */
static void read_pending(struct bpf_exposure *x, int fd)
{
	__u64 now = (__u64)mono_ns(), i;
	struct exposure_ring *r = xmalloc(sizeof(*r));
	const struct exposure_window *w;
	__u32 cpu;

	x->pending = x->pending_oldest_ns = 0;
	for (cpu = 0; cpu < x->nr_rings; cpu++) {
		if (bpf_map_lookup_elem(fd, &cpu, r))
			continue;
		for (i = r->tail;
		     i != r->head && i - r->tail < EXPOSURE_RING_SLOTS; i++) {
			w = &r->w[i % EXPOSURE_RING_SLOTS];
			if (!w->key)
				continue;
			x->pending++;
			if (now > w->ts && now - w->ts > x->pending_oldest_ns)
				x->pending_oldest_ns = now - w->ts;
		}
	}
	free(r);
}

/* Runs skipped as recursive; run time where the kernel's stats are on. */
static void prog_info(struct bpf_exposure *x, const struct exposure_bpf *o)
{
	struct bpf_program *prog;

	x->missed = x->run_ns = x->runs = 0;
	bpf_object__for_each_program(prog, o->obj) bpf_prog__run_stats(
		bpf_program__fd(prog), &x->missed, &x->run_ns, &x->runs);
}

/* A figure that would be wrong is refused, with what made it so. */
static void sanity(struct bpf_exposure *x)
{
	const struct exposure_stats *s = &x->total;
	__u64 ended =
		s->closed[EXPOSURE_BY_SYNC] + s->closed[EXPOSURE_BY_FLUSH];

	if (s->opened >= 100 && !ended)
		set_state(x, EXPO_NOT_MEASURED,
			  xasprintf("%llu windows began and none ended: the "
				    "invalidations attached are not this "
				    "IOMMU's",
				    (unsigned long long)s->opened));
	else if (s->lost * 100 > s->opened + s->lost)
		set_state(x, EXPO_NOT_MEASURED,
			  xasprintf("%llu windows could not be followed: "
				    "more than %u were open at once on a CPU",
				    (unsigned long long)s->lost,
				    x->pending_slots));
	else if (s->unpaired * 100 > ended && s->unpaired > 10)
		set_state(x, EXPO_NOT_MEASURED,
			  xasprintf("%llu returns were seen without their "
				    "calls (probes skipped): flushes cannot "
				    "be matched",
				    (unsigned long long)s->unpaired));
}

int bpf_exposure__read(struct bpf_exposure *x)
{
	struct exposure_bpf *o = x->obj;
	int ncpus = libbpf_num_possible_cpus(), i, err;
	struct exposure_stats *per_cpu;
	__u32 zero = 0;

	memset(&x->total, 0, sizeof(x->total));
	if (!o)
		return 0;
	if (ncpus < 0)
		return ncpus;
	per_cpu = xcalloc(ncpus, sizeof(*per_cpu));
	err = bpf_map_lookup_elem(bpf_map__fd(o->maps.stats), &zero, per_cpu);
	if (err) {
		err = -errno;
		pr_err("bpf: cannot read the exposure windows: %s",
		       strerror(-err));
		free(per_cpu);
		return err;
	}
	for (i = 0; i < ncpus; i++)
		stats_add(&x->total, &per_cpu[i]);
	free(per_cpu);
	if (bpf_map_lookup_elem(bpf_map__fd(o->maps.state), &zero, &x->shared))
		memset(&x->shared, 0, sizeof(x->shared));
	/* Not counted where they begin: what ended, and what has not. */
	x->total.opened = x->total.closed[EXPOSURE_BY_SYNC] +
			  x->total.closed[EXPOSURE_BY_FLUSH];
	if (x->shared.outstanding > 0)
		x->total.opened += (__u64)x->shared.outstanding;
	read_pending(x, bpf_map__fd(o->maps.rings));
	prog_info(x, o);
	if (x->state == EXPO_MEASURED)
		sanity(x);
	return 0;
}

void bpf_exposure__detach(struct bpf_exposure *x)
{
	drop_links(x);
	if (x->obj)
		exposure_bpf__destroy(x->obj);
	x->obj = NULL;
}

void bpf_exposure__release(struct bpf_exposure *x)
{
	size_t r;

	bpf_exposure__detach(x);
	for (r = 0; r < EXPO_NR_ROLES; r++)
		bpf_probe__release(&x->roles[r]);
	free(x->links);
	free(x->why);
	memset(x, 0, sizeof(*x));
}

/* ---- the wire form ---- */

static const char *state_name(enum expo_state s)
{
	switch (s) {
	case EXPO_MEASURED:
		return "measured";
	case EXPO_UNPROTECTED:
		return "unprotected";
	case EXPO_NOT_MEASURED:
		break;
	}
	return "not measured";
}

static json_t *role_json(const struct bpf_probe *p)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < p->nr_targets; i++)
		if (p->targets[i].kind == BPF_TARGET_FN)
			json_array_append_new(a,
					      json_string(p->targets[i].name));
	return a;
}

json_t *bpf_exposure__json(const struct bpf_exposure *x)
{
	const struct exposure_stats *s = &x->total;
	json_t *o = json_object(), *hist;
	size_t i, len;

	json_object_set_new(o, "state", json_string(state_name(x->state)));
	if (x->why)
		json_object_set_new(o, "why", json_string(x->why));
	json_object_set_new(o, "rung", json_string(bpf_rung__name(x->rung)));
	if (x->fentry_tried && x->rung != BPF_RUNG_FENTRY &&
	    x->fentry_fail.why) {
		json_object_set_new(o, "fentry_failed",
				    json_string(x->fentry_fail.why));
		if (x->fentry_fail.verifier[0])
			json_object_set_new(
				o, "verifier",
				json_string(x->fentry_fail.verifier));
	}
	json_object_set_new(o, "open", role_json(&x->roles[EXPO_OPEN]));
	json_object_set_new(o, "sync", role_json(&x->roles[EXPO_SYNC]));
	json_object_set_new(o, "flush", role_json(&x->roles[EXPO_FLUSH]));
	json_object_set_new(o, "opened", json_integer((json_int_t)s->opened));
	json_object_set_new(
		o, "windows",
		json_integer((json_int_t)(s->closed[EXPOSURE_BY_SYNC] +
					  s->closed[EXPOSURE_BY_FLUSH])));
	json_object_set_new(
		o, "by_sync",
		json_integer((json_int_t)s->closed[EXPOSURE_BY_SYNC]));
	json_object_set_new(
		o, "by_flush",
		json_integer((json_int_t)s->closed[EXPOSURE_BY_FLUSH]));
	json_object_set_new(o, "pending", json_integer((json_int_t)x->pending));
	json_object_set_new(o, "pending_oldest_ns",
			    json_integer((json_int_t)x->pending_oldest_ns));
	json_object_set_new(o, "lost", json_integer((json_int_t)s->lost));
	json_object_set_new(o, "unpaired",
			    json_integer((json_int_t)s->unpaired));
	bpf_prog__stats_json(o, x->missed, x->run_ns, x->runs);
	json_object_set_new(o, "stale_max",
			    json_integer((json_int_t)x->shared.stale_max));
	json_object_set_new(o, "sum_ns", json_integer((json_int_t)s->sum_ns));
	json_object_set_new(o, "max_ns", json_integer((json_int_t)s->max_ns));
	hist = json_array();
	len = EXPOSURE_HIST_SLOTS;
	while (len && !s->hist[len - 1])
		len--;
	for (i = 0; i < len; i++)
		json_array_append_new(hist,
				      json_integer((json_int_t)s->hist[i]));
	json_object_set_new(o, "hist", hist);
	return o;
}
