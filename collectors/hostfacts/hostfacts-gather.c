// SPDX-License-Identifier: GPL-2.0-only
/*
 * All host facts as one JSON object (docs/probe.md), and what each
 * collector kind can do here, asked through its ops table.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/collector.h"
#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

static json_t *unavailable(const char *reason)
{
	return json_pack("{s:b, s:s}", "available", 0, "reason", reason);
}

static json_t *collectors_json(void)
{
	const struct collector_ops *const *k;
	json_t *o = json_object(), *info;
	int err;

	for (k = collector_kinds; *k; k++) {
		info = NULL;
		if (!(*k)->support) {
			info = unavailable("this collector has no support "
					   "check");
		} else {
			err = (*k)->support(&info);
			if (err || !info) {
				json_decref(info);
				info = unavailable(err ? strerror(-err) :
							 "no answer");
			}
		}
		json_object_set_new(o, (*k)->name, info);
	}
	return o;
}

/* The sections of the facts, in the order docs/probe.md lists them. */
static const struct {
	const char *key;
	json_t *(*json)(const char *root, struct strvec *warn);
} sections[] = {
	{ "identity", hf_json_identity },
	{ "kernel", hf_json_kernel },
	{ "iommu", hf_json_iommu },
	{ "dma_policy", hf_json_policy },
	{ "nics", hf_json_nics },
	{ "cpu", hf_json_cpu },
	{ "memory", hf_json_memory },
	{ "dmi", hf_json_dmi },
	{ "firmware", hf_json_firmware },
	{ "boot_loader", hf_json_boot_loader },
	{ "systemd", hf_json_systemd },
	{ "distro", hf_json_distro },
	{ "kernel_config", hf_json_kernel_config },
};

int hostfacts__gather_opts(const struct hostfacts_opts *opts, json_t **out)
{
	const char *root = opts->root ? opts->root : "/";
	struct strvec warn = { 0 };
	struct stat sb;
	size_t i;
	json_t *o;

	if (stat(root, &sb))
		return -errno;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	/* Without procfs there is no kernel to describe at all. */
	if (!hf_exists(root, "/proc/sys/kernel/osrelease"))
		return -ENOENT;

	o = json_object();
	json_object_set_new(o, "format", json_integer(HOSTFACTS_FORMAT));
	json_object_set_new(o, "root", json_string_or_null(root));
	for (i = 0; i < ARRAY_SIZE(sections); i++)
		json_object_set_new(o, sections[i].key,
				    sections[i].json(root, &warn));
	/* The collectors probe the running kernel, never a copied tree. */
	json_object_set_new(o, "collectors",
			    opts->collectors && hf_root_is_real(root) ?
				    collectors_json() :
				    json_null());
	json_object_set_new(o, "warnings", json_strings(warn.v, warn.nr));
	strv_free(warn.v, warn.nr);
	*out = o;
	return 0;
}
