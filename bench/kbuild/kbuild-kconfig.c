// SPDX-License-Identifier: GPL-2.0-only
/*
 * .config files and fragments: parsed line by line, merged the way
 * scripts/kconfig/merge_config.sh merges them, and checked after
 * olddefconfig. The check is the point: Kconfig drops an option whose
 * dependencies are off without a word, and a "patched" kernel that
 * silently lacks the option under test is the commonest A/B mistake.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/kbuild/kbuild.h"
#include "errmsg.h"
#include "strvec.h"
#include "util.h"

#define NOT_SET_SUFFIX " is not set"

static bool is_symbol(const char *s, size_t len)
{
	size_t i;

	if (len <= 7 || strncmp(s, "CONFIG_", 7))
		return false;
	for (i = 7; i < len; i++)
		if (!(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	return true;
}

const struct kconfig_opt *kconfig__get(const struct kconfig *kc,
				       const char *name)
{
	return TABLE_FIND(kc->opts, kc->nr, name, name);
}

void kconfig__set(struct kconfig *kc, const char *name, const char *value,
		  const char *origin)
{
	struct kconfig_opt *o = (struct kconfig_opt *)kconfig__get(kc, name);

	/* "=n" is how people write "not set"; Kconfig reads it so too. */
	if (value && !strcmp(value, "n"))
		value = NULL;
	if (!o) {
		ALLOC_GROW(kc->opts, kc->nr + 1, kc->alloc);
		o = &kc->opts[kc->nr++];
		o->name = xstrdup(name);
	} else {
		free(o->value);
		free(o->origin);
	}
	o->value = value ? xstrdup(value) : NULL;
	o->origin = origin ? xstrdup(origin) : NULL;
}

/* One line, without its newline. 1: an option, 0: nothing, -1: junk. */
static int parse_line(const char *line, size_t len, char **name, char **value)
{
	const char *eq, *p;
	size_t slen = strlen(NOT_SET_SUFFIX);

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
		       line[len - 1] == '\t'))
		len--;
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (!len)
		return 0;
	if (line[0] == '#') {
		p = line + 1;
		while (p < line + len && *p == ' ')
			p++;
		if (len - (p - line) > slen &&
		    !memcmp(line + len - slen, NOT_SET_SUFFIX, slen) &&
		    is_symbol(p, line + len - slen - p)) {
			*name = xstrndup(p, line + len - slen - p);
			*value = NULL;
			return 1;
		}
		return 0;
	}
	eq = memchr(line, '=', len);
	if (!eq || !is_symbol(line, eq - line) || eq + 1 == line + len)
		return -1;
	*name = xstrndup(line, eq - line);
	*value = xstrndup(eq + 1, line + len - eq - 1);
	return 1;
}

int kconfig__parse(struct kconfig *kc, const char *text, const char *origin,
		   bool strict, char **err)
{
	const char *line = text, *nl;
	char *name, *value;
	int lineno = 0, ret;

	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		lineno++;
		ret = parse_line(line, nl ? (size_t)(nl - line) : strlen(line),
				 &name, &value);
		if (ret < 0 && strict)
			return errmsg__set(err, -EINVAL,
					   "%s:%d: not a config line: '%.*s' "
					   "(expected CONFIG_NAME=VALUE or "
					   "'# CONFIG_NAME is not set')",
					   origin, lineno,
					   (int)(nl ? nl - line :
						      (long)strlen(line)),
					   line);
		if (ret <= 0)
			continue;
		kconfig__set(kc, name, value, origin);
		free(name);
		free(value);
	}
	return 0;
}

char *kconfig__format(const struct kconfig *kc)
{
	size_t i, len = 0, alloc = 0;
	char *buf = NULL, *line;

	for (i = 0; i < kc->nr; i++) {
		const struct kconfig_opt *o = &kc->opts[i];
		size_t n;

		line = o->value ?
			       xasprintf("%s=%s\n", o->name, o->value) :
			       xasprintf("# %s" NOT_SET_SUFFIX "\n", o->name);
		n = strlen(line);
		ALLOC_GROW(buf, len + n + 1, alloc);
		memcpy(buf + len, line, n + 1);
		len += n;
		free(line);
	}
	return buf ? buf : xstrdup("");
}

void kconfig__release(struct kconfig *kc)
{
	size_t i;

	for (i = 0; i < kc->nr; i++)
		free_all(kc->opts[i].name, kc->opts[i].value,
			 kc->opts[i].origin);
	free(kc->opts);
	memset(kc, 0, sizeof(*kc));
}

/*
 * A fragment's CONFIG_X=y for a member of a choice picks that member:
 * the siblings the fragments leave alone are unset, or the base's
 * member would win in olddefconfig.
 */
