// SPDX-License-Identifier: GPL-2.0-only
/*
 * reboot.prepare / reboot.now without rebooting: the command line a mode
 * boots with, and the argv each method would run (dry_run), including
 * the grub entry found in a scratch grub.cfg.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/agent/agent.h"
#include "errmsg.h"
#include "log.h"
#include "tap.h"
#include "util.h"

static void test_cmdline(void)
{
	const char *strict[] = { "iommu.strict=1" };
	const char *pt[] = { "iommu=pt", "intel_iommu=on" };
	char *s;

	s = agent_reboot__cmdline("BOOT_IMAGE=/vmlinuz-6.1 root=UUID=ab ro "
				  "iommu.strict=0 quiet",
				  strict, 1);
	is_str(s, "root=UUID=ab ro quiet iommu.strict=1",
	       "the old strict key and BOOT_IMAGE go, the mode's comes");
	free(s);
	s = agent_reboot__cmdline("root=/dev/vda1 intel_iommu=on,sm_on "
				  "iommu=pt amd_iommu=off iommu.passthrough=1 "
				  "console=ttyS0",
				  NULL, 0);
	is_str(s,
	       "root=/dev/vda1 intel_iommu=on,sm_on amd_iommu=off "
	       "console=ttyS0",
	       "policy keys are dropped; the driver switches stay");
	free(s);
	s = agent_reboot__cmdline("root=/dev/vda1 intel_iommu=off quiet", pt,
				  2);
	is_str(s, "root=/dev/vda1 quiet iommu=pt intel_iommu=on",
	       "a key the mode sets replaces the current one");
	free(s);
	s = agent_reboot__cmdline("root=/dev/vda1 dyndbg=\"file a.c +p\" -- "
				  "iommu=pt single",
				  pt, 2);
	is_str(s,
	       "root=/dev/vda1 dyndbg=\"file a.c +p\" iommu=pt "
	       "intel_iommu=on -- iommu=pt single",
	       "quoted values stay whole; init's words after -- are kept");
	free(s);
	s = agent_reboot__cmdline("ro iommu=nopt iommu=soft", NULL, 0);
	is_str(s, "ro iommu=soft", "iommu=nopt goes, iommu=soft stays");
	free(s);
}

static json_t *call(const char *verb, json_t *args, int *ret, char **err)
{
	struct agent a = { 0 };
	json_t *res = NULL;

	*err = NULL;
	*ret = agent_verb__find(verb)->fn(&a, args, &res, err);
	agent__release(&a);
	json_decref(args);
	return res;
}

/* @verb refuses @args (taken) with -EINVAL, its words holding @says. */
static void refused(const char *verb, json_t *args, const char *what,
		    const char *says, const char *how)
{
	char *err;
	json_t *r;
	int ret;

	r = call(verb, args, &ret, &err);
	is_int(ret, -EINVAL, "%s", what);
	if (says)
		has_str(err, says, "%s", how);
	json_decref(r);
	errmsg__clear(&err);
}

static const char *argv_at(json_t *r, size_t i)
{
	return json_string_value(json_array_get(json_object_get(r, "argv"), i));
}

