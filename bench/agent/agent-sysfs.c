// SPDX-License-Identifier: GPL-2.0-only
/*
 * mode.sysfs: switch the IOMMU group of the NIC under test between DMA,
 * DMA-FQ, identity and auto without a reboot. The kernel only takes a
 * new type for a group whose devices have no driver (except DMA ->
 * DMA-FQ, 5.15+), so the NIC's device is unbound, the type written, the
 * device rebound and its link awaited. The device is the first of the
 * netdev's device and its parents that has an IOMMU group: for
 * virtio-net that is the PCI function under virtio-pci, not virtio0.
 * The rebind makes a new netdev without the old one's addresses, so
 * they are saved before and put back after (bench/agent/agent-netaddr.c).
 * Unbinding the NIC that carries the controller's ssh or the root
 * filesystem would cut the branch we sit on: that is refused before
 * anything is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent/agent-sysfs.h"
#include "bench/agent/agent.h"
#include "clock.h"
#include "errmsg.h"
#include "iommu-mode.h"
#include "log.h"
#include "util.h"

const char *agent_sysfs__root(void)
{
	const char *r = getenv("IOMMU_BENCH_SYSFS_ROOT");

	return r ? r : "";
}

/* Parents tried above the netdev's device: virtio one, a USB NIC three. */
#define MAX_PARENTS 3

static int left_ms(long long end)
{
	long long l = end - mono_ms();

	return l > 0 ? (int)l : 0;
}