static void pick_choices(struct kconfig *kc, const struct kconfig *wanted,
			 const struct kconfig_tree *tree)
{
	struct strvec sibs = { 0 };
	size_t i, j;

	for (i = 0; tree && i < wanted->nr; i++) {
		const struct kconfig_opt *w = &wanted->opts[i];
		const struct kconfig_sym *s;
		char *why;

		if (!w->value || strcmp(w->value, "y"))
			continue;
		s = kconfig_tree__find(tree, w->name);
		if (!s || !s->choice)
			continue;
		kconfig_tree__siblings(tree, s, &sibs);
		why = xasprintf("%s (%s picks its choice)", w->origin, w->name);
		for (j = 0; j < sibs.nr; j++)
			if (!kconfig__get(wanted, sibs.v[j]))
				kconfig__set(kc, sibs.v[j], NULL, why);
		free(why);
		strvec__release(&sibs);
	}
}

int kconfig__merge(const char *base, const char *const *fragments,
		   const char *const *names, size_t nr,
		   const struct kconfig_tree *tree, char **merged,
		   struct kconfig *wanted, char **err)
{
	struct kconfig kc = { 0 }, frag;
	size_t i, j;
	int ret;

	ret = kconfig__parse(&kc, base, ".config", false, err);
	if (ret)
		goto out;
	for (i = 0; i < nr; i++) {
		memset(&frag, 0, sizeof(frag));
		ret = kconfig__parse(&frag, fragments[i], names[i], true, err);
		if (ret) {
			kconfig__release(&frag);
			goto out;
		}
		for (j = 0; j < frag.nr; j++) {
			const struct kconfig_opt *o = &frag.opts[j];

			kconfig__set(&kc, o->name, o->value, names[i]);
			kconfig__set(wanted, o->name, o->value, names[i]);
		}
		kconfig__release(&frag);
	}
	pick_choices(&kc, wanted, tree);
	*merged = kconfig__format(&kc);
out:
	kconfig__release(&kc);
	return ret;
}

static bool is_set(const struct kconfig *kc, const char *name)
{
	const struct kconfig_opt *o = kconfig__get(kc, name);

	return o && o->value && strcmp(o->value, "n");
}

/*
 * A "depends on" expression against @final: symbols, !, &&, || and
 * parentheses; a comparison (A = y, X >= 116) counts as true, since
 * only a false operand that is a plain symbol can be named as the one in
 * the way. Symbols that are off and make the expression false are
 * collected in @off.
 */
struct dep_eval {
	const char *p;
	const struct kconfig *final;
	const struct kconfig_tree *tree;
	struct strvec *off;
	int depth;     /* of '(' and '!' around the current atom */
	bool too_deep; /* DEP_MAX_DEPTH reached: not judged */
};

/*
 * The kernel's expressions nest a few levels; the tree's files are
 * outside input all the same, and each level is a frame of the stack.
 */
#define DEP_MAX_DEPTH 64

static bool dep_or(struct dep_eval *e);

static void dep_skip(struct dep_eval *e)
{
	while (*e->p == ' ' || *e->p == '\t')
		e->p++;
}

