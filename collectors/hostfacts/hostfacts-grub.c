// SPDX-License-Identifier: GPL-2.0-only
/*
 * grub as a lab machine has it: the menu entries of /boot/grub/grub.cfg,
 * the one-shot and saved choices of grubenv, the defaults grub-mkconfig
 * was given, and whether the tools that change them are installed.
 * `reboot = "grub"` picks an entry by these titles and ids, and the
 * report names the entry that booted; nothing here runs grub's tools.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

/* Deeper nesting than this is not a menu a person could use. */
#define GRUB_MAX_DEPTH 16

enum block_kind { BLOCK_OTHER, BLOCK_ENTRY, BLOCK_SUBMENU };

struct block {
	enum block_kind kind;
	char *title; /* a submenu's; kept until the slot is reused */
};

struct cfg_parse {
	struct hostfacts_grub *g;
	struct block stack[GRUB_MAX_DEPTH];
	size_t depth;	    /* may exceed GRUB_MAX_DEPTH: not recorded */
	long entry;	    /* the open entry's index; -1: none recorded */
	size_t entry_depth; /* the depth inside it */
};

static void cfg_push(struct cfg_parse *p, enum block_kind kind, char *title)
{
	if (p->depth < GRUB_MAX_DEPTH) {
		p->stack[p->depth].kind = kind;
		free(p->stack[p->depth].title);
		p->stack[p->depth].title = title;
	} else {
		free(title);
	}
	p->depth++;
}

static void cfg_pop(struct cfg_parse *p)
{
	if (!p->depth)
		return; /* a stray brace: grub would refuse; we go on */
	p->depth--;
	if (p->depth < p->entry_depth)
		p->entry = -1;
}

/* The innermost submenu the open block is in; NULL: the top menu. */
static const char *cfg_submenu(const struct cfg_parse *p)
{
	size_t i = p->depth < GRUB_MAX_DEPTH ? p->depth : GRUB_MAX_DEPTH;

	while (i--)
		if (p->stack[i].kind == BLOCK_SUBMENU)
			return p->stack[i].title;
	return NULL;
}

/*
 * "menuentry 'Title' --class debian $menuentry_id_option 'id' {": the
 * title is the first word; Debian spells --id through a variable that
 * grub.cfg sets to "--id" where the running grub knows the option.
 */
static void cfg_menu_line(struct cfg_parse *p, const char *rest,
			  enum block_kind kind)
{
	struct hostfacts_grub *g = p->g;
	struct hostfacts_grub_entry *e;
	char *title = NULL, *w, *id = NULL;
	bool want_id = false;

	if (hf_word(&rest, HF_STR_MAX, &title))
		title = xstrdup("");
	while (!hf_word(&rest, HF_STR_MAX, &w)) {
		if (want_id) {
			free(id);
			id = w;
			want_id = false;
			continue;
		}
		if (!strcmp(w, "--id") || !strcmp(w, "$menuentry_id_option") ||
		    !strcmp(w, "${menuentry_id_option}"))
			want_id = true;
		else if (!strncmp(w, "--id=", 5)) {
			free(id);
			id = xstrdup(w + 5);
		}
		free(w);
	}
	if (kind == BLOCK_SUBMENU) {
		free(id);
		cfg_push(p, BLOCK_SUBMENU, title);
		return;
	}
	if (g->nr_entries >= HOSTFACTS_GRUB_MAX_ENTRIES) {
		g->truncated = true;
		free_all(title, id);
		cfg_push(p, BLOCK_ENTRY, NULL);
		p->entry = -1;
		return;
	}
	g->entries =
		xrealloc(g->entries, (g->nr_entries + 1) * sizeof(*g->entries));
	e = &g->entries[g->nr_entries];
	memset(e, 0, sizeof(*e));
	e->title = title;
	e->id = id;
	if (cfg_submenu(p))
		e->submenu = xstrdup(cfg_submenu(p));
	cfg_push(p, BLOCK_ENTRY, NULL);
	p->entry = (long)g->nr_entries++;
	p->entry_depth = p->depth;
}

