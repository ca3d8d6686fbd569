// SPDX-License-Identifier: GPL-2.0-only
/*
 * The attach chain. One small object per target and rung, opened when
 * it is tried: with libbpf 1.1 a single program whose target is missing
 * fails the load of its whole object, so sharing one object between
 * targets would let one bad target take the others down.
 *
 * Exit programs are attached before entry programs, and detached after
 * them: an exit with no start is counted untimed, whereas a start with
 * no exit would leave a stale time for the next call to pair with.
 *
 * The objects of one collector share one map all the same: the nesting
 * of timed calls per task (bpf/probe-bpf.h), which the first object
 * loaded creates and the others reuse, so that a probe's self time
 * leaves out the calls of the other probes nested in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collectors/bpf/bpf-probes.h"
#include "log.h"
#include "util.h"

#include "probe_fentry.skel.h"
#include "probe_kprobe.skel.h"
#include "probe_rawtp.skel.h"
#include "probe_tp.skel.h"

const char *bpf_rung__name(enum bpf_rung r)
{
	switch (r) {
	case BPF_RUNG_FENTRY:
		return "fentry";
	case BPF_RUNG_KPROBE:
		return "kprobe";
	case BPF_RUNG_RAW_TP:
		return "raw_tp";
	case BPF_RUNG_TRACEPOINT:
		return "tracepoint";
	case BPF_RUNG_NONE:
		break;
	}
	return "none";
}

void bpf_fail__set(struct bpf_fail *f, const struct bpf_env *env,
		   enum bpf_rung rung, const char *stage, int err)
{
	f->rung = rung;
	f->stage = stage;
	f->err = err < 0 ? -err : err;
	f->why = bpf_fail__explain(env, rung, stage, f->err);
	f->verifier[0] = '\0';
	if (!strcmp(stage, "load"))
		bpf_env__verifier_take(f->verifier, sizeof(f->verifier));
}

void bpf_target__fail(struct bpf_target *t, const struct bpf_env *env,
		      enum bpf_rung rung, const char *stage, int err)
{
	struct bpf_fail *f;

	if (t->nr_fails >= ARRAY_SIZE(t->fails))
		return;
	f = &t->fails[t->nr_fails++];
	bpf_fail__set(f, env, rung, stage, err);
	pr_debug("bpf: %s: %s %s failed: %s (%s)", t->name,
		 bpf_rung__name(rung), stage, strerror(f->err), f->why);
}

/* The knobs every program shares. */
#define SET_FILTER(rodata, filter)                                     \
	do {                                                           \
		(rodata)->filter_dev = (filter) && (filter)->on;       \
		if ((rodata)->filter_dev)                              \
			memcpy((rodata)->dev_name, (filter)->dev_name, \
			       sizeof((rodata)->dev_name));            \
	} while (0)

/* Before load: the collector's nesting map instead of a new one. */
static int nest__reuse(const struct bpf_target *t, struct bpf_map *nest)
{
	if (!t->nest_fd || *t->nest_fd < 0)
		return 0;
	return bpf_map__reuse_fd(nest, *t->nest_fd);
}

/*
 * After load: the first object's map becomes the collector's, on a
 * descriptor of its own, which outlives the object. Without one, each
 * later object has its own map and its calls nest only in its own.
 */
static void nest__keep(const struct bpf_target *t, const struct bpf_map *nest)
{
	int fd;

	if (!t->nest_fd || *t->nest_fd >= 0)
		return;
	fd = fcntl(bpf_map__fd(nest), F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		pr_debug("bpf: %s: the nesting map is not shared: %s", t->name,
			 strerror(errno));
	else
		*t->nest_fd = fd;
}

static void target__attached(struct bpf_target *t, void *obj,
			     const struct bpf_map *stats,
			     const struct bpf_program *p0,
			     const struct bpf_program *p1)
{
	t->obj = obj;
	t->stats_fd = bpf_map__fd(stats);
	t->prog_fds[0] = bpf_program__fd(p0);
	t->prog_fds[1] = p1 ? bpf_program__fd(p1) : -1;
}

/* libbpf 1.x returns NULL and sets errno. */
static int link_err(struct bpf_link *l)
{
	return l ? 0 : -errno;
}

/*
 * By name, or by address for one of several functions of a name: the
 * perf kprobe PMU takes an address where the name is left out.
 */
struct bpf_link *bpf_target__kprobe(const struct bpf_program *prog,
				    bool retprobe, const struct bpf_target *t)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .retprobe = retprobe,
		    .offset = t->addr);

	if (!t->addr)
		return bpf_program__attach_kprobe(prog, retprobe, t->symbol);
	return bpf_program__attach_kprobe_opts(prog, NULL, &opts);
}

