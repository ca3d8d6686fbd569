// SPDX-License-Identifier: GPL-2.0-only
/*
 * The image of an arch other than this machine's, by the route that
 * measured fastest (docs/labvm.md): its debs fetched by an apt of our
 * own (labvm-debs.c), unpacked by this machine's dpkg (labvm-unpack.c),
 * the disk made from that folder without loop devices or mounts
 * (labvm-gpt.c), then one boot of a VM of the image's arch that
 * configures it (labvm-stage2.c). Measured by hand at 454-565 s, where
 * debootstrap with its second stage under qemu-user took 1355 s.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "arch.h"
#include "bench/labvm/labvm-priv.h"
#include "cache.h"
#include "errmsg.h"
#include "log.h"
#include "strvec.h"
#include "subprocess.h"
#include "util.h"

#define ESP_MIB 200
#define CMD_TIMEOUT_MS 120000

/* What the route runs here, and the package each comes from. */
static const struct {
	const char *tool, *package;
} tools[] = {
	{ "apt-get", "apt" },
	{ "dpkg", "dpkg" },
	{ "dpkg-deb", "dpkg" },
	{ "dpkg-divert", "dpkg" },
	{ "tar", "tar" },
	{ "sfdisk", "fdisk" },
	{ "mkfs.fat", "dosfstools" },
	{ "mkfs.ext4", "e2fsprogs" },
	{ "mdir", "mtools" },
	{ "ssh-keygen", "openssh-client" },
	{ "xz", "xz-utils" },
	{ "zstd", "zstd" },
};

bool labvm__have(const char *tool)
{
	char *p = path__which(tool);
	bool found = p != NULL;

	free(p);
	return found;
}

static int check_tools(const struct labvm_recipe *r, char **err)
{
	size_t i;

	if (!labvm__have(r->qemu))
		return errmsg__set(
			err, -ENOENT,
			"%s is not installed: the %s image is "
			"configured in a VM of its arch (qemu-system-"
			"arm; scripts/install-deps.sh)",
			r->qemu, r->arch);
	for (i = 0; i < ARRAY_SIZE(tools); i++)
		if (!labvm__have(tools[i].tool))
			return errmsg__set(err, -ENOENT,
					   "%s is not installed (package %s; "
					   "scripts/install-deps.sh)",
					   tools[i].tool, tools[i].package);
	return 0;
}

/* ?essential, ?priority(required), apt and the recipe's packages. */
static void package_list(const struct labvm_recipe *r, struct strvec *v)
{
	char *copy = xstrdup(r->packages), *p, *save = NULL;

	strvec__push(v, "?essential");
	strvec__push(v, "?priority(required)");
	strvec__push(v, "apt");
	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
		strvec__push(v, p);
	free(copy);
}

/* The ESP's volume id: 8 hex digits, and as fstab names it. */
static void esp_id(char hex[9], char serial[10])
{
	unsigned char vid[4];

	if (getrandom(vid, sizeof(vid), 0) != sizeof(vid))
		memset(vid, 0xa5, sizeof(vid));
	snprintf(hex, 9, "%02X%02X%02X%02X", vid[0], vid[1], vid[2], vid[3]);
	snprintf(serial, 10, "%.4s-%.4s", hex, hex + 4);
}

int labvm_foreign__build(struct labvm_build *b, const struct labvm_recipe *r,
			 const char *tmp, const char *pubkey,
			 struct labvm_built *out, char **err)
{
	struct labvm_debs debs = { 0 }, bb = { 0 };
	struct strvec pkgs = { 0 };
	struct labvm_gpt g;
	char *root = xasprintf("%s/root", tmp), *disk, *kh = NULL,
	     *fstab = NULL;
	char hex[9], serial[10];
	int ret;

	disk = xasprintf("%s/disk.raw", tmp);
	labvm_build__phase(b, "check");
	ret = check_tools(r, err);
	if (!ret)
		ret = labvm_unpack__binfmt(b, r, err);
	if (!ret && labvm_gpt__layout((unsigned long long)r->size_mib << 20,
				      ESP_MIB, &g))
		ret = errmsg__set(err, -EINVAL,
				  "a %u MiB disk has no room for a %u MiB ESP "
				  "and a root",
				  r->size_mib, ESP_MIB);
	if (ret)
		goto out;
	labvm_build__phase(b, "fetch");
	package_list(r, &pkgs);
	ret = labvm_debs__fetch(b, r, strvec__argv(&pkgs), true, &debs, err);
	/* Stage 2's busybox: fetched, never installed in the image. */
	if (!ret)
		ret = labvm_debs__fetch(
			b, r, (const char *const[]){ "busybox-static", NULL },
			false, &bb, err);
	if (ret)
		goto out;
	pr_info("labvm build: %zu debs", debs.nr);
	labvm_build__phase(b, "unpack");
	ret = labvm_unpack__root(b, r, &debs, root, err);
	if (ret)
		goto out;
	labvm_build__phase(b, "files");
	labvm__uuid(out->root_uuid);
	esp_id(hex, serial);
	fstab = xasprintf("UUID=%s / ext4 errors=remount-ro 0 1\n"
			  "UUID=%s /boot/efi vfat umask=0077 0 1\n",
			  out->root_uuid, serial);
	ret = labvm__write_in(root, "/etc/fstab", 0644, fstab, err);
	/*
	 * The host keys made here, not by openssh-server's postinst in
	 * the VM: known_hosts is then read from this folder.
	 */
	if (!ret)
		ret = labvm_build__run(b,
				       (const char *const[]){ "ssh-keygen",
							      "-A", "-f", root,
							      NULL },
				       CMD_TIMEOUT_MS, NULL, err);
	if (!ret)
		ret = labvm_stage2__prepare(r, root, pubkey, out->root_uuid,
					    err);
	if (ret)
		goto out;
	labvm_build__phase(b, "disk");
	ret = labvm_gpt__make(b, r, disk, &g, root, out->root_uuid, hex, err);
	if (ret)
		goto out;
	labvm_build__phase(b, "stage 2");
	ret = labvm_stage2__run(b, r, root, bb.v[0].file, disk, &g, tmp, err);
	if (ret)
		goto out;
	labvm_build__phase(b, "finish");
	kh = xasprintf("%s/known_hosts", tmp);
	ret = labvm__known_hosts(root, kh, err);
	out->release = labvm__image_release(root);
	if (!ret && !out->release)
		ret = errmsg__set(err, -ENOENT,
				  "the image has no kernel in /boot");
out:
	/* The unpacked folder is in the disk now; a failed build's too. */
	cache__remove(root);
	labvm_debs__release(&debs);
	labvm_debs__release(&bb);
	strvec__release(&pkgs);
	free_all(root, disk, kh, fstab);
	return ret;
}
