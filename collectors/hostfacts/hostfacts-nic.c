// SPDX-License-Identifier: GPL-2.0-only
/*
 * The network interfaces of this namespace: driver and firmware (the
 * ETHTOOL_GDRVINFO ioctl, as `ethtool -i`), queues, NUMA node, IOMMU
 * group, speed and MTU. Loopback is left out: it does no DMA.
 */
#include <errno.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

#define ARPHRD_LOOPBACK_TYPE 772

static char *nonempty(const char *s, size_t max)
{
	size_t len = strnlen(s, max);

	return len ? xstrndup(s, len) : NULL;
}

static void nic_ethtool(int sock, struct hostfacts_nic *n)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(n->name) >= sizeof(ifr.ifr_name))
		return;
	strcpy(ifr.ifr_name, n->name);
	ifr.ifr_data = (char *)&info;
	if (ioctl(sock, SIOCETHTOOL, &ifr))
		return;
	/* The ioctl names the driver even for virtual devices (veth). */
	if (info.driver[0]) {
		free(n->driver);
		n->driver = nonempty(info.driver, sizeof(info.driver));
	}
	n->driver_version = nonempty(info.version, sizeof(info.version));
	n->firmware = nonempty(info.fw_version, sizeof(info.fw_version));
	n->bus_info = nonempty(info.bus_info, sizeof(info.bus_info));
}

/* The last component of where @fmt leads, symlinks and ".." resolved. */
static char *real_base(const char *root, const char *fmt, const char *name)
{
	char *path = hf_path(root, fmt, name), *real, *slash, *base = NULL;

	real = realpath(path, NULL);
	free(path);
	if (!real)
		return NULL;
	slash = strrchr(real, '/');
	if (slash && slash[1])
		base = xstrdup(slash + 1);
	free(real);
	return base;
}

/*
 * The PCI function behind the interface: its device, or the device's
 * parent when a bus sits between them (virtio-net under virtio-pci).
 */
static void nic_pci(const char *root, struct hostfacts_nic *n)
{
	static const char *const up[] = { "/sys/class/net/%s/device",
					  "/sys/class/net/%s/device/.." };
	char *sub, *group, *fmt;
	size_t i;
	long v;

	for (i = 0; i < ARRAY_SIZE(up); i++) {
		fmt = xasprintf("%s/subsystem", up[i]);
		sub = hf_link_base(root, fmt, n->name);
		free(fmt);
		if (!sub || strcmp(sub, "pci")) {
			free(sub);
			continue;
		}
		free(sub);
		n->pci = real_base(root, up[i], n->name);
		fmt = xasprintf("%s/numa_node", up[i]);
		if (!hf_read_long(&v, root, fmt, n->name) && v >= 0 &&
		    v < INT_MAX)
			n->numa_node = (int)v;
		free(fmt);
		fmt = xasprintf("%s/iommu_group", up[i]);
		group = hf_link_base(root, fmt, n->name);
		free(fmt);
		if (group && strspn(group, "0123456789") == strlen(group) &&
		    *group && strlen(group) < 10)
			n->iommu_group = atoi(group);
		free(group);
		return;
	}
}

static void nic_queues(const char *root, struct hostfacts_nic *n)
{
	char **v;
	size_t nr;

	if (!hf_list_dir(&v, &nr, "rx-", root, "/sys/class/net/%s/queues",
			 n->name)) {
		n->rx_queues = nr;
		strv_free(v, nr);
	}
	if (!hf_list_dir(&v, &nr, "tx-", root, "/sys/class/net/%s/queues",
			 n->name)) {
		n->tx_queues = nr;
		strv_free(v, nr);
	}
}

static void nic_read(const char *root, int sock, const char *name,
		     struct hostfacts_nic *n)
{
	long v;

	memset(n, 0, sizeof(*n));
	n->name = xstrdup(name);
	n->numa_node = -1;
	n->iommu_group = -1;
	n->speed_mbps = -1;
	n->is_virtual = !hf_exists(root, "/sys/class/net/%s/device", name);
	n->driver = hf_link_base(root, "/sys/class/net/%s/device/driver", name);
	if (!hf_read_long(&v, root, "/sys/class/net/%s/mtu", name) && v > 0 &&
	    v < INT_MAX)
		n->mtu = (unsigned int)v;
	/* EINVAL while the link is down; -1 from virtual drivers. */
	if (!hf_read_long(&v, root, "/sys/class/net/%s/speed", name) && v > 0)
		n->speed_mbps = v;
	hf_read_str(&n->operstate, root, "/sys/class/net/%s/operstate", name);
	nic_queues(root, n);
	nic_pci(root, n);
	if (sock >= 0)
		nic_ethtool(sock, n);
}

int hostfacts__nics(const char *root, struct hostfacts_nic **nics, size_t *nr)
{
	struct hostfacts_nic *v = NULL;
	size_t n, i, k = 0;
	char **names;
	int sock = -1, err;
	long type;

	*nics = NULL;
	*nr = 0;
	err = hf_list_dir(&names, &n, NULL, root, "/sys/class/net");
	if (err)
		return err;
	/* The ioctl asks the running kernel: only for the real root. */
	if (hf_root_is_real(root))
		sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (n)
		v = xcalloc(n, sizeof(*v));
	for (i = 0; i < n; i++) {
		if (!hf_read_long(&type, root, "/sys/class/net/%s/type",
				  names[i]) &&
		    type == ARPHRD_LOOPBACK_TYPE)
			continue;
		nic_read(root, sock, names[i], &v[k++]);
	}
	if (sock >= 0)
		close(sock);
	strv_free(names, n);
	*nics = v;
	*nr = k;
	return 0;
}

void hostfacts__nics_free(struct hostfacts_nic *nics, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free_all(nics[i].name, nics[i].driver, nics[i].driver_version,
			 nics[i].firmware, nics[i].bus_info, nics[i].pci,
			 nics[i].operstate);
	free(nics);
}

json_t *hf_json_nics(const char *root, struct strvec *warn)
{
	struct hostfacts_nic *nics;
	json_t *a = json_array();
	size_t n, i;
	int err;

	err = hostfacts__nics(root, &nics, &n);
	if (err) {
		strvec__pushf(warn, "/sys/class/net: %s", strerror(-err));
		return a;
	}
	for (i = 0; i < n; i++) {
		const struct hostfacts_nic *c = &nics[i];

		json_array_append_new(
			a,
			json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:I, "
				  "s:I, s:o, s:o, s:o, s:I, s:o}",
				  "name", json_string_or_null(c->name),
				  "driver", json_string_or_null(c->driver),
				  "driver_version",
				  json_string_or_null(c->driver_version),
				  "firmware", json_string_or_null(c->firmware),
				  "bus_info", json_string_or_null(c->bus_info),
				  "pci", json_string_or_null(c->pci), "virtual",
				  c->is_virtual, "rx_queues",
				  (json_int_t)c->rx_queues, "tx_queues",
				  (json_int_t)c->tx_queues, "numa_node",
				  hf_json_int_or_null(c->numa_node),
				  "iommu_group",
				  hf_json_int_or_null(c->iommu_group),
				  "speed_mbps",
				  hf_json_int_or_null(c->speed_mbps), "mtu",
				  (json_int_t)c->mtu, "operstate",
				  json_string_or_null(c->operstate)));
	}
	hostfacts__nics_free(nics, n);
	return a;
}