/* @p on @t by @rung; @exit: at the return, or at the end tracepoint. */
static struct bpf_link *rung_link(const struct bpf_target *t,
				  enum bpf_rung rung,
				  const struct bpf_program *p, bool exit)
{
	const char *tp = exit ? t->tp_end : t->tp;

	switch (rung) {
	case BPF_RUNG_FENTRY:
		return bpf_program__attach(p);
	case BPF_RUNG_KPROBE:
		return bpf_target__kprobe(p, exit, t);
	case BPF_RUNG_RAW_TP:
		return bpf_program__attach_raw_tracepoint(p, tp);
	case BPF_RUNG_TRACEPOINT:
		return bpf_program__attach_tracepoint(p, t->cat, tp);
	case BPF_RUNG_NONE:
		break;
	}
	errno = EINVAL;
	return NULL;
}

int bpf_target__link(struct bpf_target *t, const struct bpf_env *env,
		     enum bpf_rung rung, const struct bpf_program *entry,
		     const struct bpf_program *exit, struct bpf_link *links[2])
{
	int err = 0;

	if (exit) {
		links[1] = rung_link(t, rung, exit, true);
		err = link_err(links[1]);
	}
	if (!err) {
		links[0] = rung_link(t, rung, entry, false);
		err = link_err(links[0]);
	}
	if (err) {
		bpf_link__destroy(links[1]);
		links[1] = NULL;
		bpf_target__fail(t, env, rung, "attach", err);
	}
	return err;
}

/* Attach @obj's @entry and @exit (NULL: none): the target holds them. */
static int target__take(struct bpf_target *t, const struct bpf_env *env,
			enum bpf_rung rung, void *obj,
			const struct bpf_map *stats,
			const struct bpf_program *entry,
			const struct bpf_program *exit)
{
	int err = bpf_target__link(t, env, rung, entry, exit, t->links);

	if (!err)
		target__attached(t, obj, stats, entry, exit);
	return err;
}

/* A tracepoint rung loads the counting program, or a begin:end pair's. */
static void tp_autoload(bool pair, struct bpf_program *count,
			struct bpf_program *begin, struct bpf_program *end)
{
	bpf_program__set_autoload(count, !pair);
	bpf_program__set_autoload(begin, pair);
	bpf_program__set_autoload(end, pair);
}

static int try_fentry(void *target, const struct bpf_env *env,
		      const struct bpf_filter *filter)
{
	struct bpf_target *t = target;
	struct probe_fentry_bpf *o;
	int err;

	if (!t->in_btf) {
		bpf_target__fail(t, env, BPF_RUNG_FENTRY, "resolve", ESRCH);
		return -ESRCH;
	}
	/* BTF would pick one of the functions of this name, maybe not
	 * the one meant: an ambiguous name goes by address. */
	if (t->addr) {
		bpf_target__fail(t, env, BPF_RUNG_FENTRY, "resolve", ENOTUNIQ);
		return -ENOTUNIQ;
	}
	o = probe_fentry_bpf__open();
	if (!o) {
		err = -errno;
		bpf_target__fail(t, env, BPF_RUNG_FENTRY, "load", err);
		return err;
	}
	SET_FILTER(o->rodata, filter);
	o->rodata->dev_arg = o->rodata->filter_dev ? t->dev_arg : -1;
	o->rodata->size_arg = t->size_arg;
	err = bpf_program__set_attach_target(o->progs.fn_entry, 0, t->name);
	if (!err)
		err = bpf_program__set_attach_target(o->progs.fn_exit, 0,
						     t->name);
	if (!err)
		err = nest__reuse(t, o->maps.nest);
	if (!err)
		err = probe_fentry_bpf__load(o);
	if (err) {
		bpf_target__fail(t, env, BPF_RUNG_FENTRY, "load", err);
		goto fail;
	}
	nest__keep(t, o->maps.nest);
	err = target__take(t, env, BPF_RUNG_FENTRY, o, o->maps.stats,
			   o->progs.fn_entry, o->progs.fn_exit);
	if (err)
		goto fail;
	return 0;
fail:
	bpf_target__detach(t);
	probe_fentry_bpf__destroy(o);
	return err;
}

