// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench probe: what this host's IOMMU is and does right now, with
 * the kernel, NICs, CPUs and what each collector can attach to here.
 * The text is rendered from the same JSON that --json prints, so the two
 * never tell different stories.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "collectors/hostfacts/hostfacts.h"
#include "parse-options.h"
#include "util.h"

static const char *const probe_usage[] = {
	"iommu-bench probe [--json] [--root DIR]",
	NULL,
};

/* A member as text: strings as they are, null as "-", others as JSON. */
static const char *str(const json_t *o, const char *key, char *buf, size_t size)
{
	const json_t *v = json_object_get(o, key);
	char *dump;

	if (!v || json_is_null(v))
		return "-";
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_true(v) || json_is_false(v))
		return json_is_true(v) ? "yes" : "no";
	dump = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	snprintf(buf, size, "%s", dump ? dump : "?");
	free(dump);
	return buf;
}

#define S(o, key) str((o), (key), buf, sizeof(buf))

static long long num(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static void row(const char *label, const char *value)
{
	printf("  %-17s %s\n", label, value);
}

/* Append to a fixed buffer, truncating: these are display lines. */
static void __attribute__((format(printf, 3, 4)))
cat(char *line, size_t size, const char *fmt, ...)
{
	size_t len = strlen(line);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(line + len, size - len, fmt, ap);
	va_end(ap);
}

static void print_host(const json_t *id)
{
	char buf[256];

	printf("Host\n");
	row("Identity:", S(id, "key"));
	row("Vendor:", S(id, "vendor"));
	row("Product:", S(id, "product"));
}

static void print_kernel(const json_t *k)
{
	const json_t *cfg = json_object_get(k, "config");
	char buf[256], line[640] = "";

	printf("Kernel\n");
	cat(line, sizeof(line), "%s", S(k, "release"));
	if (json_is_string(json_object_get(k, "arch")))
		cat(line, sizeof(line), " (%s)", S(k, "arch"));
	row("Release:", line);
	row("Build id:", S(k, "build_id"));
	row("Boot id:", S(k, "boot_id"));
	row("Command line:", S(k, "cmdline"));
	row("Config:", S(cfg, "source"));
}

static void print_units(const json_t *units)
{
	char line[512];
	const json_t *u;
	size_t i;

	if (!json_array_size(units))
		row("Units:", "none");
	for (i = 0; i < json_array_size(units); i++) {
		u = json_array_get(units, i);
		line[0] = '\0';
		cat(line, sizeof(line), "%s  %s, %lld devices",
		    json_string_value(json_object_get(u, "name")),
		    json_string_value(json_object_get(u, "label")),
		    num(u, "devices"));
		if (json_is_true(json_object_get(u, "caching_mode")))
			cat(line, sizeof(line),
			    ", caching mode: forces strict");
		row(i ? "" : "Units:", line);
	}
}

static void print_device(const json_t *g, const json_t *d)
{
	const json_t *net = json_object_get(d, "net");
	char buf[256], nets[256] = "";
	size_t k;

	for (k = 0; k < json_array_size(net); k++)
		cat(nets, sizeof(nets), "%s%s", k ? "," : "",
		    json_string_value(json_array_get(net, k)));
	printf("    %-6lld %-9s ", num(g, "id"), S(g, "type"));
	printf("%-12s ", S(g, "mode"));
	printf("%-14s ", d ? S(d, "name") : "-");
	printf("%-13s ", d ? S(d, "driver") : "-");
	printf("%-9s %s\n", d ? S(d, "class") : "-", nets[0] ? nets : "-");
}

static void print_groups(const json_t *groups)
{
	const json_t *g, *devs;
	size_t i, j;

	if (!json_array_size(groups)) {
		row("Groups:", "none");
		return;
	}
	printf("  Groups:\n    %-6s %-9s %-12s %-14s %-13s %-9s %s\n", "GROUP",
	       "TYPE", "MODE", "DEVICE", "DRIVER", "CLASS", "NET");
	for (i = 0; i < json_array_size(groups); i++) {
		g = json_array_get(groups, i);
		devs = json_object_get(g, "devices");
		if (!json_array_size(devs))
			print_device(g, NULL);
		for (j = 0; j < json_array_size(devs); j++)
			print_device(g, json_array_get(devs, j));
	}
}

static void print_iommu(const json_t *io)
{
	const json_t *tables = json_object_get(io, "firmware_tables");
	char line[256] = "";
	size_t i;

	printf("IOMMU\n");
	if (!json_is_true(json_object_get(io, "present")))
		row("Present:", "no: DMA reaches memory untranslated");
	print_units(json_object_get(io, "units"));
	print_groups(json_object_get(io, "groups"));
	for (i = 0; i < json_array_size(tables); i++)
		cat(line, sizeof(line), "%s%s", i ? " " : "",
		    json_string_value(json_array_get(tables, i)));
	row("ACPI tables:", line[0] ? line : "none describes an IOMMU");
}

static void print_policy(const json_t *p)
{
	const json_t *ev = json_object_get(p, "evidence");
	char buf[256], line[512] = "";
	size_t i;

	printf("DMA policy\n");
	cat(line, sizeof(line), "%s", S(p, "mode"));
	if (strcmp(S(p, "source"), "none"))
		cat(line, sizeof(line), " (decided by: %s)", S(p, "source"));
	row("Mode:", line);
	row("Summary:", S(p, "summary"));
	for (i = 0; i < json_array_size(ev); i++)
		row(i ? "" : "Evidence:",
		    json_string_value(json_array_get(ev, i)));
}

static void print_nics(const json_t *nics)
{
	char buf[64], q[48];
	const json_t *n;
	size_t i;

	printf("NICs\n");
	if (!json_array_size(nics)) {
		row("", "none but loopback");
		return;
	}
	printf("  %-15s %-12s %-12s %-13s %-7s %-5s %-6s %-7s %s\n", "NAME",
	       "DRIVER", "FIRMWARE", "PCI", "QUEUES", "NUMA", "GROUP", "SPEED",
	       "MTU");
	for (i = 0; i < json_array_size(nics); i++) {
		n = json_array_get(nics, i);
		snprintf(q, sizeof(q), "%lld/%lld", num(n, "rx_queues"),
			 num(n, "tx_queues"));
		printf("  %-15s ", S(n, "name"));
		printf("%-12s ", S(n, "driver"));
		printf("%-12s ", S(n, "firmware"));
		printf("%-13s ", S(n, "pci"));
		printf("%-7s ", q);
		printf("%-5s ", S(n, "numa_node"));
		printf("%-6s ", S(n, "iommu_group"));
		printf("%-7s ", S(n, "speed_mbps"));
		printf("%s\n", S(n, "mtu"));
	}
}

static void print_cpu(const json_t *c, const json_t *m)
{
	char buf[256], line[512] = "";

	printf("CPU\n");
	row("Model:", S(c, "model"));
	cat(line, sizeof(line), "%s online ", S(c, "online"));
	cat(line, sizeof(line), "(%s) ", S(c, "online_list"));
	cat(line, sizeof(line), "of %s possible", S(c, "possible"));
	row("CPUs:", line);
	line[0] = '\0';
	cat(line, sizeof(line), "%s socket(s), ", S(c, "sockets"));
	cat(line, sizeof(line), "%s thread(s) per core, ",
	    S(c, "threads_per_core"));
	cat(line, sizeof(line), "SMT %s", S(c, "smt_control"));
	row("Topology:", line);
	row("Governor:", json_is_null(json_object_get(c, "governor")) ?
				 "- (no cpufreq)" :
				 S(c, "governor"));

	printf("Memory\n");
	line[0] = '\0';
	if (num(m, "total_kib"))
		cat(line, sizeof(line), "%.1f GiB",
		    num(m, "total_kib") / 1048576.0);
	if (num(m, "available_kib"))
		cat(line, sizeof(line), " (%.1f GiB available)",
		    num(m, "available_kib") / 1048576.0);
	if (!line[0])
		cat(line, sizeof(line), "-");
	row("Total:", line);
	snprintf(line, sizeof(line), "%lld x %lld KiB", num(m, "hugepages"),
		 num(m, "hugepage_kib"));
	row("Huge pages:", line);
	row("NUMA nodes:", S(m, "numa_nodes"));
}

/* Scalars and arrays of scalars print inline; the rest nests. */
static bool is_inline(const json_t *v)
{
	size_t i;

	if (json_is_object(v))
		return false;
	for (i = 0; i < json_array_size(v); i++)
		if (json_is_object(json_array_get(v, i)) ||
		    json_is_array(json_array_get(v, i)))
			return false;
	return true;
}

static void print_inline(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key), *e;
	char buf[1024];
	size_t i;

	if (!json_is_array(v)) {
		fputs(str(o, key, buf, sizeof(buf)), stdout);
		return;
	}
	if (!json_array_size(v))
		fputs("none", stdout);
	for (i = 0; i < json_array_size(v); i++) {
		char *d;

		e = json_array_get(v, i);
		d = json_is_string(e) ? NULL : json_dumps(e, JSON_ENCODE_ANY);
		printf("%s%s", i ? ", " : "", d ? d : json_string_value(e));
		free(d);
	}
}

