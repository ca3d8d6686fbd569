// SPDX-License-Identifier: GPL-2.0-only
/*
 * The facts of a real machine on fake trees: DMI, firmware (EFI
 * variables included), grub's menu, grubenv and defaults, the boot
 * loader and the entry that booted, systemd's running flag and the line
 * of `systemd-analyze time`, os-release, the kernel config; what is
 * missing on a bare testbed VM (null and a warning each), and grub.cfg
 * lines no one should write (open quotes, megabytes, deep nesting).
 */
#include <zlib.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "collectors/hostfacts/hostfacts.h"
#include "hostfacts-tree.h"

/* A Debian 12 grub.cfg, abridged, plus a one-shot entry as the run adds. */
static const char *const grub_cfg =
	"### BEGIN /etc/grub.d/00_header ###\n"
	"if [ -s $prefix/grubenv ]; then\n"
	"  load_env\n"
	"fi\n"
	"function load_video {\n"
	"  if [ x$feature_all_video_module = xy ]; then\n"
	"    insmod all_video\n"
	"  fi\n"
	"}\n"
	"### BEGIN /etc/grub.d/10_linux ###\n"
	"menuentry 'Debian GNU/Linux' --class debian --class gnu-linux "
	"$menuentry_id_option 'gnulinux-simple-abcd' {\n"
	"\tload_video\n"
	"\tlinux\t/boot/vmlinuz-6.1.0-test root=UUID=abcd ro  quiet\n"
	"\tinitrd\t/boot/initrd.img-6.1.0-test\n"
	"}\n"
	"submenu 'Advanced options for Debian GNU/Linux' "
	"$menuentry_id_option 'gnulinux-advanced-abcd' {\n"
	"\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-test' --class debian "
	"$menuentry_id_option 'gnulinux-6.1.0-test-advanced-abcd' {\n"
	"\t\tlinux\t/boot/vmlinuz-6.1.0-test root=UUID=abcd ro  quiet\n"
	"\t}\n"
	"\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-test (recovery "
	"mode)' --class debian {\n"
	"\t\tlinux\t/boot/vmlinuz-6.1.0-test root=UUID=abcd ro single\n"
	"\t}\n"
	"}\n"
	"menuentry 'iommu-bench: strict' --id=iommu-bench-strict {\n"
	"\tlinux /boot/vmlinuz-6.1.0-test root=UUID=abcd ro quiet "
	"\"iommu.strict=1\"\n"
	"}\n"
	"menuentry 'UEFI Firmware Settings' $menuentry_id_option "
	"'uefi-firmware' {\n"
	"\tfwsetup\n"
	"}\n";

/* "<attrs><data>" as efivarfs shows a variable. */
static void efivar(const char *root, const char *name, const void *data,
		   size_t len)
{
	char *path = xasprintf("%s/sys/firmware/efi/efivars/%s", root, name);
	unsigned char *buf = xmalloc(len + 4);

	memcpy(buf, "\x07\0\0\0", 4);
	memcpy(buf + 4, data, len);
	scratch__parent_dir(path);
	scratch__write(path, buf, len + 4, 0644);
	free(buf);
	free(path);
}

/* @s as UTF-16LE with its NUL, as systemd-boot writes strings. */
static void efivar_str(const char *root, const char *name, const char *s)
{
	size_t n = strlen(s) + 1, i;
	unsigned char *u = xcalloc(n, 2);

	for (i = 0; i < n; i++)
		u[2 * i] = (unsigned char)s[i];
	efivar(root, name, u, 2 * n);
	free(u);
}

static void tool(const char *root, const char *path, mode_t mode)
{
	char *full = xasprintf("%s%s", root, path);

	scratch__parent_dir(full);
	scratch__write(full, "#!/bin/sh\n", 10, mode);
	free(full);
}

/*
 * A Debian machine on UEFI with grub, systemd and its kernel's config,
 * its IOMMU an Intel one in lazy mode.
 */
