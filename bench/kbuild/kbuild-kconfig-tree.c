// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a tree's Kconfig files say of a symbol, as far as a fragment
 * needs it: whether it exists, the choice it is a member of, and what it
 * depends on. A user who writes CONFIG_IOMMU_DEFAULT_DMA_STRICT=y in a
 * fragment means "this member of the choice"; merge_config.sh leaves the
 * base's CONFIG_IOMMU_DEFAULT_DMA_LAZY=y beside it and olddefconfig lets
 * the base win. Knowing the choice, the merge unsets the siblings; and
 * an option that still does not land is reported with its reason.
 *
 * Not a Kconfig parser: the lines that open a config, a choice and an
 * if block, their ends, "depends on", and help texts skipped, which is
 * what has been stable in Kconfig's syntax for twenty years. Only the
 * built arch's arch/ folder is read, so another arch's choices never
 * pass for this one's.
 */
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>

#include "bench/kbuild/kbuild.h"
#include "errmsg.h"
#include "util.h"

struct load_ctx {
	struct kconfig_tree *t;
	const char *arch_dir; /* "SRC/arch/SRCARCH" */
	size_t arch_root_len; /* strlen("SRC/arch") */
	int ret;
};

/* Tabs to 8, as Kconfig counts a help text's indentation. */
static size_t indent_of(const char *line, size_t len)
{
	size_t i, w = 0;

	for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		w = line[i] == '\t' ? (w + 8) & ~7UL : w + 1;
	return w;
}

/* A kernel tree has some 20,000 symbols: looked up by hash. */
static size_t hash(const char *name, size_t len)
{
	size_t h = 14695981039346656037UL, i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211UL;
	return h;
}

static void index__grow(struct kconfig_tree *t)
{
	size_t i, j, size = t->index_size ? 2 * t->index_size : 1024;

	free(t->index);
	t->index = xcalloc(size, sizeof(*t->index));
	t->index_size = size;
	for (i = 0; i < t->nr; i++) {
		j = hash(t->syms[i].name, strlen(t->syms[i].name)) & (size - 1);
		while (t->index[j])
			j = (j + 1) & (size - 1);
		t->index[j] = i + 1;
	}
}

/* The slot of @name in the index: its entry, or the empty one to use. */
static size_t *index__slot(const struct kconfig_tree *t, const char *name,
			   size_t len)
{
	size_t j = hash(name, len) & (t->index_size - 1), k;

	while ((k = t->index[j])) {
		const char *n = t->syms[k - 1].name;

		if (strlen(n) == len && !strncmp(n, name, len))
			break;
		j = (j + 1) & (t->index_size - 1);
	}
	return &t->index[j];
}

static struct kconfig_sym *sym__get(struct kconfig_tree *t, const char *name,
				    size_t len)
{
	struct kconfig_sym *s;
	size_t *slot;

	if (2 * (t->nr + 1) > t->index_size)
		index__grow(t);
	slot = index__slot(t, name, len);
	if (*slot)
		return &t->syms[*slot - 1];
	ALLOC_GROW(t->syms, t->nr + 1, t->alloc);
	s = &t->syms[t->nr++];
	memset(s, 0, sizeof(*s));
	s->name = xstrndup(name, len);
	*slot = t->nr;
	return s;
}

/* @word at @p, followed by the end or a blank. */
static const char *keyword(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - p) < n || strncmp(p, word, n))
		return NULL;
	if (p + n < end && p[n] != ' ' && p[n] != '\t')
		return NULL;
	p += n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

