// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lab machines' recipes: Debian 12 on x86_64 as most lab servers
 * run it (BIOS, grub-pc, the Intel vIOMMU on q35), and Debian 13 on
 * arm64 as the RFC's numbers were taken (UEFI, grub-efi, SMMUv3 on
 * virt). What goes into an image beyond Debian's packages is the few
 * files below, each what a lab admin would set on a benchmark host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/labvm/labvm-priv.h"
#include "sha256.h"
#include "util.h"

/*
 * Bumped whenever the build changes what it makes in a way the recipe
 * and its files do not show (a step added, a step's flags), so that
 * cached images of the old build are made again.
 */
#define LABVM_BUILD_VERSION "1"

/* What every lab machine has: the list and what the agent uses. */
#define COMMON_PACKAGES                                          \
	"systemd-sysv,udev,dbus,openssh-server,initramfs-tools," \
	"kexec-tools,iperf3,fio,iproute2,kmod,procps,pciutils,"  \
	"iputils-ping,less"

const struct labvm_recipe labvm_recipes[] = {
	{
		.name = "bookworm-amd64",
		.arch = "x86_64",
		.suite = "bookworm",
		.packages = COMMON_PACKAGES ",linux-image-amd64,grub-pc",
		.firmware = LABVM_BIOS,
		.grub_target = "i386-pc",
		.console = "ttyS0",
		.size_mib = 4096,
		.qemu = "qemu-system-x86_64",
		/* split: the vIOMMU's interrupt remapping wants it. */
		.machine = "q35,kernel-irqchip=split",
		.tcg_cpu = "max",
		.iommu_device = "intel-iommu,intremap=on,caching-mode=off",
		.nic = "enp0s3",
	},
	{
		.name = "trixie-arm64",
		.arch = "arm64",
		.suite = "trixie",
		/*
		 * Trixie's essential and required set lacks what the
		 * ESP's and the root's fsck and the initramfs need.
		 */
		.packages = COMMON_PACKAGES ",linux-image-arm64,grub-efi-arm64,"
					    "e2fsprogs,dosfstools,zstd",
		.route = LABVM_UNPACK_VM,
		.firmware = LABVM_UEFI,
		.grub_target = "arm64-efi",
		.console = "ttyAMA0",
		.size_mib = 4096,
		.qemu = "qemu-system-aarch64",
		.machine = "virt,iommu=smmuv3,gic-version=3",
		/* max is 5x slower under TCG (pointer authentication). */
		.tcg_cpu = "cortex-a57",
		.bios = "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd",
		.efi_code = "/usr/share/AAVMF/AAVMF_CODE.fd",
		.efi_vars = "/usr/share/AAVMF/AAVMF_VARS.fd",
		.nic = "enp0s3",
	},
};
const size_t labvm_nr_recipes = ARRAY_SIZE(labvm_recipes);

const struct labvm_recipe *labvm_recipe__find(const char *arch)
{
	return TABLE_FIND(labvm_recipes, labvm_nr_recipes, arch, arch);
}

static void file_add(struct labvm_file **v, size_t *nr, size_t *alloc,
		     const char *path, unsigned int mode, char *content)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = (struct labvm_file){ .path = path,
					     .mode = mode,
					     .content = content };
}

void labvm_recipe__files(const struct labvm_recipe *r, const char *pubkey,
			 struct labvm_file **out, size_t *nr)
{
	struct labvm_file *v = NULL;
	size_t alloc = 0;
	char *grub;

