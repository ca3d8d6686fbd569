// SPDX-License-Identifier: GPL-2.0-only
/*
 * Configuration files read as text, never run: KEY=value files
 * (os-release, /etc/default/grub, grubenv) and words quoted as a shell
 * or grub quotes them. These files are written by people and tools we do
 * not control, so every length is capped and a quote left open ends at
 * the end of the line instead of swallowing the rest of the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

char *hf_strcap(const char *s, size_t len, size_t max)
{
	return xstrndup(s, len < max ? len : max);
}

int hf_read_capped(char **out, size_t *len, size_t max, const char *root,
		   const char *path)
{
	char *full = hf_path(root, "%s", path);
	struct stat sb;
	int err;

	if (stat(full, &sb)) {
		err = -errno;
		goto out;
	}
	/* A regular file this big is not a configuration file. */
	if (S_ISREG(sb.st_mode) && (size_t)sb.st_size > max) {
		err = -EFBIG;
		goto out;
	}
	err = read_file(full, out, len);
out:
	free(full);
	return err;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Append @c unless the word is full: what is past the cap is dropped. */
static void word_put(char *w, size_t *n, size_t max, char c)
{
	if (*n < max)
		w[(*n)++] = c;
}

int hf_word(const char **pp, size_t max, char **out)
{
	const char *p = *pp;
	char quote = 0, *w;
	size_t n = 0;

	while (*p && *p != '\n' && is_blank(*p))
		p++;
	if (!*p || *p == '\n') {
		*pp = p;
		return -ENOENT;
	}
	w = xmalloc(max + 1);
	for (; *p && *p != '\n'; p++) {
		if (quote == '\'') {
			if (*p == '\'')
				quote = 0;
			else
				word_put(w, &n, max, *p);
		} else if (quote == '"') {
			if (*p == '"')
				quote = 0;
			else if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
				word_put(w, &n, max, *++p);
			else
				word_put(w, &n, max, *p);
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '\\' && p[1] && p[1] != '\n') {
			word_put(w, &n, max, *++p);
		} else if (is_blank(*p)) {
			break;
		} else {
			word_put(w, &n, max, *p);
		}
	}
	w[n] = '\0';
	*pp = p;
	*out = w;
	return 0;
}

int hf_words_join(const char *s, size_t max, char **out)
{
	struct strvec words = { 0 };
	char *w, *joined;
	int err = -ENOENT;

	while (!hf_word(&s, max, &w)) {
		strvec__push_nodup(&words, w);
		err = 0;
	}
	if (err)
		return err;
	joined = strvec__join(&words, " ");
	*out = hf_strcap(joined, strlen(joined), max);
	free(joined);
	strvec__release(&words);
	return 0;
}

/* @line's value when it sets @key ("KEY=", "export KEY="), else NULL. */
static const char *keyval_match(const char *line, const char *key)
{
	size_t klen = strlen(key);

	while (*line == ' ' || *line == '\t')
		line++;
	if (!strncmp(line, "export", 6) && (line[6] == ' ' || line[6] == '\t'))
		line += 6 + strspn(line + 6, " \t");
	if (strncmp(line, key, klen) || line[klen] != '=')
		return NULL;
	return line + klen + 1;
}

static char *keyval_value(const char *v, bool unquote)
{
	size_t len;
	char *w;

	if (!unquote) {
		len = strcspn(v, "\r\n");
		return hf_strcap(v, len, HF_STR_MAX);
	}
	/* KEY= alone, or KEY= followed by a comment, is set and empty. */
	if (*v == '#' || hf_word(&v, HF_ARGS_MAX, &w))
		return xstrdup("");
	return w;
}

int hf_keyval_read(const char *root, const char *path, const char *const *keys,
		   char **vals, bool unquote)
{
	const char *line, *next, *v;
	size_t len, i;
	char *buf;
	int err;

	err = hf_read_capped(&buf, &len, HF_FILE_MAX, root, path);
	if (err)
		return err;
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			next++;
		for (i = 0; keys[i]; i++) {
			v = keyval_match(line, keys[i]);
			if (!v)
				continue;
			/* As a shell sourcing it would: the last one wins. */
			free(vals[i]);
			vals[i] = keyval_value(v, unquote);
			break;
		}
	}
	free(buf);
	return 0;
}
