// SPDX-License-Identifier: GPL-2.0-only
/*
 * reboot = "grub": the next boot, and that one only, through firmware
 * and grub into a kernel with the mode's command line. grub-reboot can
 * only pick an entry grub's menu has, and the distribution's entries
 * carry the distribution's arguments; so the entry that boots the image
 * is copied, with the mode's arguments on its linux line, into a file
 * of its own (iommu-bench-oneshot.cfg beside grub.cfg), which grub.cfg
 * sources through a hook in /etc/grub.d installed once. grub-reboot
 * then names that entry: grub clears the choice as it boots it, so a
 * boot that hangs is followed, after a power cycle, by the machine's
 * own default entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic-file.h"
#include "bench/agent/agent-grub.h"
#include "bench/agent/agent-kernel-priv.h"
#include "bench/agent/agent.h"
#include "collectors/hostfacts/hostfacts.h"
#include "errmsg.h"
#include "util.h"

#define GRUB_DIR "/boot/grub"
#define GRUB_CFG GRUB_DIR "/grub.cfg"
#define HOOK "/etc/grub.d/42_iommu-bench"
#define MKCONFIG_TIMEOUT_MS (5 * 60 * 1000)

static const char hook_text[] =
	"#!/bin/sh\n"
	"# Installed by iommu-bench: its reboot = \"grub\" boots once into\n"
	"# the entry of " AGENT_GRUB_FILE ", through grub-reboot\n"
	"# " AGENT_GRUB_ID ". Removing this file and running update-grub\n"
	"# undoes it.\n"
	"cat <<'EOF'\n"
	"if [ -f \"${config_directory}/" AGENT_GRUB_FILE "\" ]; then\n"
	"\tsource \"${config_directory}/" AGENT_GRUB_FILE "\"\n"
	"elif [ -z \"${config_directory}\" -a -f \"$prefix/" AGENT_GRUB_FILE
	"\" ]; then\n"
	"\tsource \"$prefix/" AGENT_GRUB_FILE "\"\n"
	"fi\n"
	"EOF\n";

static char *under(const char *root, const char *path)
{
	return xasprintf("%s%s", root && strcmp(root, "/") ? root : "", path);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * The entry's linux line with @add in place of what they set: the
 * command and the image as they are, the arguments through the same
 * rewrite kexec's command line gets.
 */
static char *linux_line(const char *line, const char *const *add, size_t nr_add)
{
	size_t cmd = strcspn(line, " \t"), sp, img;
	const char *rest;
	char *args, *out;

	sp = cmd + strspn(line + cmd, " \t");
	img = strcspn(line + sp, " \t");
	rest = line + sp + img;
	rest += strspn(rest, " \t");
	args = agent_reboot__cmdline(rest, add, nr_add);
	out = xasprintf("%.*s %.*s %s", (int)cmd, line, (int)img, line + sp,
			args);
	free(args);
	return out;
}

static bool is_linux_cmd(const char *line)
{
	size_t n = strcspn(line, " \t");

	return (n == 5 && !strncmp(line, "linux", 5)) ||
	       (n == 8 && !strncmp(line, "linuxefi", 8)) ||
	       (n == 7 && !strncmp(line, "linux16", 7));
}

int agent_grub__plan(const char *root, const char *image,
		     const char *const *add, size_t nr_add,
		     struct agent_grub_plan *pl, char **err)
{
	struct hostfacts_grub g;
	const struct hostfacts_grub_entry *e = NULL;
	char *cfg_path = under(root, GRUB_CFG), *text = NULL, *line, *save;
	char *body = NULL, *out = NULL, *next;
	size_t i, len;
	int ret;