	*nr = 0;
	file_add(&v, nr, &alloc, "/etc/hostname", 0644, xstrdup("labvm\n"));
	file_add(&v, nr, &alloc, "/etc/hosts", 0644,
		 xstrdup("127.0.0.1\tlocalhost\n127.0.1.1\tlabvm\n"));
	/* A lab's network gives addresses by DHCP; so does the link the
	 * VM is started on (labvm-net.c). */
	file_add(&v, nr, &alloc, "/etc/systemd/network/10-lab.network", 0644,
		 xstrdup("[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\n"));
	/*
	 * Debian's defaults but for what a headless machine needs: the
	 * serial console, a short menu, no other systems probed. The
	 * default entry stays Debian's (GRUB_DEFAULT=0), as on a machine
	 * nobody prepared for us.
	 */
	if (r->firmware == LABVM_UEFI)
		/*
		 * EDK2 puts its console, and with it grub's, on the serial
		 * line already: grub's own serial driver there would be a
		 * second one on the same UART.
		 */
		grub = xasprintf("GRUB_TIMEOUT=1\n"
				 "GRUB_CMDLINE_LINUX=\"console=%s\"\n"
				 "GRUB_CMDLINE_LINUX_DEFAULT=\"\"\n"
				 "GRUB_TERMINAL=console\n"
				 "GRUB_DISABLE_OS_PROBER=true\n",
				 r->console);
	else
		grub = xasprintf(
			"GRUB_TIMEOUT=1\n"
			"GRUB_CMDLINE_LINUX=\"console=%s,115200\"\n"
			"GRUB_CMDLINE_LINUX_DEFAULT=\"\"\n"
			"GRUB_TERMINAL=serial\n"
			"GRUB_SERIAL_COMMAND=\"serial --speed=115200\"\n"
			"GRUB_DISABLE_OS_PROBER=true\n",
			r->console);
	file_add(&v, nr, &alloc, "/etc/default/grub.d/lab-console.cfg", 0644,
		 grub);
	/* A plain reboot must go through firmware and grub; kexec only
	 * when a run asks for it. */
	file_add(&v, nr, &alloc, "/etc/default/kexec", 0644,
		 xstrdup("LOAD_KEXEC=false\n"));
	/*
	 * A kernel installed on the running machine gets an initramfs of
	 * the modules its own hardware needs, as many a lab host is set:
	 * Debian's "most" takes minutes of an emulated CPU. The x86
	 * image's own initramfs, made by debootstrap in a chroot on this
	 * machine before this file is written, keeps "most" ("dep" there
	 * would detect this machine's hardware); the arm64 image makes
	 * its own inside its stage-2 VM, with "dep".
	 */
	file_add(&v, nr, &alloc, "/etc/initramfs-tools/conf.d/lab-modules.conf",
		 0644, xstrdup("MODULES=dep\n"));
	file_add(&v, nr, &alloc, "/etc/ssh/sshd_config.d/lab.conf", 0644,
		 xstrdup("PasswordAuthentication no\n"
			 "KbdInteractiveAuthentication no\n"
			 "PermitRootLogin prohibit-password\n"));
	file_add(&v, nr, &alloc, "/root/.ssh/authorized_keys", 0600,
		 xasprintf("%s\n", pubkey));
	*out = v;
}

void labvm_files__free(struct labvm_file *f, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(f[i].content);
	free(f);
}

void labvm_recipe__key(const struct labvm_recipe *r, const char *pubkey,
		       char hex[SHA256_HEX_SIZE])
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct labvm_file *f;
	struct sha256 ctx;
	size_t nr, i;
	char *head;

	labvm_recipe__files(r, pubkey, &f, &nr);
	head = xasprintf("labvm %s\nname %s\narch %s\nsuite %s\npackages %s\n"
			 "firmware %d\ngrub %s\nconsole %s\nsize %u\n",
			 LABVM_BUILD_VERSION, r->name, r->arch, r->suite,
			 r->packages, (int)r->firmware, r->grub_target,
			 r->console, r->size_mib);
	sha256__init(&ctx);
	sha256__update(&ctx, head, strlen(head));
	for (i = 0; i < nr; i++) {
		char *line = xasprintf("file %s %o %zu\n", f[i].path, f[i].mode,
				       strlen(f[i].content));

		sha256__update(&ctx, line, strlen(line));
		sha256__update(&ctx, f[i].content, strlen(f[i].content));
		free(line);
	}
	/*
	 * The unpack route's steps are in its stage-2 scripts: a changed
	 * script is a new image. (Hashed only there, so that the keys of
	 * debootstrap's images stay what they were.)
	 */
	if (r->route == LABVM_UNPACK_VM) {
		sha256__update(&ctx, "route unpack-vm\n", 16);
		sha256__update(&ctx, labvm_stage2_sh, strlen(labvm_stage2_sh));
		sha256__update(&ctx, labvm_stage2_init_sh,
			       strlen(labvm_stage2_init_sh));
	}
	sha256__final(&ctx, digest);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	free(head);
	labvm_files__free(f, nr);
}