static void test_kexec(void)
{
	json_t *r;
	char *err;
	int ret;

	r = call("reboot.prepare",
		 json_pack("{s:s, s:s, s:s, s:[s], s:s, s:b}", "method",
			   "kexec", "image", "/boot/vmlinuz-6.1.0-57-amd64",
			   "initrd", "/boot/initrd.img-6.1.0-57-amd64",
			   "cmdline", "iommu.strict=0", "current_cmdline",
			   "BOOT_IMAGE=/boot/vmlinuz ro iommu.strict=1",
			   "dry_run", 1),
		 &ret, &err);
	is_int(ret, 0, "kexec prepare (dry run)");
	is_str(argv_at(r, 0), "kexec", "argv[0] kexec");
	is_str(argv_at(r, 1), "-l", "argv[1] -l");
	is_str(argv_at(r, 2), "/boot/vmlinuz-6.1.0-57-amd64", "the image");
	is_str(argv_at(r, 3), "--initrd=/boot/initrd.img-6.1.0-57-amd64",
	       "the initrd");
	is_str(argv_at(r, 4), "--command-line=ro iommu.strict=0",
	       "the composed command line, one argument");
	ok(!argv_at(r, 5), "nothing more");
	json_decref(r);
	errmsg__clear(&err);

	refused("reboot.prepare",
		json_pack("{s:s, s:s, s:b}", "method", "kexec", "image",
			  "/boot/x;reboot", "dry_run", 1),
		"a bad image path is refused", "'/boot/x;reboot'",
		"... naming it");
	refused("reboot.prepare",
		json_pack("{s:s, s:[s], s:b}", "method", "kexec", "cmdline",
			  "a b", "dry_run", 1),
		"a cmdline entry with a space is refused", NULL, NULL);

	/* Back to the kernel a run found, from a build it booted. */
	r = call("reboot.prepare",
		 json_pack("{s:s, s:s, s:[], s:b}", "method", "kexec",
			   "release", "6.1.0-57-amd64", "cmdline", "dry_run",
			   1),
		 &ret, &err);
	is_int(ret, 0, "kexec by release (dry run): %s", err ? err : "ok");
	is_str(argv_at(r, 2), "/boot/vmlinuz-6.1.0-57-amd64",
	       "the image is that release's, not the running one's");
	is_str(argv_at(r, 3), "--initrd=/boot/initrd.img-6.1.0-57-amd64",
	       "and so is the initrd");
	json_decref(r);
	errmsg__clear(&err);
	refused("reboot.prepare",
		json_pack("{s:s, s:s, s:[], s:b}", "method", "kexec", "release",
			  "../../etc", "cmdline", "dry_run", 1),
		"a release that is a path is refused", NULL, NULL);

	r = call("reboot.now",
		 json_pack("{s:s, s:b}", "method", "kexec", "dry_run", 1), &ret,
		 &err);
	is_int(ret, 0, "kexec now (dry run)");
	ok((!strcmp(argv_at(r, 0), "systemctl") &&
	    !strcmp(argv_at(r, 1), "kexec")) ||
		   (!strcmp(argv_at(r, 0), "kexec") &&
		    !strcmp(argv_at(r, 1), "-e")),
	   "systemctl kexec, or kexec -e without systemd (%s %s)",
	   argv_at(r, 0), argv_at(r, 1));
	json_decref(r);
	errmsg__clear(&err);
	/* A lab's job ends at its guest's power-off: reboot(2) itself. */
	r = call("reboot.now",
		 json_pack("{s:s, s:b}", "method", "poweroff", "dry_run", 1),
		 &ret, &err);
	is_int(ret, 0, "poweroff now (dry run)");
	is_str(argv_at(r, 0), "reboot(RB_POWER_OFF)",
	       "it is the system call, no command");
	json_decref(r);
	errmsg__clear(&err);
	refused("reboot.now",
		json_pack("{s:s, s:b}", "method", "halt", "dry_run", 1),
		"another method is refused", "\"poweroff\"",
		"... naming the three");
}

static const char grub_cfg[] =
	"function load_video {\n"
	"\tinsmod all_video\n"
	"}\n"
	"menuentry 'Debian GNU/Linux' --class debian {\n"
	"\tload_video\n"
	"\tsearch --no-floppy --fs-uuid --set=root 1234\n"
	"\tlinux\t/boot/vmlinuz-6.12.0-1-amd64 root=UUID=x ro quiet\n"
	"\tinitrd\t/boot/initrd.img-6.12.0-1-amd64\n"
	"}\n"
	"submenu 'Advanced options for Debian GNU/Linux' $menuentry_id {\n"
	"\tmenuentry 'Debian GNU/Linux, with Linux 6.12.0-1-amd64' {\n"
	"\t\tlinux\t/boot/vmlinuz-6.12.0-1-amd64 root=UUID=x ro quiet\n"
	"\t}\n"
	"\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-57-amd64' {\n"
	"\t\tsearch --no-floppy --fs-uuid --set=root 5678\n"
	"\t\tlinux\t/vmlinuz-6.1.0-57-amd64 root=UUID=x ro quiet "
	"iommu.strict=0 dyndbg=\"file a.c +p\"\n"
	"\t\tinitrd\t/initrd.img-6.1.0-57-amd64\n"
	"\t}\n"
	"}\n";