static int try_kprobe(void *target, const struct bpf_env *env,
		      const struct bpf_filter *filter)
{
	struct bpf_target *t = target;
	struct probe_kprobe_bpf *o;
	int err;

	if (!t->symbol) {
		bpf_target__fail(t, env, BPF_RUNG_KPROBE, "resolve", ENOENT);
		return -ENOENT;
	}
	o = probe_kprobe_bpf__open();
	if (!o) {
		err = -errno;
		bpf_target__fail(t, env, BPF_RUNG_KPROBE, "load", err);
		return err;
	}
	SET_FILTER(o->rodata, filter);
	o->rodata->dev_arg = o->rodata->filter_dev ? t->dev_arg : -1;
	o->rodata->size_arg = t->size_arg;
	err = nest__reuse(t, o->maps.nest);
	if (!err)
		err = probe_kprobe_bpf__load(o);
	if (err) {
		bpf_target__fail(t, env, BPF_RUNG_KPROBE, "load", err);
		goto fail;
	}
	nest__keep(t, o->maps.nest);
	err = target__take(t, env, BPF_RUNG_KPROBE, o, o->maps.stats,
			   o->progs.kp_entry, o->progs.kp_exit);
	if (err)
		goto fail;
	return 0;
fail:
	bpf_target__detach(t);
	probe_kprobe_bpf__destroy(o);
	return err;
}

static int try_rawtp(void *target, const struct bpf_env *env,
		     const struct bpf_filter *filter)
{
	struct bpf_target *t = target;
	bool pair = t->tp_end != NULL;
	struct probe_rawtp_bpf *o;
	int err;

	if (!t->raw_ok) {
		bpf_target__fail(t, env, BPF_RUNG_RAW_TP, "resolve", ENOENT);
		return -ENOENT;
	}
	o = probe_rawtp_bpf__open();
	if (!o) {
		err = -errno;
		bpf_target__fail(t, env, BPF_RUNG_RAW_TP, "load", err);
		return err;
	}
	SET_FILTER(o->rodata, filter);
	o->rodata->dev_arg = o->rodata->filter_dev ? t->dev_arg : -1;
	o->rodata->size_arg = t->size_arg;
	tp_autoload(pair, o->progs.rtp_count, o->progs.rtp_begin,
		    o->progs.rtp_end);
	err = nest__reuse(t, o->maps.nest);
	if (!err)
		err = probe_rawtp_bpf__load(o);
	if (err) {
		bpf_target__fail(t, env, BPF_RUNG_RAW_TP, "load", err);
		goto fail;
	}
	nest__keep(t, o->maps.nest);
	err = target__take(t, env, BPF_RUNG_RAW_TP, o, o->maps.stats,
			   pair ? o->progs.rtp_begin : o->progs.rtp_count,
			   pair ? o->progs.rtp_end : NULL);
	if (err)
		goto fail;
	return 0;
fail:
	bpf_target__detach(t);
	probe_rawtp_bpf__destroy(o);
	return err;
}

static int try_tp(void *target, const struct bpf_env *env,
		  const struct bpf_filter *filter)
{
	struct bpf_target *t = target;
	bool pair = t->tp_end != NULL;
	struct probe_tp_bpf *o;
	int err;

	o = probe_tp_bpf__open();
	if (!o) {
		err = -errno;
		bpf_target__fail(t, env, BPF_RUNG_TRACEPOINT, "load", err);
		return err;
	}
	SET_FILTER(o->rodata, filter);
	o->rodata->dev_loc_off = t->dev_loc_off;
	o->rodata->size_off = t->size_off;
	o->rodata->size_len = t->size_len;
	tp_autoload(pair, o->progs.tp_count, o->progs.tp_begin,
		    o->progs.tp_end);
	err = nest__reuse(t, o->maps.nest);
	if (!err)
		err = probe_tp_bpf__load(o);
	if (err) {
		bpf_target__fail(t, env, BPF_RUNG_TRACEPOINT, "load", err);
		goto fail;
	}
	nest__keep(t, o->maps.nest);
	err = target__take(t, env, BPF_RUNG_TRACEPOINT, o, o->maps.stats,
			   pair ? o->progs.tp_begin : o->progs.tp_count,
			   pair ? o->progs.tp_end : NULL);
	if (err)
		goto fail;
	return 0;
fail:
	bpf_target__detach(t);
	probe_tp_bpf__destroy(o);
	return err;
}

