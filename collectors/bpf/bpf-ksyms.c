// SPDX-License-Identifier: GPL-2.0-only
/*
 * Function names from /proc/kallsyms. Names are what kprobes attach by,
 * so the index is the text file itself, its names pointed into and
 * sorted. Addresses (zeros without CAP_SYSLOG) and the order of the
 * lines serve one case: a name two drivers both define (arm-smmu and
 * arm-smmu-v3 built in together), where a kprobe by name is refused and
 * the one to probe is the one beside its own driver's other functions.
 *
 * GCC renames the functions it specialises: "foo.isra.0" (scalar
 * replacement of aggregates), "foo.constprop.0", "foo.part.0". Such a
 * clone is the function's only entry point when the original is gone,
 * and a kprobe must name it so; BTF knows it as plain "foo".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/bpf/bpf-probes.h"
#include "util.h"

struct ksym {
	const char *name;
	const char *module; /* NULL: vmlinux */
	unsigned long long addr;
	size_t line; /* in the file: a driver's functions sit together */
};

struct ksyms {
	char *text;
	struct ksym *syms;
	size_t nr, alloc;
};

static int ksym__cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Only code: t/T (text) and w/W (weak); data symbols cannot be probed. */
static bool type_is_text(char c)
{
	return c == 't' || c == 'T' || c == 'w' || c == 'W';
}

/* "ffffffff81d8f0f0 t name\t[module]" */
static void ksyms__add_line(struct ksyms *ks, char *line, size_t lineno)
{
	char *type, *name, *mod, *end;

	type = strchr(line, ' ');
	if (!type || !type_is_text(type[1]) || type[2] != ' ')
		return;
	name = type + 3;
	end = name + strcspn(name, " \t");
	mod = NULL;
	if (*end) {
		*end = '\0';
		mod = strchr(end + 1, '[');
		if (mod) {
			mod++;
			mod[strcspn(mod, "]")] = '\0';
		}
	}
	if (!*name)
		return;
	ALLOC_GROW(ks->syms, ks->nr + 1, ks->alloc);
	ks->syms[ks->nr].name = name;
	ks->syms[ks->nr].module = mod;
	ks->syms[ks->nr].addr = strtoull(line, NULL, 16);
	ks->syms[ks->nr].line = lineno;
	ks->nr++;
}

int ksyms__parse(const char *text, struct ksyms **out)
{
	struct ksyms *ks = xcalloc(1, sizeof(*ks));
	char *line, *next;
	size_t n = 0;

	ks->text = xstrdup(text);
	for (line = ks->text; line && *line; line = next, n++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ksyms__add_line(ks, line, n);
	}
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), ksym__cmp);
	*out = ks;
	return 0;
}

int ksyms__load(const char *path, struct ksyms **out)
{
	char *text;
	size_t len;
	int err;

	err = read_file(path, &text, &len);
	if (err)
		return err;
	err = ksyms__parse(text, out);
	free(text);
	return err;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free_all(ks->syms, ks->text, ks);
}

/* Index of the first symbol >= @name. */
static size_t ksyms__lower_bound(const struct ksyms *ks, const char *name)
{
	size_t lo = 0, hi = ks->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ".isra.0", ".constprop.12", ".part.3": a clone that is an entry point. */
static bool is_clone_suffix(const char *s)
{
	static const char *const kinds[] = { "isra", "constprop", "part",
					     "lto_priv", NULL };
	const char *const *k;

	if (*s++ != '.')
		return false;
	for (k = kinds; *k; k++) {
		size_t n = strlen(*k);

		if (!strncmp(s, *k, n) && s[n] == '.' && s[n + 1]) {
			s += n + 1;
			/* constprop.0.isra.0: clones of clones */
			while (*s >= '0' && *s <= '9')
				s++;
			return !*s || is_clone_suffix(s);
		}
	}
	return false;
}

int ksyms__find(const struct ksyms *ks, const char *name, struct ksym_match *m)
{
	size_t len = strlen(name), i;
	const struct ksym *clone = NULL;
	unsigned int exact = 0, clones = 0;

	memset(m, 0, sizeof(*m));
	for (i = ksyms__lower_bound(ks, name); i < ks->nr; i++) {
		const struct ksym *s = &ks->syms[i];

		if (strncmp(s->name, name, len))
			break;
		if (!s->name[len]) {
			if (!exact++) {
				m->symbol = s->name;
				m->module = s->module;
			}
		} else if (is_clone_suffix(s->name + len)) {
			if (!clones++)
				clone = s;
		}
	}
	if (exact) {
		m->count = exact;
		return 0;
	}
	if (!clones)
		return -ENOENT;
	m->symbol = clone->name;
	m->module = clone->module;
	m->count = clones;
	return 0;
}

int ksyms__nearest(const struct ksyms *ks, const char *name, const char *near,
		   unsigned long long *addr)
{
	const struct ksym *best = NULL, *anchor = NULL;
	size_t i, d, best_d = 0;

	for (i = ksyms__lower_bound(ks, near); i < ks->nr; i++) {
		if (strcmp(ks->syms[i].name, near))
			break;
		if (anchor)
			return -ENOTUNIQ; /* the anchor must be unique */
		anchor = &ks->syms[i];
	}
	if (!anchor)
		return -ENOENT;
	for (i = ksyms__lower_bound(ks, name); i < ks->nr; i++) {
		const struct ksym *s = &ks->syms[i];

		if (strcmp(s->name, name))
			break;
		if ((s->module == NULL) != (anchor->module == NULL) ||
		    (s->module && strcmp(s->module, anchor->module)))
			continue;
		d = s->line > anchor->line ? s->line - anchor->line :
					     anchor->line - s->line;
		if (!best || d < best_d) {
			best = s;
			best_d = d;
		}
	}
	if (!best)
		return -ENOENT;
	if (!best->addr)
		return -EPERM; /* kallsyms hides addresses from us */
	*addr = best->addr;
	return 0;
}
