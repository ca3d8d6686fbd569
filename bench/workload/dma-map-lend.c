// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lending a PCI device to dma_map_benchmark and giving it back, through
 * sysfs as an administrator would: driver_override names the benchmark
 * so that nothing else probes the device meanwhile, the device leaves
 * its driver and is bound to the benchmark; back, the other way round.
 * The journal says which device is out and whose it was before anything
 * is written, so that a run killed meanwhile does not strand it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "atomic-file.h"
#include "bench/workload/dma-map-priv.h"
#include "cache.h"
#include "errmsg.h"
#include "json-util.h"
#include "log.h"
#include "util.h"

char *dma_map__path(const char *root, const char *fmt, ...)
{
	va_list ap;
	char *rel, *p;

	va_start(ap, fmt);
	rel = xvasprintf(fmt, ap);
	va_end(ap);
	p = xasprintf("%s%s", root, rel);
	free(rel);
	return p;
}

/* A driver's name: it becomes a path, so nothing that climbs. */
static bool driver_name_ok(const char *s)
{
	return *s && *s != '-' && *s != '.' && strlen(s) < NAME_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._:-") == strlen(s);
}

/* The last component a sysfs link points at; NULL when no link. */
static char *link_base(const char *path)
{
	char buf[PATH_MAX], *b;
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return NULL;
	while (n > 1 && buf[n - 1] == '/')
		n--;
	buf[n] = '\0';
	b = strrchr(buf, '/');
	return xstrdup(b ? b + 1 : buf);
}

int dma_map__driver_of(const char *root, const char *bdf, char **driver,
		       char **err)
{
	char *dir = dma_map__path(root, "/sys/bus/pci/devices/%s", bdf);
	char *p = xasprintf("%s/driver", dir);
	struct stat sb;
	int ret = 0;

	*driver = NULL;
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		ret = errmsg__set(err, -ENODEV, "no PCI device %s", bdf);
		goto out;
	}
	*driver = link_base(p);
	if (*driver && !driver_name_ok(*driver)) {
		ret = errmsg__set(err, -EINVAL,
				  "%s is held by a driver with an unexpected "
				  "name '%s'",
				  bdf, *driver);
		free(*driver);
		*driver = NULL;
	}
out:
	free(p);
	free(dir);
	return ret;
}