/* "linux /boot/vmlinuz-6.1.0-18-amd64 root=UUID=... ro quiet" */
static void cfg_linux_line(struct cfg_parse *p, const char *rest)
{
	struct hostfacts_grub_entry *e;
	char *image;

	if (p->entry < 0 || hf_word(&rest, HF_STR_MAX, &image))
		return;
	e = &p->g->entries[p->entry];
	free(e->image);
	free(e->args);
	e->image = image;
	if (hf_words_join(rest, HF_ARGS_MAX, &e->args))
		e->args = xstrdup("");
}

static bool ends_with_brace(const char *line, size_t len)
{
	while (len && strchr(" \t\r", line[len - 1]))
		len--;
	return len && line[len - 1] == '{';
}

/* The raw line, trimmed, onto the open entry's body. */
static void cfg_body(struct cfg_parse *p, const char *line, size_t len)
{
	struct hostfacts_grub_entry *e = &p->g->entries[p->entry];
	size_t have = e->body ? strlen(e->body) : 0;

	while (len && strchr(" \t", *line)) {
		line++;
		len--;
	}
	while (len && strchr(" \t\r", line[len - 1]))
		len--;
	if (!len || have + len + 2 > HOSTFACTS_GRUB_MAX_BODY)
		return;
	e->body = xrealloc(e->body, have + len + 2);
	memcpy(e->body + have, line, len);
	e->body[have + len] = '\n';
	e->body[have + len + 1] = '\0';
}

static void cfg_line(struct cfg_parse *p, const char *line, size_t len)
{
	const char *rest = line;
	long before = p->entry;
	char *cmd;

	if (hf_word(&rest, 32, &cmd))
		return;
	if (cmd[0] == '#') {
		/* a comment: nothing */
	} else if (!strcmp(cmd, "menuentry")) {
		cfg_menu_line(p, rest, BLOCK_ENTRY);
	} else if (!strcmp(cmd, "submenu")) {
		cfg_menu_line(p, rest, BLOCK_SUBMENU);
	} else if (!strcmp(cmd, "}")) {
		cfg_pop(p);
	} else if (p->entry >= 0 &&
		   (!strcmp(cmd, "linux") || !strcmp(cmd, "linuxefi") ||
		    !strcmp(cmd, "linux16"))) {
		cfg_linux_line(p, rest);
	} else if (ends_with_brace(line, len)) {
		/* "function load_video {": its "}" must not close an entry */
		cfg_push(p, BLOCK_OTHER, NULL);
	}
	/* Inside the entry it was in and still is: one of its commands. */
	if (before >= 0 && p->entry == before)
		cfg_body(p, line, len);
	free(cmd);
}

void hf_grub_cfg_parse(const char *text, struct hostfacts_grub *g)
{
	struct cfg_parse p = { .g = g, .entry = -1 };
	const char *line, *next;
	size_t i, len;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		if (next)
			next++;
		cfg_line(&p, line, len);
	}
	for (i = 0; i < GRUB_MAX_DEPTH; i++)
		free(p.stack[i].title);
}

/* /etc/default/grub, then the .cfg files of grub.d, as mkconfig reads. */
static void grub_defaults(const char *root, struct hostfacts_grub *g)
{
	static const char *const keys[] = { "GRUB_DEFAULT",
					    "GRUB_CMDLINE_LINUX",
					    "GRUB_CMDLINE_LINUX_DEFAULT",
					    NULL };
	char *vals[3] = { 0 }, **names = NULL, *path;
	struct strvec files = { 0 };
	size_t nr = 0, i, n;

	if (!hf_keyval_read(root, "/etc/default/grub", keys, vals, true))
		strvec__push(&files, "/etc/default/grub");
	if (!hf_list_dir(&names, &nr, NULL, root, "/etc/default/grub.d")) {
		for (i = 0; i < nr; i++) {
			n = strlen(names[i]);
			if (n < 4 || strcmp(names[i] + n - 4, ".cfg"))
				continue;
			path = xasprintf("/etc/default/grub.d/%s", names[i]);
			if (!hf_keyval_read(root, path, keys, vals, true))
				strvec__push_nodup(&files, path);
			else
				free(path);
		}
		strv_free(names, nr);
	}
	g->defaults_files = files.v;
	g->nr_defaults_files = files.nr;
	g->grub_default = vals[0];
	g->cmdline_linux = vals[1];
	g->cmdline_linux_default = vals[2];
}