static char *lab_tree(const char *name)
{
	char *root = intel_tree(name, "DMA-FQ\n", "DMA-FQ\n", "0\n", lazy_kmsg);

	put(root, "/sys/class/dmi/id/sys_vendor", "QEMU\n");
	put(root, "/sys/class/dmi/id/product_name",
	    "  Standard PC <script>alert(1)</script>\n");
	put(root, "/sys/class/dmi/id/product_version", "pc-q35-7.2\n");
	put(root, "/sys/class/dmi/id/board_vendor", "Intel & Co\n");
	put(root, "/sys/class/dmi/id/bios_vendor", "EFI Development Kit II\n");
	put(root, "/sys/class/dmi/id/bios_version", "2022.11-6\n");
	put(root, "/sys/class/dmi/id/bios_date", "02/02/2022\n");
	put(root, "/sys/class/dmi/id/chassis_type", "23\n");
	put(root, "/sys/class/dmi/id/product_serial", "SECRET-123\n");
	put(root, "/sys/firmware/efi/fw_platform_size", "64\n");
	efivar(root, "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", "\1",
	       1);
	put(root, "/boot/grub/grub.cfg", grub_cfg);
	put(root, "/boot/grub/grubenv",
	    "# GRUB Environment Block\n"
	    "saved_entry=gnulinux-simple-abcd\n"
	    "next_entry=iommu-bench-strict\n"
	    "##########################################\n");
	put(root, "/etc/default/grub",
	    "# If you change this file, run 'update-grub'\n"
	    "GRUB_DEFAULT=saved\n"
	    "GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo "
	    "Debian`\n"
	    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\" # for people\n"
	    "export GRUB_CMDLINE_LINUX='console=ttyS0,115200 "
	    "iommu=\"pt\"'\n");
	put(root, "/etc/default/grub.d/50-cloud.cfg",
	    "GRUB_CMDLINE_LINUX=\"console=ttyS0 net.ifnames=0\"\n");
	put(root, "/etc/default/grub.d/README", "GRUB_DEFAULT=ignored\n");
	tool(root, "/usr/sbin/grub-reboot", 0755);
	tool(root, "/usr/bin/grub-editenv", 0644); /* not executable */
	dir(root, "/run/systemd/system");
	put(root, "/usr/lib/os-release",
	    "PRETTY_NAME=\"Debian GNU/Linux 12 (\\\"bookworm\\\")\"\n"
	    "NAME=\"Debian GNU/Linux\"\n"
	    "VERSION_ID=\"12\"\n"
	    "ID=debian\n");
	put(root, "/boot/config-6.1.0-test",
	    "CONFIG_IOMMU_DMA=y\n"
	    "CONFIG_IOMMU_DEFAULT_DMA_STRICT=y\n"
	    "# CONFIG_IOMMU_DEFAULT_DMA_LAZY is not set\n"
	    "CONFIG_INTEL_IOMMU=y\n"
	    "CONFIG_DMA_MAP_BENCHMARK=m\n"
	    "# CONFIG_KPROBES is not set\n"
	    "CONFIG_KPROBES_ON_FTRACE=y\n");
	put(root, "/proc/cmdline",
	    "BOOT_IMAGE=/boot/vmlinuz-6.1.0-test root=UUID=abcd ro quiet "
	    "iommu.strict=1\n");
	return root;
}

static void test_dmi_firmware(void)
{
	char *root = lab_tree("dmi"), *bare = new_root("dmi-bare");
	struct hostfacts_firmware fw;
	struct hostfacts_dmi d;

	is_int(hostfacts__dmi(root, &d), 0, "dmi: read");
	is_str(d.sys_vendor, "QEMU", "dmi: sys_vendor");
	is_str(d.product_name, "Standard PC <script>alert(1)</script>",
	       "dmi: product_name, leading blanks dropped, kept as written");
	is_str(d.product_version, "pc-q35-7.2", "dmi: product_version");
	is_str(d.board_vendor, "Intel & Co", "dmi: board_vendor");
	ok(!d.board_name, "dmi: a missing field is NULL");
	is_str(d.bios_vendor, "EFI Development Kit II", "dmi: bios_vendor");
	is_str(d.bios_version, "2022.11-6", "dmi: bios_version");
	is_str(d.bios_date, "02/02/2022", "dmi: bios_date");
	is_int(d.chassis_type, 23, "dmi: chassis_type");
	is_str(hostfacts__chassis_name(d.chassis_type), "rack mount chassis",
	       "dmi: chassis type named");
	ok(!hostfacts__chassis_name(99) && !hostfacts__chassis_name(0),
	   "dmi: no name out of SMBIOS's table");
	hostfacts__dmi_release(&d);
	is_int(hostfacts__dmi(bare, &d), -ENOENT, "dmi: none is -ENOENT");
	hostfacts__dmi_release(&d);

	hostfacts__firmware(root, &fw);
	ok(fw.kind == HOSTFACTS_FW_UEFI && fw.secure_boot == 1 &&
		   fw.platform_bits == 64,
	   "firmware: uefi, Secure Boot on, 64-bit");
	efivar(root, "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", "\0",
	       1);
	hostfacts__firmware(root, &fw);
	is_int(fw.secure_boot, 0, "firmware: Secure Boot off");
	hostfacts__firmware(bare, &fw);
	ok(fw.kind == HOSTFACTS_FW_UNKNOWN && fw.secure_boot == -1,
	   "firmware: no EFI, DMI or devicetree is unknown");
	dir(bare, "/sys/firmware/devicetree/base");
	hostfacts__firmware(bare, &fw);
	is_str(hostfacts__firmware_name(fw.kind), "devicetree",
	       "firmware: devicetree without EFI or DMI");
	dir(bare, "/sys/class/dmi/id");
	hostfacts__firmware(bare, &fw);
	is_str(hostfacts__firmware_name(fw.kind), "bios",
	       "firmware: DMI without EFI is a BIOS");
	free(root);
	free(bare);
}

