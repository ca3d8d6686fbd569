// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dma_map workload on a scratch tree shaped like /: a PCI device
 * held by virtio-pci, the dma_map_benchmark driver, their bind, unbind
 * and driver_override as plain files (what was written is what they
 * hold), debugfs, the node list, the kernel's config, and a BTF built
 * here. The kernel's ioctl is a fake that records what it was handed
 * and what the tree looked like while it ran.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "agent-test.h"
#include "bench/workload/dma-map.h"
#include "errmsg.h"
#include "scratch-files.h"

#define BDF "0000:00:03.0"
#define OTHER "0000:00:04.0"
#define DEV "sys/bus/pci/devices/" BDF
#define DRV "sys/bus/pci/drivers/"
#define BENCH DRV "dma_map_benchmark/"
#define JOURNAL "run/iommu-bench/dma-map-lent.json"

static char root[] = "/tmp/dma-map-XXXXXX";

static char *at(const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

static void put(const char *rel, const char *text)
{
	char *p = at(rel);

	scratch__put(p, text);
	free(p);
}

static void rm(const char *rel)
{
	char *p = at(rel);

	unlink(p);
	free(p);
}

/* @rel's whole contents, newlines and all; NULL when it is not there. */
static char *raw(const char *rel)
{
	char *p = at(rel), *s = NULL;
	size_t n;

	if (read_file(p, &s, &n))
		s = NULL;
	free(p);
	return s;
}

static void is_file(const char *rel, const char *want, const char *what)
{
	char *s = raw(rel);

	is_str(s, want, "%s (%s)", what, rel);
	free(s);
}

static bool there(const char *rel)
{
	return scratch__there("%s/%s", root, rel);
}

/* @rel a link to the scratch tree's @target_rel, as sysfs has them. */
static void link_to(const char *rel, const char *target_rel)
{
	char *p = at(rel), *t = at(target_rel);

	unlink(p);
	scratch__parent_dir(p);
	if (symlink(t, p) < 0)
		tap_diag("symlink %s: %s", p, strerror(errno));
	free(p);
	free(t);
}

/* A fresh tree: the device held by virtio-pci, every file empty. */
static void build_tree(void)
{
	const char *argv[] = { "rm", "-rf", NULL, NULL };
	char *p = at("sys");

	argv[2] = p;
	scratch__run(argv, NULL);
	free(p);
	p = at("run");
	argv[2] = p;
	scratch__run(argv, NULL);
	free(p);
	put(DEV "/driver_override", "(null)\n");
	put(DRV "virtio-pci/bind", "");
	put(DRV "virtio-pci/unbind", "");
	put(BENCH "bind", "");
	put(BENCH "unbind", "");
	link_to(DEV "/driver", DRV "virtio-pci");
	put("sys/kernel/debug/dma_map_benchmark", "");
	put("sys/devices/system/node/possible", "0-1\n");
	put("proc/sys/kernel/osrelease", "6.1.0-test\n");
	rm("boot/config-6.1.0-test");
	rm("proc/config.gz");
}

/* ---- the fake kernel ---- */

static struct {
	int ret;	  /* its answer */
	size_t only_size; /* EINVAL for any other size (another kernel) */
	int calls;
	size_t sizes[4];
	struct map_benchmark in; /* what it was handed */
	int64_t ops;		 /* the count it says; 0: unknown */
	/* the tree while it ran */
	char *journal, *override, *bound, *unbound_from;
} fk;

static void fake_reset(void)
{
	free_all(fk.journal, fk.override, fk.bound, fk.unbound_from);
	memset(&fk, 0, sizeof(fk));
}

static int fake_run(int fd, size_t size, struct map_benchmark *mb, int64_t *ops,
		    char **ops_why)
{
	(void)fd;
	/* The count, when the test names one; else unknown, and why. */
	*ops = fk.ops ? fk.ops : -1;
	*ops_why = fk.ops ? NULL : xstrdup("no count here");
	if (fk.calls < 4)
		fk.sizes[fk.calls] = size;
	fk.calls++;
	fk.in = *mb;
	free_all(fk.journal, fk.override, fk.bound, fk.unbound_from);
	fk.journal = raw(JOURNAL);
	fk.override = raw(DEV "/driver_override");
	fk.bound = raw(BENCH "bind");
	fk.unbound_from = raw(DRV "virtio-pci/unbind");
	if (fk.only_size && size != fk.only_size)
		return -EINVAL;
	if (fk.ret)
		return fk.ret;
	mb->avg_map_100ns = 12;
	mb->map_stddev = 3;
	mb->avg_unmap_100ns = 25;
	mb->unmap_stddev = 7;
	return 0;
}

static const struct dma_map_ops fake_ops = { .run = fake_run };

static struct dma_map_opts opts(bool unbind)
{
	return (struct dma_map_opts){ .device = BDF,
				      .unbind = unbind,
				      .threads = 4,
				      .seconds = 2,
				      .granule = 8,
				      .dma_bits = 48,
				      .trans_ns = 100,
				      .node = DMA_MAP_NO_NODE,
				      .dir = DMA_MAP_DIR_TO_DEVICE };
}

/* A test's start: the tree as built, the fake kernel not yet asked. */
static struct dma_map_opts fresh(void)
{
	build_tree();
	fake_reset();
	return opts(true);
}

static int run(const struct dma_map_opts *o, json_t **res, char **why)
{
	*res = NULL;
	*why = NULL;
	return dma_map__run(o, &fake_ops, root, res, why);
}

static long long num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -12345;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* ---- the options ---- */

/* An option's field, for a table of values to set it to. */
#define FIELD(f) offsetof(struct dma_map_opts, f), #f

static void set_field(struct dma_map_opts *o, size_t off, int v)
{
	/* Every field in the tables is an int, unsigned int or enum. */
	memcpy((char *)o + off, &v, sizeof(v));
}

/* Refused with words that name the field, the value and the range. */
static void refused(struct dma_map_opts o, const char *name, int v, int lo,
		    int hi)
{
	char *why = NULL, want[64], range[32];

	snprintf(want, sizeof(want), "%s %d ", name, v);
	snprintf(range, sizeof(range), "range %d..%d", lo, hi);
	is_int(dma_map__check_opts(&o, &why), -EINVAL, "%s %d: refused", name,
	       v);
	has_str(why, want, "... naming it");
	has_str(why, range, "... and its range");
	free(why);
}

static void test_opts(void)
{
	/* The direction last: its words name no range. */
	static const struct {
		size_t off;
		const char *name;
		int lo, hi;
	} bounds[] = {
		{ FIELD(threads), 1, 1024 },
		{ FIELD(seconds), 1, 300 },
		{ FIELD(granule), 1, 1024 },
		{ FIELD(dma_bits), 20, 64 },
		{ FIELD(trans_ns), 0, 10000000 },
		{ FIELD(node), -1, 1023 },
		{ FIELD(dir), DMA_MAP_DIR_BIDIRECTIONAL,
		  DMA_MAP_DIR_FROM_DEVICE },
	};
	struct dma_map_opts o = opts(false), lo = o, hi = o;
	char *why = NULL;
	size_t i;

	is_int(dma_map__check_opts(&o, &why), 0, "sane options pass");
	for (i = 0; i < ARRAY_SIZE(bounds); i++) {
		set_field(&lo, bounds[i].off, bounds[i].lo);
		set_field(&hi, bounds[i].off, bounds[i].hi);
	}
	is_int(dma_map__check_opts(&hi, &why), 0, "every upper bound passes");
	is_int(dma_map__check_opts(&lo, &why), 0, "every lower bound passes");
	free(why);

	for (i = 0; i < ARRAY_SIZE(bounds) - 1; i++) {
		int v[2] = { bounds[i].lo - 1, bounds[i].hi + 1 }, j;

		/* trans_ns 0..: below it is no value of an unsigned. */
		for (j = !bounds[i].lo; j < 2; j++) {
			o = opts(false);
			set_field(&o, bounds[i].off, v[j]);
			refused(o, bounds[i].name, v[j], bounds[i].lo,
				bounds[i].hi);
		}
	}
	o = opts(false);
	o.dir = (enum dma_map_dir)3;
	why = NULL;
	is_int(dma_map__check_opts(&o, &why), -EINVAL, "direction 3: refused");
	has_str(why, "direction 3 is none of", "... saying so");
	free(why);
}

static void test_bdf(void)
{
	static const char *const bad[][2] = {
		{ "00:03.0", "no domain" },
		{ "0000:00:03.0/../../x", "a path after it" },
		{ "0000:00:03.0\n", "a newline after it" },
		{ "0000:00:03", "no function" },
		{ "0000:00:20.0", "device 20" },
		{ "0000:00:03.8", "function 8" },
		{ "0000:0g:03.0", "a bus that is not hex" },
		{ "0000-00:03.0", "a dash" },
		{ "000000000:00:03.0", "a 9-digit domain" },
		{ "../00:00:03.0", "a climb first" },
		{ "", "nothing" },
	};
	char out[DMA_MAP_BDF_SIZE], *why = NULL;
	size_t i;

	is_int(dma_map__parse_bdf("0000:00:1f.7", out, &why), 0,
	       "the last device and function of a bus");
	is_str(out, "0000:00:1f.7", "... as it was");
	is_int(dma_map__parse_bdf("0000:AF:1F.3", out, &why), 0,
	       "upper-case hex");
	is_str(out, "0000:af:1f.3", "... lower-cased, as sysfs names it");
	is_int(dma_map__parse_bdf("10000:00:00.0", out, &why), 0,
	       "a VMD domain (5 digits)");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		is_int(dma_map__parse_bdf(bad[i][0], out, &why), -EINVAL,
		       "%s: not a PCI address", bad[i][1]);
		has_str(why, "is not a PCI address DDDD:BB:DD.F",
			"... and it says so");
	}
	is_int(dma_map__parse_bdf(NULL, out, &why), -EINVAL, "nor is none");
	free(why);
}