static bool dep_atom(struct dep_eval *e)
{
	static const char ident[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789_";
	size_t n;
	char *name;
	bool v;

	dep_skip(e);
	if ((*e->p == '!' || *e->p == '(') && e->depth >= DEP_MAX_DEPTH) {
		e->too_deep = true;
		e->p += strlen(e->p);
		return true;
	}
	if (*e->p == '!') {
		struct strvec *off = e->off;

		e->p++;
		/* What must be off is not what is in the way. */
		e->off = NULL;
		e->depth++;
		v = !dep_atom(e);
		e->depth--;
		e->off = off;
		return v;
	}
	if (*e->p == '(') {
		e->p++;
		e->depth++;
		v = dep_or(e);
		e->depth--;
		dep_skip(e);
		if (*e->p == ')')
			e->p++;
		return v;
	}
	if (*e->p == '"') {
		e->p = strchrnul(e->p + 1, '"');
		if (*e->p)
			e->p++;
		return true;
	}
	n = strspn(e->p, ident);
	if (!n) {
		if (*e->p)
			e->p++;
		return true;
	}
	name = xasprintf("CONFIG_%.*s", (int)n, e->p);
	e->p += n;
	dep_skip(e);
	/* A comparison: not judged here. */
	if (*e->p == '=' || *e->p == '<' || *e->p == '>' ||
	    (*e->p == '!' && e->p[1] == '=')) {
		e->p += strspn(e->p, "!=<>");
		dep_skip(e);
		e->p += *e->p == '"' ? 0 : strspn(e->p, ident);
		if (*e->p == '"') {
			e->p = strchrnul(e->p + 1, '"');
			if (*e->p)
				e->p++;
		}
		free(name);
		return true;
	}
	/* y, m, n and numbers are constants; a symbol no Kconfig file
	 * defines is off, and so is one the final .config does not set. */
	if (n == 1 && (name[7] == 'y' || name[7] == 'm'))
		v = true;
	else if (n == 1 && name[7] == 'n')
		v = false;
	else
		v = is_set(e->final, name);
	if (!v && e->off && !strvec__contains(e->off, name) &&
	    kconfig_tree__find(e->tree, name))
		strvec__push(e->off, name);
	free(name);
	return v;
}

static bool dep_and(struct dep_eval *e)
{
	bool v = dep_atom(e);

	for (;;) {
		dep_skip(e);
		if (e->p[0] != '&' || e->p[1] != '&')
			return v;
		e->p += 2;
		v = dep_atom(e) && v;
	}
}

static bool dep_or(struct dep_eval *e)
{
	struct strvec *off = e->off, mine = { 0 };
	bool v;

	/* An alternative that holds clears what the others left off. */
	e->off = &mine;
	v = dep_and(e);
	for (;;) {
		dep_skip(e);
		if (e->p[0] != '|' || e->p[1] != '|')
			break;
		e->p += 2;
		v = dep_and(e) || v;
	}
	e->off = off;
	for (size_t i = 0; !v && off && i < mine.nr; i++)
		if (!strvec__contains(off, mine.v[i]))
			strvec__push(off, mine.v[i]);
	strvec__release(&mine);
	return v;
}

/*
 * "CONFIG_A, CONFIG_B" when @expr is false in @final; else NULL, and
 * NULL too for one nested too deep to judge.
 */
static char *off_symbols(const char *expr, const struct kconfig *final,
			 const struct kconfig_tree *tree)
{
	struct strvec off = { 0 };
	struct dep_eval e = { expr, final, tree, &off, 0, false };
	char *list = NULL;

	if (!dep_or(&e) && !e.too_deep)
		list = off.nr ? strvec__join(&off, ", ") : xstrdup("");
	strvec__release(&off);
	return list;
}

/* Why @w did not land, from the Kconfig files; NULL: they do not say. */
static char *missing_reason(const struct kconfig_opt *w,
			    const struct kconfig *final,
			    const struct kconfig_tree *tree)
{
	const struct kconfig_sym *s = kconfig_tree__find(tree, w->name);
	struct strvec sibs = { 0 };
	char *why = NULL, *off;
	size_t i;

	if (!tree)
		return NULL;
	if (!s)
		return xstrdup("no Kconfig file of this tree defines it");
	if (!w->value)
		return xstrdup("another option selects it (a select wins "
			       "over a fragment)");
	if (s->choice) {
		kconfig_tree__siblings(tree, s, &sibs);
		for (i = 0; i < sibs.nr && !why; i++)
			if (is_set(final, sibs.v[i]))
				why = xasprintf("%s, another member of its "
						"choice, is set",
						sibs.v[i]);
		strvec__release(&sibs);
		if (why)
			return why;
	}
	for (i = 0; i < s->depends.nr && !why; i++) {
		off = off_symbols(s->depends.v[i], final, tree);
		if (off && *off)
			why = xasprintf("it depends on %s, and %s %s off",
					s->depends.v[i], off,
					strchr(off, ',') ? "are" : "is");
		else if (off)
			why = xasprintf("it depends on %s, which is false",
					s->depends.v[i]);
		free(off);
	}
	if (!why && w->value && s->depends.nr)
		why = xasprintf("it depends on %s", s->depends.v[0]);
	return why;
}

void kconfig__verify(const struct kconfig *wanted, const struct kconfig *final,
		     const struct kconfig_tree *tree,
		     struct kbuild_missing **missing, size_t *nr)
{
	size_t i, alloc = 0;

	*missing = NULL;
	*nr = 0;
	for (i = 0; i < wanted->nr; i++) {
		const struct kconfig_opt *w = &wanted->opts[i];
		const struct kconfig_opt *f = kconfig__get(final, w->name);
		const char *got = f ? f->value : NULL;
		struct kbuild_missing *m;

		if (!w->value ? !got : got && !strcmp(w->value, got))
			continue;
		ALLOC_GROW(*missing, *nr + 1, alloc);
		m = &(*missing)[(*nr)++];
		m->option = xstrdup(w->name);
		m->wanted = w->value ? xstrdup(w->value) : NULL;
		m->actual = got ? xstrdup(got) : NULL;
		m->fragment = xstrdup(w->origin ? w->origin : "?");
		m->reason = missing_reason(w, final, tree);
	}
}

void kbuild_missing__free(struct kbuild_missing *m, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free_all(m[i].option, m[i].wanted, m[i].actual, m[i].fragment,
			 m[i].reason);
	free(m);
}

char *kbuild_missing__describe(const struct kbuild_missing *m, size_t nr)
{
	char *text = xstrdup(""), *line;
	size_t i;

	for (i = 0; i < nr; i++) {
		line = xasprintf("%s%s  %s: wanted %s, got %s (from %s)%s%s",
				 text, i ? "\n" : "", m[i].option,
				 m[i].wanted ? m[i].wanted : "not set",
				 m[i].actual ? m[i].actual : "not set",
				 m[i].fragment, m[i].reason ? ": " : "",
				 m[i].reason ? m[i].reason : "");
		free(text);
		text = line;
	}
	return text;
}