/* One line of an object's inline members; deeper ones counted. */
static void print_members(const json_t *o, int indent, const char *lead,
			  int depth)
{
	bool first = true;
	const char *key;
	const json_t *v;
	void *it;

	for (it = json_object_iter((json_t *)o); it;
	     it = json_object_iter_next((json_t *)o, it)) {
		key = json_object_iter_key(it);
		v = json_object_iter_value(it);
		if (!is_inline(v) && depth > 0)
			continue;
		printf("%s%*s%s%s: ", first ? "" : ", ", first ? indent : 0, "",
		       first ? lead : "", key);
		if (is_inline(v))
			print_inline(o, key);
		else
			printf("%zu (see -v)", json_is_array(v) ?
						       json_array_size(v) :
						       json_object_size(v));
		first = false;
	}
	if (!first)
		putchar('\n');
}

/*
 * What a collector says it supports is its own JSON, whose shape is its
 * business, so it is drawn as a tree: an object's inline members share
 * one line, nested objects and arrays of objects go below, indented,
 * down to @depth levels (-v: all), and are counted beyond.
 */
static void print_tree(const json_t *o, int indent, const char *lead, int depth)
{
	const json_t *v, *e;
	void *it;
	size_t i;

	print_members(o, indent, lead, depth);
	if (depth <= 0)
		return;
	for (it = json_object_iter((json_t *)o); it;
	     it = json_object_iter_next((json_t *)o, it)) {
		v = json_object_iter_value(it);
		if (is_inline(v))
			continue;
		printf("%*s%s:\n", indent + 2, "", json_object_iter_key(it));
		if (json_is_object(v))
			print_tree(v, indent + 4, "", depth - 1);
		for (i = 0; i < json_array_size(v); i++) {
			e = json_array_get(v, i);
			if (json_is_object(e))
				print_tree(e, indent + 4, "- ", depth - 1);
			else
				printf("%*s- [...]\n", indent + 4, "");
		}
	}
}

