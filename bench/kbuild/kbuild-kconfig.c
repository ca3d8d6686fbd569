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
	size_t i;

	for (i = 0; i < kc->nr; i++)
		if (!strcmp(kc->opts[i].name, name))
			return &kc->opts[i];
	return NULL;
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
		if (ret < 0 && strict) {
			*err = xasprintf("%s:%d: not a config line: '%.*s' "
					 "(expected CONFIG_NAME=VALUE or "
					 "'# CONFIG_NAME is not set')",
					 origin, lineno,
					 (int)(nl ? nl - line :
						    (long)strlen(line)),
					 line);
			return -EINVAL;
		}
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

	for (i = 0; i < kc->nr; i++) {
		free(kc->opts[i].name);
		free(kc->opts[i].value);
		free(kc->opts[i].origin);
	}
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
 * The symbols a dependency names that are off in @final, "CONFIG_A,
 * CONFIG_B"; NULL when none is (the expression is off for another
 * reason, a "!" or a comparison).
 */
static char *off_symbols(const char *expr, const struct kconfig *final,
			 const struct kconfig_tree *tree)
{
	struct strvec off = { 0 };
	const char *p = expr;
	char *name, *list = NULL;
	size_t n;

	while (*p) {
		n = strspn(
			p,
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			"0123456789_");
		if (!n) {
			p++;
			continue;
		}
		bool negated = p > expr && p[-1] == '!';

		name = xasprintf("CONFIG_%.*s", (int)n, p);
		/* y, m, n and numbers are constants, not symbols; a symbol
		 * that must be off is not the one in the way. */
		if (!negated && kconfig_tree__find(tree, name) &&
		    !is_set(final, name) && !strvec__contains(&off, name))
			strvec__push(&off, name);
		free(name);
		p += n;
	}
	if (off.nr)
		list = strvec__join(&off, ", ");
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
		if (off)
			why = xasprintf("it depends on %s, and %s %s off",
					s->depends.v[i], off,
					strchr(off, ',') ? "are" : "is");
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

	for (i = 0; i < nr; i++) {
		free(m[i].option);
		free(m[i].wanted);
		free(m[i].actual);
		free(m[i].fragment);
		free(m[i].reason);
	}
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