/* The tool's path under @root, as root's $PATH would find it; or NULL. */
static char *grub_tool(const char *root, const char *tool)
{
	static const char *const dirs[] = { "/usr/sbin", "/usr/bin", "/sbin",
					    "/bin" };
	struct stat sb;
	char *full;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		full = hf_path(root, "%s/%s", dirs[i], tool);
		if (!stat(full, &sb) && S_ISREG(sb.st_mode) &&
		    (sb.st_mode & 0111)) {
			free(full);
			return xasprintf("%s/%s", dirs[i], tool);
		}
		free(full);
	}
	return NULL;
}

int hostfacts__grub(const char *root, struct hostfacts_grub *g)
{
	static const char *const env_keys[] = { "saved_entry", "next_entry",
						NULL };
	char *env[2] = { 0 }, *cfg;
	size_t len;
	int err;

	memset(g, 0, sizeof(*g));
	err = hf_read_capped(&cfg, &len, HF_FILE_MAX, root,
			     "/boot/grub/grub.cfg");
	if (!err) {
		g->config = xstrdup("/boot/grub/grub.cfg");
		hf_grub_cfg_parse(cfg, g);
		free(cfg);
	}
	g->config_err = err;
	/* grubenv is raw: grub-editenv writes values unquoted. */
	if (!hf_keyval_read(root, "/boot/grub/grubenv", env_keys, env, false))
		g->env = true;
	g->saved_entry = env[0];
	g->next_entry = env[1];
	grub_defaults(root, g);
	g->grub_reboot = grub_tool(root, "grub-reboot");
	g->grub_editenv = grub_tool(root, "grub-editenv");
	if (!g->config && !g->env && !g->nr_defaults_files)
		return -ENOENT;
	return 0;
}

void hostfacts__grub_release(struct hostfacts_grub *g)
{
	size_t i;

	for (i = 0; i < g->nr_entries; i++)
		free_all(g->entries[i].title, g->entries[i].id,
			 g->entries[i].submenu, g->entries[i].image,
			 g->entries[i].args, g->entries[i].body);
	free(g->entries);
	free_all(g->config, g->saved_entry, g->next_entry, g->grub_default,
		 g->cmdline_linux, g->cmdline_linux_default, g->grub_reboot,
		 g->grub_editenv);
	strv_free(g->defaults_files, g->nr_defaults_files);
	memset(g, 0, sizeof(*g));
}

/* grub names a file on another partition "(hd0,gpt2)/vmlinuz-...". */
static const char *no_device(const char *path)
{
	const char *close;

	if (*path == '(' && (close = strchr(path, ')')))
		return close + 1;
	return path;
}

/* How many words @args has, each a word of @words; -1: one is not. */
static long args_within(const char *args, const struct strvec *words)
{
	long n = 0;
	char *w;

	while (n >= 0 && !hf_word(&args, HF_ARGS_MAX, &w)) {
		n = strvec__contains(words, w) ? n + 1 : -1;
		free(w);
	}
	return n;
}

long hostfacts__grub_booted(const struct hostfacts_grub *g, const char *cmdline,
			    bool *exact)
{
	struct strvec words = { 0 };
	const char *image = NULL;
	long best = -1, first = -1, n, best_n = -1;
	size_t i;
	char *w;

	*exact = false;
	while (cmdline && !hf_word(&cmdline, HF_ARGS_MAX, &w))
		strvec__push_nodup(&words, w);
	for (i = 0; i < words.nr && !image; i++)
		if (!strncmp(words.v[i], "BOOT_IMAGE=", 11))
			image = no_device(words.v[i] + 11);
	for (i = 0; image && i < g->nr_entries; i++) {
		const struct hostfacts_grub_entry *e = &g->entries[i];

		if (!e->image || strcmp(no_device(e->image), image))
			continue;
		if (first < 0)
			first = (long)i;
		/*
		 * The normal entry and its recovery twin share the image;
		 * the one whose every argument the kernel got, and the most
		 * of them (a one-shot entry adds iommu.strict=1), booted.
		 */
		n = args_within(e->args ? e->args : "", &words);
		if (n > best_n) {
			best = (long)i;
			best_n = n;
		}
	}
	strvec__release(&words);
	if (best >= 0)
		*exact = true;
	return best >= 0 ? best : first;
}
