// SPDX-License-Identifier: GPL-2.0-only
/*
 * The image's disk while it is built: a sparse file partitioned as the
 * firmware wants it (MBR for BIOS, GPT with an EFI system partition for
 * UEFI), on a loop device, formatted and mounted. Whatever step fails,
 * and whatever killed the build before, everything is undone: mounts
 * backwards, partitions, the loop device, the link made for grub.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/labvm/labvm-priv.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

#define CMD_TIMEOUT_MS 120000
#define PART_WAIT_MS 5000
#define ESP_MIB 200

void labvm__uuid(char out[37])
{
	unsigned char b[16];
	size_t i, o = 0;

	if (getrandom(b, sizeof(b), 0) != sizeof(b))
		memset(b, 0x5a, sizeof(b));
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		snprintf(out + o, 3, "%02x", b[i]);
		o += 2;
	}
	out[o] = '\0';
}

static int part_wait(const char *dev)
{
	int waited;

	for (waited = 0; waited < PART_WAIT_MS; waited += 100) {
		if (!access(dev, F_OK))
			return 0;
		usleep(100000);
	}
	return -ENOENT;
}

/*
 * The loop driver may scan no partitions (max_part=0): partx adds their
 * nodes. Measured here: losetup -P gave /dev/loop0 and no loop0p1.
 */
static int partitions(struct labvm_build *b, struct labvm_disk *d, bool esp,
		      char **err)
{
	const char *partx[] = { "partx", "-a", d->loop, NULL };
	char *e = NULL;

	d->root_dev = xasprintf("%sp%d", d->loop, esp ? 2 : 1);
	d->esp_dev = esp ? xasprintf("%sp1", d->loop) : NULL;
	if (part_wait(d->root_dev)) {
		/* partx fails for partitions the kernel already has. */
		labvm_build__run(b, partx, CMD_TIMEOUT_MS, NULL, &e);
		free(e);
	}
	if (part_wait(d->root_dev) || (esp && part_wait(d->esp_dev)))
		return errmsg__set(err, -ENOENT,
				   "no partition devices appeared for %s "
				   "(looked for %s)",
				   d->loop, d->root_dev);
	return 0;
}

int labvm_disk__create(struct labvm_build *b, const struct labvm_recipe *r,
		       const char *path, struct labvm_disk *d, char **err)
{
	bool uefi = r->firmware == LABVM_UEFI;
	char *layout, *out = NULL, size[32];
	unsigned char vid[4];
	int fd, ret;

	memset(d, 0, sizeof(*d));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)r->size_mib << 20)) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return errmsg__set(err, ret, "cannot make the disk %s: %s",
				   path, strerror(-ret));
	}
	close(fd);
	/* sfdisk reads its script on stdin: data, never a command line. */
	layout = uefi ? xasprintf("label: gpt\nstart=2048, size=%dMiB, "
				  "type=U\ntype=L\n",
				  ESP_MIB) :
			xstrdup("label: dos\nstart=2048, type=83, bootable\n");
	ret = labvm_build__run(
		b, (const char *const[]){ "sfdisk", "-q", path, NULL },
		CMD_TIMEOUT_MS, layout, err);
	free(layout);
	if (ret)
		return ret;
	ret = labvm_build__capture(b,
				   (const char *const[]){ "losetup", "--find",
							  "--show", path,
							  NULL },
				   CMD_TIMEOUT_MS, &out, err);
	if (ret)
		return ret;
	out[strcspn(out, "\n")] = '\0';
	if (strncmp(out, "/dev/loop", 9)) {
		ret = errmsg__set(err, -EIO,
				  "losetup printed '%.40s', not a "
				  "loop device",
				  out);
		free(out);
		return ret;
	}
	d->loop = out;
	ret = partitions(b, d, uefi, err);
	if (ret)
		return ret;
	labvm__uuid(d->root_uuid);
	ret = labvm_build__run(
		b,
		(const char *const[]){ "mkfs.ext4", "-q", "-F", "-L", "labroot",
				       "-U", d->root_uuid, d->root_dev, NULL },
		CMD_TIMEOUT_MS, NULL, err);
	if (ret || !uefi)
		return ret;
	if (getrandom(vid, sizeof(vid), 0) != sizeof(vid))
		memset(vid, 0xa5, sizeof(vid));
	snprintf(size, sizeof(size), "%02X%02X%02X%02X", vid[0], vid[1], vid[2],
		 vid[3]);
	snprintf(d->esp_serial, sizeof(d->esp_serial), "%.4s-%.4s", size,
		 size + 4);
	return labvm_build__run(b,
				(const char *const[]){ "mkfs.vfat", "-F", "32",
						       "-n", "ESP", "-i", size,
						       d->esp_dev, NULL },
				CMD_TIMEOUT_MS, NULL, err);
}

static int do_mount(struct labvm_disk *d, const char *src, const char *dst,
		    const char *type, unsigned long flags, char **err)
{
	if (d->nr_mounts == ARRAY_SIZE(d->mounts))
		return errmsg__set(err, -ENOSPC, "too many mounts");
	if (mkdir(dst, 0755) && errno != EEXIST)
		return errmsg__set(err, -errno, "cannot make %s: %s", dst,
				   strerror(errno));
	if (mount(src, dst, type, flags, NULL))
		return errmsg__set(err, -errno, "cannot mount %s on %s: %s",
				   src, dst, strerror(errno));
	d->mounts[d->nr_mounts++] = xstrdup(dst);
	return 0;
}

