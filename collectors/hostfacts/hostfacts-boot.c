// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which boot loader started this kernel, and from which entry. No file
 * says so outright: systemd-boot (and grub 2.12's bli module) leave the
 * LoaderInfo EFI variable, grub puts BOOT_IMAGE= on the command line; a
 * kernel QEMU or kexec started leaves neither, whatever is installed.
 * So the answer comes with its evidence, and grub's configuration is
 * reported whether or not grub is what booted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

/* The Boot Loader Interface's vendor GUID (systemd-boot, grub's bli). */
#define LOADER_GUID "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"

/* A UTF-16LE EFI string variable as ASCII, others bytes as '?'. */
static char *efivar_string(const char *root, const char *name)
{
	unsigned char *data;
	size_t len, i, n = 0;
	unsigned int c;
	char *s;

	if (hf_efivar_read(root, name, &data, &len))
		return NULL;
	s = xmalloc(len / 2 + 1);
	for (i = 0; i + 1 < len && n < HF_STR_MAX; i += 2) {
		c = data[i] | (unsigned int)data[i + 1] << 8;
		if (!c)
			break;
		s[n++] = c >= ' ' && c <= '~' ? (char)c : '?';
	}
	s[n] = '\0';
	free(data);
	if (!n) {
		free(s);
		return NULL;
	}
	return s;
}

/* BOOT_IMAGE=... of the kernel's command line, or NULL. */
static char *boot_image(const char *cmdline)
{
	char *w;

	while (cmdline && !hf_word(&cmdline, HF_STR_MAX, &w)) {
		if (!strncmp(w, "BOOT_IMAGE=", 11)) {
			memmove(w, w + 11, strlen(w + 11) + 1);
			return w;
		}
		/* Init's arguments follow "--": not the loader's. */
		if (!strcmp(w, "--")) {
			free(w);
			break;
		}
		free(w);
	}
	return NULL;
}

/* "systemd-boot 252.30-1~deb12u2" -> "systemd-boot"; "GRUB 2.12" -> "grub" */
static char *loader_name(const char *info)
{
	char *name = xstrndup(info, strcspn(info, " "));
	char *p;

	for (p = name; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p += 'a' - 'A';
	return name;
}

int hostfacts__boot_loader(const char *root, struct hostfacts_boot_loader *bl)
{
	struct strvec ev = { 0 };
	char *cmdline = NULL;

	memset(bl, 0, sizeof(*bl));
	bl->booted = -1;
	bl->grub_err = hostfacts__grub(root, &bl->grub);
	bl->loader_info = efivar_string(root, "LoaderInfo-" LOADER_GUID);
	bl->loader_entry =
		efivar_string(root, "LoaderEntrySelected-" LOADER_GUID);
	if (!hostfacts__cmdline(root, &cmdline))
		bl->boot_image = boot_image(cmdline);

	if (bl->loader_info) {
		bl->name = loader_name(bl->loader_info);
		strvec__pushf(&ev, "the LoaderInfo EFI variable says '%s'",
			      bl->loader_info);
	}
	if (bl->boot_image) {
		if (!bl->name)
			bl->name = xstrdup("grub");
		strvec__pushf(&ev,
			      "the command line has BOOT_IMAGE=%s, which grub "
			      "puts there",
			      bl->boot_image);
	}
	if (bl->boot_image && bl->grub.nr_entries) {
		bl->booted = hostfacts__grub_booted(&bl->grub, cmdline,
						    &bl->booted_exact);
		if (bl->booted < 0)
			strvec__pushf(&ev,
				      "no entry of %s boots %s: the menu "
				      "changed since, or the entry was "
				      "edited at the prompt",
				      bl->grub.config, bl->boot_image);
		else if (!bl->booted_exact)
			strvec__pushf(&ev,
				      "entry '%s' boots that image, but with "
				      "other arguments than the kernel got",
				      bl->grub.entries[bl->booted].title);
	}
	if (!bl->name)
		strvec__push(&ev, "no LoaderInfo EFI variable and no "
				  "BOOT_IMAGE= on the command line: the "
				  "kernel was started directly (QEMU -kernel, "
				  "kexec) or by a loader that leaves no trace");
	free(cmdline);
	bl->evidence = ev.v;
	bl->nr_evidence = ev.nr;
	return bl->name ? 0 : -ENOENT;
}

void hostfacts__boot_loader_release(struct hostfacts_boot_loader *bl)
{
	free_all(bl->name, bl->loader_info, bl->loader_entry, bl->boot_image);
	strv_free(bl->evidence, bl->nr_evidence);
	hostfacts__grub_release(&bl->grub);
	memset(bl, 0, sizeof(*bl));
}

static json_t *grub_entry_json(const struct hostfacts_grub_entry *e)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "title",
			 json_string_or_null(e->title), "id",
			 json_string_or_null(e->id), "submenu",
			 json_string_or_null(e->submenu), "linux",
			 json_string_or_null(e->image), "args",
			 json_string_or_null(e->args));
}

