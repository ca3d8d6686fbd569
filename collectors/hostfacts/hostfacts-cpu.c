// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPUs (model, counts, topology, SMT, frequency governor) and memory:
 * what decides how much CPU an IOTLB invalidation costs a benchmark.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

/* Arm cores name no model in /proc/cpuinfo; their part numbers do. */
static const struct {
	unsigned int implementer, part;
	const char *name;
} arm_parts[] = {
	{ 0x41, 0xd07, "Arm Cortex-A57" },  { 0x41, 0xd08, "Arm Cortex-A72" },
	{ 0x41, 0xd0c, "Arm Neoverse-N1" }, { 0x41, 0xd40, "Arm Neoverse-V1" },
	{ 0x41, 0xd49, "Arm Neoverse-N2" }, { 0x41, 0xd4f, "Arm Neoverse-V2" },
	{ 0x41, 0xd83, "Arm Neoverse-V3" }, { 0x41, 0xd8e, "Arm Neoverse-N3" },
};

/* The value of "@key\t: value" in @text, or NULL. */
static char *cpuinfo_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text, *colon, *eol;

	while (p && *p) {
		eol = p + strcspn(p, "\n");
		if (!strncmp(p, key, klen) &&
		    (p[klen] == '\t' || p[klen] == ' ' || p[klen] == ':')) {
			colon = strchr(p, ':');
			if (colon && colon < eol) {
				colon++;
				while (*colon == ' ' || *colon == '\t')
					colon++;
				return xstrndup(colon, strcspn(colon, "\n"));
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static char *arm_model(const char *cpuinfo)
{
	char *impl = cpuinfo_value(cpuinfo, "CPU implementer");
	char *part = cpuinfo_value(cpuinfo, "CPU part");
	unsigned int i, im, pa;
	char *model = NULL;

	if (!impl || !part)
		goto out;
	im = strtoul(impl, NULL, 0);
	pa = strtoul(part, NULL, 0);
	for (i = 0; i < ARRAY_SIZE(arm_parts); i++)
		if (arm_parts[i].implementer == im && arm_parts[i].part == pa)
			model = xstrdup(arm_parts[i].name);
	if (!model)
		model = xasprintf("implementer 0x%02x part 0x%03x", im, pa);
out:
	free(impl);
	free(part);
	return model;
}

static void cpu_model(const char *root, struct hostfacts_cpu *cpu)
{
	char *path = hf_path(root, "/proc/cpuinfo"), *text;
	size_t len;

	if (read_file(path, &text, &len)) {
		free(path);
		return;
	}
	free(path);
	cpu->model = cpuinfo_value(text, "model name");
	if (!cpu->model)
		cpu->model = arm_model(text);
	cpu->vendor = cpuinfo_value(text, "vendor_id");
	free(text);
}

static unsigned int cpulist(const char *root, const char *file, char **keep)
{
	unsigned int n;
	char *s;

	if (hf_read_str(&s, root, "/sys/devices/system/cpu/%s", file))
		return 0;
	n = hf_cpulist_count(s);
	if (keep)
		*keep = s;
	else
		free(s);
	return n;
}

/* Sockets and threads per core, from the online CPUs' topology. */
static void cpu_topology(const char *root, struct hostfacts_cpu *cpu)
{
	struct strvec pkgs = { 0 };
	char **cpus, *s;
	size_t n, i;

	if (!hf_read_str(&s, root,
			 "/sys/devices/system/cpu/cpu0/topology/"
			 "thread_siblings_list")) {
		cpu->threads_per_core = hf_cpulist_count(s);
		free(s);
	}
	if (hf_list_dir(&cpus, &n, "cpu", root, "/sys/devices/system/cpu"))
		return;
	for (i = 0; i < n; i++) {
		if (!hf_read_str(&s, root,
				 "/sys/devices/system/cpu/%s/topology/"
				 "physical_package_id",
				 cpus[i]))
			strvec__push_distinct(&pkgs, s);
	}
	cpu->sockets = pkgs.nr;
	strv_free(pkgs.v, pkgs.nr);
	strv_free(cpus, n);
}

/* Distinct governors of the cpufreq policies, "performance,powersave". */
static void cpu_governor(const char *root, struct hostfacts_cpu *cpu)
{
	struct strvec govs = { 0 };
	char **pol, *s, *t;
	size_t n, i;

	if (hf_list_dir(&pol, &n, "policy", root,
			"/sys/devices/system/cpu/cpufreq"))
		return;
	for (i = 0; i < n; i++) {
		if (!cpu->cpufreq_driver)
			hf_read_str(&cpu->cpufreq_driver, root,
				    "/sys/devices/system/cpu/cpufreq/%s/"
				    "scaling_driver",
				    pol[i]);
		if (!hf_read_str(&s, root,
				 "/sys/devices/system/cpu/cpufreq/%s/"
				 "scaling_governor",
				 pol[i]))
			strvec__push_distinct(&govs, s);
	}
	for (i = 0; i < govs.nr; i++) {
		t = xasprintf("%s%s%s", cpu->governor ? cpu->governor : "",
			      cpu->governor ? "," : "", govs.v[i]);
		free(cpu->governor);
		cpu->governor = t;
	}
	strv_free(govs.v, govs.nr);
	strv_free(pol, n);
}

int hostfacts__cpu(const char *root, struct hostfacts_cpu *cpu)
{
	long v;

	memset(cpu, 0, sizeof(*cpu));
	cpu->smt_active = -1;
	cpu_model(root, cpu);
	cpu->possible = cpulist(root, "possible", NULL);
	cpu->present = cpulist(root, "present", NULL);
	cpu->online = cpulist(root, "online", &cpu->online_list);
	if (!cpu->online_list)
		return -ENOENT;
	cpu_topology(root, cpu);
	hf_read_str(&cpu->smt_control, root,
		    "/sys/devices/system/cpu/smt/control");
	if (!hf_read_long(&v, root, "/sys/devices/system/cpu/smt/active"))
		cpu->smt_active = v != 0;
	cpu_governor(root, cpu);
	return 0;
}

void hostfacts__cpu_release(struct hostfacts_cpu *cpu)
{
	free_all(cpu->model, cpu->vendor, cpu->online_list, cpu->smt_control,
		 cpu->governor, cpu->cpufreq_driver);
	memset(cpu, 0, sizeof(*cpu));
}

int hostfacts__memory(const char *root, struct hostfacts_memory *mem)
{
	char *path = hf_path(root, "/proc/meminfo"), *text, *line;
	unsigned long long v;
	char key[64];
	size_t len;
	int err;

	memset(mem, 0, sizeof(*mem));
	err = read_file(path, &text, &len);
	free(path);
	if (err)
		return err;
	for (line = text; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, "%63[^:]: %llu", key, &v) != 2)
			continue;
		if (!strcmp(key, "MemTotal"))
			mem->total_kib = v;
		else if (!strcmp(key, "MemAvailable"))
			mem->available_kib = v;
		else if (!strcmp(key, "HugePages_Total"))
			mem->hugepages = v;
		else if (!strcmp(key, "Hugepagesize"))
			mem->hugepage_kib = v;
	}
	free(text);
	hf_read_str(&mem->numa_nodes, root, "/sys/devices/system/node/online");
	return 0;
}

void hostfacts__memory_release(struct hostfacts_memory *mem)
{
	free(mem->numa_nodes);
	memset(mem, 0, sizeof(*mem));
}

static json_t *uint_or_null(unsigned long long v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

json_t *hf_json_cpu(const char *root, struct strvec *warn)
{
	struct hostfacts_cpu c;
	json_t *o;

	hf_warn_err(warn, "cpus: /sys/devices/system/cpu/online",
		    hostfacts__cpu(root, &c));
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
		      "s:o, s:o}",
		      "model", json_string_or_null(c.model), "vendor",
		      json_string_or_null(c.vendor), "possible",
		      uint_or_null(c.possible), "present",
		      uint_or_null(c.present), "online", uint_or_null(c.online),
		      "online_list", json_string_or_null(c.online_list),
		      "sockets", uint_or_null(c.sockets), "threads_per_core",
		      uint_or_null(c.threads_per_core), "smt_control",
		      json_string_or_null(c.smt_control), "smt_active",
		      c.smt_active < 0 ? json_null() :
					 json_boolean(c.smt_active),
		      "governor", json_string_or_null(c.governor),
		      "cpufreq_driver", json_string_or_null(c.cpufreq_driver));
	hostfacts__cpu_release(&c);
	return o;
}

json_t *hf_json_memory(const char *root, struct strvec *warn)
{
	struct hostfacts_memory m;
	json_t *o;

	hf_warn_err(warn, "memory: /proc/meminfo", hostfacts__memory(root, &m));
	o = json_pack("{s:o, s:o, s:I, s:o, s:o}", "total_kib",
		      uint_or_null(m.total_kib), "available_kib",
		      uint_or_null(m.available_kib), "hugepages",
		      (json_int_t)m.hugepages, "hugepage_kib",
		      uint_or_null(m.hugepage_kib), "numa_nodes",
		      json_string_or_null(m.numa_nodes));
	hostfacts__memory_release(&m);
	return o;
}
