// SPDX-License-Identifier: GPL-2.0-only
/*
 * From names to this kernel's functions: kallsyms parsing with the
 * compiler's clone suffixes and module symbols, the logical probes'
 * renames across kernel versions (fed fake kallsyms of an old and a new
 * kernel), the event syntax and its messages, tracepoint format files,
 * the device filter's names; and, against this machine's real BTF, the
 * argument positions read from prototypes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "collectors/bpf/bpf-probes.h"
#include "tap.h"
#include "util.h"

/* A 6.18-like kernel: _phys names, an isra clone, a module, a dup. */
static const char new_kallsyms[] =
	"ffffffff81d91000 T iommu_dma_map_phys\n"
	"ffffffff81d911b0 T iommu_dma_unmap_phys\n"
	"ffffffff81d91330 T iommu_dma_map_sg\n"
	"ffffffff81d8ecd0 t iommu_dma_free_iova.isra.0\n"
	"ffffffff81238001 t iommu_dma_alloc_iova.cold\n"
	"ffffffff81d8fd60 t iommu_dma_alloc_iova\n"
	"ffffffff81d8f290 t fq_flush_timeout\n"
	"ffffffff81d8f0f0 t __iommu_dma_unmap\n"
	"ffffffff81000000 t qi_submit_sync.constprop.0.isra.0\n"
	"ffffffff81000010 t lonely.cold\n"
	"ffffffff81000020 t arm_smmu_tlb_inv_range_domain\n"
	"ffffffff81000030 t arm_smmu_tlb_inv_range_domain\n"
	"ffffffff82000000 D iommu_dma_data\n"
	"ffffffff81000040 t iommu_dma_map_sg_helper\n"
	"0000000000000000 t viommu_sync_req\t[virtio_iommu]\n"
	"0000000000000000 t viommu_iotlb_sync\t[virtio_iommu]\n";

/* A 6.1-like kernel: _page names, Intel's driver, alloc_iova_fast. */
static const char old_kallsyms[] = "ffffffff81000000 T iommu_dma_map_page\n"
				   "ffffffff81000100 T iommu_dma_unmap_page\n"
				   "ffffffff81000200 T alloc_iova_fast\n"
				   "ffffffff81000300 t fq_flush_iotlb\n"
				   "ffffffff81000310 t fq_flush_timeout\n"
				   "ffffffff81000400 T qi_submit_sync\n"
				   "ffffffff81000500 t intel_iommu_tlb_sync\n";

static void test_ksyms(void)
{
	struct ksym_match m;
	struct ksyms *ks;

	ksyms__parse(new_kallsyms, &ks);
	is_int(ksyms__find(ks, "iommu_dma_map_phys", &m), 0, "exact name");
	is_str(m.symbol, "iommu_dma_map_phys", "symbol as it is");
	ok(!m.module && m.count == 1, "vmlinux, one match");

	is_int(ksyms__find(ks, "iommu_dma_free_iova", &m), 0,
	       "a name only an .isra.0 clone has");
	is_str(m.symbol, "iommu_dma_free_iova.isra.0",
	       "the clone's name is what a kprobe needs");

	is_int(ksyms__find(ks, "qi_submit_sync", &m), 0, "a clone of a clone");
	is_str(m.symbol, "qi_submit_sync.constprop.0.isra.0",
	       "constprop.0.isra.0 taken whole");

	is_int(ksyms__find(ks, "iommu_dma_alloc_iova", &m), 0,
	       "the function beside its .cold part");
	is_str(m.symbol, "iommu_dma_alloc_iova", "never the .cold part");
	is_int(ksyms__find(ks, "lonely", &m), -ENOENT,
	       "a .cold part alone is not an entry point");

	is_int(ksyms__find(ks, "viommu_sync_req", &m), 0, "a module symbol");
	is_str(m.module, "virtio_iommu", "with its module");

	is_int(ksyms__find(ks, "arm_smmu_tlb_inv_range_domain", &m), 0,
	       "a name two drivers have");
	is_int(m.count, 2, "counted twice: ambiguous for kprobes");

	is_int(ksyms__find(ks, "iommu_dma_data", &m), -ENOENT,
	       "data symbols are not functions");
	is_int(ksyms__find(ks, "iommu_dma_map", &m), -ENOENT,
	       "a prefix of a longer name is not a match");
	is_int(ksyms__find(ks, "iommu_dma_map_sg", &m), 0,
	       "a name that prefixes another one still matches itself");
	is_str(m.symbol, "iommu_dma_map_sg", "not iommu_dma_map_sg_helper");
	ksyms__free(ks);
}

static struct bpf_target *target_named(struct bpf_probe *p, const char *n)
{
	size_t i;

	for (i = 0; i < p->nr_targets; i++)
		if (!strcmp(p->targets[i].name, n))
			return &p->targets[i];
	return NULL;
}

