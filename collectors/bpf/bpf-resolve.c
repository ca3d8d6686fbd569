// SPDX-License-Identifier: GPL-2.0-only
/*
 * From what was asked for to what this kernel has: logical probes to
 * functions (kallsyms and BTF) and tracepoints; arguments to read from
 * BTF prototypes; the device filter from sysfs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "collectors/bpf/bpf-probes.h"
#include "log.h"
#include "util.h"

/* The argument registers both function rungs can read (PARM1..5). */
#define MAX_ARG 5

static const struct btf_type *btf__skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

static bool is_struct_device_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__skip_mods(btf, id);

	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__skip_mods(btf, t->type);
	return t && btf_is_struct(t) &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), "device");
}

/*
 * Which arguments are the struct device and the size: the DMA API
 * names them "dev" and "size" throughout, and positions moved when
 * map_page became map_phys, so they are looked up, not assumed.
 */
static void btf_args(const struct btf *btf, int id, struct bpf_target *t)
{
	const struct btf_type *fn = btf__type_by_id(btf, id), *proto;
	const struct btf_param *params;
	int i, n;

	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return;
	params = btf_params(proto);
	n = btf_vlen(proto);
	for (i = 0; i < n && i < MAX_ARG; i++) {
		const char *name = btf__name_by_offset(btf, params[i].name_off);
		const struct btf_type *pt;

		if (!name)
			continue;
		if (!strcmp(name, "dev") &&
		    is_struct_device_ptr(btf, params[i].type))
			t->dev_arg = i;
		pt = btf__skip_mods(btf, params[i].type);
		if (!strcmp(name, "size") && pt && btf_is_int(pt))
			t->size_arg = i;
	}
}

/* BTF of @name: vmlinux's, or its module's (split BTF). */
static void target__btf(struct bpf_target *t, const struct bpf_env *env)
{
	struct btf *mod = NULL;
	const struct btf *btf = env->btf;
	int id;

	if (!btf)
		return;
	if (t->module) {
		mod = btf__load_module_btf(t->module, env->btf);
		if (!mod)
			return;
		btf = mod;
	}
	id = btf__find_by_name_kind(btf, t->name, BTF_KIND_FUNC);
	if (id > 0) {
		t->in_btf = true;
		btf_args(btf, id, t);
	}
	btf__free(mod);
}

static bool is_size_t(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && btf_is_mod(t))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_typedef(t) &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), "size_t");
}

/*
 * A raw tracepoint is known to BTF as "typedef void (*btf_trace_NAME)
 * (void *__data, TP_PROTO...)". Its parameters have no names there, so
 * the device is the first struct device * and the size the first
 * size_t. Returns whether the typedef exists.
 */
static bool raw_tp_args(const struct btf *btf, const char *tp, int *dev_arg,
			int *size_arg)
{
	char *name = xasprintf("btf_trace_%s", tp);
	const struct btf_type *t = NULL;
	const struct btf_param *params;
	int id, i, n;

	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	free(name);
	if (id > 0)
		t = btf__skip_mods(btf, id);
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return false;
	params = btf_params(t);
	n = btf_vlen(t);
	/* params[0] is __data, not passed to the program */
	for (i = 1; i < n && i <= MAX_ARG; i++) {
		if (*dev_arg < 0 && is_struct_device_ptr(btf, params[i].type))
			*dev_arg = i - 1;
		if (*size_arg < 0 && is_size_t(btf, params[i].type))
			*size_arg = i - 1;
	}
	return true;
}

static struct bpf_target *probe__add_target(struct bpf_probe *p)
{
	struct bpf_target *t;

	ALLOC_GROW(p->targets, p->nr_targets + 1, p->alloc_targets);
	t = &p->targets[p->nr_targets++];
	memset(t, 0, sizeof(*t));
	t->dev_arg = t->size_arg = -1;
	t->dev_loc_off = t->size_off = -1;
	t->size_len = 8;
	t->stats_fd = t->prog_fds[0] = t->prog_fds[1] = -1;
	return t;
}

/*
 * Is function @spec on this kernel? Fills a target if so. A table's
 * "name@near" names, of several functions called name, the one beside
 * the unique function near (the same driver's).
 */
static bool probe__try_fn(struct bpf_probe *p, const struct bpf_env *env,
			  const char *spec)
{
	struct bpf_target probe_t = { 0 }, *t;
	struct ksym_match m = { 0 };
	const char *near = strchr(spec, '@');
	unsigned long long addr = 0;
	char *name = near ? xstrndup(spec, near - spec) : xstrdup(spec);
	bool in_ksyms;

	in_ksyms = env->ksyms && !ksyms__find(env->ksyms, name, &m);
	if (in_ksyms && near && m.count > 1 &&
	    ksyms__nearest(env->ksyms, name, near + 1, &addr))
		addr = 0;
	probe_t.name = (char *)name;
	probe_t.module = (char *)m.module;
	probe_t.dev_arg = probe_t.size_arg = -1;
	target__btf(&probe_t, env);
	if (!in_ksyms && !probe_t.in_btf) {
		free(name);
		return false;
	}
	t = probe__add_target(p);
	t->kind = BPF_TARGET_FN;
	t->name = name;
	t->addr = addr;
	t->symbol = in_ksyms ? xstrdup(m.symbol) : NULL;
	t->module = m.module ? xstrdup(m.module) : NULL;
	t->nr_syms = m.count;
	t->in_btf = probe_t.in_btf;
	t->dev_arg = probe_t.dev_arg;
	t->size_arg = probe_t.size_arg;
	return true;
}

