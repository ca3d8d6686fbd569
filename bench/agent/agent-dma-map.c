// SPDX-License-Identifier: GPL-2.0-only
/*
 * dma_map.run: the kernel's own DMA map benchmark on one PCI device of
 * this host (bench/workload/dma-map.h), lent to it for the run. And, as
 * the agent starts, the device a killed run left lent given back.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench/agent/agent.h"
#include "bench/workload/dma-map.h"
#include "errmsg.h"
#include "json-util.h"
#include "util.h"

/* A key the agent does not know is a matrix it cannot honour. */
static const char *const keys[] = { "device",	"unbind",   "threads",
				    "seconds",	"granule",  "direction",
				    "dma_bits", "trans_ns", "node",
				    NULL };

static int get_int(json_t *args, const char *key, long long def, long long min,
		   long long max, long long *out, char **err)
{
	json_t *v = json_object_get(args, key);

	if (!v) {
		*out = def;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return errmsg__set(err, -EINVAL,
				   "dma_map.run: \"%s\" must be an integer "
				   "%lld..%lld",
				   key, min, max);
	*out = json_integer_value(v);
	return 0;
}

static int get_uint(json_t *args, const char *key, unsigned int def,
		    unsigned int min, unsigned int max, unsigned int *out,
		    char **err)
{
	long long v = 0;
	int ret = get_int(args, key, def, min, max, &v, err);

	if (!ret)
		*out = (unsigned int)v;
	return ret;
}

static int get_dir(json_t *args, enum dma_map_dir *dir, char **err)
{
	json_t *v = json_object_get(args, "direction");

	if (!v) {
		*dir = DMA_MAP_DIR_BIDIRECTIONAL;
		return 0;
	}
	if (dma_map__dir_parse(json_string_value(v), dir))
		return errmsg__set(err, -EINVAL,
				   "dma_map.run: \"direction\" must be one of "
				   "bidirectional, to_device, from_device");
	return 0;
}

static int check_keys(json_t *args, char **err)
{
	const char *key, *const *k;
	json_t *v;

	json_object_foreach(args, key, v) {
		for (k = keys; *k && strcmp(*k, key); k++)
			;
		if (!*k)
			return errmsg__set(err, -EINVAL,
					   "dma_map.run: unknown argument "
					   "\"%s\"",
					   key);
	}
	return 0;
}

static int parse_args(json_t *args, struct dma_map_opts *o, char **err)
{
	long long node = DMA_MAP_NO_NODE;
	int ret;

	o->device = json_string_value(json_object_get(args, "device"));
	ret = check_keys(args, err);
	if (!ret && !o->device)
		ret = errmsg__set(err, -EINVAL,
				  "dma_map.run: needs \"device\", a PCI "
				  "address DDDD:BB:DD.F");
	if (!ret)
		ret = agent_args__bool(args, "dma_map.run", "unbind",
				       &o->unbind, err);
	if (!ret)
		ret = get_uint(args, "threads", DMA_MAP_DEFAULT_THREADS, 1,
			       DMA_MAP_MAX_THREADS, &o->threads, err);
	if (!ret)
		ret = get_uint(args, "seconds", DMA_MAP_DEFAULT_SECONDS, 1,
			       DMA_MAP_MAX_SECONDS, &o->seconds, err);
	if (!ret)
		ret = get_uint(args, "granule", DMA_MAP_DEFAULT_GRANULE, 1,
			       DMA_MAP_MAX_GRANULE, &o->granule, err);
	if (!ret)
		ret = get_dir(args, &o->dir, err);
	if (!ret)
		ret = get_uint(args, "dma_bits", DMA_MAP_DEFAULT_DMA_BITS,
			       DMA_MAP_MIN_DMA_BITS, DMA_MAP_MAX_DMA_BITS,
			       &o->dma_bits, err);
	if (!ret)
		ret = get_uint(args, "trans_ns", 0, 0, DMA_MAP_MAX_TRANS_NS,
			       &o->trans_ns, err);
	if (!ret)
		ret = get_int(args, "node", DMA_MAP_NO_NODE, DMA_MAP_NO_NODE,
			      DMA_MAP_MAX_NODE, &node, err);
	o->node = (int)node;
	return ret;
}

int agent_verb__dma_map_run(struct agent *a, json_t *args, json_t **res,
			    char **err)
{
	struct dma_map_opts o = { 0 };
	char *why = NULL;
	int ret;

	(void)a;
	ret = parse_args(args, &o, err);
	if (ret)
		return ret;
	ret = dma_map__run(&o, &dma_map_kernel_ops, agent_sysfs__root(), res,
			   &why);
	if (ret)
		ret = errmsg__set(err, ret, "dma_map.run: %s",
				  why ? why : strerror(-ret));
	free(why);
	return ret;
}

int agent_verb__dma_map_check(struct agent *a, json_t *args, json_t **res,
			      char **err)
{
	const char *device = json_string_value(json_object_get(args, "device"));
	char *driver = NULL, *why = NULL;
	bool unbind = false;
	const char *key;
	json_t *v;
	int ret = 0;

	(void)a;
	json_object_foreach(args, key, v)
		if (strcmp(key, "device") && strcmp(key, "unbind"))
			return errmsg__set(err, -EINVAL,
					   "dma_map.check: unknown argument "
					   "\"%s\" (device, unbind)",
					   key);
	if (!device)
		return errmsg__set(err, -EINVAL,
				   "dma_map.check: needs \"device\", a PCI "
				   "address DDDD:BB:DD.F");
	ret = agent_args__bool(args, "dma_map.run", "unbind", &unbind, err);
	if (ret)
		return ret;
	ret = dma_map__check_device(agent_sysfs__root(), device, unbind,
				    &driver, &why);
	if (ret)
		ret = errmsg__set(err, ret, "%s", why ? why : strerror(-ret));
	else
		*res = json_pack("{s:s, s:o}", "device", device, "driver",
				 json_string_or_null(driver));
	free_all(driver, why);
	return ret;
}

int agent_dma_map__restore(char **done, char **err)
{
	return dma_map__restore_lent(agent_sysfs__root(), done, err);
}