static void test_dir(void)
{
	enum dma_map_dir d = DMA_MAP_DIR_BIDIRECTIONAL;

	is_int(dma_map__dir_parse("from_device", &d), 0, "from_device");
	is_int(d, 2, "... is the kernel's DMA_MAP_FROM_DEVICE");
	is_int(dma_map__dir_parse("to_device", &d), 0, "to_device");
	is_int(d, 1, "... is DMA_MAP_TO_DEVICE");
	is_int(dma_map__dir_parse("bidirectional", &d), 0, "bidirectional");
	is_int(d, 0, "... is DMA_MAP_BIDIRECTIONAL");
	is_int(dma_map__dir_parse("sideways", &d), -EINVAL, "a made-up word");
	is_int(dma_map__dir_parse(NULL, &d), -EINVAL, "no word");
	is_str(dma_map__dir_name(DMA_MAP_DIR_TO_DEVICE), "to_device",
	       "the name back");
	ok(!dma_map__dir_name((enum dma_map_dir)3), "no name for 3");
}

static void test_node(void)
{
	char *why = NULL;

	build_tree();
	is_int(dma_map__check_node(root, -1, &why), 0, "-1: any node");
	is_int(dma_map__check_node(root, 1, &why), 0, "node 1 of 0-1");
	is_int(dma_map__check_node(root, 2, &why), -EINVAL, "node 2 of 0-1");
	has_str(why,
		"node 2 is not a possible NUMA node of this host "
		"(possible: 0-1)",
		"... naming the node and the list");
	put("sys/devices/system/node/possible", "0,2-3\n");
	is_int(dma_map__check_node(root, 3, &why), 0, "node 3 of 0,2-3");
	is_int(dma_map__check_node(root, 1, &why), -EINVAL, "node 1 of 0,2-3");
	rm("sys/devices/system/node/possible");
	is_int(dma_map__check_node(root, 0, &why), 0,
	       "no node list: node 0, as a kernel without NUMA has");
	is_int(dma_map__check_node(root, 1, &why), -EINVAL, "... and no other");
	free(why);
}