int bpf_chain__climb(const struct bpf_chain *c, void *who,
		     const struct bpf_env *env, const struct bpf_filter *filter,
		     enum bpf_rung only, int fatal, enum bpf_rung *took)
{
	enum bpf_rung r;
	int err = -ENOENT;

	*took = BPF_RUNG_NONE;
	for (r = c->first; r <= c->last; r++) {
		if (only != BPF_RUNG_NONE && only != r)
			continue;
		err = c->rungs[r](who, env, filter);
		if (!err) {
			*took = r;
			return 0;
		}
		if (fatal && err == fatal)
			break;
	}
	return err;
}

int bpf_target__attach(struct bpf_target *t, const struct bpf_env *env,
		       const struct bpf_filter *filter, enum bpf_rung only)
{
	static const struct bpf_chain fn_chain = {
		.rungs = { [BPF_RUNG_FENTRY] = try_fentry,
			   [BPF_RUNG_KPROBE] = try_kprobe },
		.first = BPF_RUNG_FENTRY,
		.last = BPF_RUNG_KPROBE,
	};
	static const struct bpf_chain tp_chain = {
		.rungs = { [BPF_RUNG_RAW_TP] = try_rawtp,
			   [BPF_RUNG_TRACEPOINT] = try_tp },
		.first = BPF_RUNG_RAW_TP,
		.last = BPF_RUNG_TRACEPOINT,
	};
	const struct bpf_chain *chain = t->kind == BPF_TARGET_FN ? &fn_chain :
								   &tp_chain;

	return bpf_chain__climb(chain, t, env, filter, only, 0, &t->rung);
}

void bpf_prog__run_stats(int fd, __u64 *missed, __u64 *ns, __u64 *runs)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len)) {
		*missed += info.recursion_misses;
		*ns += info.run_time_ns;
		*runs += info.run_cnt;
	}
}

/*
 * Runs of the target's programs the kernel skipped as recursive, and
 * their run time where the kernel's stats are on.
 */
static void target__prog_info(struct bpf_target *t)
{
	size_t i;

	t->missed = t->run_ns = t->runs = 0;
	for (i = 0; i < ARRAY_SIZE(t->prog_fds); i++)
		bpf_prog__run_stats(t->prog_fds[i], &t->missed, &t->run_ns,
				    &t->runs);
}

int bpf_env__stats_on(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	return fd < 0 ? -errno : fd;
}

int bpf_target__read(struct bpf_target *t)
{
	int ncpus = libbpf_num_possible_cpus(), i, err;
	struct probe_stats *per_cpu;
	__u32 zero = 0;

	memset(&t->stats, 0, sizeof(t->stats));
	t->missed = t->run_ns = t->runs = 0;
	if (!t->obj)
		return 0;
	target__prog_info(t);
	if (ncpus < 0)
		return ncpus;
	per_cpu = xcalloc(ncpus, sizeof(*per_cpu));
	err = bpf_map_lookup_elem(t->stats_fd, &zero, per_cpu);
	if (err) {
		err = -errno;
		pr_err("bpf: cannot read the stats of %s: %s", t->name,
		       strerror(-err));
	} else {
		for (i = 0; i < ncpus; i++)
			probe_stats__add(&t->stats, &per_cpu[i]);
	}
	free(per_cpu);
	return err;
}

void bpf_target__detach(struct bpf_target *t)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t->links); i++) {
		bpf_link__destroy(t->links[i]);
		t->links[i] = NULL;
	}
	if (!t->obj)
		return;
	switch (t->rung) {
	case BPF_RUNG_FENTRY:
		probe_fentry_bpf__destroy(t->obj);
		break;
	case BPF_RUNG_KPROBE:
		probe_kprobe_bpf__destroy(t->obj);
		break;
	case BPF_RUNG_RAW_TP:
		probe_rawtp_bpf__destroy(t->obj);
		break;
	case BPF_RUNG_TRACEPOINT:
		probe_tp_bpf__destroy(t->obj);
		break;
	case BPF_RUNG_NONE:
		break;
	}
	t->obj = NULL;
	t->stats_fd = t->prog_fds[0] = t->prog_fds[1] = -1;
}