/* A symlink other than the module's in @dir (NULL: any), not @skip. */
static char *first_device(const char *dir, const char *skip, bool pci)
{
	char bdf[DMA_MAP_BDF_SIZE], *found = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && !found && (de = readdir(d))) {
		if (de->d_type != DT_LNK || !strcmp(de->d_name, "module") ||
		    !strcmp(de->d_name, skip))
			continue;
		if (pci && dma_map__parse_bdf(de->d_name, bdf, NULL))
			continue;
		found = xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

char *dma_map__other_holder(const char *root, const char *bdf)
{
	char *p = dma_map__path(root, "/sys/bus/pci/drivers/" DMA_MAP_DRIVER);
	char *who = first_device(p, bdf, true);

	free(p);
	if (who)
		return who;
	/* It is a platform driver too, for devices without a PCI function. */
	p = dma_map__path(root, "/sys/bus/platform/drivers/" DMA_MAP_DRIVER);
	who = first_device(p, "", false);
	free(p);
	return who;
}

/* As `echo -n val > path`: a sysfs store takes the whole word at once. */
static int sysfs_write(const char *path, const char *val, char **err)
{
	int len = (int)strcspn(val, "\n");
	size_t n = strlen(val);
	ssize_t w;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errmsg__set(err, -errno, "cannot open %s: %s", path,
				   strerror(errno));
	w = write(fd, val, n);
	if (w != (ssize_t)n)
		ret = errmsg__set(err, w < 0 ? -errno : -EIO,
				  "writing '%.*s' to %s: %s", len, val, path,
				  w < 0 ? strerror(errno) : "short write");
	if (close(fd) < 0 && !ret)
		ret = errmsg__set(err, -errno, "writing '%.*s' to %s: %s", len,
				  val, path, strerror(errno));
	return ret;
}

static int write_at(const char *root, const char *val, char **err,
		    const char *fmt, const char *arg)
{
	char *p = dma_map__path(root, fmt, arg);
	int ret = sysfs_write(p, val, err);

	free(p);
	return ret;
}

int dma_map__lend(const char *root, const char *bdf, const char *driver,
		  char **err)
{
	int ret;

	/* First: once the device is free, no other driver may probe it. */
	ret = write_at(root, DMA_MAP_DRIVER, err,
		       "/sys/bus/pci/devices/%s/driver_override", bdf);
	if (!ret && driver)
		ret = write_at(root, bdf, err, "/sys/bus/pci/drivers/%s/unbind",
			       driver);
	if (!ret)
		ret = write_at(root, bdf, err, "/sys/bus/pci/drivers/%s/bind",
			       DMA_MAP_DRIVER);
	return ret;
}

/* Keep the first failure's words; the later ones go to the log. */
static int first_failure(int ret, int r, char **err, char **e)
{
	if (r < 0 && !ret) {
		errmsg__move(err, 0, *e);
		*e = NULL;
		return r;
	}
	if (r < 0)
		pr_warn("dma_map: and %s", *e);
	free(*e);
	*e = NULL;
	return ret;
}

int dma_map__give_back(const char *root, const char *bdf, const char *driver,
		       char **err)
{
	char *e = NULL, *now = NULL;
	int ret = 0, r;

	/* -ENODEV: not the benchmark's, the lending stopped short of it. */
	r = write_at(root, bdf, &e, "/sys/bus/pci/drivers/%s/unbind",
		     DMA_MAP_DRIVER);
	ret = first_failure(ret, r == -ENODEV ? 0 : r, err, &e);
	/* A newline alone is how the kernel is told "no override". */
	r = write_at(root, "\n", &e, "/sys/bus/pci/devices/%s/driver_override",
		     bdf);
	ret = first_failure(ret, r, err, &e);
	if (driver) {
		r = write_at(root, bdf, &e, "/sys/bus/pci/drivers/%s/bind",
			     driver);
		/* -EBUSY: something probed it back first, which is as good. */
		if (r == -EBUSY && !dma_map__driver_of(root, bdf, &now, NULL) &&
		    now && !strcmp(now, driver))
			r = 0;
		free(now);
		ret = first_failure(ret, r, err, &e);
	}
	return ret;
}

int dma_map__journal_write(const char *root, const char *bdf,
			   const char *driver, char **err)
{
	char *path = dma_map__path(root, DMA_MAP_JOURNAL);
	char *dir = xstrdup(path), *s = NULL, *e = NULL;
	struct iovec iov;
	json_t *j;
	int ret;

	*strrchr(dir, '/') = '\0';
	ret = cache__mkdirs(dir, &e);
	if (ret) {
		ret = errmsg__set(err, ret, "cannot write the journal %s: %s",
				  path, e);
		goto out;
	}
	j = json_pack("{s:s, s:o}", "device", bdf, "driver",
		      json_string_or_null(driver));
	s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	iov.iov_base = s;
	iov.iov_len = strlen(s);
	ret = atomic_file__write(path, &iov, 1);
	if (ret)
		ret = errmsg__set(err, ret, "cannot write the journal %s: %s",
				  path, strerror(-ret));
out:
	free_all(path, dir, s, e);
	return ret;
}

void dma_map__journal_remove(const char *root)
{
	char *path = dma_map__path(root, DMA_MAP_JOURNAL);

	unlink(path);
	free(path);
}

/* The journal's device and driver, each checked before it makes a path. */
static int journal_read(const char *root, char bdf[DMA_MAP_BDF_SIZE],
			char **driver, char **err)
{
	char *path = dma_map__path(root, DMA_MAP_JOURNAL);
	const char *dev, *drv;
	json_error_t jerr;
	json_t *j, *d;
	int ret = 0;

	*driver = NULL;
	if (access(path, F_OK)) {
		/* ENOTDIR: no folder for it, so no journal either. */
		ret = errno == ENOTDIR ? -ENOENT : -errno;
		if (ret != -ENOENT)
			errmsg__set(err, ret, "cannot read the journal %s: %s",
				    path, strerror(-ret));
		free(path);
		return ret;
	}
	j = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	dev = json_string_value(json_object_get(j, "device"));
	d = json_object_get(j, "driver");
	drv = json_string_value(d);
	if (!dev || dma_map__parse_bdf(dev, bdf, NULL) ||
	    !(json_is_null(d) || (drv && driver_name_ok(drv))))
		ret = errmsg__set(err, -EINVAL,
				  "the journal %s does not name a PCI device "
				  "and its driver (%s): see which device is "
				  "still dma_map_benchmark's, give it back, "
				  "then remove the file",
				  path, j ? "bad values" : jerr.text);
	else if (drv)
		*driver = xstrdup(drv);
	json_decref(j);
	free(path);
	return ret;
}

int dma_map__restore_lent(const char *root, char **done, char **err)
{
	char bdf[DMA_MAP_BDF_SIZE], *driver = NULL, *now = NULL, *e = NULL;
	int ret;

	*done = NULL;
	ret = journal_read(root, bdf, &driver, err);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	/* Hot-unplugged meanwhile: nothing is lent any more. */
	if (dma_map__driver_of(root, bdf, &now, NULL) == -ENODEV) {
		*done = xasprintf("%s, lent to %s by a run that did not end, "
				  "is gone: nothing to give back",
				  bdf, DMA_MAP_DRIVER);
		goto forget;
	}
	ret = dma_map__give_back(root, bdf, driver, &e);
	if (ret) {
		ret = errmsg__set(err, ret,
				  "%s, lent to %s by a run that did not end, "
				  "could not be given back to %s: %s; %s%s "
				  "stays for the next try",
				  bdf, DMA_MAP_DRIVER,
				  driver ? driver : "no driver", e, root,
				  DMA_MAP_JOURNAL);
		goto out;
	}
	if (driver)
		*done = xasprintf("gave %s back to %s: it was lent to %s by a "
				  "run that did not end",
				  bdf, driver, DMA_MAP_DRIVER);
	else
		*done = xasprintf("took %s from %s, driverless as it was: it "
				  "was lent by a run that did not end",
				  bdf, DMA_MAP_DRIVER);
forget:
	dma_map__journal_remove(root);
out:
	free_all(driver, now, e);
	return ret;
}