/* ---- the kernel: the driver, its config ---- */

static void put_gz(const char *rel, const char *text)
{
	char *p = at(rel);
	gzFile gz;

	scratch__parent_dir(p);
	gz = gzopen(p, "wb");
	if (gz) {
		gzputs(gz, text);
		gzclose(gz);
	}
	free(p);
}

#define NOT_SET                                                           \
	"this kernel has no dma_map_benchmark: CONFIG_DMA_MAP_BENCHMARK " \
	"is not set; add configs/kbuild/dma-map-benchmark.config to its " \
	"build"

/* @why says @says: the whole of it when @whole, else as a part. */
static void check_why(const char *why, bool whole, const char *says,
		      const char *how)
{
	if (whole)
		is_str(why, says, "%s", how);
	else
		has_str(why, says, "%s", how);
}

/* dma_map__available() refuses, saying @says. */
static void unavailable(const char *what, bool whole, const char *says,
			const char *how)
{
	char *why = NULL;

	is_int(dma_map__available(root, &why), -EOPNOTSUPP, "%s", what);
	check_why(why, whole, says, how);
	free(why);
}

/* The kernel's driver gone, as in a kernel built without it. */
static void drop_driver(void)
{
	const char *argv[] = { "rm", "-rf", NULL, NULL };
	char *p = at(BENCH);

	argv[2] = p;
	scratch__run(argv, NULL);
	free(p);
}

static void test_available(void)
{
	char *why = NULL;

	build_tree();
	is_int(dma_map__available(root, &why), 0,
	       "the driver is registered: available");
	free(why);
	drop_driver();

	put("boot/config-6.1.0-test",
	    "CONFIG_DEBUG_FS=y\n"
	    "# CONFIG_DMA_MAP_BENCHMARK is not set\n");
	unavailable("no driver, and the config says why", true, NOT_SET,
		    "... in those words");

	put("boot/config-6.1.0-test", "CONFIG_DEBUG_FS=y\n");
	unavailable("a config that does not name it (no DEBUG_FS under it)",
		    true, NOT_SET, "... is not set either");

	rm("boot/config-6.1.0-test");
	put_gz("proc/config.gz", "# CONFIG_DMA_MAP_BENCHMARK is not set\n");
	unavailable("no /boot config: /proc/config.gz, compressed", true,
		    NOT_SET, "... says the same");

	put_gz("proc/config.gz", "CONFIG_DMA_MAP_BENCHMARK=y\n");
	unavailable("built with it, and still no driver", false,
		    "built with CONFIG_DMA_MAP_BENCHMARK=y but no driver "
		    "dma_map_benchmark is registered",
		    "... which is said as such");

	rm("proc/config.gz");
	unavailable("no driver and no config", false,
		    "no config (/boot/config-RELEASE, /proc/config.gz) to "
		    "say why: it needs CONFIG_DMA_MAP_BENCHMARK=y",
		    "... names what is missing");
}

/* ---- the layout, from BTF ---- */

struct member {
	const char *name;
	int kind; /* 0 u64, 1 u32, 2 s32 */
	unsigned int off;
};

static const struct member members[] = {
	{ "avg_map_100ns", 0, 0 },
	{ "map_stddev", 0, 8 },
	{ "avg_unmap_100ns", 0, 16 },
	{ "unmap_stddev", 0, 24 },
	{ "threads", 1, 32 },
	{ "seconds", 1, 36 },
	{ "node", 2, 40 },
	{ "dma_bits", 1, 44 },
	{ "dma_dir", 1, 48 },
	{ "dma_trans_ns", 1, 52 },
	{ "granule", 1, 56 },
};

/*
 * struct map_benchmark as a kernel of @size bytes has it; @moved, when
 * not NULL, 4 bytes later, @wide a u64, @gone left out.
 */
static struct btf *make_btf(unsigned int size, const char *moved,
			    const char *wide, const char *gone)
{
	struct btf *b = btf__new_empty();
	int ty[3], u8, arr, i;

	ty[0] = btf__add_int(b, "long long unsigned int", 8, 0);
	ty[1] = btf__add_int(b, "unsigned int", 4, 0);
	ty[2] = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	u8 = btf__add_int(b, "unsigned char", 1, 0);
	arr = btf__add_array(b, ty[1], u8, 76);
	btf__add_struct(b, "map_benchmark", size);
	for (i = 0; i < (int)ARRAY_SIZE(members); i++) {
		const struct member *m = &members[i];

		if (gone && !strcmp(gone, m->name))
			continue;
		btf__add_field(
			b, m->name,
			wide && !strcmp(wide, m->name) ? ty[0] : ty[m->kind],
			(m->off + (moved && !strcmp(moved, m->name) ? 4 : 0)) *
				8,
			0);
	}
	if (size >= 136)
		btf__add_field(b, "expansion", arr, 60 * 8, 0);
	return b;
}

static int layout_of(struct btf *b, struct dma_map_layout *l, char **why)
{
	int ret;

	memset(l, 0, sizeof(*l));
	ret = dma_map__layout_btf(b, l, why);
	btf__free(b);
	return ret;
}

