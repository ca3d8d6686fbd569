// SPDX-License-Identifier: GPL-2.0-only
/*
 * reboot.prepare / reboot.now. kexec loads the kernel with the mode's
 * command line at prepare and jumps at now; grub writes a one-shot entry
 * with the mode's command line and sets it for the next boot only
 * (agent-grub.c: a hang falls back to the default entry on the next
 * reset), and reboots through firmware at now. "dry_run": true in args answers with the argv
 * instead of running it: the only way to test this without rebooting.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "bench/agent/agent-grub.h"
#include "bench/agent/agent.h"
#include "collectors/hostfacts/hostfacts.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

/*
 * Keys that choose a DMA policy, which each mode sets afresh, and the
 * boot loader's own, which kexec re-adds. intel_iommu= and amd_iommu=
 * stay: they also switch the IOMMU on, and a "strict" boot without
 * intel_iommu=on would have no IOMMU at all on some kernels.
 */
static bool managed(const char *tok)
{
	static const char *const prefixes[] = {
		"iommu.strict=", "iommu.passthrough=", "BOOT_IMAGE=", "initrd=",
		NULL
	};
	const char *const *p;

	for (p = prefixes; *p; p++)
		if (!strncmp(tok, *p, strlen(*p)))
			return true;
	return !strcmp(tok, "iommu=pt") || !strcmp(tok, "iommu=nopt");
}

/* A key the mode sets itself replaces the current one (key=... or flag). */
static bool set_by_mode(const char *tok, const char *const *add, size_t nr_add)
{
	size_t klen = strcspn(tok, "="), i;

	for (i = 0; i < nr_add; i++)
		if (strcspn(add[i], "=") == klen && !strncmp(add[i], tok, klen))
			return true;
	return false;
}

/* The length of the token at @s: up to a space outside double quotes. */
static size_t token_len(const char *s)
{
	bool quoted = false;
	size_t n = 0;

	for (; s[n] && (quoted || s[n] != ' '); n++)
		if (s[n] == '"')
			quoted = !quoted;
	return n;
}

static void append(char **out, size_t *len, const char *s, size_t n)
{
	*out = xrealloc(*out, *len + n + 2);
	if (*len)
		(*out)[(*len)++] = ' ';
	memcpy(*out + *len, s, n);
	*len += n;
	(*out)[*len] = '\0';
}

char *agent_reboot__cmdline(const char *current, const char *const *add,
			    size_t nr_add)
{
	char *out = xstrdup("");
	size_t len = 0, i;
	const char *p = current ? current : "";
	bool added = false;

	while (*p) {
		size_t n;
		char *tok;

		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		if (!*p)
			break;
		n = token_len(p);
		/* After "--" the words are init's: the mode goes before. */
		if (n == 2 && !strncmp(p, "--", 2) && !added) {
			for (i = 0; i < nr_add; i++)
				append(&out, &len, add[i], strlen(add[i]));
			added = true;
		}
		tok = xstrndup(p, n);
		if (added || !(managed(tok) || set_by_mode(tok, add, nr_add)))
			append(&out, &len, p, n);
		free(tok);
		p += n;
	}
	for (i = 0; !added && i < nr_add; i++)
		append(&out, &len, add[i], strlen(add[i]));
	return out;
}

static bool in_path(const char *prog)
{
	char *p = path__which(prog);
	bool found = p != NULL;

	free(p);
	return found;
}

static json_t *argv_json(char *const *argv)
{
	json_t *a = json_array();

	for (; *argv; argv++)
		json_array_append_new(a, json_string(*argv));
	return a;
}