/* A kernel that is just @kallsyms: no BTF, no tracefs. */
static void resolve_on(const char *kallsyms, const char *name,
		       struct bpf_probe *p)
{
	struct bpf_env env = { 0 };
	struct bpf_spec spec;
	char err[256];

	ksyms__parse(kallsyms, &env.ksyms);
	if (bpf_spec__parse(name, &spec, err, sizeof(err)) ||
	    bpf_probe__resolve(p, &spec, &env, err, sizeof(err)))
		tap_diag("resolve %s: %s", name, err);
	bpf_spec__release(&spec);
	ksyms__free(env.ksyms);
}

/*
 * @probe on @kallsyms resolves to @target alone, with @missing names
 * missing (-1: not checked).
 */
static void resolves_to(const char *kallsyms, const char *probe,
			const char *target, int missing, const char *what,
			const char *missing_what)
{
	struct bpf_probe p;

	resolve_on(kallsyms, probe, &p);
	ok(p.nr_targets == 1 && target_named(&p, target), "%s", what);
	if (missing >= 0)
		is_int(p.missing.nr, missing, "%s", missing_what);
	bpf_probe__release(&p);
}

static void test_renames(void)
{
	struct bpf_probe p;
	struct bpf_target *t;

	resolve_on(new_kallsyms, "unmap", &p);
	is_int(p.nr_targets, 1, "unmap on 6.18: one function");
	ok(target_named(&p, "iommu_dma_unmap_phys"), "iommu_dma_unmap_phys");
	bpf_probe__release(&p);

	resolves_to(old_kallsyms, "unmap", "iommu_dma_unmap_page", 0,
		    "unmap on 6.1: iommu_dma_unmap_page", "nothing missing");

	resolve_on(new_kallsyms, "iova_free", &p);
	t = target_named(&p, "iommu_dma_free_iova");
	ok(t, "iova_free without free_iova_fast: the next name");
	is_str(t ? t->symbol : NULL, "iommu_dma_free_iova.isra.0",
	       "attached by its clone's symbol");
	bpf_probe__release(&p);

	resolves_to(
		old_kallsyms, "fq_flush", "fq_flush_iotlb", -1,
		"fq_flush: the flush itself, not also the timer that calls it",
		NULL);
	resolves_to(old_kallsyms, "hw_flush", "qi_submit_sync", 3,
		    "hw_flush on Intel: qi_submit_sync",
		    "the AMD, SMMUv3 and virtio groups missing");

	resolve_on(new_kallsyms, "iotlb_sync", &p);
	t = target_named(&p, "viommu_iotlb_sync");
	ok(t && t->module && !strcmp(t->module, "virtio_iommu"),
	   "iotlb_sync: the virtio-iommu callback, in its module");
	is_int(p.missing.nr, 4, "the inline core and three drivers missing");
	has_str(p.missing.nr ? p.missing.v[0] : NULL, "iommu_iotlb_sync",
		"the missing names are kept");
	bpf_probe__release(&p);
}

static void test_specs(void)
{
	struct bpf_spec s;
	char err[256];

	is_int(bpf_spec__parse("map_sg", &s, err, sizeof(err)), 0,
	       "a logical probe");
	ok(s.kind == BPF_SPEC_LOGICAL && s.def &&
		   !strcmp(s.def->name, "map_sg"),
	   "knows its definition");
	bpf_spec__release(&s);

	is_int(bpf_spec__parse("fn:iommu_dma_free_iova.isra.0", &s, err,
			       sizeof(err)),
	       0, "fn: with a clone suffix");
	is_str(s.fn, "iommu_dma_free_iova.isra.0", "the function");
	bpf_spec__release(&s);

	is_int(bpf_spec__parse("tp:dma:dma_map_phys", &s, err, sizeof(err)), 0,
	       "tp:CAT:NAME");
	ok(s.kind == BPF_SPEC_TP && !strcmp(s.cat, "dma") &&
		   !strcmp(s.tp, "dma_map_phys") && !s.tp_end,
	   "category and name");
	bpf_spec__release(&s);

	is_int(bpf_spec__parse("tp:syscalls:sys_enter_read:sys_exit_read", &s,
			       err, sizeof(err)),
	       0, "tp:CAT:BEGIN:END");
	ok(s.kind == BPF_SPEC_TP_PAIR && !strcmp(s.tp_end, "sys_exit_read"),
	   "a pair");
	bpf_spec__release(&s);

	is_int(bpf_spec__parse("unmpa", &s, err, sizeof(err)), -EINVAL,
	       "a misspelt probe");
	has_str(err, "did you mean 'unmap'?", "suggests the right one");
	is_int(bpf_spec__parse("fn:foo;rm", &s, err, sizeof(err)), -EINVAL,
	       "a function name with a ';'");
	has_str(err, "'fn:foo;rm'", "the message names the value");
	has_str(err, "[A-Za-z0-9_.]", "and what is expected");
	is_int(bpf_spec__parse("fn:", &s, err, sizeof(err)), -EINVAL,
	       "fn: with no name");
	is_int(bpf_spec__parse("tp:dma", &s, err, sizeof(err)), -EINVAL,
	       "tp: without a name");
	has_str(err, "tp:CATEGORY:NAME", "says the form");
	is_int(bpf_spec__parse("tp:a:b:c:d", &s, err, sizeof(err)), -EINVAL,
	       "tp: with four parts");
	is_int(bpf_spec__parse("tp:../x:y", &s, err, sizeof(err)), -EINVAL,
	       "a category that would climb out of tracefs");
	is_int(bpf_spec__parse("tp:..:x", &s, err, sizeof(err)), -EINVAL,
	       "a category of dots");
	is_int(bpf_spec__parse("tp:a::b", &s, err, sizeof(err)), -EINVAL,
	       "an empty part");
	is_int(bpf_spec__parse("frobnicate", &s, err, sizeof(err)), -EINVAL,
	       "an unknown word");
	has_str(err, "fn:FUNCTION", "lists the forms");
}

