// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stage 2 of a foreign arch's image: one boot of a VM of the image's
 * arch, with the image's own kernel and an initramfs made here (busybox
 * and the modules that mount the root), whose init hands PID 1 to
 * labvm-stage2.sh in the root. The VM configures what this machine only
 * unpacked; its console goes to the build log, and the build reads the
 * result back from there and the ESP from the disk, as the firmware
 * will (mtools applies EDK2's rule on FAT types).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bench/labvm/labvm-priv.h"
#include "cache.h"
#include "errmsg.h"
#include "strvec.h"
#include "subprocess.h"
#include "util.h"

/*
 * The scripts are files of the source tree (shellcheck reads them), in
 * the binary as they are: the build writes them into the root.
 */
__asm__(".pushsection .rodata\n"
	".global labvm_stage2_sh\n"
	"labvm_stage2_sh:\n"
	".incbin \"bench/labvm/labvm-stage2.sh\"\n"
	".byte 0\n"
	".global labvm_stage2_init_sh\n"
	"labvm_stage2_init_sh:\n"
	".incbin \"bench/labvm/labvm-stage2-init.sh\"\n"
	".byte 0\n"
	".popsection\n");

#define STAGE2_DIR "/labvm-stage2"
/* Measured 390 s on 2 busy cores; a hung boot is stopped at this. */
#define VM_TIMEOUT_MS (45 * 60 * 1000)
#define CMD_TIMEOUT_MS 120000
#define STAGE2_MEM "4096"
#define OK_LINE "labvm-stage2: ok"
#define FAIL_LINE "labvm-stage2: FAILED"

/* What mounts an ext4 root on virtio-blk, in the order insmod wants. */
static const char *const stage2_modules[] = {
	"crypto/crc32c_generic", "lib/crc16",	 "fs/mbcache",
	"fs/jbd2/jbd2",		 "fs/ext4/ext4", "drivers/block/virtio_blk",
};

/* The units x86's configure() enables and masks (labvm-image.c). */
#define ENABLE_UNITS "systemd-networkd ssh"
#define MASK_UNITS \
	"apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer"

int labvm_stage2__prepare(const struct labvm_recipe *r, const char *root,
			  const char *pubkey, const char *root_uuid, char **err)
{
	char *files = xasprintf("%s" STAGE2_DIR "/files", root), *env;
	struct labvm_file *f;
	size_t nr, i;
	int ret;

	ret = labvm__write_in(root, STAGE2_DIR "/stage2.sh", 0755,
			      labvm_stage2_sh, err);
	/* Values of ours alone: nothing a user typed reaches this file. */
	env = xasprintf("LABVM_ROOT_UUID=%s\n"
			"LABVM_GRUB_TARGET=%s\n"
			"LABVM_ENABLE=\"" ENABLE_UNITS "\"\n"
			"LABVM_MASK=\"" MASK_UNITS "\"\n",
			root_uuid, r->grub_target);
	if (!ret)
		ret = labvm__write_in(root, STAGE2_DIR "/env", 0644, env, err);
	free(env);
	if (!ret && mkdir(files, 0755) && errno != EEXIST)
		ret = errmsg__set(err, -errno, "cannot make %s: %s", files,
				  strerror(errno));
	labvm_recipe__files(r, pubkey, &f, &nr);
	for (i = 0; i < nr && !ret; i++)
		ret = labvm__write_in(files, f[i].path, f[i].mode, f[i].content,
				      err);
	labvm_files__free(f, nr);
	free(files);
	return ret;
}

/* The stdout of @argv, or NULL with *@err. */
static char *output_of(const char *const *argv, size_t *len, char **err)
{
	char how[96], last[256], *out = NULL;
	struct spawn sp;
	int ret;

	ret = spawn__run(&sp, argv,
			 &(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT |
							SPAWN_CAPTURE_ERR,
					       .max_capture = 64 << 20 },
			 CMD_TIMEOUT_MS);
	if (ret || !spawn__succeeded(&sp) || sp.truncated) {
		errmsg__set(err, ret ? ret : -EIO, "%s %s failed: %s: %s",
			    argv[0], argv[2],
			    ret ? strerror(-ret) :
				  spawn__describe(&sp, how, sizeof(how)),
			    spawn__last_line(sp.err, last, sizeof(last)));
	} else {
		out = sp.out ? sp.out : xstrdup("");
		*len = sp.out ? sp.out_len : 0;
		sp.out = NULL;
	}
	spawn__release(&sp);
	return out;
}

/* Module @rel of kernel @kdir, decompressed, into @c as @name. */
static int add_module(struct labvm_cpio *c, const char *kdir, const char *rel,
		      const char *name, char **err)
{
	static const struct {
		const char *ext, *tool;
	} forms[] = { { ".ko.xz", "xz" },
		      { ".ko.zst", "zstd" },
		      { ".ko", NULL } };
	char *path = NULL, *data = NULL, *builtin = NULL, *want;
	size_t i, len = 0;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		free(path);
		path = xasprintf("%s/kernel/%s%s", kdir, rel, forms[i].ext);
		if (access(path, R_OK))
			continue;
		if (forms[i].tool)
			data = output_of((const char *const[]){ forms[i].tool,
								"-dc", path,
								NULL },
					 &len, err);
		else if (read_file(path, &data, &len))
			errmsg__set(err, -EIO, "cannot read %s", path);
		if (!data)
			ret = -EIO;
		else
			labvm_cpio__add(c, name, 0100644, 0, 0, data, len);
		goto out;
	}
	/* Built into the kernel: nothing to load. */
	free(path);
	path = xasprintf("%s/modules.builtin", kdir);
	want = xasprintf("kernel/%s.ko\n", rel);
	if (read_file(path, &builtin, &len) || !strstr(builtin, want))
		ret = errmsg__set(err, -ENOENT,
				  "the image's kernel has no %s, as a module "
				  "(%s/kernel/) or built in",
				  rel, kdir);
	free(want);
out:
	free_all(path, data, builtin);
	return ret;
}

