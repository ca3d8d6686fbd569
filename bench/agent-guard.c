// SPDX-License-Identifier: GPL-2.0-only
/*
 * What mode.sysfs must not unbind: the device under the root file
 * system, a device that shares the NIC's group (the kernel would refuse
 * the type anyway, after we took the NIC down), and the NIC that carries
 * the controller's ssh connection: unbinding it would strand the run.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench/agent-sysfs.h"
#include "bench/agent.h"
#include "util.h"

static bool guard_asks(const struct sysfs_switch *sw, const char *what)
{
	json_t *a = json_object_get(sw->guard, "refuse_if_carries");
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), what))
			return true;
	return false;
}

static int check_rootfs(const struct sysfs_switch *sw, char **err)
{
	char real[PATH_MAX], *p, *needle;
	struct stat st;
	bool hit;

	if (stat("/", &st) < 0)
		return 0;
	p = xasprintf("%s/sys/dev/block/%u:%u", sw->root, major(st.st_dev),
		      minor(st.st_dev));
	if (!realpath(p, real)) {
		free(p);
		return 0;
	}
	free(p);
	needle = xasprintf("/%s/", sw->pci);
	hit = strstr(real, needle);
	free(needle);
	if (hit)
		return agent__err(err, -EBUSY,
				  "mode.sysfs: refusing to unbind %s (%s): the "
				  "root file system is on it",
				  sw->pci, sw->nic);
	return 0;
}

static int check_group(const struct sysfs_switch *sw, char **err)
{
	char *dir = xasprintf("%s/sys/kernel/iommu_groups/%s/devices", sw->root,
			      sw->group);
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	while (d && !ret && (de = readdir(d))) {
		char *drv;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, sw->pci))
			continue;
		drv = xasprintf("%s/%s/driver", dir, de->d_name);
		if (!access(drv, F_OK))
			ret = agent__err(err, -EBUSY,
					 "mode.sysfs: refusing to switch group "
					 "%s of %s: %s in the same group has a "
					 "driver bound",
					 sw->group, sw->nic, de->d_name);
		free(drv);
	}
	if (d)
		closedir(d);
	free(dir);
	return ret;
}

/* /proc/net/route: "Iface Destination ..." with 00000000 the default. */
static bool holds_default_route(const struct sysfs_switch *sw)
{
	char *p = xasprintf("%s/proc/net/route", sw->root);
	char *text = NULL, *line, *save = NULL;
	bool hit = false;
	size_t len;

	if (read_file(p, &text, &len) < 0)
		goto out;
	for (line = strtok_r(text, "\n", &save); line && !hit;
	     line = strtok_r(NULL, "\n", &save)) {
		char iface[64], dest[16];

		if (sscanf(line, "%63s %15s", iface, dest) == 2 &&
		    !strcmp(iface, sw->nic) && !strcmp(dest, "00000000"))
			hit = true;
	}
out:
	free(text);
	free(p);
	return hit;
}

/* $SSH_CONNECTION is "client port server port": the server's address. */
static bool holds_ssh_address(const struct sysfs_switch *sw)
{
	const char *conn = getenv("SSH_CONNECTION");
	char client[64], server[64], addr[INET6_ADDRSTRLEN];
	struct ifaddrs *ifa, *i;
	bool hit = false;

	if (!conn || sscanf(conn, "%63s %*s %63s", client, server) != 2)
		return false;
	/* The interfaces of a scratch tree are not the real ones. */
	if (*sw->root || getifaddrs(&ifa) < 0)
		return false;
	for (i = ifa; i && !hit; i = i->ifa_next) {
		const void *a;

		if (!i->ifa_addr || strcmp(i->ifa_name, sw->nic))
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			a = &((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		else if (i->ifa_addr->sa_family == AF_INET6)
			a = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
		else
			continue;
		if (inet_ntop(i->ifa_addr->sa_family, a, addr, sizeof(addr)) &&
		    !strcmp(addr, server))
			hit = true;
	}
	freeifaddrs(ifa);
	return hit;
}

int agent_sysfs__guard(const struct sysfs_switch *sw, char **err)
{
	int ret;

	ret = check_rootfs(sw, err);
	if (!ret)
		ret = check_group(sw, err);
	if (ret || !guard_asks(sw, "ssh"))
		return ret;
	if (holds_default_route(sw))
		return agent__err(err, -EBUSY,
				  "mode.sysfs: refusing to unbind %s (%s): it "
				  "holds the default route, which the "
				  "controller's ssh connection may use",
				  sw->pci, sw->nic);
	if (holds_ssh_address(sw))
		return agent__err(err, -EBUSY,
				  "mode.sysfs: refusing to unbind %s (%s): it "
				  "holds %s, the address the controller's ssh "
				  "connection came in on",
				  sw->pci, sw->nic, getenv("SSH_CONNECTION"));
	return 0;
}