static void test_layout_btf(void)
{
	struct dma_map_layout l;
	struct btf *b;
	char *why = NULL;

	is_int(layout_of(make_btf(136, NULL, NULL, NULL), &l, &why), 0,
	       "the padded struct of 5.11, and of 6.1.y with the fix");
	is_int(l.size, 136, "... 136 bytes");
	ok(l.btf, "... known from BTF");
	is_int(layout_of(make_btf(64, NULL, NULL, NULL), &l, &why), 0,
	       "the struct of 5.18 up to the padding's fix");
	is_int(l.size, 64, "... 64 bytes, which makes another ioctl number");

	is_int(layout_of(make_btf(136, "node", NULL, NULL), &l, &why), -EPROTO,
	       "a member 4 bytes later is refused");
	has_str(why,
		"has node at byte 44, 4 bytes long, where this tool has "
		"it at byte 40",
		"... naming the member and both places");
	is_int(layout_of(make_btf(136, "granule", NULL, NULL), &l, &why),
	       -EPROTO, "the last member moved is refused too");
	has_str(why, "granule at byte 60", "... naming it");
	is_int(layout_of(make_btf(136, NULL, "dma_bits", NULL), &l, &why),
	       -EPROTO, "a member of another size is refused");
	has_str(why, "dma_bits at byte 44, 8 bytes long", "... with its size");
	is_int(layout_of(make_btf(136, NULL, NULL, "dma_trans_ns"), &l, &why),
	       -EPROTO, "a member gone is refused");
	has_str(why, "has no member dma_trans_ns", "... naming it");
	is_int(layout_of(make_btf(2048, NULL, NULL, NULL), &l, &why), -EPROTO,
	       "a struct longer than the buffer handed over is refused");
	has_str(why, "is 2048 bytes", "... with its size");

	b = btf__new_empty();
	btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	is_int(layout_of(b, &l, &why), -ENOENT,
	       "a BTF without the struct: -ENOENT, for the caller to assume");
	free(why);
}

static void write_btf(struct btf *b)
{
	const void *data;
	char *p = at("sys/kernel/btf/vmlinux");
	__u32 n = 0;

	scratch__parent_dir(p);
	data = btf__raw_data(b, &n);
	if (!data || scratch__write(p, data, n, 0644))
		tap_diag("cannot write %s", p);
	btf__free(b);
	free(p);
}

static void test_layout_root(void)
{
	struct dma_map_layout l;
	char *why = NULL;

	build_tree();
	rm("sys/kernel/btf/vmlinux");
	is_int(dma_map__layout(root, &l, &why), 0, "no BTF: not an error");
	ok(!l.btf, "... the layout is assumed");
	is_int(l.size, 136, "... the padded one");
	has_str(l.note, "the kernel has no BTF", "... and the note says why");
	dma_map__layout_release(&l);

	write_btf(make_btf(64, NULL, NULL, NULL));
	is_int(dma_map__layout(root, &l, &why), 0, "the kernel's BTF read");
	ok(l.btf, "... the layout is from BTF");
	is_int(l.size, 64, "... its size");
	ok(!l.note, "... nothing to note");
	dma_map__layout_release(&l);

	write_btf(btf__new_empty());
	is_int(dma_map__layout(root, &l, &why), 0,
	       "BTF without the struct: not an error");
	ok(!l.btf, "... the layout is assumed");
	has_str(l.note, "struct map_benchmark is not in the kernel's BTF",
		"... and the note says why");
	dma_map__layout_release(&l);

	write_btf(make_btf(136, "seconds", NULL, NULL));
	is_int(dma_map__layout(root, &l, &why), -EPROTO,
	       "BTF with a shifted member: refused");
	has_str(why, "seconds at byte 40", "... naming it");
	dma_map__layout_release(&l);
	rm("sys/kernel/btf/vmlinux");

	/* This machine's own kernel, through libbpf's search for its BTF. */
	is_int(dma_map__layout("", &l, &why), 0,
	       "the running kernel's layout: known or assumed, not refused");
	ok(l.size == 136 || l.size == 64, "... one of the two it has had (%zu)",
	   l.size);
	ok(l.btf == !l.note, "... a note exactly when assumed");
	dma_map__layout_release(&l);
	free(why);
}

/* ---- lending, the run, giving back ---- */

/* Nothing was lent: every file of the tree as build_tree() left it. */
static void untouched(const char *what)
{
	is_file(DEV "/driver_override", "(null)\n", what);
	is_file(DRV "virtio-pci/unbind", "", "... not unbound");
	is_file(BENCH "bind", "", "... not bound to the benchmark");
	ok(!there(JOURNAL), "... no journal");
}

/* Given back to virtio-pci: each write, in the file it goes to. */
static void given_back(const char *what)
{
	is_file(BENCH "unbind", BDF, what);
	is_file(DEV "/driver_override", "\n",
		"... driver_override cleared with a newline");
	is_file(DRV "virtio-pci/bind", BDF, "... bound to virtio-pci again");
	ok(!there(JOURNAL), "... and the journal is gone");
}

/* A run of @o refused with @want, its words saying @says. */
static void run_refused(const struct dma_map_opts *o, int want,
			const char *what, bool whole, const char *says,
			const char *how)
{
	json_t *res;
	char *why;

	is_int(run(o, &res, &why), want, "%s", what);
	check_why(why, whole, says, how);
	errmsg__clear(&why);
	json_decref(res);
}

/* A run of @o that lends the device and gives it back. */
static void run_lent(const struct dma_map_opts *o, const char *what)
{
	json_t *res;
	char *why;

	is_int(run(o, &res, &why), 0, "%s", what);
	json_decref(res);
	errmsg__clear(&why);
}

