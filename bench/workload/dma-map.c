// SPDX-License-Identifier: GPL-2.0-only
/*
 * One dma_map run, start to end: nothing is lent before everything that
 * can be checked was, and whatever was lent is given back, whatever the
 * benchmark did.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/workload/dma-map-priv.h"
#include "clock.h"
#include "errmsg.h"
#include "json-util.h"
#include "log.h"
#include "util.h"

/* The ioctl's argument with room for a kernel's longer struct. */
union dma_map_buf {
	struct map_benchmark mb;
	unsigned char raw[DMA_MAP_BUF_SIZE];
};

/*
 * Without BTF the size is a guess: first the padded struct (5.11-5.17,
 * and every kernel with 23ee8a2563a0), then the one 5.18 made. The
 * kernel answers an ioctl number of another size with EINVAL before it
 * looks at anything, so a second try never runs the benchmark twice.
 */
static const size_t assumed_sizes[] = { DMA_MAP_STRUCT_SIZE,
					DMA_MAP_STRUCT_SIZE_UNPADDED };

struct dma_map_trial {
	union dma_map_buf buf;
	size_t size;
	long long elapsed_ms;
	int64_t ops;   /* the benchmark's count; -1: unknown */
	char *ops_why; /* why unknown */
};

static void fill(union dma_map_buf *buf, const struct dma_map_opts *o)
{
	struct map_benchmark *mb = &buf->mb;

	memset(buf, 0, sizeof(*buf));
	mb->threads = o->threads;
	mb->seconds = o->seconds;
	mb->node = o->node;
	mb->dma_bits = o->dma_bits;
	mb->dma_dir = (uint32_t)o->dir;
	mb->dma_trans_ns = o->trans_ns;
	mb->granule = o->granule;
}

/* What the kernel's bare errno most likely means, for *@why. */
static void ioctl_failed(int ret, const struct dma_map_opts *o, const char *bdf,
			 char **err)
{
	char hint[160] = "";

	if (ret == -EINVAL)
		snprintf(hint, sizeof(hint),
			 " (the kernel refused the parameters; the likeliest "
			 "is that the device cannot take a %u-bit DMA mask: "
			 "its log says which)",
			 o->dma_bits);
	else if (ret == -ENOMEM)
		snprintf(hint, sizeof(hint),
			 " (a dma_map_single() failed, or a thread's buffer "
			 "could not be had: the kernel's log says which)");
	errmsg__set(err, ret, "the %s ioctl on %s failed: %s%s", DMA_MAP_DRIVER,
		    bdf, strerror(-ret), hint);
}

static int bench(const struct dma_map_ops *ops, const char *root,
		 const struct dma_map_opts *o, const char *bdf,
		 const struct dma_map_layout *l, struct dma_map_trial *tr,
		 char **err)
{
	char *p = dma_map__path(root, DMA_MAP_DEBUGFS);
	size_t i;
	int64_t t0;
	int fd, ret;

	fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = errmsg__set(err, -errno,
				  "cannot open %s with %s bound to %s: %s (did "
				  "its probe fail? the kernel's log says)",
				  p, bdf, DMA_MAP_DRIVER, strerror(errno));
		free(p);
		return ret;
	}
	for (i = 0;; i++) {
		tr->size = l->btf ? l->size : assumed_sizes[i];
		fill(&tr->buf, o);
		t0 = mono_ms();
		free(tr->ops_why);
		tr->ops_why = NULL;
		ret = ops->run(fd, tr->size, &tr->buf.mb, &tr->ops,
			       &tr->ops_why);
		tr->elapsed_ms = mono_ms() - t0;
		if (ret != -EINVAL || l->btf ||
		    i + 1 == ARRAY_SIZE(assumed_sizes))
			break;
	}
	close(fd);
	if (ret)
		ioctl_failed(ret, o, bdf, err);
	free(p);
	return ret;
}

/* The kernel's whole units of 100 ns, in ns. */
static json_t *ns(uint64_t v)
{
	return json_integer((json_int_t)(v * 100));
}

static json_t *results(const struct dma_map_opts *o, const char *bdf,
		       const char *driver, bool lent,
		       const struct dma_map_layout *l,
		       const struct dma_map_trial *tr)
{
	const struct map_benchmark *mb = &tr->buf.mb;
	json_t *r;

	r = json_pack("{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:s, s:I, s:I, "
		      "s:i, s:s, s:o, s:b, s:s, s:o, s:I, s:I}",
		      "map_ns", ns(mb->avg_map_100ns), "map_ns_stddev",
		      ns(mb->map_stddev), "unmap_ns", ns(mb->avg_unmap_100ns),
		      "unmap_ns_stddev", ns(mb->unmap_stddev), "threads",
		      (json_int_t)o->threads, "seconds", (json_int_t)o->seconds,
		      "granule", (json_int_t)o->granule, "dir",
		      dma_map__dir_name(o->dir), "dma_bits",
		      (json_int_t)o->dma_bits, "trans_ns",
		      (json_int_t)o->trans_ns, "node", o->node, "device", bdf,
		      "driver_before", json_string_or_null(driver), "lent",
		      lent, "layout", l->btf ? "btf" : "assumed", "layout_note",
		      json_string_or_null(l->note), "struct_size",
		      (json_int_t)tr->size, "elapsed_ms",
		      (json_int_t)tr->elapsed_ms);
	/* Each operation is one map and its unmap, on every thread. */
	if (r && tr->ops >= 0) {
		json_object_set_new(r, "operations", json_integer(tr->ops));
		json_object_set_new(r, "ops_per_s",
				    json_real((double)tr->ops / o->seconds));
	} else if (r) {
		json_object_set_new(r, "operations_note",
				    json_string_or_null(tr->ops_why));
	}
	return r;
}

