// SPDX-License-Identifier: GPL-2.0-only
/*
 * The logical probes and the event syntax of `trace -e` and of
 * [collect.bpf] probes. The matrix takes its names from this table;
 * each maps to the functions that implement the path on the kernels we
 * know, newest name first.
 *
 * iommu_iotlb_sync() and iommu_flush_iotlb_all() are static inlines in
 * include/linux/iommu.h, so the functions to probe for them are the
 * drivers' iotlb_sync and flush_iotlb_all callbacks, one group per
 * driver. Some arm-smmu names exist in both the v2 and v3 drivers, built
 * in together on Debian's arm64 kernels, and a kprobe by such a name is
 * refused: "name@near" takes the one beside v3's unique near, by address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/probe-names.h"
#include "collectors/bpf/bpf-probes.h"
#include "suggest.h"
#include "util.h"

/*
 * Keyed by bpf/probe-names.h's list, which has the names and their order:
 * a row of a name not in it does not build, a name with no row here
 * would end the table early.
 */
#define DEF(name, ...) [PROBE_##name] = { #name, __VA_ARGS__ }

const struct bpf_probe_def bpf_probe_defs[] = {
	DEF(map, true, "map one buffer (dma_map_page/_phys)",
	    { "iommu_dma_map_phys|iommu_dma_map_page" },
	    { "dma:dma_map_phys", "dma:dma_map_page" }),
	DEF(unmap, true, "unmap one buffer",
	    { "iommu_dma_unmap_phys|iommu_dma_unmap_page" },
	    { "dma:dma_unmap_phys", "dma:dma_unmap_page" }),
	DEF(map_sg, true, "map a scatter-gather list", { "iommu_dma_map_sg" },
	    { "dma:dma_map_sg" }),
	DEF(unmap_sg, true, "unmap a scatter-gather list",
	    { "iommu_dma_unmap_sg" }, { "dma:dma_unmap_sg" }),
	DEF(sync_cpu, true, "sync one buffer for the CPU",
	    { "iommu_dma_sync_single_for_cpu" },
	    { "dma:dma_sync_single_for_cpu" }),
	DEF(sync_device, true, "sync one buffer for the device",
	    { "iommu_dma_sync_single_for_device" },
	    { "dma:dma_sync_single_for_device" }),
	DEF(sync_sg_cpu, true, "sync a scatter-gather list for the CPU",
	    { "iommu_dma_sync_sg_for_cpu" }, { "dma:dma_sync_sg_for_cpu" }),
	DEF(sync_sg_device, true, "sync a scatter-gather list for the device",
	    { "iommu_dma_sync_sg_for_device" },
	    { "dma:dma_sync_sg_for_device" }),
	DEF(iotlb_sync, true, "IOTLB sync after unmap (strict mode)",
	    { "iommu_iotlb_sync", "intel_iommu_tlb_sync",
	      "amd_iommu_iotlb_sync",
	      "arm_smmu_iotlb_sync@arm_smmu_cmdq_issue_cmdlist",
	      "viommu_iotlb_sync" }),
	DEF(fq_flush, true, "the flush queue's batched invalidation (lazy)",
	    { "fq_flush_iotlb|fq_flush_timeout" }),
	DEF(hw_flush, true, "the driver's invalidation command",
	    { "qi_submit_sync|qi_flush_iotlb|iommu_flush_iotlb_psi",
	      "__iommu_queue_command_sync|iommu_queue_command_sync|"
	      "iommu_queue_command",
	      "arm_smmu_cmdq_issue_cmdlist",
	      "viommu_sync_req|__viommu_sync_req" }),
	DEF(flush_all, false, "flush a whole domain's IOTLB",
	    { "iommu_flush_iotlb_all", "intel_flush_iotlb_all",
	      "amd_iommu_flush_iotlb_all",
	      "arm_smmu_flush_iotlb_all@arm_smmu_cmdq_issue_cmdlist",
	      "viommu_flush_iotlb_all" }),
	DEF(iova_alloc, false, "allocate an IOVA range",
	    { "alloc_iova_fast|iommu_dma_alloc_iova" }),
	DEF(iova_free, false, "free an IOVA range",
	    { "free_iova_fast|iommu_dma_free_iova" }),
	DEF(unmap_core, false,
	    "iommu-dma's unmap: page tables, then strict flush or FQ entry",
	    { "__iommu_dma_unmap" }),
	DEF(exposure, false,
	    "how long each unmapped IOVA stays reachable (docs/exposure.md)",
	    { NULL }, { NULL }, true),
	[PROBE__NR] = { NULL },
};
#undef DEF