static void test_refusals(void)
{
	struct dma_map_opts o = opts(false);

	build_tree();
	fake_reset();
	run_refused(&o, -EBUSY,
		    "a device its driver holds, without unbind: refused", true,
		    BDF " is held by its driver virtio-pci: set unbind = true "
			"to lend it to the benchmark",
		    "... in those words");
	untouched("... driver_override untouched");
	is_int(fk.calls, 0, "... and the kernel never asked");

	o = opts(true);
	o.device = "0000:00:09.0";
	run_refused(&o, -ENODEV, "a device that is not there", true,
		    "no PCI device 0000:00:09.0", "... in those words");

	o.device = "0000:00:03.0/../../..";
	run_refused(&o, -EINVAL, "an address that climbs", false,
		    "is not a PCI address", "... is not an address");

	o = opts(true);
	o.threads = 2000;
	run_refused(&o, -EINVAL, "options are checked by the run", false,
		    "threads 2000", "... naming the value");
	untouched("... before anything is written");

	link_to(BENCH OTHER, "sys/devices/pci0000:00/" OTHER);
	o = opts(true);
	run_refused(&o, -EBUSY, "the benchmark already holds another device",
		    false, "dma_map_benchmark already holds " OTHER,
		    "... naming it");
	untouched("... nothing lent");
	rm(BENCH OTHER);

	o = opts(true);
	o.node = 5;
	run_refused(&o, -EINVAL, "a node that is not possible", false,
		    "node 5 is not a possible NUMA node", "... says so");
	untouched("... nothing lent");

	put("boot/config-6.1.0-test",
	    "# CONFIG_DMA_MAP_BENCHMARK is not set\n");
	drop_driver();
	run_refused(&o, -EOPNOTSUPP, "a kernel without it", true, NOT_SET,
		    "... says what to build");
	build_tree();
	o = opts(true);
	write_btf(make_btf(136, "dma_dir", NULL, NULL));
	run_refused(&o, -EPROTO, "a kernel with another layout", false,
		    "dma_dir at byte 52", "... naming the member");
	untouched("... refused before lending");
	is_int(fk.calls, 0, "... and the kernel never asked");
	rm("sys/kernel/btf/vmlinux");
}

static void test_run(void)
{
	struct dma_map_opts o = fresh();
	json_t *res;
	char *why;

	o.device = "0000:00:03.0";
	if (!is_int(run(&o, &res, &why), 0, "a run, its device lent"))
		tap_diag("%s", why);
	is_int(fk.calls, 1, "one ioctl");
	is_int(fk.sizes[0], 136, "... of the padded struct (no BTF)");
	is_int(fk.in.threads, 4, "the kernel got the threads");
	is_int(fk.in.seconds, 2, "... the seconds");
	is_int(fk.in.granule, 8, "... the granule");
	is_int(fk.in.dma_bits, 48, "... the mask's bits");
	is_int(fk.in.dma_dir, 1, "... the direction (to_device)");
	is_int(fk.in.dma_trans_ns, 100, "... the delay");
	is_int(fk.in.node, -1, "... and the node");
	is_str(fk.journal, "{\"device\":\"" BDF "\",\"driver\":\"virtio-pci\"}",
	       "while it ran, the journal named the device and its driver");
	is_str(fk.override, "dma_map_benchmark",
	       "... driver_override named the benchmark");
	is_str(fk.unbound_from, BDF, "... virtio-pci's unbind got the device");
	is_str(fk.bound, BDF, "... and the benchmark's bind did");
	given_back("after it, the benchmark's unbind got the device");

	is_int(num(res, "map_ns"), 1200, "map: 12 x 100 ns is 1200 ns");
	is_int(num(res, "map_ns_stddev"), 300, "... its deviation 300 ns");
	is_int(num(res, "unmap_ns"), 2500, "unmap: 25 x 100 ns");
	is_int(num(res, "unmap_ns_stddev"), 700, "... its deviation 700 ns");
	is_int(num(res, "threads"), 4, "the threads in the result");
	is_int(num(res, "seconds"), 2, "... the seconds");
	is_int(num(res, "granule"), 8, "... the granule");
	is_int(num(res, "dma_bits"), 48, "... the bits");
	is_int(num(res, "trans_ns"), 100, "... the delay");
	is_int(num(res, "node"), -1, "... the node");
	is_str(str(res, "dir"), "to_device", "... the direction's name");
	is_str(str(res, "device"), BDF, "... the device");
	is_str(str(res, "driver_before"), "virtio-pci", "... its driver");
	is_str(str(res, "driver_after"), "virtio-pci",
	       "... and the driver it has after, as sysfs says");
	ok(!json_object_get(res, "operations"),
	   "no count of operations where the kernel gave none");
	is_str(str(res, "operations_note"), "no count here", "... and why");
	ok(json_is_true(json_object_get(res, "lent")), "... lent");
	is_str(str(res, "layout"), "assumed", "... the layout assumed");
	has_str(str(res, "layout_note"), "no BTF", "... and why");
	is_int(num(res, "struct_size"), 136, "... its size");
	ok(json_is_integer(json_object_get(res, "elapsed_ms")),
	   "... how long the ioctl took");
	ok(json_is_null(json_object_get(res, "restored")),
	   "... and that no earlier run's device needed giving back");
	json_decref(res);
	free(why);
}

static void test_run_btf(void)
{
	struct dma_map_opts o = fresh();
	json_t *res;
	char *why;

	write_btf(make_btf(64, NULL, NULL, NULL));
	is_int(run(&o, &res, &why), 0, "a run on a kernel with BTF");
	is_int(fk.calls, 1, "one ioctl");
	is_int(fk.sizes[0], 64, "... of the size BTF says");
	is_str(str(res, "layout"), "btf", "the layout is from BTF");
	ok(json_is_null(json_object_get(res, "layout_note")),
	   "... with nothing to note");
	is_int(num(res, "struct_size"), 64, "... 64 bytes");
	json_decref(res);
	errmsg__clear(&why);

	/* BTF knows: an EINVAL is the kernel's verdict, not a wrong size. */
	build_tree();
	fake_reset();
	write_btf(make_btf(136, NULL, NULL, NULL));
	fk.only_size = 64;
	is_int(run(&o, &res, &why), -EINVAL, "BTF's size refused: no retry");
	is_int(fk.calls, 1, "... one ioctl");
	has_str(why, "cannot take a 48-bit DMA mask", "... with the hint");
	given_back("... and the device is given back");
	errmsg__clear(&why);
	rm("sys/kernel/btf/vmlinux");
}