static json_t *grub_json(const struct hostfacts_grub *g)
{
	json_t *entries = json_array();
	size_t i;

	for (i = 0; i < g->nr_entries; i++)
		json_array_append_new(entries, grub_entry_json(&g->entries[i]));
	return json_pack("{s:o, s:o, s:b, s:o, s:o, s:{s:o, s:o, s:o, s:o}, "
			 "s:{s:o, s:o}}",
			 "config", json_string_or_null(g->config), "entries",
			 entries, "entries_truncated", g->truncated,
			 "saved_entry", json_string_or_null(g->saved_entry),
			 "next_entry", json_string_or_null(g->next_entry),
			 "defaults", "files",
			 json_strings(g->defaults_files, g->nr_defaults_files),
			 "GRUB_DEFAULT", json_string_or_null(g->grub_default),
			 "GRUB_CMDLINE_LINUX",
			 json_string_or_null(g->cmdline_linux),
			 "GRUB_CMDLINE_LINUX_DEFAULT",
			 json_string_or_null(g->cmdline_linux_default), "tools",
			 "grub-reboot", json_string_or_null(g->grub_reboot),
			 "grub-editenv", json_string_or_null(g->grub_editenv));
}

static json_t *booted_json(const struct hostfacts_boot_loader *bl)
{
	const struct hostfacts_grub_entry *e;

	if (bl->booted >= 0) {
		e = &bl->grub.entries[bl->booted];
		return json_pack("{s:I, s:o, s:o, s:o, s:b}", "index",
				 (json_int_t)bl->booted, "title",
				 json_string_or_null(e->title), "id",
				 json_string_or_null(e->id), "submenu",
				 json_string_or_null(e->submenu), "exact",
				 bl->booted_exact);
	}
	/* systemd-boot names its entry by the file it came from. */
	if (bl->loader_entry)
		return json_pack("{s:n, s:n, s:o, s:n, s:b}", "index", "title",
				 "id", json_string_or_null(bl->loader_entry),
				 "submenu", "exact", 1);
	return json_null();
}

static void grub_warnings(const struct hostfacts_grub *g, int err,
			  struct strvec *warn)
{
	if (err == -ENOENT) {
		strvec__push(warn, "grub: none of /boot/grub/grub.cfg, "
				   "/boot/grub/grubenv, /etc/default/grub "
				   "exists");
		return;
	}
	if (!g->config)
		strvec__pushf(warn, "grub: /boot/grub/grub.cfg: %s",
			      strerror(-g->config_err));
	if (g->truncated)
		strvec__pushf(warn,
			      "grub: more than %d menu entries in "
			      "/boot/grub/grub.cfg; the rest left out",
			      HOSTFACTS_GRUB_MAX_ENTRIES);
}

json_t *hf_json_boot_loader(const char *root, struct strvec *warn)
{
	struct hostfacts_boot_loader bl;
	json_t *o;

	if (hostfacts__boot_loader(root, &bl))
		strvec__push(warn, "boot loader: no trace of one (no "
				   "LoaderInfo EFI variable, no BOOT_IMAGE= "
				   "on the command line)");
	else if (bl.boot_image && bl.grub.nr_entries && bl.booted < 0)
		strvec__pushf(warn, "boot loader: no grub entry boots %s",
			      bl.boot_image);
	grub_warnings(&bl.grub, bl.grub_err, warn);
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
		      json_string_or_null(bl.name), "evidence",
		      json_strings(bl.evidence, bl.nr_evidence), "loader_info",
		      json_string_or_null(bl.loader_info), "loader_entry",
		      json_string_or_null(bl.loader_entry), "boot_image",
		      json_string_or_null(bl.boot_image), "booted_entry",
		      booted_json(&bl), "grub",
		      bl.grub_err ? json_null() : grub_json(&bl.grub));
	hostfacts__boot_loader_release(&bl);
	return o;
}
