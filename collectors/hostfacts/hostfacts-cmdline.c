// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IOMMU keys of the kernel command line and the mode they ask for,
 * read the way the kernel reads them: the last word on a key wins, and
 * passthrough trumps strict/lazy (no DMA domain, nothing to invalidate).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

/* What one key does to the boot's state; -1 in a field: no change. */
struct cmdline_effect {
	int passthrough;
	int strict;
	bool disables;
};

/* The kernel's kstrtobool(): 1, 0, or -1 when it would be -EINVAL. */
static int kstrtobool(const char *s)
{
	switch (s[0]) {
	case 'y':
	case 'Y':
	case '1':
		return 1;
	case 'n':
	case 'N':
	case '0':
		return 0;
	case 'o':
	case 'O':
		if (s[1] == 'n' || s[1] == 'N')
			return 1;
		if (s[1] == 'f' || s[1] == 'F')
			return 0;
		return -1;
	default:
		return -1;
	}
}

/* x86's iommu=, intel_iommu= and amd_iommu= take comma-separated words. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, word, n))
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

static void key_effect(const char *key, const char *value,
		       struct cmdline_effect *e)
{
	e->passthrough = -1;
	e->strict = -1;
	e->disables = false;
	if (!strcmp(key, "iommu.strict") && *value) {
		e->strict = kstrtobool(value);
	} else if (!strcmp(key, "iommu.passthrough") && *value) {
		e->passthrough = kstrtobool(value);
	} else if (!strcmp(key, "iommu")) {
		if (has_word(value, "pt"))
			e->passthrough = 1;
		if (has_word(value, "nopt"))
			e->passthrough = 0;
		if (has_word(value, "strict"))
			e->strict = 1;
		e->disables = has_word(value, "off");
	} else if (!strcmp(key, "intel_iommu")) {
		/* "strict" is deprecated for iommu.strict=1, still honoured */
		if (has_word(value, "strict"))
			e->strict = 1;
		e->disables = has_word(value, "off");
	} else if (!strcmp(key, "amd_iommu")) {
		if (has_word(value, "fullflush"))
			e->strict = 1;
		e->disables = has_word(value, "off");
	}
}

static enum hostfacts_dma_mode effect_mode(const struct cmdline_effect *e)
{
	if (e->passthrough == 1)
		return HOSTFACTS_DMA_PASSTHROUGH;
	if (e->strict == 1)
		return HOSTFACTS_DMA_STRICT;
	if (e->strict == 0)
		return HOSTFACTS_DMA_LAZY;
	return HOSTFACTS_DMA_UNKNOWN;
}

static bool key_is_iommu(const char *key)
{
	return !strcmp(key, "iommu") || !strncmp(key, "iommu.", 6) ||
	       !strcmp(key, "intel_iommu") || !strcmp(key, "amd_iommu");
}

/* The next word of @p, quotes removed as the kernel's next_arg() does. */
static char *next_word(const char **pp)
{
	const char *p = *pp;
	bool quoted = false;
	size_t len = 0;
	char *w;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	w = xmalloc(strlen(p) + 1);
	for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
		if (*p == '"')
			quoted = !quoted;
		else
			w[len++] = *p;
	}
	w[len] = '\0';
	*pp = p;
	return w;
}

int hostfacts__cmdline_keys(const char *cmdline,
			    struct hostfacts_cmdline_key **keys, size_t *nr)
{
	struct hostfacts_cmdline_key *k = NULL;
	size_t n = 0, alloc = 0;
	const char *p = cmdline;
	struct cmdline_effect e;
	char *w, *eq;

	while ((w = next_word(&p))) {
		/* What follows "--" is init's, not the kernel's. */
		if (!strcmp(w, "--")) {
			free(w);
			break;
		}
		eq = strchr(w, '=');
		if (eq)
			*eq = '\0';
		if (!key_is_iommu(w)) {
			free(w);
			continue;
		}
		ALLOC_GROW(k, n + 1, alloc);
		k[n].key = xstrdup(w);
		k[n].value = xstrdup(eq ? eq + 1 : "");
		key_effect(k[n].key, k[n].value, &e);
		k[n].means = effect_mode(&e);
		k[n].disables = e.disables;
		n++;
		free(w);
	}
	*keys = k;
	*nr = n;
	return 0;
}

void hostfacts__cmdline_keys_free(struct hostfacts_cmdline_key *keys, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(keys[i].key);
		free(keys[i].value);
	}
	free(keys);
}

/*
 * The mode the whole command line asks for, UNKNOWN when it asks for
 * none; *@disabled when a key turns the IOMMU off.
 */
enum hostfacts_dma_mode
hf_cmdline_mode(const struct hostfacts_cmdline_key *keys, size_t nr,
		bool *disabled)
{
	struct cmdline_effect all = { -1, -1, false }, e;
	size_t i;

	for (i = 0; i < nr; i++) {
		key_effect(keys[i].key, keys[i].value, &e);
		if (e.passthrough >= 0)
			all.passthrough = e.passthrough;
		if (e.strict >= 0)
			all.strict = e.strict;
		all.disables |= e.disables;
	}
	*disabled = all.disables;
	return effect_mode(&all);
}
