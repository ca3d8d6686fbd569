// SPDX-License-Identifier: GPL-2.0-only
/*
 * What mode.sysfs must not unbind: the device under the root file
 * system (followed through device-mapper, md and btrfs to the disks), a
 * device that shares the NIC's group (the kernel would refuse the type
 * anyway, after we took the NIC down), a parent device whose unbind
 * would take other bound devices with it, and the NIC that carries the
 * controller's ssh connection: unbinding it would strand the run. Only
 * asked when an unbind is really coming.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench/agent/agent-netaddr.h"
#include "bench/agent/agent-sysfs.h"
#include "bench/agent/agent.h"
#include "errmsg.h"
#include "util.h"

/* dm on md on partitions is three; a loop of links must still end. */
#define MAX_STACK 8
/* How deep below the unbound device other devices are looked for. */
#define MAX_CHILD_DEPTH 6

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

static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/*
 * The block device at sysfs directory @dir, or one it is built on, that
 * sits below @devdir; NULL when none. A dm or md device lists what it
 * is built on in slaves/; a partition's are its whole disk's.
 */
static char *disk_below(const char *dir, const char *devdir, int depth)
{
	char *p, *real, *hit = NULL;
	struct dirent *de;
	DIR *d;

	if (path_under(dir, devdir))
		return xstrdup(base(dir));
	if (depth >= MAX_STACK)
		return NULL;
	p = xasprintf("%s/slaves", dir);
	d = opendir(p);
	while (d && !hit && (de = readdir(d))) {
		char *s;

		if (de->d_name[0] == '.')
			continue;
		s = xasprintf("%s/%s", p, de->d_name);
		real = realpath(s, NULL);
		free(s);
		if (real)
			hit = disk_below(real, devdir, depth + 1);
		free(real);
	}
	if (d)
		closedir(d);
	free(p);
	p = xasprintf("%s/partition", dir);
	if (!hit && !access(p, F_OK)) {
		char *whole = xstrdup(dir);

		*strrchr(whole, '/') = '\0';
		hit = disk_below(whole, devdir, depth + 1);
		free(whole);
	}
	free(p);
	return hit;
}

/* The sysfs directories of btrfs @uuid's member devices, appended. */
static void btrfs_members(const char *root, const char *uuid, char ***v,
			  size_t *nr)
{
	char *dir = xasprintf("%s/sys/fs/btrfs/%s/devices", root, uuid);
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		char *p, *real;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		real = realpath(p, NULL);
		free(p);
		if (!real)
			continue;
		*v = xrealloc(*v, (*nr + 1) * sizeof(**v));
		(*v)[(*nr)++] = real;
	}
	if (d)
		closedir(d);
	free(dir);
}

/*
 * A btrfs root has an anonymous device number: its disks are the
 * members of the filesystem that lists @source among them. If none
 * does (a /dev/root alias, say), every btrfs filesystem's members:
 * refusing once too often beats unbinding the root's disk.
 */
static void btrfs_root(const char *root, const char *source, char ***v,
		       size_t *nr)
{
	char *dir = xasprintf("%s/sys/fs/btrfs", root), *p, *real, *name;
	struct dirent *de;
	bool found = false;
	DIR *d;

	p = xasprintf("%s%s", root, source);
	real = realpath(p, NULL);
	free(p);
	name = xstrdup(base(real ? real : source));
	free(real);
	d = opendir(dir);
	while (d && !found && (de = readdir(d))) {
		p = xasprintf("%s/%s/devices/%s", dir, de->d_name, name);
		if (de->d_name[0] != '.' && !access(p, F_OK)) {
			btrfs_members(root, de->d_name, v, nr);
			found = true;
		}
		free(p);
	}
	if (d)
		rewinddir(d);
	while (d && !found && (de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "features"))
			btrfs_members(root, de->d_name, v, nr);
	if (d)
		closedir(d);
	free(name);
	free(dir);
}

/*
 * The mount of "/" in mountinfo (the last one: mounts stack): its
 * device number, file system type and source.
 */
