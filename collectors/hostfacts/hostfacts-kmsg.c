// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's own words: its log (/dev/kmsg, else klogctl) and its
 * build configuration (/boot/config-RELEASE, else /proc/config.gz).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>
#include <zlib.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

/*
 * "6,339,208943,-;msg" (/dev/kmsg), "<6>[    0.208943] msg" (klogctl)
 * and "[    0.208943] msg" (dmesg) all become "msg".
 */
static const char *kmsg_strip(const char *line)
{
	const char *p = line, *semi;

	/* The record prefix is digits, commas and the flags (-, c, +). */
	semi = strchr(p, ';');
	if (isdigit((unsigned char)*p) && semi &&
	    strspn(p, "0123456789,-+c") == (size_t)(semi - p))
		return semi + 1;
	if (*p == '<') {
		p += strspn(p + 1, "0123456789") + 1;
		if (*p == '>')
			p++;
		else
			p = line;
	}
	if (*p == '[') {
		const char *close = strchr(p, ']');

		if (close) {
			p = close + 1;
			while (*p == ' ')
				p++;
		}
	}
	return p;
}

static void kmsg_match(char *line, const char *const *needles,
		       struct strvec *lines)
{
	const char *msg;
	size_t i;

	/* Continuation lines of /dev/kmsg records carry KEY=value pairs. */
	if (*line == ' ')
		return;
	msg = kmsg_strip(line);
	for (i = 0; needles[i]; i++) {
		if (strstr(msg, needles[i])) {
			strvec__push(lines, msg);
			return;
		}
	}
}

/* Match every complete line of @buf; what is left is moved to the front. */
static size_t kmsg_lines(char *buf, size_t len, const char *const *needles,
			 struct strvec *lines)
{
	char *start = buf, *nl;

	while ((nl = memchr(start, '\n', len - (start - buf)))) {
		*nl = '\0';
		kmsg_match(start, needles, lines);
		start = nl + 1;
	}
	len -= start - buf;
	memmove(buf, start, len);
	return len;
}

static int kmsg_read_fd(int fd, const char *const *needles,
			struct strvec *lines)
{
	size_t len = 0, alloc = 0;
	char *buf = NULL;
	ssize_t n;
	int err = 0;

	for (;;) {
		/* /dev/kmsg hands out one record per read, and EINVAL
		 * when the buffer is smaller than the record. */
		ALLOC_GROW(buf, len + 8192 + 1, alloc);
		n = read(fd, buf + len, alloc - len - 1);
		if (n < 0) {
			if (errno == EINTR || errno == EPIPE)
				continue; /* EPIPE: records overwritten */
			if (errno != EAGAIN)
				err = -errno;
			break;
		}
		if (!n)
			break;
		len = kmsg_lines(buf, len + n, needles, lines);
	}
	if (len) {
		buf[len] = '\0';
		kmsg_match(buf, needles, lines);
	}
	free(buf);
	return err;
}

static int klogctl_grep(const char *const *needles, struct strvec *lines)
{
	char *buf;
	int size, n;

	size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	if (size <= 0)
		return size < 0 ? -errno : -ENODATA;
	buf = xmalloc((size_t)size + 2);
	n = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
	if (n < 0) {
		n = -errno;
		free(buf);
		return n;
	}
	buf[n] = '\n';
	kmsg_lines(buf, (size_t)n + 1, needles, lines);
	free(buf);
	return 0;
}

int hf_kmsg_grep(const char *root, const char *const *needles,
		 struct strvec *lines)
{
	char *path = hf_path(root, "/dev/kmsg");
	int fd, err;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	free(path);
	if (fd < 0) {
		err = -errno;
		/* No /dev/kmsg (some containers): the syslog call may work. */
		if (hf_root_is_real(root))
			return klogctl_grep(needles, lines) ? err : 0;
		return err;
	}
	err = kmsg_read_fd(fd, needles, lines);
	close(fd);
	return err;
}

/* The options that decide or explain the IOMMU's default mode. */
static const char *const config_names[] = {
	"CONFIG_IOMMU_SUPPORT",
	"CONFIG_IOMMU_DMA",
	"CONFIG_IOMMU_DEFAULT_DMA_STRICT",
	"CONFIG_IOMMU_DEFAULT_DMA_LAZY",
	"CONFIG_IOMMU_DEFAULT_PASSTHROUGH",
	"CONFIG_INTEL_IOMMU",
	"CONFIG_INTEL_IOMMU_DEFAULT_ON",
	"CONFIG_AMD_IOMMU",
	"CONFIG_ARM_SMMU",
	"CONFIG_ARM_SMMU_V3",
	"CONFIG_VIRTIO_IOMMU",
	NULL,
};

static void config_line(const char *line, const char *const *names,
			struct strvec *lines)
{
	size_t i, n;

	for (i = 0; names[i]; i++) {
		n = strlen(names[i]);
		if (!strncmp(line, names[i], n) && line[n] == '=') {
			strvec__pushf(lines, "%s=%.*s", names[i],
				      (int)strcspn(line + n + 1, "\r\n"),
				      line + n + 1);
			return;
		}
		if (!strncmp(line, "# ", 2) &&
		    !strncmp(line + 2, names[i], n) &&
		    !strncmp(line + 2 + n, " is not set", 11)) {
			strvec__pushf(lines, "%s=n", names[i]);
			return;
		}
	}
}

static int config_read(const char *path, const char *const *names,
		       struct strvec *lines)
{
	char line[4096];
	gzFile gz;

	/* gzread passes an uncompressed file through unchanged. */
	gz = gzopen(path, "rb");
	if (!gz)
		return errno ? -errno : -ENOMEM;
	while (gzgets(gz, line, sizeof(line)))
		config_line(line, names, lines);
	gzclose(gz);
	return 0;
}

int hf_kernel_config_names(const char *root, const char *release,
			   const char *const *names, char **source,
			   struct strvec *lines)
{
	char *path;

	if (release) {
		path = hf_path(root, "/boot/config-%s", release);
		if (!config_read(path, names, lines)) {
			*source = xasprintf("/boot/config-%s", release);
			free(path);
			return 0;
		}
		free(path);
	}
	path = hf_path(root, "/proc/config.gz");
	if (!config_read(path, names, lines)) {
		*source = xstrdup("/proc/config.gz");
		free(path);
		return 0;
	}
	free(path);
	return -ENOENT;
}

int hf_kernel_config(const char *root, const char *release, char **source,
		     struct strvec *lines)
{
	return hf_kernel_config_names(root, release, config_names, source,
				      lines);
}