static void print_collector(const char *name, const json_t *c)
{
	char buf[1024], label[64];
	const char *key;
	const json_t *v;
	json_t *one;
	void *it;

	snprintf(label, sizeof(label), "%s:", name);
	if (json_is_false(json_object_get(c, "available"))) {
		snprintf(buf, sizeof(buf), "not available: %s", S(c, "reason"));
		row(label, buf);
		return;
	}
	printf("  %s\n", label);
	for (it = json_object_iter((json_t *)c); it;
	     it = json_object_iter_next((json_t *)c, it)) {
		key = json_object_iter_key(it);
		v = json_object_iter_value(it);
		snprintf(label, sizeof(label), "%s:", key);
		if (is_inline(v)) {
			printf("    %-24s", label);
			print_inline(c, key);
			putchar('\n');
			continue;
		}
		/* A one-member object, to draw the member as a tree. */
		one = json_pack("{s:O}", key, v);
		print_tree(one, 2, "", log_verbosity >= LOG_INFO ? 64 : 1);
		json_decref(one);
	}
}

static void print_collectors(const json_t *cols)
{
	void *it;

	printf("Collectors\n");
	if (!json_is_object(cols)) {
		row("", "not asked (facts read from a copy under --root)");
		return;
	}
	for (it = json_object_iter((json_t *)cols); it;
	     it = json_object_iter_next((json_t *)cols, it))
		print_collector(json_object_iter_key(it),
				json_object_iter_value(it));
}

static void print_text(const json_t *f)
{
	print_host(json_object_get(f, "identity"));
	print_kernel(json_object_get(f, "kernel"));
	print_iommu(json_object_get(f, "iommu"));
	print_policy(json_object_get(f, "dma_policy"));
	print_nics(json_object_get(f, "nics"));
	print_cpu(json_object_get(f, "cpu"), json_object_get(f, "memory"));
	print_collectors(json_object_get(f, "collectors"));
}

int cmd_probe(int argc, const char **argv)
{
	struct hostfacts_opts hopts = { .root = NULL, .collectors = true };
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_STRING(0, "root", &hopts.root, "DIR",
			   "read /proc, /sys, /etc, /boot and /dev/kmsg under "
			   "DIR (a copy, for tests); collectors not asked"),
		OPT_END(),
	};
	const json_t *warn;
	json_t *facts;
	size_t i;
	int err;

	argc = parse_options(argc, argv, opts, probe_usage, 0);
	if (argc)
		usage_error(probe_usage, opts, "unexpected argument '%s'",
			    argv[0]);
	err = hostfacts__gather_opts(&hopts, &facts);
	if (err) {
		pr_err("probe: --root '%s': %s (expected a directory holding "
		       "proc/sys/kernel/osrelease)",
		       hopts.root ? hopts.root : "/", strerror(-err));
		return hopts.root ? EXIT_USAGE : EXIT_WORK_FAILED;
	}
	if (global.json) {
		json_dumpf(facts, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else {
		print_text(facts);
		warn = json_object_get(facts, "warnings");
		for (i = 0; i < json_array_size(warn); i++)
			pr_warn("probe: %s",
				json_string_value(json_array_get(warn, i)));
	}
	json_decref(facts);
	return EXIT_OK;
}