static void test_grub(void)
{
	char *root = lab_tree("grub");
	struct hostfacts_grub g;
	const struct hostfacts_grub_entry *e;

	is_int(hostfacts__grub(root, &g), 0, "grub: read");
	is_str(g.config, "/boot/grub/grub.cfg", "grub: config path");
	is_int(g.nr_entries, 5, "grub: five entries, two in the submenu");
	ok(!g.truncated, "grub: not truncated");
	e = &g.entries[0];
	is_str(e->title, "Debian GNU/Linux", "grub: first title");
	is_str(e->id, "gnulinux-simple-abcd",
	       "grub: id through $menuentry_id_option");
	ok(!e->submenu, "grub: top-level entry has no submenu");
	is_str(e->image, "/boot/vmlinuz-6.1.0-test", "grub: linux image");
	is_str(e->args, "root=UUID=abcd ro quiet",
	       "grub: linux arguments, one space apart");
	e = &g.entries[1];
	is_str(e->title, "Debian GNU/Linux, with Linux 6.1.0-test",
	       "grub: submenu entry's title");
	is_str(e->submenu, "Advanced options for Debian GNU/Linux",
	       "grub: submenu entry knows its submenu");
	is_str(g.entries[2].args, "root=UUID=abcd ro single",
	       "grub: recovery entry's arguments");
	ok(!g.entries[2].id, "grub: an entry without an id");
	e = &g.entries[3];
	ok(!e->submenu && !strcmp(e->id, "iommu-bench-strict"),
	   "grub: after the submenu's brace, top level again; --id=");
	is_str(e->args, "root=UUID=abcd ro quiet iommu.strict=1",
	       "grub: quoted argument unquoted");
	ok(!g.entries[4].image &&
		   !strcmp(g.entries[4].title, "UEFI Firmware Settings"),
	   "grub: an entry without linux has no image");
	ok(g.env, "grubenv: read");
	is_str(g.saved_entry, "gnulinux-simple-abcd", "grubenv: saved_entry");
	is_str(g.next_entry, "iommu-bench-strict", "grubenv: next_entry");
	is_str(g.grub_default, "saved", "default/grub: GRUB_DEFAULT");
	is_str(g.cmdline_linux_default, "quiet splash",
	       "default/grub: quotes and trailing comment dropped");
	is_str(g.cmdline_linux, "console=ttyS0 net.ifnames=0",
	       "default/grub: grub.d's .cfg wins over the main file");
	ok(g.nr_defaults_files == 2 &&
		   !strcmp(g.defaults_files[1],
			   "/etc/default/grub.d/50-cloud.cfg"),
	   "default/grub: files read in order, README left out");
	is_str(g.grub_reboot, "/usr/sbin/grub-reboot",
	       "tools: grub-reboot found");
	ok(!g.grub_editenv, "tools: a file without x bit is not a tool");
	hostfacts__grub_release(&g);

	/* The main file alone, with an export and a single-quoted value. */
	put(root, "/etc/default/grub.d/50-cloud.cfg", "");
	hostfacts__grub(root, &g);
	is_str(g.cmdline_linux, "console=ttyS0,115200 iommu=\"pt\"",
	       "default/grub: export, single quotes keep double ones");
	hostfacts__grub_release(&g);
	free(root);
}