/* A device, driver or bus name: nothing that climbs or is an option. */
static bool sysfs_name_ok(const char *b)
{
	return *b && *b != '-' && *b != '.' &&
	       strspn(b, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._:-") == strlen(b);
}

/* The last component a sysfs link points at ("../../0000:00:03.0"). */
static char *link_base(const char *path)
{
	char buf[4096], *b;
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	b = strrchr(buf, '/');
	b = b ? b + 1 : buf;
	return sysfs_name_ok(b) ? xstrdup(b) : NULL;
}

char *agent_sysfs__read(const char *path)
{
	char *s = NULL;
	size_t n;

	if (read_file(path, &s, &n) < 0)
		return NULL;
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

static int sysfs_write(struct sysfs_switch *sw, const char *path,
		       const char *val, char **err)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret = 0;

	json_array_append_new(sw->steps, json_pack("{s:s, s:s}", "write", path,
						   "value", val));
	/* As `echo val > path`: the kernel takes the whole word at once. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errmsg__set(err, -errno,
				   "mode.sysfs: cannot open %s: %s", path,
				   strerror(errno));
	n = write(fd, val, len);
	if (n != (ssize_t)len)
		ret = errmsg__set(err, n < 0 ? -errno : -EIO,
				  "mode.sysfs: writing '%s' to %s: %s", val,
				  path,
				  n < 0 ? strerror(errno) : "short write");
	if (close(fd) < 0 && !ret)
		ret = errmsg__set(err, -errno,
				  "mode.sysfs: writing '%s' to %s: %s", val,
				  path, strerror(errno));
	return ret;
}

static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

/*
 * The first of the netdev's device and its parents (bounded, and never
 * above /sys/devices) that has an IOMMU group: that is what the kernel
 * translates, and what has to be unbound.
 */
static int find_grouped(struct sysfs_switch *sw, char **err)
{
	char *p, *top, *dir, *slash;
	const char *name;
	int up;

	p = xasprintf("%s/sys/devices", sw->root);
	top = realpath(p, NULL);
	free(p);
	dir = xstrdup(sw->nicdev);
	for (up = 0; up <= MAX_PARENTS && top && path_under(dir, top); up++) {
		p = xasprintf("%s/iommu_group", dir);
		sw->group = link_base(p);
		free(p);
		if (sw->group)
			break;
		slash = strrchr(dir, '/');
		*slash = '\0';
	}
	free(top);
	name = strrchr(sw->nicdev, '/') + 1;
	if (!sw->group ||
	    strspn(sw->group, "0123456789") != strlen(sw->group)) {
		free(dir);
		return errmsg__set(err, -ENODEV,
				   "mode.sysfs: %s (%s) is in no IOMMU group, "
				   "nor are its parents: this host has no "
				   "IOMMU translating it",
				   name, sw->nic);
	}
	sw->devdir = dir;
	name = strrchr(dir, '/') + 1;
	if (!sysfs_name_ok(name))
		return errmsg__set(err, -EINVAL,
				   "mode.sysfs: %s: its device has an "
				   "unexpected name '%s'",
				   sw->nic, name);
	sw->pci = xstrdup(name);
	return 0;
}

/* What the link @dir/@name points at: a device's driver or bus. */
static char *link_at(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), *b = link_base(p);

	free(p);
	return b;
}

/* The group's type: read before and after the switch, and written. */
static char *type_path(const struct sysfs_switch *sw)
{
	return xasprintf("%s/sys/kernel/iommu_groups/%s/type", sw->root,
			 sw->group);
}

static char *read_type(const struct sysfs_switch *sw)
{
	char *p = type_path(sw), *t = agent_sysfs__read(p);

	free(p);
	return t;
}

static int locate(struct sysfs_switch *sw, char **err)
{
	char *p;
	int ret;

	p = xasprintf("%s/sys/class/net/%s/device", sw->root, sw->nic);
	sw->nicdev = realpath(p, NULL);
	free(p);
	if (!sw->nicdev)
		return errmsg__set(err, -ENODEV,
				   "mode.sysfs: interface '%s' has no device "
				   "behind it (virtual, or no such interface)",
				   sw->nic);
	ret = find_grouped(sw, err);
	if (ret < 0)
		return ret;
	sw->driver = link_at(sw->devdir, "driver");
	sw->bus = link_at(sw->devdir, "subsystem");
	sw->before = read_type(sw);
	if (!sw->before)
		return errmsg__set(err, -ENOENT,
				   "mode.sysfs: cannot read the type of IOMMU "
				   "group %s (kernel older than 5.11?)",
				   sw->group);
	p = xasprintf("%s/sys/class/net/%s/operstate", sw->root, sw->nic);
	sw->operstate = agent_sysfs__read(p);
	free(p);
	return 0;
}

/* Wait until the interface is back, and up if it was up (bounded). */
static int wait_link(struct sysfs_switch *sw, int timeout_ms, char **err)
{
	bool want_up = sw->operstate && !strcmp(sw->operstate, "up");
	long long end = mono_ms() + timeout_ms;
	char *p = xasprintf("%s/sys/class/net/%s/operstate", sw->root, sw->nic);
	char *st = NULL;
	int ret = 0;

	for (;;) {
		free(st);
		st = agent_sysfs__read(p);
		if (st && (!want_up || !strcmp(st, "up")))
			break;
		if (mono_ms() >= end) {
			ret = errmsg__set(err, -ETIMEDOUT,
					  "mode.sysfs: %s did not come back %s "
					  "within %d ms after the rebind of %s "
					  "(now: %s)",
					  sw->nic, want_up ? "up" : "",
					  timeout_ms, sw->pci,
					  st ? st : "gone");
			break;
		}
		usleep(50 * 1000);
	}
	free(st);
	free(p);
	return ret;
}

static int write_type(struct sysfs_switch *sw, char **err)
{
	char *p = type_path(sw);
	int ret = sysfs_write(sw, p, sw->type, err);

	free(p);
	return ret;
}

/* The text of what was put back, for the verb's result. */
static void note_restored(struct sysfs_switch *sw)
{
	char *s;
	size_t i;

	for (i = 0; i < sw->net.nr_addrs; i++) {
		s = netaddr__str(&sw->net.addrs[i]);
		json_array_append_new(sw->restored, json_string(s));
		free(s);
	}
	for (i = 0; i < sw->net.nr_routes; i++) {
		s = netroute__str(&sw->net.routes[i]);
		json_array_append_new(sw->restored_routes, json_string(s));
		free(s);
	}
}

/*
 * After the rebind: the interface's addresses back (they went with the
 * old netdev), its link up, then its IPv6 addresses past DAD and its
 * routes back. A scratch tree has no interface: only the link file.
 */
static int bring_back(struct sysfs_switch *sw, long long end, char **err)
{
	char *e = NULL;
	int ret;

	if (sw->net_saved) {
		ret = netaddr__restore(&sw->net, left_ms(end), &e);
		if (ret < 0)
			goto fail;
	}
	ret = wait_link(sw, left_ms(end), err);
	if (ret < 0 || !sw->net_saved)
		return ret;
	ret = netaddr__settle(&sw->net, left_ms(end), &e);
	if (ret < 0)
		goto fail;
	note_restored(sw);
	return 0;
fail:
	ret = errmsg__set(err, ret,
			  "mode.sysfs: %s rebound, but %s is not back as it "
			  "was: %s",
			  sw->pci, sw->nic, e ? e : strerror(-ret));
	free(e);
	return ret;
}

static int unbind_write_rebind(struct sysfs_switch *sw, long long end,
			       char **err)
{
	char *p, *e = NULL;
	int ret, r;

	/* Both checked before the unbind: afterwards it is too late. */
	if (!sw->bus)
		return errmsg__set(err, -ENODEV,
				   "mode.sysfs: cannot tell which bus %s (%s) "
				   "is on: no %s/subsystem",
				   sw->pci, sw->nic, sw->devdir);
	if (!*sw->root) {
		ret = netaddr__save(sw->nic, &sw->net);
		if (ret < 0)
			return errmsg__set(err, ret,
					   "mode.sysfs: cannot record the "
					   "addresses of %s before unbinding "
					   "%s: %s",
					   sw->nic, sw->pci, strerror(-ret));
		sw->net_saved = true;
	}
	p = xasprintf("%s/driver/unbind", sw->devdir);
	ret = sysfs_write(sw, p, sw->pci, err);
	free(p);
	if (ret < 0)
		return ret;
	sw->unbound = true;
	ret = write_type(sw, err);
	/* Rebind even when the type was refused: leave the NIC working. */
	p = xasprintf("%s/sys/bus/%s/drivers/%s/bind", sw->root, sw->bus,
		      sw->driver);
	r = sysfs_write(sw, p, sw->pci, ret < 0 ? &e : err);
	free(p);
	if (!r)
		r = bring_back(sw, end, ret < 0 ? &e : err);
	if (ret < 0 && r < 0)
		pr_warn("%s", e ? e : strerror(-r));
	free(e);
	return ret < 0 ? ret : r;
}

int agent_sysfs__switch(struct sysfs_switch *sw, int timeout_ms, char **err)
{
	long long start = mono_ms();
	int ret;

	if (!sw->restored)
		sw->restored = json_array();
	if (!sw->restored_routes)
		sw->restored_routes = json_array();
	ret = locate(sw, err);
	if (ret < 0)
		return ret;
	if (!strcmp(sw->before, sw->type))
		goto done;
	if (!sw->driver) {
		ret = write_type(sw, err);
		goto check;
	}
	/*
	 * A bound driver may go from strict to lazy (5.15+): nothing is
	 * unbound, so there is nothing to guard.
	 */
	if (!strcmp(sw->before, "DMA") && !strcmp(sw->type, "DMA-FQ") &&
	    !write_type(sw, NULL))
		goto check;
	ret = agent_sysfs__guard(sw, err);
	if (ret < 0)
		return ret;
	ret = unbind_write_rebind(sw, start + timeout_ms, err);
check:
	if (ret < 0)
		return ret;
done:
	sw->after = read_type(sw);
	sw->elapsed_ms = mono_ms() - start;
	if (!sw->after || strcmp(sw->after, sw->type))
		return errmsg__set(err, -EIO,
				   "mode.sysfs: IOMMU group %s of %s is '%s' "
				   "after writing '%s'",
				   sw->group, sw->pci,
				   sw->after ? sw->after : "(unreadable)",
				   sw->type);
	return 0;
}

void agent_sysfs__release(struct sysfs_switch *sw)
{
	free_all(sw->nicdev, sw->devdir, sw->pci, sw->bus, sw->group,
		 sw->driver, sw->before, sw->after, sw->operstate);
	json_decref(sw->steps);
	netaddr__release(&sw->net);
	json_decref(sw->restored);
	json_decref(sw->restored_routes);
}

static int check_args(json_t *args, struct sysfs_switch *sw, int *timeout,
		      char **err)
{
	json_t *to = json_object_get(args, "timeout_ms");

	sw->nic = json_string_value(json_object_get(args, "nic"));
	sw->type = json_string_value(json_object_get(args, "type"));
	if (!sw->nic || !name_is_safe(sw->nic))
		return errmsg__set(err, -EINVAL,
				   "mode.sysfs: \"nic\" must be an interface "
				   "name ([A-Za-z0-9._-]), got '%s'",
				   sw->nic ? sw->nic : "(none)");
	if (!iommu_group_type__writable(sw->type)) {
		char *words = iommu_group_types__words();
		int ret = errmsg__set(err, -EINVAL,
				      "mode.sysfs: \"type\" '%s' is not a "
				      "group type (expected %s)",
				      sw->type ? sw->type : "(none)", words);

		free(words);
		return ret;
	}
	if (to && (!json_is_integer(to) || json_integer_value(to) < 0 ||
		   json_integer_value(to) > 600000))
		return errmsg__set(err, -EINVAL,
				   "mode.sysfs: \"timeout_ms\" must be an "
				   "integer 0..600000");
	*timeout = to ? (int)json_integer_value(to) : 30000;
	sw->guard = json_object_get(args, "guard");
	return 0;
}

int agent_verb__mode_sysfs(struct agent *a, json_t *args, json_t **res,
			   char **err)
{
	struct sysfs_switch sw = { .root = agent_sysfs__root() };
	int timeout = 0, ret;

	(void)a;
	sw.steps = json_array();
	ret = check_args(args, &sw, &timeout, err);
	if (!ret)
		ret = agent_sysfs__switch(&sw, timeout, err);
	if (!ret)
		*res = json_pack(
			"{s:s, s:I, s:s, s:s, s:s, s:o, s:b, s:I, s:O, s:O, "
			"s:O}",
			"nic", sw.nic, "group", (json_int_t)atoll(sw.group),
			"before", sw.before, "after", sw.after, "pci", sw.pci,
			"driver",
			sw.driver ? json_string(sw.driver) : json_null(),
			"unbound", sw.unbound, "elapsed_ms",
			(json_int_t)sw.elapsed_ms, "steps", sw.steps,
			"restored", sw.restored, "restored_routes",
			sw.restored_routes);
	agent_sysfs__release(&sw);
	return ret;
}