static void probe__add_tp(struct bpf_probe *p, const struct bpf_env *env,
			  const char *cat, const char *tp, const char *tp_end)
{
	struct bpf_target *t = probe__add_target(p);

	t->kind = BPF_TARGET_TP;
	t->cat = xstrdup(cat);
	t->tp = xstrdup(tp);
	t->tp_end = tp_end ? xstrdup(tp_end) : NULL;
	t->name = tp_end ? xasprintf("%s:%s>%s", cat, tp, tp_end) :
			   xasprintf("%s:%s", cat, tp);
	/* Pairs time a span; their fields would be the begin's only. */
	if (!tp_end) {
		tracefs__fields(env->tracefs, cat, tp, &t->dev_loc_off,
				&t->size_off, &t->size_len);
		if (env->btf)
			t->raw_ok = raw_tp_args(env->btf, tp, &t->dev_arg,
						&t->size_arg);
	} else if (env->btf) {
		int unused = -1;

		t->raw_ok = raw_tp_args(env->btf, tp, &unused, &unused) &&
			    raw_tp_args(env->btf, tp_end, &unused, &unused);
	}
}

static void probe__add_missing(struct bpf_probe *p, const char *what)
{
	strvec__push(&p->missing, what);
}

static void probe__resolve_group(struct bpf_probe *p, const struct bpf_env *env,
				 const char *group)
{
	char *alts = xstrdup(group), *alt, *save = NULL;
	bool found = false;

	for (alt = strtok_r(alts, "|", &save); alt && !found;
	     alt = strtok_r(NULL, "|", &save))
		found = probe__try_fn(p, env, alt);
	if (!found)
		probe__add_missing(p, group);
	free(alts);
}

static void probe__resolve_tps(struct bpf_probe *p, const struct bpf_env *env,
			       const struct bpf_probe_def *d)
{
	size_t i;

	for (i = 0; d->tps[i]; i++) {
		char *cat = xstrdup(d->tps[i]), *name = strchr(cat, ':');

		*name++ = '\0';
		if (bpf_env__has_tp(env, cat, name)) {
			probe__add_tp(p, env, cat, name, NULL);
			free(cat);
			break;
		}
		free(cat);
	}
}

static void probe__resolve_logical(struct bpf_probe *p,
				   const struct bpf_env *env)
{
	size_t i;

	for (i = 0; p->def->groups[i]; i++)
		probe__resolve_group(p, env, p->def->groups[i]);
	probe__resolve_tps(p, env, p->def);
}

/* The logical probe that lists function @fn, for its tracepoint. */
static const struct bpf_probe_def *def_of_fn(const char *fn)
{
	const struct bpf_probe_def *d;
	size_t i, len = strlen(fn);

	for (d = bpf_probe_defs; d->name; d++) {
		for (i = 0; d->groups[i]; i++) {
			const char *g = d->groups[i], *s;

			for (s = strstr(g, fn); s; s = strstr(s + 1, fn))
				if ((s == g || s[-1] == '|') &&
				    (!s[len] || s[len] == '|'))
					return d;
		}
	}
	return NULL;
}

static int probe__resolve_tp(struct bpf_probe *p, const struct bpf_spec *s,
			     const struct bpf_env *env, char *err, size_t errsz)
{
	const char *names[2] = { s->tp, s->tp_end };
	size_t i;

	if (!env->tracefs) {
		snprintf(err, errsz, "%s: tracefs is %s", s->name,
			 env->tracefs_note ? env->tracefs_note : "missing");
		return -ENOENT;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i] && !bpf_env__has_tp(env, s->cat, names[i])) {
			snprintf(err, errsz,
				 "no tracepoint '%s:%s' (nothing at "
				 "%s/events/%s/%s)",
				 s->cat, names[i], env->tracefs, s->cat,
				 names[i]);
			return -ENOENT;
		}
	}
	probe__add_tp(p, env, s->cat, s->tp, s->tp_end);
	return 0;
}

int bpf_probe__resolve(struct bpf_probe *p, const struct bpf_spec *spec,
		       const struct bpf_env *env, char *err, size_t errsz)
{
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(spec->name);
	p->def = spec->def;
	switch (spec->kind) {
	case BPF_SPEC_LOGICAL:
		probe__resolve_logical(p, env);
		return 0;
	case BPF_SPEC_FN:
		if (probe__try_fn(p, env, spec->fn)) {
			/* A DMA function falls back on its tracepoint too. */
			const struct bpf_probe_def *d = def_of_fn(spec->fn);

			if (d)
				probe__resolve_tps(p, env, d);
			return 0;
		}
		snprintf(err, errsz,
			 "no kernel function '%s' in /proc/kallsyms or BTF",
			 spec->fn);
		return -ENOENT;
	case BPF_SPEC_TP:
	case BPF_SPEC_TP_PAIR:
		return probe__resolve_tp(p, spec, env, err, errsz);
	}
	return -EINVAL;
}

void bpf_probe__release(struct bpf_probe *p)
{
	size_t i;

	bpf_probe__detach(p);
	for (i = 0; i < p->nr_targets; i++) {
		struct bpf_target *t = &p->targets[i];

		free_all(t->name, t->symbol, t->module, t->cat, t->tp,
			 t->tp_end);
	}
	strvec__release(&p->missing);
	free(p->targets);
	free(p->name);
	memset(p, 0, sizeof(*p));
}