static void test_booted(void)
{
	char *root = lab_tree("booted");
	struct hostfacts_boot_loader bl;
	struct hostfacts_grub g;
	bool exact;

	hostfacts__grub(root, &g);
	is_int(hostfacts__grub_booted(&g,
				      "BOOT_IMAGE=/boot/vmlinuz-6.1.0-test "
				      "root=UUID=abcd ro quiet iommu.strict=1",
				      &exact),
	       3, "booted: the one-shot entry, the most arguments matching");
	ok(exact, "booted: exact");
	is_int(hostfacts__grub_booted(&g,
				      "BOOT_IMAGE=(hd0,gpt2)/boot/vmlinuz-"
				      "6.1.0-test root=UUID=abcd ro quiet",
				      &exact),
	       0, "booted: the first of equals, device prefix ignored");
	is_int(hostfacts__grub_booted(&g,
				      "BOOT_IMAGE=/boot/vmlinuz-6.1.0-test "
				      "root=UUID=abcd ro single",
				      &exact),
	       2, "booted: the recovery entry");
	is_int(hostfacts__grub_booted(&g,
				      "BOOT_IMAGE=/boot/vmlinuz-6.1.0-test "
				      "root=/dev/sda1",
				      &exact),
	       0, "booted: edited arguments: the first with the image");
	ok(!exact, "booted: ... and not exact");
	is_int(hostfacts__grub_booted(&g, "BOOT_IMAGE=/boot/vmlinuz-7 ro",
				      &exact),
	       -1, "booted: an image no entry has");
	is_int(hostfacts__grub_booted(&g, "root=UUID=abcd ro quiet", &exact),
	       -1, "booted: no BOOT_IMAGE, no entry");
	hostfacts__grub_release(&g);

	is_int(hostfacts__boot_loader(root, &bl), 0, "boot loader: found");
	is_str(bl.name, "grub", "boot loader: BOOT_IMAGE= means grub");
	is_str(bl.boot_image, "/boot/vmlinuz-6.1.0-test",
	       "boot loader: BOOT_IMAGE");
	ok(bl.booted == 3 && bl.booted_exact,
	   "boot loader: the entry that booted");
	ok(bl.nr_evidence >= 1 && strstr(bl.evidence[0], "BOOT_IMAGE="),
	   "boot loader: with its evidence");
	hostfacts__boot_loader_release(&bl);

	efivar_str(root, "LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
		   "systemd-boot 252.30-1~deb12u2");
	efivar_str(root,
		   "LoaderEntrySelected-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
		   "debian-6.1.0-test.conf");
	put(root, "/proc/cmdline", "root=UUID=abcd ro quiet\n");
	hostfacts__boot_loader(root, &bl);
	is_str(bl.name, "systemd-boot", "boot loader: from LoaderInfo");
	is_str(bl.loader_info, "systemd-boot 252.30-1~deb12u2",
	       "boot loader: LoaderInfo decoded from UTF-16");
	is_str(bl.loader_entry, "debian-6.1.0-test.conf",
	       "boot loader: LoaderEntrySelected");
	ok(bl.booted == -1, "boot loader: no grub entry without BOOT_IMAGE");
	hostfacts__boot_loader_release(&bl);
	free(root);

	root = new_root("no-loader");
	is_int(hostfacts__boot_loader(root, &bl), -ENOENT,
	       "boot loader: no trace is -ENOENT");
	ok(!bl.name && bl.grub_err == -ENOENT && bl.nr_evidence == 1,
	   "boot loader: no name, no grub, and why");
	hostfacts__boot_loader_release(&bl);
	free(root);
}