static void argv_free(char **argv)
{
	char **p;

	for (p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

static int run_argv(char *const *argv, char **err)
{
	struct spawn sp;
	char how[96], last[256];
	int ret;

	ret = spawn__run(&sp, (const char *const *)argv,
			 &(struct spawn_opts){ .flags = SPAWN_CAPTURE_ERR |
							SPAWN_NULL_OUT },
			 120000);
	if (ret < 0 || !spawn__succeeded(&sp)) {
		ret = errmsg__set(
			err, ret < 0 ? ret : -EIO, "%s failed: %s: %s", argv[0],
			ret < 0 ? strerror(-ret) :
				  spawn__describe(&sp, how, sizeof(how)),
			spawn__last_line(sp.err, last, sizeof(last)));
	}
	spawn__release(&sp);
	return ret;
}

/* A path under /boot or an absolute path of the safe charset. */
static int check_path(const char *what, const char *p, char **err)
{
	if (!p || p[0] != '/' || strstr(p, "..") ||
	    strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-+/") != strlen(p))
		return errmsg__set(
			err, -EINVAL,
			"reboot.prepare: bad \"%s\" '%s' (expected an "
			"absolute path of [A-Za-z0-9._+-/])",
			what, p ? p : "(not a string)");
	return 0;
}

/* args.cmdline checked, as a NULL-terminated list (new, not its words). */
static int cmdline_add(json_t *args, const char ***out, size_t *nr, char **err)
{
	json_t *a = json_object_get(args, "cmdline");
	const char **add;
	size_t i, n = json_array_size(a);

	if (a && !json_is_array(a))
		return errmsg__set(err, -EINVAL,
				   "reboot.prepare: \"cmdline\" must be an "
				   "array of kernel arguments");
	add = xcalloc(n + 1, sizeof(*add));
	for (i = 0; i < n; i++) {
		add[i] = json_string_value(json_array_get(a, i));
		if (!add[i] || !*add[i] || strpbrk(add[i], " \t\n\"'")) {
			free(add);
			return errmsg__set(err, -EINVAL,
					   "reboot.prepare: cmdline entry %zu "
					   "must be one word without quotes",
					   i);
		}
	}
	*out = add;
	*nr = n;
	return 0;
}

/* kexec's command line: the running boot's (or the given one) and @add. */
static char *kexec_cmdline(json_t *args, const char *const *add, size_t n)
{
	const char *pc;
	char *cur = NULL, *out;

	/* Tests pass the "current" line; a real prepare reads the boot's. */
	pc = json_string_value(json_object_get(args, "current_cmdline"));
	if (!pc)
		hostfacts__cmdline(NULL, &cur);
	out = agent_reboot__cmdline(pc ? pc : cur, add, n);
	free(cur);
	return out;
}

static char **argv_new(const char *a0, const char *a1, const char *a2,
		       const char *a3, const char *a4)
{
	const char *v[] = { a0, a1, a2, a3, a4 };
	char **argv = xcalloc(ARRAY_SIZE(v) + 1, sizeof(*argv));
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v) && v[i]; i++)
		argv[i] = xstrdup(v[i]);
	return argv;
}

/*
 * The release whose /boot files are the defaults: "release" in args (a
 * boot back to the kernel a run found, from another it booted), else
 * the running one.
 */
static int default_release(json_t *args, char **rel, char **err)
{
	json_t *r = json_object_get(args, "release");
	const char *s = json_string_value(r);

	if (!r) {
		hostfacts__kernel_release(NULL, rel);
		return 0;
	}
	if (!s || !*s || s[0] == '.' || s[0] == '-' || strlen(s) > 128 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._+~-") != strlen(s))
		return errmsg__set(err, -EINVAL,
				   "reboot.prepare: bad \"release\" (expected "
				   "a kernel release of [A-Za-z0-9._+~-])");
	*rel = xstrdup(s);
	return 0;
}

/* Debian's initrd name, else Fedora's (dracut); NULL: the kernel has none. */
static char *default_initrd(const char *rel)
{
	char *p = xasprintf("/boot/initrd.img-%s", rel);

	if (!access(p, F_OK))
		return p;
	free(p);
	p = xasprintf("/boot/initramfs-%s.img", rel);
	if (!access(p, F_OK))
		return p;
	free(p);
	return NULL;
}

/*
 * The kernel to boot, checked: "image", else the release's (args' or the
 * running one's) /boot/vmlinuz, a new string in *@def to free with *@rel.
 */
static int boot_image(json_t *args, const char **image, char **rel, char **def,
		      char **err)
{
	int ret = default_release(args, rel, err);

	if (ret)
		return ret;
	if (!*image)
		*image = *def = xasprintf("/boot/vmlinuz-%s", *rel ? *rel : "");
	return check_path("image", *image, err);
}

static int prepare_kexec(json_t *args, const char *cmdline, char ***argv,
			 char **err)
{
	const char *image = json_string_value(json_object_get(args, "image"));
	const char *initrd = json_string_value(json_object_get(args, "initrd"));
	char *rel = NULL, *def_img = NULL, *def_rd = NULL, *i_opt, *c_opt;
	int ret;

	ret = boot_image(args, &image, &rel, &def_img, err);
	if (ret)
		goto out;
	/* A dry run shows the Debian name whether or not it is there. */
	if (!initrd && !json_is_false(json_object_get(args, "initrd")))
		initrd = def_rd =
			json_is_true(json_object_get(args, "dry_run")) ?
				xasprintf("/boot/initrd.img-%s",
					  rel ? rel : "") :
				default_initrd(rel ? rel : "");
	if (initrd)
		ret = check_path("initrd", initrd, err);
	if (!ret) {
		i_opt = initrd ? xasprintf("--initrd=%s", initrd) : NULL;
		c_opt = xasprintf("--command-line=%s", cmdline);
		*argv = i_opt ? argv_new("kexec", "-l", image, i_opt, c_opt) :
				argv_new("kexec", "-l", image, c_opt, NULL);
		free(i_opt);
		free(c_opt);
	}
out:
	free_all(rel, def_img, def_rd);
	return ret;
}

/*
 * The one-shot entry (agent-grub.c), then grub-reboot naming it. A dry
 * run writes nothing; it alone may read another root (tests' "root").
 */
static int prepare_grub(json_t *args, const char *const *add, size_t nr_add,
			bool dry, char **cmdline, char ***argv, json_t *res,
			char **err)
{
	const char *image = json_string_value(json_object_get(args, "image"));
	const char *root =
		dry ? json_string_value(json_object_get(args, "root")) : NULL;
	struct agent_grub_plan pl = { 0 };
	char *rel = NULL, *def = NULL;
	int ret;

	ret = boot_image(args, &image, &rel, &def, err);
	if (!ret)
		ret = agent_grub__plan(root ? root : "/", image, add, nr_add,
				       &pl, err);
	if (!ret && !dry)
		ret = agent_grub__install(&pl, err);
	if (!ret) {
		*cmdline = xstrdup(pl.cmdline ? pl.cmdline : "");
		*argv = argv_new(pl.tool, AGENT_GRUB_ID, NULL, NULL, NULL);
		json_object_set_new(res, "entry", json_string(pl.entry_title));
		json_object_set_new(res, "oneshot", json_string(pl.text));
		json_object_set_new(res, "hook_installed",
				    json_boolean(!pl.hooked));
	}
	agent_grub__plan_release(&pl);
	free_all(rel, def);
	return ret;
}

int agent_verb__reboot_prepare(struct agent *a, json_t *args, json_t **res,
			       char **err)
{
	const char *method = json_string_value(json_object_get(args, "method"));
	bool dry = json_is_true(json_object_get(args, "dry_run"));
	char *cmdline = NULL, **argv = NULL;
	json_t *out = json_object();
	const char **add = NULL;
	size_t nr_add = 0;
	int ret;

	(void)a;
	if (!method || (strcmp(method, "kexec") && strcmp(method, "grub"))) {
		json_decref(out);
		return errmsg__set(
			err, -EINVAL,
			"reboot.prepare: \"method\" must be \"kexec\" "
			"or \"grub\"");
	}
	ret = cmdline_add(args, &add, &nr_add, err);
	if (!ret && !strcmp(method, "kexec")) {
		cmdline = kexec_cmdline(args, add, nr_add);
		ret = prepare_kexec(args, cmdline, &argv, err);
	} else if (!ret) {
		ret = prepare_grub(args, add, nr_add, dry, &cmdline, &argv, out,
				   err);
	}
	if (!ret && !dry)
		ret = run_argv(argv, err);
	if (!ret) {
		json_object_set_new(out, "method", json_string(method));
		json_object_set_new(out, "cmdline", json_string(cmdline));
		json_object_set_new(out, "argv", argv_json(argv));
		json_object_set_new(out, "dry_run", json_boolean(dry));
		*res = out;
		out = NULL;
	}
	json_decref(out);
	argv_free(argv);
	free(add);
	free(cmdline);
	return ret;
}

int agent_verb__reboot_now(struct agent *a, json_t *args, json_t **res,
			   char **err)
{
	const char *method = json_string_value(json_object_get(args, "method"));
	bool dry = json_is_true(json_object_get(args, "dry_run"));
	/*
	 * systemd's own test (sd_booted): systemctl being installed is not
	 * systemd running, and `systemctl kexec` without it does nothing
	 * (the testbed guest has the controller's systemctl and busybox's
	 * init).
	 */
	bool systemctl = in_path("systemctl") &&
			 !access("/run/systemd/system", F_OK);
	char **argv;

	if (!method || (strcmp(method, "kexec") && strcmp(method, "grub") &&
			strcmp(method, "poweroff")))
		return errmsg__set(err, -EINVAL,
				   "reboot.now: \"method\" must be \"kexec\", "
				   "\"grub\" or \"poweroff\"");
	a->power_off = false;
	if (!strcmp(method, "poweroff")) {
		/*
		 * A lab's job ends when its guest powers off. Neither
		 * systemctl (no systemd in the testbed's guest) nor
		 * busybox (not in the controller's root it runs from)
		 * can be counted on: reboot(2) itself.
		 */
		argv = argv_new("reboot(RB_POWER_OFF)", NULL, NULL, NULL, NULL);
		a->power_off = !dry;
	} else if (!strcmp(method, "kexec"))
		argv = systemctl ? argv_new("systemctl", "kexec", NULL, NULL,
					    NULL) :
				   argv_new("kexec", "-e", NULL, NULL, NULL);
	else
		argv = systemctl ? argv_new("systemctl", "reboot", NULL, NULL,
					    NULL) :
				   argv_new("reboot", NULL, NULL, NULL, NULL);
	*res = json_pack("{s:s, s:o, s:b}", "method", method, "argv",
			 argv_json(argv), "dry_run", dry);
	if (dry) {
		argv_free(argv);
		return 0;
	}
	/* Answered first: the controller must know the host goes down on
	 * purpose before its connection drops. */
	argv_free(a->after_reply);
	a->after_reply = argv;
	return 0;
}

int agent__run_after_reply(struct agent *a)
{
	char **argv = a->after_reply;
	char *err = NULL;
	int ret;

	a->after_reply = NULL;
	if (!argv)
		return 0;
	if (a->power_off) {
		a->power_off = false;
		argv_free(argv);
		pr_info("agent: powering off");
		sync();
		if (reboot(RB_POWER_OFF) < 0) {
			ret = -errno;
			pr_err("agent: cannot power off: %s", strerror(-ret));
			return ret;
		}
		return 0;
	}
	pr_info("agent: running %s %s", argv[0], argv[1] ? argv[1] : "");
	ret = run_argv(argv, &err);
	if (ret < 0)
		pr_err("agent: %s", err ? err : strerror(-ret));
	free(err);
	argv_free(argv);
	return ret;
}