static int root_mount(const char *root, unsigned int *maj, unsigned int *min,
		      char *fstype, char *source)
{
	char *p = xasprintf("%s/proc/self/mountinfo", root);
	char *text = NULL, *line, *save = NULL;
	size_t len;
	int ret = -ENOENT;

	if (read_file(p, &text, &len) < 0)
		goto out;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char mnt[PATH_MAX], fs[64], src[PATH_MAX];
		unsigned int a, b;
		const char *dash = strstr(line, " - ");

		if (!dash ||
		    sscanf(line, "%*s %*s %u:%u %*s %4095s", &a, &b, mnt) !=
			    3 ||
		    strcmp(mnt, "/") ||
		    sscanf(dash, " - %63s %4095s", fs, src) != 2)
			continue;
		*maj = a;
		*min = b;
		strcpy(fstype, fs);
		strcpy(source, src);
		ret = 0;
	}
out:
	free(text);
	free(p);
	return ret;
}

/* The block devices under "/", as resolved sysfs directories. */
static void root_disks(const char *root, char ***v, size_t *nr)
{
	char fstype[64] = "", source[PATH_MAX] = "", *p, *real;
	unsigned int maj = 0, min = 0;
	struct stat st;

	if (root_mount(root, &maj, &min, fstype, source) < 0) {
		/* No /proc: the device of "/" as this process sees it. */
		if (*root || stat("/", &st) < 0)
			return;
		maj = major(st.st_dev);
		min = minor(st.st_dev);
	}
	if (!strcmp(fstype, "btrfs")) {
		btrfs_root(root, source, v, nr);
		return;
	}
	if (!maj)
		return; /* tmpfs, overlay, a network file system: no disk */
	p = xasprintf("%s/sys/dev/block/%u:%u", root, maj, min);
	real = realpath(p, NULL);
	free(p);
	if (!real)
		return;
	*v = xrealloc(*v, (*nr + 1) * sizeof(**v));
	(*v)[(*nr)++] = real;
}