static void test_run_unpadded(void)
{
	struct dma_map_opts o = fresh();
	json_t *res;
	char *why;

	fk.only_size = 64;
	fk.ops = 300000;
	is_int(run(&o, &res, &why), 0,
	       "no BTF, a kernel of 5.18 up to the padding's fix");
	is_int(fk.calls, 2, "two ioctls");
	is_int(fk.sizes[0], 136, "... first the padded struct");
	is_int(fk.sizes[1], 64, "... then the unpadded one");
	is_int(num(res, "struct_size"), 64, "the result says which worked");
	is_int(num(res, "map_ns"), 1200, "... with the numbers");
	is_int(num(res, "operations"), 300000,
	       "the benchmark's count of operations");
	ok(json_real_value(json_object_get(res, "ops_per_s")) == 150000.0,
	   "... per second of the run (2 s): 150000");
	ok(!json_object_get(res, "operations_note"), "... and no note");
	json_decref(res);
	errmsg__clear(&why);

	build_tree();
	fake_reset();
	fk.only_size = 1;
	is_int(run(&o, &res, &why), -EINVAL, "EINVAL with both sizes");
	is_int(fk.calls, 2, "... two tries, no more");
	has_str(why,
		"the dma_map_benchmark ioctl on " BDF " failed: Invalid "
		"argument",
		"... the kernel's answer");
	given_back("... the device is given back");
	errmsg__clear(&why);
}

static void test_ioctl_fails(void)
{
	struct dma_map_opts o = fresh();
	json_t *res;
	char *why;

	fk.ret = -ENOMEM;
	is_int(run(&o, &res, &why), -ENOMEM, "the ioctl fails");
	ok(!res, "... no result");
	has_str(why, "ioctl on " BDF " failed: Cannot allocate memory",
		"... its error");
	has_str(why, "dma_map_single() failed", "... and what it means");
	is_str(fk.bound, BDF, "it had been lent");
	given_back("the device is given back all the same");
	free(why);
}

static void test_no_driver(void)
{
	struct dma_map_opts o = opts(false);
	json_t *res;
	char *why;

	build_tree();
	fake_reset();
	rm(DEV "/driver");
	is_int(run(&o, &res, &why), 0,
	       "a device without a driver needs no unbind");
	is_str(fk.journal, "{\"device\":\"" BDF "\",\"driver\":null}",
	       "the journal says it had none");
	is_str(fk.bound, BDF, "it was bound to the benchmark");
	is_file(DRV "virtio-pci/unbind", "", "no driver was unbound");
	is_file(BENCH "unbind", BDF, "it was taken back from the benchmark");
	is_file(DEV "/driver_override", "\n", "... driver_override cleared");
	is_file(DRV "virtio-pci/bind", "", "... and bound to nothing");
	ok(!there(JOURNAL), "the journal is gone");
	ok(json_is_null(json_object_get(res, "driver_before")),
	   "driver_before is null");
	json_decref(res);
	free(why);
}

static void test_already_lent(void)
{
	struct dma_map_opts o = opts(false);
	json_t *res;
	char *why;

	build_tree();
	fake_reset();
	link_to(DEV "/driver", DRV "dma_map_benchmark");
	is_int(run(&o, &res, &why), 0,
	       "a device already the benchmark's is used as it is");
	is_int(fk.calls, 1, "... the benchmark ran");
	ok(!fk.journal, "... with no journal: nothing of ours to give back");
	is_file(BENCH "bind", "", "... nothing bound");
	is_file(BENCH "unbind", "", "... nothing unbound");
	is_file(DEV "/driver_override", "(null)\n", "... override untouched");
	is_str(str(res, "driver_before"), "dma_map_benchmark",
	       "driver_before says whose it was");
	ok(json_is_false(json_object_get(res, "lent")), "lent is false");
	json_decref(res);
	free(why);
}

static void test_journal_first(void)
{
	struct dma_map_opts o = fresh();
	json_t *res;
	char *why;

	/* A file where its folder should be: the journal cannot be written. */
	put("run/iommu-bench", "");
	is_int(run(&o, &res, &why), -ENOTDIR, "the journal cannot be written");
	has_str(why, "cannot write the journal", "... and it says so");
	is_file(DEV "/driver_override", "(null)\n",
		"... then nothing is lent: driver_override untouched");
	is_file(DRV "virtio-pci/unbind", "", "... the driver keeps it");
	is_file(BENCH "bind", "", "... the benchmark has it not");
	is_int(fk.calls, 0, "... no ioctl");
	free(why);
	rm("run/iommu-bench");
}

static void test_lend_fails(void)
{
	struct dma_map_opts o = fresh();
	json_t *res;
	char *why;

	rm(BENCH "bind");
	is_int(run(&o, &res, &why), -ENOENT, "the bind cannot be written");
	has_str(why, "lending " BDF " to dma_map_benchmark: cannot open",
		"... says which step");
	is_int(fk.calls, 0, "... no ioctl");
	is_file(DRV "virtio-pci/unbind", BDF, "it was half lent");
	given_back("what was lent is given back");
	free(why);
}

static void test_give_back_fails(void)
{
	struct dma_map_opts o = fresh();
	json_t *res;
	char *why, *done;

	rm(DRV "virtio-pci/bind");
	is_int(run(&o, &res, &why), -ENOENT,
	       "the benchmark ran, its device could not go back");
	ok(!res, "... no result: the host is not as it was");
	has_str(why,
		BDF " could not be given back to virtio-pci after the "
		    "run",
		"... says so");
	has_str(why, JOURNAL " keeps it", "... and where it is remembered");
	is_file(JOURNAL, "{\"device\":\"" BDF "\",\"driver\":\"virtio-pci\"}",
		"the journal stays");
	is_file(DEV "/driver_override", "\n",
		"... the other steps were done all the same");
	errmsg__clear(&why);

	fk.ret = -EIO;
	is_int(run(&o, &res, &why), -ENOENT,
	       "the next run cannot give it back either");
	has_str(why,
		"lent to dma_map_benchmark by a run that did not end, "
		"could not be given back to virtio-pci",
		"... and refuses to go on");
	is_int(fk.calls, 1, "... before lending anything again");
	errmsg__clear(&why);

	put(DRV "virtio-pci/bind", "");
	why = NULL;
	is_int(dma_map__restore_lent(root, &done, &why), 0,
	       "once the bind works, the journal's device goes back");
	has_str(done, "gave " BDF " back to virtio-pci", "... and says so");
	is_file(DRV "virtio-pci/bind", BDF, "... it was bound");
	ok(!there(JOURNAL), "... the journal is gone");
	free(done);
	errmsg__clear(&why);
}