static void put(const char *dir, const char *path, const char *text,
		mode_t mode)
{
	char *p = xasprintf("%s%s", dir, path), *s;
	FILE *f;

	for (s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(p, mode);
	free(p);
}

static json_t *grub_prepare(const char *root, const char *image,
			    const char *arg, int *ret, char **err)
{
	json_t *args = json_pack("{s:s, s:s, s:b}", "method", "grub", "root",
				 root, "dry_run", 1);

	if (image)
		json_object_set_new(args, "image", json_string(image));
	if (arg)
		json_object_set_new(args, "cmdline", json_pack("[s]", arg));
	return call("reboot.prepare", args, ret, err);
}

static void test_grub(void)
{
	char dir[] = "/tmp/agent-grub-XXXXXX", *cmd;
	const char *text;
	json_t *r;
	char *err;
	int ret;

	ok(mkdtemp(dir) != NULL, "scratch dir");
	put(dir, "/boot/grub/grub.cfg", grub_cfg, 0644);
	r = grub_prepare(dir, "/boot/vmlinuz-6.1.0-57-amd64", "iommu.strict=1",
			 &ret, &err);
	is_int(ret, -EOPNOTSUPP, "a machine without grub-reboot is refused");
	has_str(err, "grub-reboot", "... naming it");
	has_str(err, "kexec", "... and pointing at kexec");
	errmsg__clear(&err);
	put(dir, "/usr/sbin/grub-reboot", "#!/bin/sh\n", 0755);

	r = grub_prepare(dir, "/boot/vmlinuz-6.1.0-57-amd64", "iommu.strict=1",
			 &ret, &err);
	is_int(ret, 0, "grub prepare (dry run): %s", err ? err : "ok");
	is_str(argv_at(r, 0), "/usr/sbin/grub-reboot", "grub-reboot");
	is_str(argv_at(r, 1), "iommu-bench-oneshot",
	       "names the one-shot entry");
	is_str(json_string_value(json_object_get(r, "entry")),
	       "Advanced options for Debian GNU/Linux>Debian GNU/Linux, with "
	       "Linux 6.1.0-57-amd64",
	       "a copy of the entry that boots the image, inside its submenu");
	is_str(json_string_value(json_object_get(r, "cmdline")),
	       "root=UUID=x ro quiet dyndbg=\"file a.c +p\" iommu.strict=1",
	       "its arguments, quotes kept, the mode's in place of its own");
	text = json_string_value(json_object_get(r, "oneshot"));
	has_str(text, "--id iommu-bench-oneshot {", "the entry has the id");
	has_str(text, "\tsearch --no-floppy --fs-uuid --set=root 5678\n",
		"and the entry's own commands");
	has_str(text,
		"\tlinux /vmlinuz-6.1.0-57-amd64 root=UUID=x ro quiet "
		"dyndbg=\"file a.c +p\" iommu.strict=1\n",
		"its linux line with the mode's arguments");
	has_str(text, "\tinitrd\t/initrd.img-6.1.0-57-amd64\n}\n",
		"and its initrd");
	ok(json_is_true(json_object_get(r, "hook_installed")),
	   "grub.cfg lacks the hook: it would be installed");
	json_decref(r);
	errmsg__clear(&err);

	/* Once grub.cfg sources the file, nothing is installed again. */
	cmd = xasprintf("%s\nsource $prefix/iommu-bench-oneshot.cfg\n",
			grub_cfg);
	put(dir, "/boot/grub/grub.cfg", cmd, 0644);
	free(cmd);
	r = grub_prepare(dir, "/boot/vmlinuz-6.12.0-1-amd64", NULL, &ret, &err);
	is_int(ret, 0, "a boot without a mode: %s", err ? err : "ok");
	is_str(json_string_value(json_object_get(r, "entry")),
	       "Debian GNU/Linux", "the first entry that boots the image");
	is_str(json_string_value(json_object_get(r, "cmdline")),
	       "root=UUID=x ro quiet", "its arguments as they are");
	ok(json_is_false(json_object_get(r, "hook_installed")),
	   "the hook is there already");
	json_decref(r);
	errmsg__clear(&err);

	r = grub_prepare(dir, "/boot/vmlinuz-9.9", NULL, &ret, &err);
	is_int(ret, -ENOENT, "no entry boots an unknown image");
	has_str(err, "/boot/vmlinuz-9.9", "... naming it");
	errmsg__clear(&err);
	r = grub_prepare(dir, "/boot/vmlinuz-6.12.0-1-amd64", "a b", &ret,
			 &err);
	is_int(ret, -EINVAL, "an argument with a blank is refused");
	errmsg__clear(&err);
	r = call("reboot.now",
		 json_pack("{s:s, s:b}", "method", "grub", "dry_run", 1), &ret,
		 &err);
	ok(!ret && (!strcmp(argv_at(r, 0), "systemctl") ||
		    !strcmp(argv_at(r, 0), "reboot")),
	   "grub now reboots");
	json_decref(r);
	errmsg__clear(&err);
	cmd = xasprintf("rm -rf %s", dir);
	ok(!system(cmd), "scratch removed");
	free(cmd);
}

int main(void)
{
	test_cmdline();
	test_kexec();
	test_grub();
	return tap_done();
}