/*
 * The initramfs: @busybox_deb's static busybox (the image's arch), the
 * modules, the init script.
 */
static int initrd(struct labvm_build *b, const char *root, const char *rel,
		  const char *busybox_deb, const char *tmp, const char *out,
		  char **err)
{
	static const char *const dirs[] = { "bin", "dev",     "proc",
					    "sys", "newroot", "mod" };
	struct labvm_cpio c = { 0 };
	char *bb_dir = xasprintf("%s/busybox", tmp), *kdir, *bb = NULL, *name;
	size_t i, len;
	int fd, ret;

	ret = labvm_build__run(b,
			       (const char *const[]){ "dpkg-deb", "-x",
						      busybox_deb, bb_dir,
						      NULL },
			       CMD_TIMEOUT_MS, NULL, err);
	if (ret)
		goto out;
	name = xasprintf("%s/usr/bin/busybox", bb_dir);
	ret = read_file(name, &bb, &len);
	if (ret)
		errmsg__set(err, ret, "%s has no %s", busybox_deb, name);
	free(name);
	if (ret)
		goto out;
	labvm_cpio__add(&c, ".", 040755, 0, 0, NULL, 0);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		labvm_cpio__add(&c, dirs[i], 040755, 0, 0, NULL, 0);
	labvm_cpio__add(&c, "dev/console", 020600, 5, 1, NULL, 0);
	labvm_cpio__add(&c, "bin/busybox", 0100755, 0, 0, bb, len);
	labvm_cpio__add(&c, "init", 0100755, 0, 0, labvm_stage2_init_sh,
			strlen(labvm_stage2_init_sh));
	kdir = xasprintf("%s/usr/lib/modules/%s", root, rel);
	for (i = 0; i < ARRAY_SIZE(stage2_modules) && !ret; i++) {
		const char *base = strrchr(stage2_modules[i], '/') + 1;

		name = xasprintf("mod/%02zu-%s.ko", i, base);
		ret = add_module(&c, kdir, stage2_modules[i], name, err);
		free(name);
	}
	free(kdir);
	if (ret)
		goto out;
	labvm_cpio__finish(&c);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, c.buf, c.len))
		ret = errmsg__set(err, -errno, "cannot write %s: %s", out,
				  strerror(errno));
	if (fd >= 0)
		close(fd);
	dprintf(b->log_fd, "stage-2 initramfs %s: %zu bytes\n", out, c.len);
out:
	labvm_cpio__release(&c);
	cache__remove(bb_dir);
	free_all(bb_dir, bb);
	return ret;
}

