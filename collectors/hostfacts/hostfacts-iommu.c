// SPDX-License-Identifier: GPL-2.0-only
/*
 * IOMMU hardware (/sys/class/iommu) and groups (/sys/kernel/iommu_groups):
 * which units translate DMA, and which devices sit behind them in which
 * kind of domain.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

static const struct {
	const char *name, *label;
} iommu_kinds[] = {
	[HOSTFACTS_IOMMU_UNKNOWN] = { "unknown", "unknown IOMMU" },
	[HOSTFACTS_IOMMU_INTEL] = { "intel-vtd", "Intel VT-d (DMAR)" },
	[HOSTFACTS_IOMMU_AMD] = { "amd-vi", "AMD-Vi" },
	[HOSTFACTS_IOMMU_SMMU_V3] = { "arm-smmu-v3", "Arm SMMUv3" },
	[HOSTFACTS_IOMMU_SMMU] = { "arm-smmu", "Arm SMMU" },
	[HOSTFACTS_IOMMU_VIRTIO] = { "virtio-iommu", "virtio-iommu" },
};

const char *hostfacts__iommu_kind_name(enum hostfacts_iommu_kind k)
{
	return (size_t)k < ARRAY_SIZE(iommu_kinds) ? iommu_kinds[k].name :
						     "unknown";
}

const char *hostfacts__iommu_kind_label(enum hostfacts_iommu_kind k)
{
	return (size_t)k < ARRAY_SIZE(iommu_kinds) ? iommu_kinds[k].label :
						     "unknown IOMMU";
}

static size_t count_dir(const char *root, const char *fmt, const char *name)
{
	char **v;
	size_t n;

	if (hf_list_dir(&v, &n, NULL, root, fmt, name))
		return 0;
	strv_free(v, n);
	return n;
}

static void unit_read(const char *root, const char *name,
		      struct hostfacts_iommu_unit *u)
{
	memset(u, 0, sizeof(*u));
	u->name = xstrdup(name);
	u->caching_mode = -1;
	u->driver =
		hf_link_base(root, "/sys/class/iommu/%s/device/driver", name);
	u->nr_devices = count_dir(root, "/sys/class/iommu/%s/devices", name);
	if (hf_exists(root, "/sys/class/iommu/%s/intel-iommu", name)) {
		u->kind = HOSTFACTS_IOMMU_INTEL;
		hf_read_str(&u->cap, root,
			    "/sys/class/iommu/%s/intel-iommu/cap", name);
		hf_read_str(&u->ecap, root,
			    "/sys/class/iommu/%s/intel-iommu/ecap", name);
		/* CAP.CM (bit 7): a virtual IOMMU that wants every change
		 * flushed; the Intel driver then forces strict mode. */
		if (u->cap)
			u->caching_mode = (strtoull(u->cap, NULL, 16) >> 7) & 1;
	} else if (hf_exists(root, "/sys/class/iommu/%s/amd-iommu", name)) {
		u->kind = HOSTFACTS_IOMMU_AMD;
		hf_read_str(&u->cap, root, "/sys/class/iommu/%s/amd-iommu/cap",
			    name);
		hf_read_str(&u->ecap, root,
			    "/sys/class/iommu/%s/amd-iommu/features", name);
	} else if (!strncmp(name, "smmu3.", 6) ||
		   (u->driver && !strcmp(u->driver, "arm-smmu-v3"))) {
		u->kind = HOSTFACTS_IOMMU_SMMU_V3;
	} else if (!strncmp(name, "smmu.", 5) ||
		   (u->driver && !strcmp(u->driver, "arm-smmu"))) {
		u->kind = HOSTFACTS_IOMMU_SMMU;
	} else if (u->driver && !strcmp(u->driver, "virtio_iommu")) {
		u->kind = HOSTFACTS_IOMMU_VIRTIO;
	}
}

int hostfacts__iommu_units(const char *root,
			   struct hostfacts_iommu_unit **units, size_t *nr)
{
	char **names;
	size_t n, i;
	int err;

