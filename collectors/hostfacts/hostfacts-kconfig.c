// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the distribution built its kernel with, for a fixed list of
 * options: the IOMMU's default mode and drivers, and what the probes
 * need (kprobes, BTF for fentry, the function tracer, the kernel's own
 * dma_map_benchmark). Read by the same reader as the policy's config
 * witness (hostfacts-kmsg.c), with a longer list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

const char *const hostfacts_kconfig_names[] = {
	"CONFIG_IOMMU_DEFAULT_DMA_STRICT",
	"CONFIG_IOMMU_DEFAULT_DMA_LAZY",
	"CONFIG_IOMMU_DEFAULT_PASSTHROUGH",
	"CONFIG_INTEL_IOMMU",
	"CONFIG_INTEL_IOMMU_DEFAULT_ON",
	"CONFIG_AMD_IOMMU",
	"CONFIG_ARM_SMMU_V3",
	"CONFIG_VIRTIO_IOMMU",
	"CONFIG_IOMMU_DMA",
	"CONFIG_DMA_MAP_BENCHMARK",
	"CONFIG_KPROBES",
	"CONFIG_DEBUG_INFO_BTF",
	"CONFIG_FUNCTION_TRACER",
	NULL,
};

int hostfacts__kernel_config(const char *root, struct hostfacts_kconfig *kc)
{
	struct strvec lines = { 0 };
	char *release = NULL;
	int err;

	memset(kc, 0, sizeof(*kc));
	/* Without a release, only /proc/config.gz can be the config. */
	hostfacts__kernel_release(root, &release);
	err = hf_kernel_config_names(root, release, hostfacts_kconfig_names,
				     &kc->source, &lines);
	free(release);
	if (err) {
		strvec__release(&lines);
		return err;
	}
	kc->lines = lines.v;
	kc->nr_lines = lines.nr;
	return 0;
}

void hostfacts__kernel_config_release(struct hostfacts_kconfig *kc)
{
	free(kc->source);
	strv_free(kc->lines, kc->nr_lines);
	memset(kc, 0, sizeof(*kc));
}

/* @name's value in @kc ("y", "m", "n", a number); NULL: not named. */
const char *hostfacts__kernel_config_value(const struct hostfacts_kconfig *kc,
					   const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < kc->nr_lines; i++)
		if (!strncmp(kc->lines[i], name, n) && kc->lines[i][n] == '=')
			return kc->lines[i] + n + 1;
	return NULL;
}

json_t *hf_json_kernel_config(const char *root, struct strvec *warn)
{
	struct hostfacts_kconfig kc;
	json_t *opts, *o;
	size_t i, n;
	int err;

	err = hostfacts__kernel_config(root, &kc);
	if (err) {
		strvec__push(warn,
			     "kernel_config: neither /boot/config-RELEASE "
			     "nor /proc/config.gz is readable");
		return json_null();
	}
	/* Every option of the list, null where the config does not name it. */
	opts = json_object();
	for (i = 0; hostfacts_kconfig_names[i]; i++)
		json_object_set_new(
			opts, hostfacts_kconfig_names[i],
			json_string_or_null(hostfacts__kernel_config_value(
				&kc, hostfacts_kconfig_names[i])));
	n = strlen(kc.source);
	o = json_pack("{s:o, s:b, s:o}", "source",
		      json_string_or_null(kc.source), "compressed",
		      n > 3 && !strcmp(kc.source + n - 3, ".gz"), "options",
		      opts);
	hostfacts__kernel_config_release(&kc);
	return o;
}