static int check_rootfs(const struct sysfs_switch *sw, char **err)
{
	char **disks = NULL, *hit = NULL;
	size_t nr = 0, i;
	int ret = 0;

	root_disks(sw->root, &disks, &nr);
	for (i = 0; i < nr && !hit; i++) {
		const char *top = base(disks[i]);

		hit = disk_below(disks[i], sw->devdir, 0);
		if (hit)
			ret = errmsg__set(err, -EBUSY,
					  "mode.sysfs: refusing to unbind %s "
					  "(%s): the root file system is on it "
					  "(%s%s%s)",
					  sw->pci, sw->nic, top,
					  strcmp(top, hit) ? ", built on " : "",
					  strcmp(top, hit) ? hit : "");
	}
	for (i = 0; i < nr; i++)
		free(disks[i]);
	free(disks);
	free(hit);
	return ret;
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
			ret = errmsg__set(
				err, -EBUSY,
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

/*
 * A device below @dir with a driver bound that is neither on the way
 * down to the NIC's device nor the NIC's own: the unbind would take it
 * away too. Symbolic links (driver, subsystem, firmware_node) are not
 * followed: only the real children.
 */
static char *collateral(const struct sysfs_switch *sw, const char *dir,
			int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *hit = NULL;

	while (d && !hit && (de = readdir(d))) {
		struct stat st;
		char *sub, *drv;

		if (de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    !strcmp(sub, sw->nicdev)) {
			free(sub);
			continue;
		}
		drv = xasprintf("%s/driver", sub);
		if (!path_under(sw->nicdev, sub) && !access(drv, F_OK))
			hit = xstrdup(de->d_name);
		else if (depth < MAX_CHILD_DEPTH)
			hit = collateral(sw, sub, depth + 1);
		free(drv);
		free(sub);
	}
	if (d)
		closedir(d);
	return hit;
}

static int check_children(const struct sysfs_switch *sw, char **err)
{
	char *hit;
	int ret;

	/* The NIC's own device: whatever hangs off it is the NIC's. */
	if (!strcmp(sw->devdir, sw->nicdev))
		return 0;
	hit = collateral(sw, sw->devdir, 0);
	if (!hit)
		return 0;
	ret = errmsg__set(err, -EBUSY,
			  "mode.sysfs: refusing to unbind %s (%s): it is %s's "
			  "parent, and %s below it has a driver bound that "
			  "would go too",
			  sw->pci, sw->nic, base(sw->nicdev), hit);
	free(hit);
	return ret;
}

/* /proc/net/route: "Iface Destination ..." with 00000000 the default. */
static bool default_route4(const char *line, const char *nic)
{
	char iface[64], dest[16];

	return sscanf(line, "%63s %15s", iface, dest) == 2 &&
	       !strcmp(iface, nic) && !strcmp(dest, "00000000");
}

/*
 * /proc/net/ipv6_route: "dest dest_len src src_len next_hop metric
 * refcnt use flags iface", all hex; ::/0 is the default.
 */
static bool default_route6(const char *line, const char *nic)
{
	char dest[40], dlen[8], iface[64];

	return sscanf(line, "%39s %7s %*s %*s %*s %*s %*s %*s %*s %63s", dest,
		      dlen, iface) == 3 &&
	       !strcmp(iface, nic) && !strcmp(dlen, "00") &&
	       strspn(dest, "0") == 32 && !dest[32];
}

/* A line of the routing table @file (under the root) says so of the NIC. */
static bool holds_default_route(const struct sysfs_switch *sw, const char *file,
				bool (*is_default)(const char *line,
						   const char *nic))
{
	char *p = xasprintf("%s/proc/net/%s", sw->root, file);
	char *text = NULL, *line, *save = NULL;
	bool hit = false;
	size_t len;

	if (read_file(p, &text, &len) < 0)
		goto out;
	for (line = strtok_r(text, "\n", &save); line && !hit;
	     line = strtok_r(NULL, "\n", &save))
		hit = is_default(line, sw->nic);
out:
	free(text);
	free(p);
	return hit;
}

/*
 * An address of $SSH_CONNECTION ("client port server port") in the
 * form interfaces use: sshd on a dual-stack socket writes IPv4 peers
 * as ::ffff:a.b.c.d, and link-local ones carry a %scope.
 */
static void ssh_addr(char *a)
{
	char *pct = strchr(a, '%');

	if (pct)
		*pct = '\0';
	if (!strncasecmp(a, "::ffff:", 7) && strchr(a + 7, '.'))
		memmove(a, a + 7, strlen(a + 7) + 1);
}

static bool ssh_conn(char *client, char *server)
{
	const char *conn = getenv("SSH_CONNECTION");

	if (!conn || sscanf(conn, "%63s %*s %63s", client, server) != 2)
		return false;
	ssh_addr(client);
	ssh_addr(server);
	return true;
}

/* The controller's ssh came in on an address of this NIC. */
static bool holds_ssh_address(const struct sysfs_switch *sw)
{
	char client[64], server[64], addr[INET6_ADDRSTRLEN];
	struct ifaddrs *ifa, *i;
	bool hit = false;

	/* The interfaces of a scratch tree are not the real ones. */
	if (*sw->root || !ssh_conn(client, server) || getifaddrs(&ifa) < 0)
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

/* The kernel's route back to the controller leaves through this NIC. */
static bool holds_route_back(const struct sysfs_switch *sw, char *client)
{
	char server[64], dev[IFNAMSIZ] = "";

	if (*sw->root || !ssh_conn(client, server))
		return false;
	return !netaddr__route_dev(client, dev) && !strcmp(dev, sw->nic);
}

static int check_ssh(const struct sysfs_switch *sw, char **err)
{
	char client[64];

	if (holds_default_route(sw, "route", default_route4) ||
	    holds_default_route(sw, "ipv6_route", default_route6))
		return errmsg__set(err, -EBUSY,
				   "mode.sysfs: refusing to unbind %s (%s): it "
				   "holds a default route, which the "
				   "controller's ssh connection may use",
				   sw->pci, sw->nic);
	if (holds_route_back(sw, client))
		return errmsg__set(
			err, -EBUSY,
			"mode.sysfs: refusing to unbind %s (%s): the "
			"route back to the controller (%s) goes out "
			"of it",
			sw->pci, sw->nic, client);
	if (holds_ssh_address(sw))
		return errmsg__set(err, -EBUSY,
				   "mode.sysfs: refusing to unbind %s (%s): it "
				   "holds %s, the address the controller's ssh "
				   "connection came in on",
				   sw->pci, sw->nic, getenv("SSH_CONNECTION"));
	return 0;
}

int agent_sysfs__guard(const struct sysfs_switch *sw, char **err)
{
	int ret;

	ret = check_rootfs(sw, err);
	if (!ret)
		ret = check_group(sw, err);
	if (!ret)
		ret = check_children(sw, err);
	if (!ret && guard_asks(sw, "ssh"))
		ret = check_ssh(sw, err);
	return ret;
}