/* `agent serve` started and told nothing: it ends at its input's end. */
static void serve_nothing(void)
{
	struct agent a = { 0 };
	int in[2], out;

	if (pipe(in) < 0) {
		tap_diag("pipe: %s", strerror(errno));
		return;
	}
	close(in[1]);
	out = open("/dev/null", O_WRONLY);
	is_int(agent__serve(&a, in[0], out), 0, "agent serve, no requests");
	agent__release(&a);
	close(in[0]);
	close(out);
}

static void test_restore(void)
{
	char *done, *why = NULL;
	char *saved;

	/* As a killed run leaves it: the benchmark holds the device. */
	build_tree();
	link_to(DEV "/driver", DRV "dma_map_benchmark");
	put(DEV "/driver_override", "dma_map_benchmark\n");
	put(JOURNAL, "{\"device\":\"" BDF "\",\"driver\":\"virtio-pci\"}");
	is_int(dma_map__restore_lent(root, &done, &why), 0,
	       "a killed run's device is given back");
	is_str(done,
	       "gave " BDF " back to virtio-pci: it was lent to "
	       "dma_map_benchmark by a run that did not end",
	       "... and it says what it did");
	given_back("the benchmark's unbind got the device");
	free(done);
	is_int(dma_map__restore_lent(root, &done, &why), 0,
	       "no journal: nothing to do");
	ok(!done, "... and nothing said");

	build_tree();
	link_to(DEV "/driver", DRV "dma_map_benchmark");
	put(JOURNAL, "{\"device\":\"" BDF "\",\"driver\":null}");
	is_int(dma_map__restore_lent(root, &done, &why), 0,
	       "a driverless device lent");
	has_str(done, "took " BDF " from dma_map_benchmark, driverless",
		"... is taken back");
	is_file(BENCH "unbind", BDF, "... from the benchmark");
	is_file(DRV "virtio-pci/bind", "", "... and bound to nothing");
	free(done);

	build_tree();
	put(JOURNAL, "{\"device\":\"0000:00:09.0\",\"driver\":\"e1000e\"}");
	is_int(dma_map__restore_lent(root, &done, &why), 0,
	       "a device gone since");
	has_str(done, "is gone: nothing to give back", "... says so");
	ok(!there(JOURNAL), "... and the journal goes");
	free(done);

	put(JOURNAL, "{\"device\":\"../../../etc\",\"driver\":\"x\"}");
	is_int(dma_map__restore_lent(root, &done, &why), -EINVAL,
	       "a journal whose device is no address");
	has_str(why, "does not name a PCI device", "... is refused");
	ok(there(JOURNAL), "... and kept for a person to look at");
	put(JOURNAL, "{\"device\":\"" BDF "\",\"driver\":\"../../x\"}");
	is_int(dma_map__restore_lent(root, &done, &why), -EINVAL,
	       "a journal whose driver climbs");
	put(JOURNAL, "{\"device\":");
	is_int(dma_map__restore_lent(root, &done, &why), -EINVAL,
	       "a journal cut short");
	rm(JOURNAL);
	free(why);

	/* A run starts by giving back what an earlier one left lent. */
	build_tree();
	fake_reset();
	put(DRV "e1000e/bind", "");
	put("sys/bus/pci/devices/" OTHER "/driver_override", "x\n");
	put(JOURNAL, "{\"device\":\"" OTHER "\",\"driver\":\"e1000e\"}");
	{
		struct dma_map_opts o = opts(true);
		json_t *res;

		why = NULL;
		is_int(run(&o, &res, &why), 0, "a run after a killed one");
		has_str(str(res, "restored"), "gave " OTHER " back to e1000e",
			"... says in its result what it gave back");
		json_decref(res);
		free(why);
	}
	is_file(DRV "e1000e/bind", OTHER,
		"... gave the killed run's device back first");
	is_file("sys/bus/pci/devices/" OTHER "/driver_override", "\n",
		"... its override cleared");

	/* And the agent, as it starts serving. */
	build_tree();
	link_to(DEV "/driver", DRV "dma_map_benchmark");
	put(JOURNAL, "{\"device\":\"" BDF "\",\"driver\":\"virtio-pci\"}");
	saved = scratch__env_save("IOMMU_BENCH_SYSFS_ROOT");
	setenv("IOMMU_BENCH_SYSFS_ROOT", root, 1);
	serve_nothing();
	scratch__env_restore("IOMMU_BENCH_SYSFS_ROOT", saved);
	given_back("the agent's start gives a killed run's device back");
}

/* ---- the verb ---- */

static void verb_refuses(json_t *args, const char *want, const char *what)
{
	char *err = NULL;

	is_int(agent_test__call("dma_map.run", args, NULL, &err), -EINVAL, "%s",
	       what);
	has_str(err, want, "... '%s'", want);
	free(err);
}