static const char dma_format[] =
	"name: dma_map_phys\nID: 1419\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:__data_loc char[] device;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 phys_addr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t size;\toffset:32;\tsize:8;\tsigned:0;\n";

static const char tcp_format[] =
	"\tfield:const void * skb_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int skb_len;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:int size_goal;\toffset:24;\tsize:4;\tsigned:1;\n";

static void test_format(void)
{
	int dev, off, len;

	tracefs__parse_format(dma_format, &dev, &off, &len);
	is_int(dev, 8, "dma: the device name's __data_loc");
	is_int(off, 32, "dma: the size field");
	is_int(len, 8, "of 8 bytes");
	tracefs__parse_format(tcp_format, &dev, &off, &len);
	ok(dev == -1 && off == -1, "tcp: neither (size_goal is not size)");
}

static void test_filter(void)
{
	struct bpf_filter f;
	char err[256];

	is_int(bpf_filter__set(&f, "3B:00.0", err, sizeof(err)), 0,
	       "a short PCI address");
	is_str(f.dev_name, "0000:3b:00.0", "gains its domain, in lower case");
	ok(f.on, "and turns the filter on");
	is_int(bpf_filter__set(&f, "0000:00:1f.6", err, sizeof(err)), 0,
	       "a full PCI address");
	is_int(bpf_filter__set(&f, "lo", err, sizeof(err)), -ENOENT,
	       "an interface with no device behind it");
	has_str(err, "'lo'", "named in the message");
	is_int(bpf_filter__set(&f, "eth0;reboot", err, sizeof(err)), -EINVAL,
	       "a name that is neither");
	is_int(bpf_filter__set(&f, "0000:3b:00.8", err, sizeof(err)), -EINVAL,
	       "function 8 is no PCI function");
}

/* This machine's BTF: arguments found by name and type, not assumed. */
static void test_btf_args(void)
{
	struct bpf_env env = { 0 };
	struct bpf_target *t;
	struct bpf_spec spec;
	struct bpf_probe p;
	char err[256];

	env.btf = btf__load_vmlinux_btf();
	if (!env.btf) {
		tap_diag("no kernel BTF here: argument lookup not tested");
		return;
	}
	ksyms__load("/proc/kallsyms", &env.ksyms);
	bpf_spec__parse("fn:iommu_dma_map_sg", &spec, err, sizeof(err));
	if (bpf_probe__resolve(&p, &spec, &env, err, sizeof(err))) {
		tap_diag("%s: not tested", err);
	} else {
		t = &p.targets[0];
		ok(t->in_btf, "iommu_dma_map_sg is in BTF");
		is_int(t->dev_arg, 0, "its struct device * is argument 0");
		is_int(t->size_arg, -1, "it has no size argument");
	}
	bpf_probe__release(&p);
	bpf_spec__release(&spec);
	bpf_spec__parse("fn:__iommu_dma_unmap", &spec, err, sizeof(err));
	if (bpf_probe__resolve(&p, &spec, &env, err, sizeof(err))) {
		tap_diag("%s: not tested", err);
	} else {
		t = &p.targets[0];
		ok(t->dev_arg == 0 && t->size_arg == 2,
		   "__iommu_dma_unmap(dev, dma_addr, size): 0 and 2");
	}
	bpf_probe__release(&p);
	bpf_spec__release(&spec);
	bpf_spec__parse("fn:no_such_function_at_all", &spec, err, sizeof(err));
	is_int(bpf_probe__resolve(&p, &spec, &env, err, sizeof(err)), -ENOENT,
	       "a function this kernel lacks is an error for fn:");
	has_str(err, "'no_such_function_at_all'", "naming it");
	bpf_probe__release(&p);
	bpf_spec__release(&spec);
	ksyms__free(env.ksyms);
	btf__free(env.btf);
}

int main(void)
{
	test_ksyms();
	test_renames();
	test_specs();
	test_format();
	test_filter();
	test_btf_args();
	return tap_done();
}