const struct bpf_probe_def *bpf_probe_def__find(const char *name)
{
	const struct bpf_probe_def *d;

	for (d = bpf_probe_defs; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

/*
 * Kernel symbols and tracepoint names: [A-Za-z0-9_.], 1..127 bytes, not
 * starting with '.' (so never "..", since names become tracefs paths).
 */
static bool ident_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len > 127 || s[0] == '.')
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.'))
			return false;
	}
	return true;
}

static int spec_logical(const char *s, struct bpf_spec *spec, char *err,
			size_t errsz)
{
	const char *names[ARRAY_SIZE(bpf_probe_defs) + 1], *best;
	size_t i;

	spec->def = bpf_probe_def__find(s);
	if (spec->def) {
		spec->kind = BPF_SPEC_LOGICAL;
		spec->name = xstrdup(s);
		return 0;
	}
	for (i = 0; bpf_probe_defs[i].name; i++)
		names[i] = bpf_probe_defs[i].name;
	names[i++] = "default";
	names[i] = NULL;
	best = suggest__best(s, names);
	if (best)
		snprintf(err, errsz, "unknown probe '%s'; did you mean '%s'?",
			 s, best);
	else
		snprintf(err, errsz,
			 "unknown probe '%s': expected a probe name (see "
			 "docs/trace.md), 'default', fn:FUNCTION, "
			 "tp:CATEGORY:NAME or tp:CATEGORY:BEGIN:END",
			 s);
	return -EINVAL;
}

/* "tp:" has been taken off @s: "CAT:NAME" or "CAT:BEGIN:END". */
static int spec_tp(const char *whole, const char *s, struct bpf_spec *spec,
		   char *err, size_t errsz)
{
	const char *parts[4], *p = s;
	size_t lens[4], n = 0;

	for (;;) {
		const char *colon = strchr(p, ':');

		parts[n] = p;
		lens[n] = colon ? (size_t)(colon - p) : strlen(p);
		if (!ident_ok(parts[n], lens[n]))
			goto bad;
		n++;
		if (!colon)
			break;
		if (n == 3)
			goto bad;
		p = colon + 1;
	}
	if (n < 2)
		goto bad;
	spec->kind = n == 3 ? BPF_SPEC_TP_PAIR : BPF_SPEC_TP;
	spec->name = xstrdup(whole);
	spec->cat = xstrndup(parts[0], lens[0]);
	spec->tp = xstrndup(parts[1], lens[1]);
	if (n == 3)
		spec->tp_end = xstrndup(parts[2], lens[2]);
	return 0;
bad:
	snprintf(err, errsz,
		 "bad tracepoint '%s': expected tp:CATEGORY:NAME or "
		 "tp:CATEGORY:BEGIN:END, names of [A-Za-z0-9_.]",
		 whole);
	return -EINVAL;
}

int bpf_spec__parse(const char *s, struct bpf_spec *spec, char *err,
		    size_t errsz)
{
	memset(spec, 0, sizeof(*spec));
	if (!strncmp(s, "fn:", 3)) {
		if (!ident_ok(s + 3, strlen(s + 3))) {
			snprintf(err, errsz,
				 "bad function '%s': expected fn:NAME, a "
				 "kernel symbol of [A-Za-z0-9_.]",
				 s);
			return -EINVAL;
		}
		spec->kind = BPF_SPEC_FN;
		spec->name = xstrdup(s);
		spec->fn = xstrdup(s + 3);
		return 0;
	}
	if (!strncmp(s, "tp:", 3))
		return spec_tp(s, s + 3, spec, err, errsz);
	return spec_logical(s, spec, err, errsz);
}

void bpf_spec__release(struct bpf_spec *spec)
{
	free_all(spec->name, spec->fn, spec->cat, spec->tp, spec->tp_end);
	memset(spec, 0, sizeof(*spec));
}