	*units = NULL;
	*nr = 0;
	err = hf_list_dir(&names, &n, NULL, root, "/sys/class/iommu");
	if (err)
		return err;
	*units = n ? xcalloc(n, sizeof(**units)) : NULL;
	for (i = 0; i < n; i++)
		unit_read(root, names[i], &(*units)[i]);
	*nr = n;
	strv_free(names, n);
	return 0;
}

void hostfacts__iommu_units_free(struct hostfacts_iommu_unit *units, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free_all(units[i].name, units[i].driver, units[i].cap,
			 units[i].ecap);
	free(units);
}

/* A NIC's netdev sits under the device, or under its virtio child. */
static void device_nets(const char *root, const char *dev,
			struct hostfacts_device *d)
{
	struct strvec sv = { 0 };
	char **kids, **nets;
	size_t nk, nn, i, j;

	if (!hf_list_dir(&nets, &nn, NULL, root, "%s/net", dev)) {
		for (j = 0; j < nn; j++)
			strvec__push_nodup(&sv, nets[j]);
		free(nets);
	}
	if (!hf_list_dir(&kids, &nk, "virtio", root, "%s", dev)) {
		for (i = 0; i < nk; i++) {
			if (hf_list_dir(&nets, &nn, NULL, root, "%s/%s/net",
					dev, kids[i]))
				continue;
			for (j = 0; j < nn; j++)
				strvec__push_nodup(&sv, nets[j]);
			free(nets);
		}
		strv_free(kids, nk);
	}
	d->net = sv.v;
	d->nr_net = sv.nr;
}

static void device_read(const char *root, unsigned int group, const char *name,
			struct hostfacts_device *d)
{
	char *dev = xasprintf("/sys/kernel/iommu_groups/%u/devices/%s", group,
			      name);
	long node;

	memset(d, 0, sizeof(*d));
	d->name = xstrdup(name);
	d->bus = hf_link_base(root, "%s/subsystem", dev);
	d->driver = hf_link_base(root, "%s/driver", dev);
	hf_read_str(&d->class, root, "%s/class", dev);
	hf_read_str(&d->vendor, root, "%s/vendor", dev);
	hf_read_str(&d->device, root, "%s/device", dev);
	d->numa_node = hf_read_long(&node, root, "%s/numa_node", dev) ||
				       node < 0 ?
			       -1 :
			       (int)node;
	device_nets(root, dev, d);
	free(dev);
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 10;
}

static void group_read(const char *root, unsigned int id,
		       struct hostfacts_group *g)
{
	char **devs;
	size_t n, i;

	memset(g, 0, sizeof(*g));
	g->id = id;
	hf_read_str(&g->type, root, "/sys/kernel/iommu_groups/%u/type", id);
	if (hf_list_dir(&devs, &n, NULL, root,
			"/sys/kernel/iommu_groups/%u/devices", id))
		return;
	g->devices = n ? xcalloc(n, sizeof(*g->devices)) : NULL;
	for (i = 0; i < n; i++)
		device_read(root, id, devs[i], &g->devices[i]);
	g->nr_devices = n;
	strv_free(devs, n);
}

int hostfacts__iommu_groups(const char *root, struct hostfacts_group **groups,
			    size_t *nr)
{
	struct hostfacts_group *g = NULL;
	size_t n, i, k = 0;
	char **names;
	int err;

	*groups = NULL;
	*nr = 0;
	err = hf_list_dir(&names, &n, NULL, root, "/sys/kernel/iommu_groups");
	if (err)
		return err;
	if (n)
		g = xcalloc(n, sizeof(*g));
	for (i = 0; i < n; i++) {
		/* Only numbers name groups; anything else is not ours. */
		if (!all_digits(names[i]))
			continue;
		group_read(root, (unsigned int)strtoul(names[i], NULL, 10),
			   &g[k++]);
	}
	strv_free(names, n);
	*groups = g;
	*nr = k;
	return 0;
}

static void device_release(struct hostfacts_device *d)
{
	free_all(d->name, d->bus, d->driver, d->class, d->vendor, d->device);
	strv_free(d->net, d->nr_net);
}