/* What a broken or hostile grub.cfg must not do: crash, or hold on. */
static void test_grub_hostile(void)
{
	char *root = new_root("hostile"), *huge, *cfg, *path;
	struct hostfacts_grub g;
	size_t n = 300 * 1024, i, len = 0;

	huge = xmalloc(n + 1);
	memset(huge, 'A', n);
	huge[n] = '\0';
	cfg = xmalloc(2 * n + 16384);
	/* A title with no closing quote, absurdly long. */
	len += sprintf(cfg + len, "menuentry 'open %s {\n", huge);
	len += sprintf(cfg + len, "\tlinux /vmlinuz \"%s\n}\n", huge);
	/* Stray braces, then submenus nested deeper than we record. */
	len += sprintf(cfg + len, "}\n}\n");
	for (i = 0; i < 20; i++)
		len += sprintf(cfg + len, "submenu 's%zu' {\n", i);
	len += sprintf(cfg + len, "menuentry 'deep' {\nlinux /v x\n}\n");
	for (i = 0; i < 20; i++)
		len += sprintf(cfg + len, "}\n");
	for (i = 0; i < 70; i++)
		len += sprintf(cfg + len, "menuentry 'e%zu' {\n}\n", i);
	put(root, "/boot/grub/grub.cfg", cfg);
	put(root, "/boot/grub/grubenv", "next_entry=\n");

	is_int(hostfacts__grub(root, &g), 0, "hostile: read, no crash");
	is_int(g.nr_entries, HOSTFACTS_GRUB_MAX_ENTRIES,
	       "hostile: entries capped");
	ok(g.truncated, "hostile: and said to be cut");
	ok(g.nr_entries && strlen(g.entries[0].title) == HF_STR_MAX &&
		   !strncmp(g.entries[0].title, "open AAA", 8),
	   "hostile: an open quote's title capped at %d bytes", HF_STR_MAX);
	ok(g.nr_entries && g.entries[0].args &&
		   strlen(g.entries[0].args) == HF_ARGS_MAX,
	   "hostile: an open quote's arguments capped at %d", HF_ARGS_MAX);
	ok(g.nr_entries > 1 && !strcmp(g.entries[1].title, "deep") &&
		   g.entries[1].submenu && !strcmp(g.entries[1].image, "/v"),
	   "hostile: stray braces and deep nesting leave the next entry");
	ok(g.nr_entries > 2 && !g.entries[2].submenu &&
		   !strcmp(g.entries[2].title, "e0"),
	   "hostile: back at the top after twenty closing braces");
	is_str(g.next_entry, "", "grubenv: an empty next_entry is empty");
	hostfacts__grub_release(&g);

	/* A grub.cfg too big to be one is refused, not read. */
	put(root, "/boot/grub/grub.cfg", "");
	path = xasprintf("%s/boot/grub/grub.cfg", root);
	ok(!truncate(path, HF_FILE_MAX + 1),
	   "hostile: a sparse grub.cfg over the cap");
	free(path);
	hostfacts__grub(root, &g);
	ok(!g.config && g.config_err == -EFBIG,
	   "hostile: it is refused with -EFBIG");
	hostfacts__grub_release(&g);
	free_all(huge, cfg, root);
}

static void test_systemd(void)
{
	struct hostfacts_boot_time t;
	char *root = lab_tree("systemd"), *bare = new_root("systemd-bare");
	char *why = NULL;

	ok(hostfacts__systemd_running(root), "systemd: running");
	ok(!hostfacts__systemd_running(bare), "systemd: not running");
	is_int(hostfacts__boot_time(root, &t, &why), -EOPNOTSUPP,
	       "systemd: a copied tree's boot time is not asked");
	ok(why && t.total_ms == -1, "systemd: ... with words, and no time");
	free(why);

	is_int(hf_boot_time_parse(
		       "Startup finished in 4.096s (firmware) + 2.519s "
		       "(loader) + 1.232s (kernel) + 2.135s (initrd) + "
		       "1min 8.297s (userspace) = 1min 18.281s \n"
		       "graphical.target reached after 8.283s in "
		       "userspace.\n",
		       &t),
	       0, "analyze: the full line");
	ok(t.firmware_ms == 4096 && t.loader_ms == 2519 &&
		   t.kernel_ms == 1232 && t.initrd_ms == 2135 &&
		   t.userspace_ms == 68297 && t.total_ms == 78281,
	   "analyze: each part, minutes included");
	is_int(hf_boot_time_parse("Startup finished in 812ms (kernel) + "
				  "3.004s (userspace) = 3.816s\n",
				  &t),
	       0, "analyze: a VM's line");
	ok(t.firmware_ms == -1 && t.loader_ms == -1 && t.initrd_ms == -1 &&
		   t.kernel_ms == 812 && t.total_ms == 3816,
	   "analyze: parts not reported are -1");
	is_int(hf_boot_time_parse("Startup finished in 500us (userspace)\n",
				  &t),
	       0, "analyze: no total");
	is_int(t.total_ms, 1, "analyze: the total summed, us rounded");
	is_int(hf_boot_time_parse("Bootup is not yet finished.\n", &t), -EINVAL,
	       "analyze: no line");
	is_int(hf_boot_time_parse("Startup finished in 1.2s (kernel) + ", &t),
	       -EINVAL, "analyze: a line cut short");
	is_int(hf_boot_time_parse("Startup finished in 1.2parsecs (kernel)",
				  &t),
	       -EINVAL, "analyze: an unknown unit");
	is_int(hf_boot_time_parse("Startup finished in 1.2s (kernel\n", &t),
	       -EINVAL, "analyze: an open parenthesis");
	free(root);
	free(bare);
}