	memset(pl, 0, sizeof(*pl));
	ret = hostfacts__grub(root, &g);
	if (!g.grub_reboot) {
		ret = errmsg__set(err, -EOPNOTSUPP,
				  "reboot.prepare: this machine has no "
				  "grub-reboot (Debian's grub2-common): "
				  "reboot = \"grub\" needs grub's tools; use "
				  "reboot = \"kexec\"");
		goto out;
	}
	if (g.config_err) {
		ret = errmsg__set(err, g.config_err,
				  "reboot.prepare: cannot read %s: %s",
				  GRUB_CFG, strerror(-g.config_err));
		goto out;
	}
	for (i = 0; i < g.nr_entries && !e; i++)
		if (g.entries[i].image && g.entries[i].body &&
		    !strcmp(base_name(g.entries[i].image), base_name(image)))
			e = &g.entries[i];
	if (!e) {
		ret = errmsg__set(err, -ENOENT,
				  "reboot.prepare: no menuentry in %s boots %s "
				  "(is the kernel installed in /boot, and "
				  "update-grub run since?)",
				  GRUB_CFG, image);
		goto out;
	}
	body = xstrdup(e->body);
	out = xstrdup("");
	for (line = strtok_r(body, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *l = is_linux_cmd(line) ? linux_line(line, add, nr_add) :
					       xstrdup(line);

		if (is_linux_cmd(line)) {
			/* After the command and the image: its arguments. */
			const char *a = l + strcspn(l, " \t");

			a += strspn(a, " \t");
			a += strcspn(a, " \t");
			a += strspn(a, " \t");
			free(pl->cmdline);
			pl->cmdline = xstrdup(a);
		}
		next = xasprintf("%s\t%s\n", out, l);
		free(out);
		free(l);
		out = next;
	}
	pl->text = xasprintf(
		"# Written by iommu-bench for one boot (grub-reboot "
		"%s); grub.cfg sources it through " HOOK ".\n"
		"menuentry 'iommu-bench: %s, once' --id %s {\n"
		"%s}\n",
		AGENT_GRUB_ID, base_name(e->image), AGENT_GRUB_ID, out);
	pl->entry_title = xasprintf("%s%s%s", e->submenu ? e->submenu : "",
				    e->submenu ? ">" : "", e->title);
	pl->file = under(root, GRUB_DIR "/" AGENT_GRUB_FILE);
	pl->hook = under(root, HOOK);
	pl->tool = xstrdup(g.grub_reboot);
	ret = read_file(cfg_path, &text, &len);
	pl->hooked = !ret && strstr(text, AGENT_GRUB_FILE);
	ret = 0;
out:
	free_all(cfg_path, text, body, out);
	hostfacts__grub_release(&g);
	if (ret)
		agent_grub__plan_release(pl);
	return ret;
}

void agent_grub__plan_release(struct agent_grub_plan *pl)
{
	free_all(pl->text, pl->cmdline, pl->entry_title, pl->file, pl->hook,
		 pl->tool);
	memset(pl, 0, sizeof(*pl));
}

/* The distribution's generator of grub.cfg, run. */
int agent_grub__mkconfig(const char *verb, const char **by, char **err)
{
	static const char *const tools[] = { "update-grub", "grub-mkconfig",
					     "grub2-mkconfig" };
	char *path = NULL;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(tools) && !path; i++)
		path = path__which(tools[i]);
	if (!path)
		return errmsg__set(
			err, -ENOENT,
			"%s: no grub config generator (update-grub, "
			"grub-mkconfig, grub2-mkconfig) on this host",
			verb);
	i--;
	ret = agent_kernel__run_argv(
		verb,
		i ? (const char *const[]){ path, "-o",
					   i == 1 ? GRUB_CFG :
						    "/boot/grub2/grub.cfg",
					   NULL } :
		    (const char *const[]){ path, NULL },
		MKCONFIG_TIMEOUT_MS, NULL, NULL, err);
	if (!ret && by)
		*by = tools[i];
	free(path);
	return ret;
}

int agent_grub__install(const struct agent_grub_plan *pl, char **err)
{
	struct iovec iov;
	char *text = NULL;
	size_t len;
	int ret;

	if (!pl->hooked) {
		iov = (struct iovec){ (void *)hook_text,
				      sizeof(hook_text) - 1 };
		ret = atomic_file__write(pl->hook, &iov, 1);
		if (!ret && chmod(pl->hook, 0755))
			ret = -errno;
		if (ret)
			return errmsg__set(err, ret,
					   "reboot.prepare: cannot write %s: "
					   "%s",
					   pl->hook, strerror(-ret));
		ret = agent_grub__mkconfig("reboot.prepare", NULL, err);
		if (ret)
			return ret;
		ret = read_file(GRUB_CFG, &text, &len);
		if (ret || !strstr(text, AGENT_GRUB_FILE))
			ret = errmsg__set(err, -EIO,
					  "reboot.prepare: %s does not source "
					  "%s after update-grub: is %s run by "
					  "this machine's grub-mkconfig?",
					  GRUB_CFG, AGENT_GRUB_FILE, pl->hook);
		free(text);
		if (ret)
			return ret;
	}
	iov = (struct iovec){ pl->text, strlen(pl->text) };
	ret = atomic_file__write(pl->file, &iov, 1);
	if (ret)
		return errmsg__set(err, ret,
				   "reboot.prepare: cannot write %s: %s",
				   pl->file, strerror(-ret));
	return 0;
}