int labvm_disk__mount_root(struct labvm_build *b, struct labvm_disk *d,
			   const char *mnt, char **err)
{
	(void)b;
	d->mnt = xstrdup(mnt);
	return do_mount(d, d->root_dev, mnt, "ext4", 0, err);
}

int labvm_disk__mount_esp(struct labvm_build *b, struct labvm_disk *d,
			  char **err)
{
	char *boot = xasprintf("%s/boot", d->mnt);
	char *efi = xasprintf("%s/boot/efi", d->mnt);
	int ret;

	(void)b;
	mkdir(boot, 0755);
	ret = do_mount(d, d->esp_dev, efi, "vfat", 0, err);
	free_all(boot, efi);
	return ret;
}

int labvm_disk__bind(struct labvm_disk *d, char **err)
{
	static const struct {
		const char *src, *sub, *type;
		unsigned long flags;
	} binds[] = {
		{ "/dev", "dev", NULL, MS_BIND },
		{ "/dev/pts", "dev/pts", NULL, MS_BIND },
		{ "proc", "proc", "proc", 0 },
		{ "sysfs", "sys", "sysfs", 0 },
	};
	size_t i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(binds) && !ret; i++) {
		char *dst = xasprintf("%s/%s", d->mnt, binds[i].sub);

		ret = do_mount(d, binds[i].src, dst, binds[i].type,
			       binds[i].flags, err);
		free(dst);
	}
	return ret;
}

int labvm_disk__uuid_link(struct labvm_disk *d, char **err)
{
	char *link = xasprintf("/dev/disk/by-uuid/%s", d->root_uuid);

	if (!access(link, F_OK)) {
		free(link);
		return 0; /* udev made it: this machine has udev */
	}
	mkdir("/dev/disk", 0755);
	if (!mkdir("/dev/disk/by-uuid", 0755))
		d->made_uuid_dir = true;
	if (symlink(d->root_dev, link)) {
		int ret = -errno;

		free(link);
		return errmsg__set(err, ret,
				   "cannot link /dev/disk/by-uuid/%s: %s",
				   d->root_uuid, strerror(-ret));
	}
	d->uuid_link = link;
	return 0;
}

static void quiet(const char *const *argv)
{
	struct spawn sp;

	spawn__run(&sp, argv,
		   &(struct spawn_opts){ .flags = SPAWN_NULL_OUT |
						  SPAWN_NULL_ERR },
		   CMD_TIMEOUT_MS);
	spawn__release(&sp);
}

static void loop_release(const char *loop)
{
	quiet((const char *const[]){ "partx", "-d", loop, NULL });
	quiet((const char *const[]){ "losetup", "-d", loop, NULL });
}

void labvm_disk__teardown(struct labvm_disk *d)
{
	while (d->nr_mounts) {
		char *m = d->mounts[--d->nr_mounts];

		sync();
		if (umount2(m, 0))
			umount2(m, MNT_DETACH);
		free(m);
	}
	if (d->uuid_link) {
		unlink(d->uuid_link);
		if (d->made_uuid_dir)
			rmdir("/dev/disk/by-uuid");
	}
	if (d->loop)
		loop_release(d->loop);
	free_all(d->loop, d->root_dev, d->esp_dev, d->mnt, d->uuid_link);
	memset(d, 0, sizeof(*d));
}

/* /proc/self/mountinfo's octal escapes (\040 for a blank) undone. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] &&
		    s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

void labvm_disk__sweep(const char *images)
{
	char *prefix = xasprintf("%s/.tmp-", images), *text = NULL, *line,
	     *save = NULL, **v = NULL, *out = NULL;
	size_t len, nr = 0, alloc = 0, i;
	struct spawn sp;

	if (!read_file("/proc/self/mountinfo", &text, &len)) {
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char mp[4096];

			if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
				continue;
			unescape(mp);
			if (strncmp(mp, prefix, strlen(prefix)))
				continue;
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr++] = xstrdup(mp);
		}
	}
	/* Later mounts are deeper: undone first. */
	for (i = nr; i-- > 0;) {
		pr_info("labvm build: unmounting %s, left by a killed build",
			v[i]);
		if (umount2(v[i], 0))
			umount2(v[i], MNT_DETACH);
		free(v[i]);
	}
	free(v);
	free(text);
	if (!spawn__run(&sp,
			(const char *const[]){
				"losetup", "--list", "--noheadings", "--raw",
				"--output", "NAME,BACK-FILE", NULL },
			&(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT |
						       SPAWN_NULL_ERR },
			CMD_TIMEOUT_MS) &&
	    sp.out) {
		out = sp.out;
		sp.out = NULL;
	}
	spawn__release(&sp);
	save = NULL;
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *file = strchr(line, ' ');

		if (!file || strncmp(file + 1, prefix, strlen(prefix)))
			continue;
		*file = '\0';
		pr_info("labvm build: detaching %s, left by a killed build",
			line);
		loop_release(line);
	}
	free(out);
	free(prefix);
}