static void test_distro_kconfig(void)
{
	char *root = lab_tree("distro"), *path;
	struct hostfacts_kconfig kc;
	struct hostfacts_distro d;
	gzFile gz;

	is_int(hostfacts__distro(root, &d), 0, "distro: read");
	is_str(d.source, "/usr/lib/os-release",
	       "distro: /usr/lib/os-release without /etc's");
	is_str(d.id, "debian", "distro: ID");
	is_str(d.version_id, "12", "distro: VERSION_ID unquoted");
	is_str(d.pretty_name, "Debian GNU/Linux 12 (\"bookworm\")",
	       "distro: PRETTY_NAME, escaped quotes");
	hostfacts__distro_release(&d);
	put(root, "/etc/os-release", "ID=fedora\n");
	hostfacts__distro(root, &d);
	ok(!strcmp(d.id, "fedora") && !d.pretty_name,
	   "distro: /etc first; an unset key is NULL");
	hostfacts__distro_release(&d);

	is_int(hostfacts__kernel_config(root, &kc), 0, "kconfig: read");
	is_str(kc.source, "/boot/config-6.1.0-test", "kconfig: its path");
	is_str(hostfacts__kernel_config_value(
		       &kc, "CONFIG_IOMMU_DEFAULT_DMA_STRICT"),
	       "y", "kconfig: the default mode");
	is_str(hostfacts__kernel_config_value(&kc,
					      "CONFIG_IOMMU_DEFAULT_DMA_LAZY"),
	       "n", "kconfig: 'is not set' is n");
	is_str(hostfacts__kernel_config_value(&kc, "CONFIG_DMA_MAP_BENCHMARK"),
	       "m", "kconfig: a module");
	is_str(hostfacts__kernel_config_value(&kc, "CONFIG_KPROBES"), "n",
	       "kconfig: KPROBES, not KPROBES_ON_FTRACE");
	ok(!hostfacts__kernel_config_value(&kc, "CONFIG_ARM_SMMU_V3"),
	   "kconfig: an option not named is NULL");
	hostfacts__kernel_config_release(&kc);

	path = xasprintf("%s/boot/config-6.1.0-test", root);
	unlink(path);
	free(path);
	path = xasprintf("%s/proc/config.gz", root);
	gz = gzopen(path, "wb");
	gzputs(gz, "CONFIG_ARM_SMMU_V3=y\n# CONFIG_KPROBES is not set\n");
	gzclose(gz);
	free(path);
	is_int(hostfacts__kernel_config(root, &kc), 0, "kconfig: gzip read");
	ok(!strcmp(kc.source, "/proc/config.gz") &&
		   !strcmp(hostfacts__kernel_config_value(&kc,
							  "CONFIG_ARM_SMMU_V3"),
			   "y"),
	   "kconfig: /proc/config.gz decompressed");
	hostfacts__kernel_config_release(&kc);
	free(root);
}

static json_t *section(json_t *j, const char *key)
{
	return json_object_get(j, key);
}