/* The VM's console since @from in the build log: its verdict. */
static int verdict(struct labvm_build *b, off_t from, char **err)
{
	char *text = NULL, *fail, *tail;
	size_t len;
	int ret, lines;

	ret = read_file(b->log_path, &text, &len);
	if (ret)
		return errmsg__set(err, ret, "cannot read %s", b->log_path);
	if ((size_t)from > len)
		from = 0;
	fail = strstr(text + from, FAIL_LINE);
	if (fail) {
		fail[strcspn(fail, "\r\n")] = '\0';
		fail += strlen(FAIL_LINE);
		fail += strspn(fail, ": ");
		ret = errmsg__set(err, -EIO,
				  "stage 2 failed in its VM: %s (the build "
				  "log %s has its console)",
				  fail, b->log_path);
	} else if (!strstr(text + from, OK_LINE)) {
		tail = text + len;
		for (lines = 8; tail > text + from && lines; tail--)
			if (tail[-1] == '\n')
				lines--;
		ret = errmsg__set(err, -EIO,
				  "stage 2 did not finish: its VM stopped "
				  "without '" OK_LINE "'; its console (%s) "
				  "ends:\n%s",
				  b->log_path, tail);
	}
	free(text);
	return ret;
}

/* The ESP as the firmware will read it: EFI/BOOT/ and a loader there. */
static int esp_check(struct labvm_build *b, const char *disk,
		     const struct labvm_gpt *g, char **err)
{
	char *img = xasprintf("%s@@%llu", disk, g->esp_start * 512ULL);
	char *out = NULL;
	int ret;

	ret = labvm_build__capture(b,
				   (const char *const[]){ "mdir", "-b", "-i",
							  img, "::/EFI/BOOT",
							  NULL },
				   CMD_TIMEOUT_MS, &out, err);
	if (!ret && !strcasestr(out, ".efi"))
		ret = errmsg__set(err, -ENOENT,
				  "the ESP of %s has no EFI/BOOT/*.EFI: the "
				  "firmware would find nothing to boot",
				  disk);
	if (!ret)
		dprintf(b->log_fd, "ESP: %s", out);
	free_all(img, out);
	return ret;
}

int labvm_stage2__run(struct labvm_build *b, const struct labvm_recipe *r,
		      const char *root, const char *busybox_deb,
		      const char *disk, const struct labvm_gpt *g,
		      const char *tmp, char **err)
{
	const struct arch *a = arch__find(r->arch);
	bool kvm = a == arch__native() && arch__kvm_works();
	char *rel = labvm__image_release(root), *kernel = NULL, *rd = NULL;
	struct strvec v = { 0 };
	off_t from;
	int ret;

	if (!rel)
		return errmsg__set(err, -ENOENT,
				   "the unpacked root has no kernel in /boot");
	kernel = xasprintf("%s/boot/vmlinuz-%s", root, rel);
	rd = xasprintf("%s/stage2-initrd.cpio", tmp);
	ret = initrd(b, root, rel, busybox_deb, tmp, rd, err);
	if (ret)
		goto out;
	strvec__push(&v, r->qemu);
	strvec__push(&v, "-accel");
	strvec__push(&v, kvm ? "kvm" : "tcg,thread=multi");
	/* No vIOMMU: this boot only configures, and runs faster without. */
	strvec__push(&v, "-machine");
	strvec__push(&v, "virt");
	strvec__push(&v, "-cpu");
	strvec__push(&v, kvm ? "host" : r->tcg_cpu);
	strvec__push(&v, "-smp");
	strvec__push(&v, "2");
	/* dpkg and the initramfs tools in page cache, not on the disk. */
	strvec__push(&v, "-m");
	strvec__push(&v, STAGE2_MEM);
	strvec__push(&v, "-kernel");
	strvec__push(&v, kernel);
	strvec__push(&v, "-initrd");
	strvec__push(&v, rd);
	strvec__push(&v, "-append");
	/* panic=-1 with -no-reboot: a panic ends the VM at once. */
	strvec__pushf(&v, "console=%s panic=-1", r->console);
	strvec__push(&v, "-drive");
	strvec__pushf(&v, "file=%s,format=raw,if=none,id=d0,cache=unsafe",
		      disk);
	strvec__push(&v, "-device");
	strvec__push(&v, "virtio-blk-pci,drive=d0");
	strvec__push(&v, "-nic");
	strvec__push(&v, "none");
	strvec__push(&v, "-display");
	strvec__push(&v, "none");
	strvec__push(&v, "-serial");
	strvec__push(&v, "stdio");
	strvec__push(&v, "-monitor");
	strvec__push(&v, "none");
	strvec__push(&v, "-no-reboot");
	from = lseek(b->log_fd, 0, SEEK_END);
	ret = labvm_build__run(b, strvec__argv(&v), VM_TIMEOUT_MS, NULL, err);
	if (!ret)
		ret = verdict(b, from, err);
	if (!ret)
		ret = esp_check(b, disk, g, err);
out:
	unlink(rd);
	strvec__release(&v);
	free_all(rel, kernel, rd);
	return ret;
}