void kconfig_tree__parse(struct kconfig_tree *t, const char *text)
{
	struct strvec ifs = { 0 };
	struct kconfig_sym *cur = NULL;
	const char *line, *nl, *p, *end, *v;
	size_t help_indent = 0, i;
	bool in_help = false;
	int choice = 0;

	for (line = text; *line; line = nl ? nl + 1 : end) {
		nl = strchr(line, '\n');
		end = nl ? nl : line + strlen(line);
		for (p = line; p < end && (*p == ' ' || *p == '\t'); p++)
			;
		if (p == end)
			continue;
		if (in_help) {
			if (indent_of(line, end - line) > help_indent)
				continue;
			in_help = false;
		}
		if (*p == '#')
			continue;
		if (keyword(p, end, "help") || keyword(p, end, "---help---")) {
			in_help = true;
			help_indent = indent_of(line, end - line);
		} else if ((v = keyword(p, end, "config")) ||
			   (v = keyword(p, end, "menuconfig"))) {
			size_t n = strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "abcdefghijklmnopqrstuvwxyz"
					     "0123456789_");

			cur = n ? sym__get(t, v, n) : NULL;
			if (!cur)
				continue;
			if (choice)
				cur->choice = choice;
			for (i = 0; i < ifs.nr; i++)
				strvec__push(&cur->depends, ifs.v[i]);
		} else if (keyword(p, end, "choice")) {
			choice = ++t->nr_choices;
			cur = NULL;
		} else if (keyword(p, end, "endchoice")) {
			choice = 0;
			cur = NULL;
		} else if ((v = keyword(p, end, "if"))) {
			strvec__pushf(&ifs, "%.*s", (int)(end - v), v);
			cur = NULL;
		} else if (keyword(p, end, "endif")) {
			if (ifs.nr)
				free(ifs.v[--ifs.nr]);
			cur = NULL;
		} else if ((v = keyword(p, end, "depends"))) {
			v = keyword(v, end, "on");
			if (cur && v)
				strvec__pushf(&cur->depends, "%.*s",
					      (int)(end - v), v);
		} else if (keyword(p, end, "menu") ||
			   keyword(p, end, "endmenu") ||
			   keyword(p, end, "comment") ||
			   keyword(p, end, "source") ||
			   keyword(p, end, "mainmenu")) {
			cur = NULL;
		}
	}
	strvec__release(&ifs);
}

/* nftw() passes no pointer of ours: one load at a time, as kbuild does. */
static struct load_ctx *load_ctx;

static int visit(const char *path, const struct stat *sb, int type,
		 struct FTW *ftw)
{
	struct load_ctx *c = load_ctx;
	const char *base = path + ftw->base;
	char *text = NULL;
	size_t len;
	int ret;

	(void)sb;
	if (type == FTW_D) {
		/* Another arch's choices are not this one's. */
		if (!strncmp(path, c->arch_dir, c->arch_root_len) &&
		    path[c->arch_root_len] == '/' &&
		    strchr(path + c->arch_root_len + 1, '/') == NULL &&
		    strcmp(path, c->arch_dir))
			return FTW_SKIP_SUBTREE;
		return base[0] == '.' && ftw->level ? FTW_SKIP_SUBTREE :
						      FTW_CONTINUE;
	}
	if (type != FTW_F || strncmp(base, "Kconfig", 7))
		return FTW_CONTINUE;
	ret = read_file(path, &text, &len);
	if (ret) {
		c->ret = ret;
		return FTW_STOP;
	}
	kconfig_tree__parse(c->t, text);
	free(text);
	return FTW_CONTINUE;
}

int kconfig_tree__load(struct kconfig_tree *t, const char *src,
		       const char *srcarch, char **err)
{
	struct load_ctx c = { .t = t };
	char *arch_dir = xasprintf("%s/arch/%s", src, srcarch);
	int ret;

	memset(t, 0, sizeof(*t));
	c.arch_dir = arch_dir;
	c.arch_root_len = strlen(src) + strlen("/arch");
	load_ctx = &c;
	ret = nftw(src, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	load_ctx = NULL;
	free(arch_dir);
	if (ret < 0 || c.ret) {
		ret = c.ret ? c.ret : -errno;
		errmsg__set(err, 0, "cannot read the Kconfig files of %s: %s",
			    src, strerror(-ret));
		kconfig_tree__release(t);
		return ret;
	}
	return 0;
}

const struct kconfig_sym *kconfig_tree__find(const struct kconfig_tree *t,
					     const char *option)
{
	const char *name = strncmp(option, "CONFIG_", 7) ? option : option + 7;
	size_t *slot;

	if (!t || !t->index_size)
		return NULL;
	slot = index__slot(t, name, strlen(name));
	return *slot ? &t->syms[*slot - 1] : NULL;
}

void kconfig_tree__siblings(const struct kconfig_tree *t,
			    const struct kconfig_sym *s, struct strvec *out)
{
	size_t i;

	for (i = 0; s && s->choice && i < t->nr; i++)
		if (t->syms[i].choice == s->choice && &t->syms[i] != s)
			strvec__pushf(out, "CONFIG_%s", t->syms[i].name);
}

void kconfig_tree__release(struct kconfig_tree *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		free(t->syms[i].name);
		strvec__release(&t->syms[i].depends);
	}
	free(t->syms);
	free(t->index);
	memset(t, 0, sizeof(*t));
}