static void test_verb(void)
{
	char *err = NULL, *saved;
	int ret;

	verb_refuses(json_pack("{}"), "dma_map.run: needs \"device\"",
		     "no device");
	verb_refuses(json_pack("{s:s, s:s}", "device", BDF, "direction",
			       "sideways"),
		     "\"direction\" must be one of bidirectional, to_device, "
		     "from_device",
		     "a made-up direction");
	verb_refuses(json_pack("{s:s, s:i}", "device", BDF, "threads", 0),
		     "\"threads\" must be an integer 1..1024", "0 threads");
	verb_refuses(json_pack("{s:s, s:s}", "device", BDF, "seconds", "5"),
		     "\"seconds\" must be an integer 1..300",
		     "seconds as a string");
	verb_refuses(json_pack("{s:s, s:i}", "device", BDF, "granule", 1025),
		     "\"granule\" must be an integer 1..1024", "granule 1025");
	verb_refuses(json_pack("{s:s, s:i}", "device", BDF, "dma_bits", 16),
		     "\"dma_bits\" must be an integer 20..64", "16 bits");
	verb_refuses(
		json_pack("{s:s, s:i}", "device", BDF, "trans_ns", 20000000),
		"\"trans_ns\" must be an integer 0..10000000", "a 20 ms delay");
	verb_refuses(json_pack("{s:s, s:i}", "device", BDF, "node", -2),
		     "\"node\" must be an integer -1..1023", "node -2");
	verb_refuses(json_pack("{s:s, s:s}", "device", BDF, "unbind", "yes"),
		     "\"unbind\" must be true or false", "unbind as a word");
	verb_refuses(json_pack("{s:s, s:i}", "device", BDF, "dma_trans_ns", 5),
		     "unknown argument \"dma_trans_ns\"",
		     "a key it does not know");
	verb_refuses(json_pack("{s:s}", "device", "03.0"),
		     "dma_map.run: '03.0' is not a PCI address",
		     "a short address");

	/*
	 * The real ioctl on the scratch tree's plain file: the kernel side
	 * fails (ENOTTY), and the device still goes back.
	 */
	build_tree();
	saved = scratch__env_save("IOMMU_BENCH_SYSFS_ROOT");
	setenv("IOMMU_BENCH_SYSFS_ROOT", root, 1);
	ret = agent_test__call("dma_map.run",
			       json_pack("{s:s, s:b}", "device", BDF, "unbind",
					 1),
			       NULL, &err);
	scratch__env_restore("IOMMU_BENCH_SYSFS_ROOT", saved);
	is_int(ret, -ENOTTY, "the verb, through to a file that is no device");
	has_str(err,
		"dma_map.run: the dma_map_benchmark ioctl on " BDF " failed",
		"... says the ioctl failed");
	is_file(BENCH "bind", BDF, "it had been lent");
	given_back("... and given back");
	free(err);
}

/* dma_map.check: what a run asks before any trial; nothing is lent. */
static void test_check_verb(void)
{
	json_t *res = NULL;
	char *err = NULL, *saved;
	int ret;

	is_int(agent_test__call("dma_map.check",
				json_pack("{s:s, s:i}", "device", BDF,
					  "threads", 4),
				NULL, &err),
	       -EINVAL, "dma_map.check takes only device and unbind");
	has_str(err, "unknown argument \"threads\"", "... saying which");
	free(err);
	err = NULL;
	is_int(agent_test__call("dma_map.check", json_pack("{}"), NULL, &err),
	       -EINVAL, "... and needs a device");
	free(err);
	err = NULL;

	build_tree();
	saved = scratch__env_save("IOMMU_BENCH_SYSFS_ROOT");
	setenv("IOMMU_BENCH_SYSFS_ROOT", root, 1);
	ret = agent_test__call("dma_map.check",
			       json_pack("{s:s}", "device", BDF), &res, &err);
	is_int(ret, -EBUSY, "a device its driver holds, without unbind");
	has_str(err, "held by its driver virtio-pci", "... in those words");
	free(err);
	err = NULL;
	ret = agent_test__call("dma_map.check",
			       json_pack("{s:s, s:b}", "device", BDF, "unbind",
					 1),
			       &res, &err);
	is_int(ret, 0, "with unbind: lendable");
	is_str(json_string_value(json_object_get(res, "driver")), "virtio-pci",
	       "... its driver said");
	untouched("... and nothing lent");
	json_decref(res);
	res = NULL;
	ret = agent_test__call("dma_map.check",
			       json_pack("{s:s, s:b}", "device", "0000:00:1f.7",
					 "unbind", 1),
			       &res, &err);
	scratch__env_restore("IOMMU_BENCH_SYSFS_ROOT", saved);
	is_int(ret, -ENODEV, "a device that is not there");
	has_str(err, "no PCI device 0000:00:1f.7", "... named");
	free(err);
	json_decref(res);
}

/*
 * Even with unbind: what the driver made of the device and still uses
 * (an interface up, a disk mounted) refuses the loan before anything is
 * touched; the same device idle is lent.
 */
static void test_in_use(void)
{
	struct dma_map_opts o = fresh();
	json_t *res;
	char *why;

	put(DEV "/virtio0/net/eth7/ifindex", "3\n");
	put("sys/class/net/eth7/flags", "0x1003\n");
	is_int(run(&o, &res, &why), -EBUSY,
	       "a NIC whose interface is up: refused even with unbind");
	has_str(why, "is network interface eth7, which is up",
		"... naming the interface");
	has_str(why, "ip link set eth7 down", "... and how to free it");
	untouched("... driver_override untouched");
	is_int(fk.calls, 0, "... the kernel never asked");
	errmsg__clear(&why);
	json_decref(res);

	put("sys/class/net/eth7/flags", "0x1002\n");
	run_lent(&o, "the same interface down: lent");

	build_tree();
	fake_reset();
	put(DEV "/virtio1/block/vdb/size", "2048\n");
	put("proc/self/mounts", "/dev/vdb1 /data ext4 rw 0 0\n");
	run_refused(&o, -EBUSY,
		    "a disk controller with a partition mounted: refused",
		    false, "holds disk vdb, and /dev/vdb1 is mounted",
		    "... naming the disk and the mount");
	is_int(fk.calls, 0, "... the kernel never asked");
	rm("proc/self/mounts");
	run_lent(&o, "unmounted: lent");
}

int main(void)
{
	scratch__begin(root);
	test_opts();
	test_bdf();
	test_dir();
	test_node();
	test_available();
	test_layout_btf();
	test_layout_root();
	test_refusals();
	test_run();
	test_run_btf();
	test_run_unpadded();
	test_ioctl_fails();
	test_no_driver();
	test_already_lent();
	test_journal_first();
	test_lend_fails();
	test_give_back_fails();
	test_in_use();
	test_restore();
	test_verb();
	test_check_verb();
	fake_reset();
	return scratch__end(root);
}