void hostfacts__iommu_groups_free(struct hostfacts_group *groups, size_t nr)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < groups[i].nr_devices; j++)
			device_release(&groups[i].devices[j]);
		free(groups[i].devices);
		free(groups[i].type);
	}
	free(groups);
}

enum hostfacts_dma_mode hostfacts__group_mode(const struct hostfacts_group *g)
{
	int m = iommu_mode__by_group_type(g->type);

	/* blocked, unmanaged (VFIO), unknown: no DMA-API mode */
	return m < 0 ? HOSTFACTS_DMA_UNKNOWN : HOSTFACTS_DMA_STRICT + m;
}

/* ACPI tables that describe an IOMMU, whether or not a driver took it. */
void hf_firmware_tables(const char *root, struct strvec *tables)
{
	static const char *const names[] = { "DMAR", "IVRS", "IORT", "VIOT" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (hf_exists(root, "/sys/firmware/acpi/tables/%s", names[i]))
			strvec__push(tables, names[i]);
}

static json_t *unit_json(const struct hostfacts_iommu_unit *u)
{
	return json_pack("{s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:I}", "name",
			 json_string_or_null(u->name), "kind",
			 hostfacts__iommu_kind_name(u->kind), "label",
			 hostfacts__iommu_kind_label(u->kind), "driver",
			 json_string_or_null(u->driver), "cap",
			 json_string_or_null(u->cap), "ecap",
			 json_string_or_null(u->ecap), "caching_mode",
			 u->caching_mode < 0 ? json_null() :
					       json_boolean(u->caching_mode),
			 "devices", (json_int_t)u->nr_devices);
}

static json_t *device_json(const struct hostfacts_device *d)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
			 json_string_or_null(d->name), "bus",
			 json_string_or_null(d->bus), "driver",
			 json_string_or_null(d->driver), "class",
			 json_string_or_null(d->class), "vendor",
			 json_string_or_null(d->vendor), "device",
			 json_string_or_null(d->device), "numa_node",
			 hf_json_int_or_null(d->numa_node), "net",
			 json_strings(d->net, d->nr_net));
}

static json_t *group_json(const struct hostfacts_group *g)
{
	json_t *devs = json_array();
	size_t i;

	for (i = 0; i < g->nr_devices; i++)
		json_array_append_new(devs, device_json(&g->devices[i]));
	return json_pack("{s:I, s:o, s:s, s:o}", "id", (json_int_t)g->id,
			 "type", json_string_or_null(g->type), "mode",
			 hostfacts__dma_mode_name(hostfacts__group_mode(g)),
			 "devices", devs);
}

json_t *hf_json_iommu(const char *root, struct strvec *warn)
{
	struct hostfacts_iommu_unit *units;
	struct strvec tables = { 0 };
	struct hostfacts_group *groups;
	size_t nu, ng, i;
	json_t *ju, *jg, *o;
	int err;

	ju = json_array();
	err = hostfacts__iommu_units(root, &units, &nu);
	if (err && err != -ENOENT)
		strvec__pushf(warn, "/sys/class/iommu: %s", strerror(-err));
	for (i = 0; !err && i < nu; i++)
		json_array_append_new(ju, unit_json(&units[i]));
	if (!err)
		hostfacts__iommu_units_free(units, nu);
	else
		nu = 0;

	jg = json_array();
	err = hostfacts__iommu_groups(root, &groups, &ng);
	if (err && err != -ENOENT)
		strvec__pushf(warn, "/sys/kernel/iommu_groups: %s",
			      strerror(-err));
	for (i = 0; !err && i < ng; i++)
		json_array_append_new(jg, group_json(&groups[i]));
	if (!err)
		hostfacts__iommu_groups_free(groups, ng);
	else
		ng = 0;

	hf_firmware_tables(root, &tables);
	o = json_pack("{s:b, s:o, s:o, s:o}", "present", nu || ng, "units", ju,
		      "groups", jg, "firmware_tables",
		      json_strings(tables.v, tables.nr));
	strv_free(tables.v, tables.nr);
	return o;
}
