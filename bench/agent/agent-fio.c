// SPDX-License-Identifier: GPL-2.0-only
/*
 * fio.run: one fio workload on a disk of this host, to its end. The
 * disk comes as the controller named it (a serial number or a /dev
 * path), and is checked here, on the host that knows what is mounted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/agent/agent.h"
#include "bench/workload/fio.h"
#include "errmsg.h"
#include "util.h"

/* fio's own --rw words; anything else never reaches its argv. */
static const char *const rw_words[] = { "read",	     "write",	  "randread",
					"randwrite", "readwrite", "randrw",
					NULL };

static int get_uint(json_t *args, const char *key, unsigned int min,
		    unsigned int max, unsigned int *out, char **err)
{
	json_t *v = json_object_get(args, key);

	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return errmsg__set(err, -EINVAL,
				   "fio.run: \"%s\" must be an integer %u..%u",
				   key, min, max);
	*out = (unsigned int)json_integer_value(v);
	return 0;
}

static int get_rw(json_t *args, const char **out, char **err)
{
	const char *s = json_string_value(json_object_get(args, "rw"));
	const char *const *w;

	for (w = rw_words; s && *w; w++)
		if (!strcmp(*w, s)) {
			*out = *w;
			return 0;
		}
	return errmsg__set(err, -EINVAL,
			   "fio.run: \"rw\" must be one of read, write, "
			   "randread, randwrite, readwrite, randrw");
}

int agent_verb__fio_run(struct agent *a, json_t *args, json_t **res, char **err)
{
	const char *serial = json_string_value(json_object_get(args, "serial"));
	const char *path = json_string_value(json_object_get(args, "path"));
	struct fio_opts o = { 0 };
	unsigned int bs;
	char *dev = NULL, *why = NULL;
	json_t *results;
	int ret;

	(void)a;
	if (!serial == !path || (serial && !name_is_safe(serial)))
		return errmsg__set(err, -EINVAL,
				   "fio.run: needs \"serial\" (a safe name) or "
				   "\"path\" (a /dev path), one of them");
	ret = get_rw(args, &o.rw, err);
	if (!ret)
		ret = get_uint(args, "bs", 512, 64U << 20, &bs, err);
	if (!ret)
		ret = get_uint(args, "iodepth", 1, 4096, &o.iodepth, err);
	if (!ret)
		ret = get_uint(args, "numjobs", 1, 256, &o.numjobs, err);
	if (!ret)
		ret = get_uint(args, "runtime_s", 1, 86400, &o.runtime_s, err);
	if (!ret)
		ret = agent_args__bool(args, "fio.run", "direct", &o.direct,
				       err);
	if (!ret)
		ret = agent_args__bool(args, "fio.run", "destructive",
				       &o.destructive, err);
	if (ret)
		return ret;
	o.bs = bs;
	ret = fio__resolve(serial, path, &dev, &why);
	if (!ret) {
		o.device = dev;
		ret = fio__check_target(&o, NULL, &why);
	}
	if (!ret)
		ret = fio__run(&o, 0, &results, &why);
	if (ret) {
		ret = errmsg__set(err, ret, "fio.run: %s", why);
		free(why);
		free(dev);
		return ret;
	}
	json_object_set_new(results, "device", json_string(dev));
	free(dev);
	*res = results;
	return 0;
}