/* May @bdf, held by @driver (or none), be lent now? */
static int lendable(const char *root, const char *bdf, const char *driver,
		    bool unbind, char **err)
{
	char *other;
	int ret = 0;

	if (driver && !unbind)
		return errmsg__set(err, -EBUSY,
				   "%s is held by its driver %s: set unbind = "
				   "true to lend it to the benchmark",
				   bdf, driver);
	if (driver) {
		ret = dma_map__in_use(root, bdf, err);
		if (ret)
			return ret;
	}
	other = dma_map__other_holder(root, bdf);
	if (other)
		ret = errmsg__set(err, -EBUSY,
				  "%s already holds %s and takes one device "
				  "at a time: give that one back first",
				  DMA_MAP_DRIVER, other);
	free(other);
	return ret;
}

int dma_map__check_device(const char *root, const char *device, bool unbind,
			  char **driver, char **err)
{
	char bdf[DMA_MAP_BDF_SIZE];
	int ret;

	*driver = NULL;
	ret = dma_map__parse_bdf(device, bdf, err);
	if (!ret)
		ret = dma_map__driver_of(root, bdf, driver, err);
	/* Lent by hand already: used as it is. */
	if (!ret && (!*driver || strcmp(*driver, DMA_MAP_DRIVER)))
		ret = lendable(root, bdf, *driver, unbind, err);
	return ret;
}

/* Give back, and say so in *@why after what went wrong before, if any. */
static int give_back(const char *root, const char *bdf, const char *driver,
		     int ret, char **err)
{
	char *e = NULL, *first;
	int r;

	r = dma_map__give_back(root, bdf, driver, &e);
	if (!r) {
		dma_map__journal_remove(root);
		return ret;
	}
	if (ret) {
		first = *err;
		errmsg__reset(err);
		errmsg__set(
			err, ret,
			"%s; and %s could not be given back to %s: %s (%s%s "
			"keeps it for the next run or the agent's start)",
			first, bdf, driver ? driver : "no driver", e, root,
			DMA_MAP_JOURNAL);
		free(first);
	} else {
		ret = errmsg__set(err, r,
				  "%s could not be given back to %s after the "
				  "run: %s (%s%s keeps it for the next run or "
				  "the agent's start)",
				  bdf, driver ? driver : "no driver", e, root,
				  DMA_MAP_JOURNAL);
	}
	free(e);
	return ret;
}

int dma_map__run(const struct dma_map_opts *o, const struct dma_map_ops *ops,
		 const char *root, json_t **result, char **err)
{
	struct dma_map_layout l = { 0 };
	struct dma_map_trial *tr = NULL;
	char bdf[DMA_MAP_BDF_SIZE], *driver = NULL, *done = NULL, *e = NULL;
	bool lent = false;
	int ret;

	*result = NULL;
	ret = dma_map__check_opts(o, err);
	if (ret)
		return ret;
	dma_map__parse_bdf(o->device, bdf, NULL);
	/* A run killed with its device lent: that one goes back first. */
	ret = dma_map__restore_lent(root, &done, err);
	if (ret)
		return ret;
	if (done)
		pr_warn("dma_map: %s", done);
	ret = dma_map__available(root, err);
	if (!ret)
		ret = dma_map__check_node(root, o->node, err);
	if (!ret)
		ret = dma_map__layout(root, &l, err);
	if (!ret)
		ret = dma_map__driver_of(root, bdf, &driver, err);
	if (ret)
		goto out;
	/* Already the benchmark's (lent by hand): used as it is, and left. */
	lent = !driver || strcmp(driver, DMA_MAP_DRIVER);
	if (lent) {
		ret = lendable(root, bdf, driver, o->unbind, err);
		if (!ret)
			ret = dma_map__journal_write(root, bdf, driver, err);
		if (ret)
			goto out;
		ret = dma_map__lend(root, bdf, driver, &e);
		if (ret)
			errmsg__set(err, ret, "lending %s to %s: %s", bdf,
				    DMA_MAP_DRIVER, e);
	}
	tr = xcalloc(1, sizeof(*tr));
	tr->ops = -1;
	if (!ret)
		ret = bench(ops, root, o, bdf, &l, tr, err);
	if (lent)
		ret = give_back(root, bdf, driver, ret, err);
	if (!ret) {
		char *after = NULL;

		*result = results(o, bdf, driver, lent, &l, tr);
		json_object_set_new(*result, "restored",
				    json_string_or_null(done));
		/* Where the device is now, as sysfs says: the give-back seen. */
		if (!dma_map__driver_of(root, bdf, &after, NULL))
			json_object_set_new(*result, "driver_after",
					    json_string_or_null(after));
		free(after);
	}
out:
	dma_map__layout_release(&l);
	if (tr)
		free(tr->ops_why);
	free_all(driver, tr, e, done);
	return ret;
}