static const char *str_at(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A warning starting with @prefix is among @warn. */
static bool warned(json_t *j, const char *prefix)
{
	json_t *w = section(j, "warnings"), *v;
	size_t i;

	json_array_foreach(w, i, v)
		if (!strncmp(json_string_value(v), prefix, strlen(prefix)))
			return true;
	return false;
}

static void test_gather(void)
{
	struct hostfacts_opts o = { 0 };
	json_t *j = NULL, *bl, *grub, *kc;
	char *root = lab_tree("gather-lab");

	o.root = root;
	is_int(hostfacts__gather_opts(&o, &j), 0, "gather: lab tree");
	is_int(json_integer_value(section(j, "format")), 2, "gather: format 2");
	is_str(str_at(section(j, "dmi"), "product_name"),
	       "Standard PC <script>alert(1)</script>",
	       "gather: dmi.product_name as written (the report escapes)");
	is_str(str_at(section(j, "dmi"), "chassis"), "rack mount chassis",
	       "gather: dmi.chassis");
	ok(!json_object_get(section(j, "dmi"), "product_serial"),
	   "gather: no serial in dmi");
	is_str(str_at(section(j, "firmware"), "kind"), "uefi",
	       "gather: firmware.kind");
	ok(json_is_true(json_object_get(section(j, "firmware"), "secure_boot")),
	   "gather: firmware.secure_boot");
	bl = section(j, "boot_loader");
	grub = json_object_get(bl, "grub");
	is_str(str_at(bl, "name"), "grub", "gather: boot_loader.name");
	is_str(str_at(json_object_get(bl, "booted_entry"), "id"),
	       "iommu-bench-strict", "gather: boot_loader.booted_entry");
	is_int(json_array_size(json_object_get(grub, "entries")), 5,
	       "gather: grub.entries");
	is_str(str_at(json_array_get(json_object_get(grub, "entries"), 1),
		      "submenu"),
	       "Advanced options for Debian GNU/Linux",
	       "gather: an entry's submenu");
	is_str(str_at(grub, "next_entry"), "iommu-bench-strict",
	       "gather: grub.next_entry");
	is_str(str_at(json_object_get(grub, "defaults"), "GRUB_DEFAULT"),
	       "saved", "gather: grub.defaults.GRUB_DEFAULT");
	ok(json_is_null(json_object_get(json_object_get(grub, "tools"),
					"grub-editenv")),
	   "gather: grub.tools.grub-editenv null");
	ok(json_is_true(json_object_get(section(j, "systemd"), "running")) &&
		   json_is_null(
			   json_object_get(section(j, "systemd"), "boot_time")),
	   "gather: systemd running, no boot time under a copied tree");
	ok(warned(j, "systemd boot time: only the running system"),
	   "gather: ... and why");
	is_str(str_at(section(j, "distro"), "pretty_name"),
	       "Debian GNU/Linux 12 (\"bookworm\")", "gather: distro");
	kc = section(j, "kernel_config");
	ok(json_is_false(json_object_get(kc, "compressed")) &&
		   !strcmp(str_at(json_object_get(kc, "options"),
				  "CONFIG_IOMMU_DEFAULT_DMA_STRICT"),
			   "y") &&
		   json_is_null(json_object_get(json_object_get(kc, "options"),
						"CONFIG_FUNCTION_TRACER")),
	   "gather: kernel_config, every option, null where unnamed");
	ok(!warned(j, "dmi:") && !warned(j, "distro:") && !warned(j, "grub:") &&
		   !warned(j, "boot loader:") && !warned(j, "firmware:") &&
		   !warned(j, "kernel_config:"),
	   "gather: no warning about what is there");
	json_decref(j);
	free(root);

	/* A testbed VM: busybox, no firmware trace, no grub, no systemd. */
	root = new_root("gather-bare");
	o.root = root;
	is_int(hostfacts__gather_opts(&o, &j), 0,
	       "gather: a bare tree is no error");
	ok(json_is_null(section(j, "dmi")) && warned(j, "dmi:"),
	   "bare: dmi null, and why");
	ok(json_is_null(json_object_get(section(j, "firmware"), "kind")) &&
		   warned(j, "firmware:"),
	   "bare: firmware.kind null, and why");
	bl = section(j, "boot_loader");
	ok(json_is_null(json_object_get(bl, "name")) &&
		   json_is_null(json_object_get(bl, "grub")) &&
		   json_is_null(json_object_get(bl, "booted_entry")) &&
		   warned(j, "boot loader:") && warned(j, "grub:"),
	   "bare: no boot loader, no grub, and why");
	ok(json_is_false(json_object_get(section(j, "systemd"), "running")),
	   "bare: systemd not running");
	ok(json_is_null(section(j, "distro")) && warned(j, "distro:"),
	   "bare: distro null, and why");
	ok(json_is_null(section(j, "kernel_config")) &&
		   warned(j, "kernel_config:"),
	   "bare: kernel_config null, and why");
	json_decref(j);
	free(root);
}

int main(void)
{
	tree_init();
	test_dmi_firmware();
	test_grub();
	test_booted();
	test_grub_hostile();
	test_systemd();
	test_distro_kconfig();
	test_gather();
	tree_done();
	return tap_done();
}
