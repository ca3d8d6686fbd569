// SPDX-License-Identifier: GPL-2.0-only
/*
 * [hosts.NAME]: the machines (or namespaces, or VMs) of the matrix and
 * how to reach, reboot and link them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "util.h"

static const char *const role_names[] = { "peer", "sut", NULL };
/* What a file may write: qemu hosts restart, or kexec inside the VM. */
static const char *const reboot_values[] = { "none", "kexec", "grub", NULL };
static const char *const qemu_reboot_values[] = { "restart", "kexec", NULL };
static const char *const disk_model_names[] = { "nvme", NULL };

const char *host_role__name(enum host_role r)
{
	return role_names[r];
}

void matrix_host__release(struct matrix_host *h)
{
	if (h->ops && h->ops->release)
		h->ops->release(h);
	free_all(h->name, h->description, h->address, h->data_address, h->user,
		 h->nic, h->ssh_key, h->known_hosts, h->labvm, h->console);
	strv_free(h->power_cycle, h->nr_power_cycle);
	free_all(h->netns, h->kernel_dir);
	for (size_t i = 0; i < h->nr_disks; i++) {
		free(h->disks[i].name);
		free(h->disks[i].path);
	}
	free(h->disks);
}

const char *qemu_disk_model__name(enum qemu_disk_model model)
{
	return disk_model_names[model];
}

bool matrix_host__is_vm(const struct matrix_host *h)
{
	return h->ops && h->ops->vm;
}

const struct matrix_disk *matrix_host__disks(const struct matrix_host *h,
					     size_t *nr)
{
	if (h->ops && h->ops->disks)
		return h->ops->disks(h, nr);
	*nr = h->nr_disks;
	return h->disks;
}

const struct arch *matrix_host__arch(const struct matrix_host *h)
{
	return h->ops && h->ops->arch ? h->ops->arch(h) : NULL;
}

const char *matrix_host__server_ip(const struct matrix_host *h)
{
	return h->ops && h->ops->server_ip ? h->ops->server_ip(h) : NULL;
}

const struct matrix_disk *matrix_host__disk(const struct matrix_host *h,
					    const char *name)
{
	const struct matrix_disk *d;
	size_t nr;

	d = matrix_host__disks(h, &nr);
	return TABLE_FIND(d, nr, name, name);
}

/* qemu: a scratch image of a size; ssh, local: a block device by path. */
static void parse_disk(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab, bool vm,
		       struct matrix_disk *disks, size_t *nr)
{
	static const char *const vm_keys[] = { "name", "model", "size", NULL };
	static const char *const dev_keys[] = { "name", "path", NULL };
	struct matrix_disk *d = &disks[*nr];
	char where[96];
	int model;
	size_t i;

	snprintf(where, sizeof(where), "a disk of [hosts.%s%s]", h->name,
		 vm ? ".qemu" : "");
	mx_check_keys(mx, tab, vm ? vm_keys : dev_keys, where);
	d->pos = tab->pos;
	if (mx_string(mx, tab, "name", MX_NAME, &d->name) <= 0) {
		if (!toml_table__get(tab, "name"))
			mx_err(mx, tab->pos,
			       "disks: a disk of host '%s' has no name "
			       "(name = \"%s\")",
			       h->name, vm ? "nvme0" : "data");
		d->name = NULL;
		return;
	}
	if (strlen(d->name) > MATRIX_DISK_NAME_MAX) {
		mx_err(mx, mx_val_pos(tab, "name", tab->pos),
		       "name: '%s' is longer than %d characters (it is the "
		       "disk's serial number in the guest)",
		       d->name, MATRIX_DISK_NAME_MAX);
		free(d->name);
		d->name = NULL;
		return;
	}
	for (i = 0; i < *nr; i++) {
		if (strcmp(disks[i].name, d->name))
			continue;
		mx_err(mx, mx_val_pos(tab, "name", tab->pos),
		       "name: host '%s' has two disks named '%s'", h->name,
		       d->name);
		free(d->name);
		d->name = NULL;
		return;
	}
	(*nr)++;
	if (!vm) {
		if (!toml_table__get(tab, "path"))
			mx_err(mx, tab->pos,
			       "disks: disk '%s' of host '%s' has no path "
			       "(path = \"/dev/nvme1n1\")",
			       d->name, h->name);
		else if (mx_string(mx, tab, "path", MX_HOSTPATH, &d->path) >
				 0 &&
			 strncmp(d->path, "/dev/", 5))
			mx_err(mx, mx_val_pos(tab, "path", tab->pos),
			       "path: '%s' is not under /dev: a disk is a "
			       "block device",
			       d->path);
		return;
	}
	if (mx_enum(mx, tab, "model", disk_model_names, &model) > 0)
		d->model = model;
	if (!toml_table__get(tab, "size"))
		mx_err(mx, tab->pos,
		       "disks: disk '%s' of host '%s' has no size "
		       "(size = \"1G\")",
		       d->name, h->name);
	else if (mx_size(mx, tab, "size", &d->size) > 0 &&
		 (d->size < (1ULL << 20) || d->size > (1ULL << 40) ||
		  d->size % 4096))
		mx_err(mx, mx_val_pos(tab, "size", tab->pos),
		       "size: %llu bytes is out of range: 1M..1T, a "
		       "multiple of 4K",
		       (unsigned long long)d->size);
}

void matrix_host__parse_disks(struct mx *mx, struct matrix_host *h,
			      const struct toml_value *v, bool vm,
			      struct matrix_disk **disks, size_t *nr)
{
	size_t i;

	if (!v)
		return;
	if (v->type != TOML_ARRAY) {
		mx_err(mx, v->pos,
		       "disks: expected a list of tables, [{ name = %s }]",
		       vm ? "\"nvme0\", model = \"nvme\", size = \"1G\"" :
			    "\"data\", path = \"/dev/nvme1n1\"");
		return;
	}
	*disks = xcalloc(v->u.arr.n + 1, sizeof(**disks));
	for (i = 0; i < v->u.arr.n; i++)
		if (mx_is(mx, v->u.arr.items[i], TOML_TABLE, "disks"))
			parse_disk(mx, h, v->u.arr.items[i], vm, *disks, nr);
}

static void parse_reboot(struct mx *mx, struct matrix_host *h,
			 const struct toml_value *tab)
{
	const struct toml_value *pc = toml_table__get(tab, "power_cycle");
	int reboot;

	mx_bool(mx, tab, "allow_reboot", &h->allow_reboot);
	/*
	 * A machine the tool starts is a fresh one per boot ("restart"),
	 * or one that kexecs from inside like a lab host ("kexec"), which
	 * is how the lab's install-and-kexec path gets tested for real. No
	 * power button: the tool owns the machine.
	 */
	if (h->ops->restarts) {
		pc = NULL;
		if (mx_enum(mx, tab, "reboot", qemu_reboot_values, &reboot) > 0)
			h->reboot = reboot ? REBOOT_KEXEC : REBOOT_RESTART;
	} else if (mx_enum(mx, tab, "reboot", reboot_values, &reboot) > 0) {
		h->reboot = reboot;
	}
	if (!mx_string(mx, tab, "kernel_dir", MX_HOSTPATH, &h->kernel_dir))
		h->kernel_dir = xstrdup(h->ops->kernel_dir ?
						h->ops->kernel_dir :
						"/var/lib/iommu-bench/kernels");
	if (pc && pc->type == TOML_STRING) {
		/* Never a shell string: this runs as root on the controller. */
		mx_err(mx, pc->pos,
		       "power_cycle: expected an argument vector "
		       "like [\"ipmitool\", \"-H\", \"bmc1\", \"power\", "
		       "\"cycle\"], found a string (it is run without a shell)");
	} else if (pc && mx_strings(mx, tab, "power_cycle", MX_ARGV,
				    &h->power_cycle, &h->nr_power_cycle) > 0) {
		if (!h->nr_power_cycle)
			mx_err(mx, pc->pos,
			       "power_cycle: the command is empty");
		else if (h->power_cycle[0][0] == '-')
			mx_err(mx, pc->pos,
			       "power_cycle: the command '%s' "
			       "starts with '-'",
			       h->power_cycle[0]);
		else if (!h->allow_reboot)
			mx_warn(mx, pc->pos,
				"power_cycle: unused, since host "
				"'%s' does not allow reboots",
				h->name);
	}
	mx_duration(mx, tab, "boot_timeout", &h->boot_timeout_ms);
	mx_duration(mx, tab, "boot_estimate", &h->boot_estimate_ms);
	if (!h->boot_timeout_ms)
		mx_err(mx, mx_val_pos(tab, "boot_timeout", h->pos),
		       "boot_timeout: must be longer than 0s");
}

/* The controller and its namespaces share one kernel: never rebooted. */
static void check_no_reboot(struct mx *mx, struct matrix_host *h,
			    const struct toml_value *tab)
{
	const char *what = h->ops->never_reboots;

	if (h->allow_reboot)
		mx_err(mx, mx_val_pos(tab, "allow_reboot", h->pos),
		       "allow_reboot: host '%s' %s; the run cannot reboot the "
		       "machine it runs on",
		       h->name, what);
	if (h->reboot != REBOOT_NONE)
		mx_err(mx, mx_val_pos(tab, "reboot", h->pos),
		       "reboot: host '%s' %s; rebooting it would end the run",
		       h->name, what);
	h->allow_reboot = false;
	h->reboot = REBOOT_NONE;
}

static void set_defaults(struct matrix_host *h)
{
	h->role = ROLE_PEER;
	h->boot_timeout_ms = 10 * 60 * 1000;
	h->reboot = REBOOT_NONE;
	if (h->ops->defaults)
		h->ops->defaults(h);
}

/* What a boot costs, for the estimate: kexec skips firmware, grub not. */
static uint64_t boot_estimate(const struct matrix_host *h)
{
	switch (h->reboot) {
	case REBOOT_GRUB:
		return 5 * 60 * 1000;
	case REBOOT_RESTART:
		return 20 * 1000;
	default:
		return 60 * 1000;
	}
}

void matrix_host__parse_address(struct mx *mx, struct matrix_host *h,
				const struct toml_value *tab)
{
	const struct toml_value *a = toml_table__get(tab, "address");

	if (a && a->type == TOML_STRING && strchr(a->u.str.ptr, '/'))
		mx_string(mx, tab, "address", MX_CIDR, &h->address);
	else
		mx_string(mx, tab, "address", MX_IP, &h->address);
}

/* How it boots: a lab boots it per job, the rest reboot themselves. */
static void parse_boot(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab)
{
	if (!matrix_transport__takes(h->ops, "reboot")) {
		mx_duration(mx, tab, "boot_timeout", &h->boot_timeout_ms);
		mx_duration(mx, tab, "boot_estimate", &h->boot_estimate_ms);
		h->kernel_dir = xstrdup(h->ops->kernel_dir);
	} else {
		parse_reboot(mx, h, tab);
	}
	if (!h->boot_estimate_ms)
		h->boot_estimate_ms = boot_estimate(h);
}

/* transport = "NAME", one of those set: 0, or -EINVAL when not. */
static int parse_transport(struct mx *mx, struct matrix_host *h,
			   const struct toml_value *tab, const char *where)
{
	const char *const *names = matrix__transport_names();
	char list[128] = "";
	size_t i, n = 0;
	int transport;

	if (mx_enum(mx, tab, "transport", names, &transport) > 0) {
		h->ops = matrix__transport(names[transport]);
		h->transport = h->ops->id;
		return 0;
	}
	if (toml_table__get(tab, "transport"))
		return -EINVAL;
	while (names[n])
		n++;
	for (i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", i ? (i + 1 == n ? " or " : ", ") : "",
			 names[i]);
	mx_err(mx, h->pos, "missing key 'transport' in %s (%s)", where, list);
	return -EINVAL;
}

static void parse_host(struct mx *mx, struct matrix_host *h,
		       const struct toml_value *tab)
{
	const char *const *all_keys = matrix__host_keys();
	char where[96];
	size_t i;
	int role;

	snprintf(where, sizeof(where), "[hosts.%s]", h->name);
	mx_check_keys(mx, tab, all_keys, where);
	if (parse_transport(mx, h, tab, where))
		return;
	for (i = 0; i < tab->u.tab.n; i++) {
		const struct toml_kv *kv = &tab->u.tab.items[i];
		const char *const *k;

		for (k = all_keys; *k && strcmp(*k, kv->key); k++)
			;
		if (*k && !matrix_transport__takes(h->ops, kv->key))
			mx_err(mx, kv->pos,
			       "key '%s' does not apply to "
			       "transport '%s'",
			       kv->key, h->ops->name);
	}
	set_defaults(h);
	mx_text(mx, tab, "description", &h->description);
	if (mx_enum(mx, tab, "role", role_names, &role) > 0)
		h->role = role;
	mx_labvm(mx, h, tab);
	mx_string(mx, tab, "nic", MX_IFNAME, &h->nic);
	/* The testbed's guest has no udev to rename its one NIC. */
	if (!h->nic && matrix_host__is_vm(h))
		h->nic = xstrdup("eth0");
	if (matrix_transport__takes(h->ops, "disks"))
		matrix_host__parse_disks(mx, h, toml_table__get(tab, "disks"),
					 false, &h->disks, &h->nr_disks);
	if (h->ops->never_reboots) {
		int reboot;

		mx_bool(mx, tab, "allow_reboot", &h->allow_reboot);
		if (mx_enum(mx, tab, "reboot", reboot_values, &reboot) > 0)
			h->reboot = reboot;
		check_no_reboot(mx, h, tab);
	} else {
		parse_boot(mx, h, tab);
	}
	if (h->ops->parse)
		h->ops->parse(mx, h, tab);
	else
		matrix_host__parse_address(mx, h, tab);
}

/* Same subnet, for two ends of a veth pair. */
static bool cidr__same_net(const char *a, const char *b, bool *same_addr)
{
	unsigned char x[16], y[16];
	char ax[64], bx[64];
	int bits, i, af;

	snprintf(ax, sizeof(ax), "%s", a);
	snprintf(bx, sizeof(bx), "%s", b);
	*strchr(ax, '/') = '\0';
	*strchr(bx, '/') = '\0';
	af = strchr(ax, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(af, ax, x) != 1 || inet_pton(af, bx, y) != 1)
		return false;
	*same_addr = !memcmp(x, y, af == AF_INET ? 4 : 16);
	bits = atoi(strchr(a, '/') + 1);
	if (bits != atoi(strchr(b, '/') + 1))
		return false;
	for (i = 0; i < bits; i++)
		if ((x[i / 8] ^ y[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

static void check_pair(struct mx *mx, struct matrix_host *a,
		       struct matrix_host *b, struct toml_pos pos)
{
	bool same_addr = false;

	if (!a->address || !b->address || !strchr(a->address, '/') ||
	    !strchr(b->address, '/')) {
		mx_err(mx, pos,
		       "link: hosts '%s' and '%s' are linked by a veth "
		       "pair, so both need an address with a prefix length",
		       a->name, b->name);
		return;
	}
	if (!cidr__same_net(a->address, b->address, &same_addr))
		mx_err(mx, pos,
		       "link: hosts '%s' (%s) and '%s' (%s) are "
		       "linked but not in one subnet",
		       a->name, a->address, b->name, b->address);
	else if (same_addr)
		mx_err(mx, pos,
		       "link: hosts '%s' and '%s' have the same "
		       "address %s",
		       a->name, b->name, a->address);
}

static void resolve_links(struct mx *mx)
{
	struct matrix *m = mx->m;
	const char **names = xcalloc(m->nr_hosts + 1, sizeof(*names));
	size_t i;

	for (i = 0; i < m->nr_hosts; i++)
		names[i] = m->hosts[i].name;
	for (i = 0; i < m->nr_hosts; i++) {
		struct matrix_host *h = &m->hosts[i], *o;
		const struct toml_value *v = toml_table__get(h->src, "link");
		char *name = NULL;
		long idx;

		if (!v || mx_string(mx, h->src, "link", MX_NAME, &name) <= 0)
			continue;
		idx = mx_ref(mx, v->pos, "link", "host", name, names,
			     m->nr_hosts);
		free(name);
		if (idx < 0)
			continue;
		o = &m->hosts[idx];
		if (o == h) {
			mx_err(mx, v->pos,
			       "link: host '%s' cannot be linked "
			       "to itself",
			       h->name);
		} else if (o->transport == HOST_SSH) {
			mx_err(mx, v->pos,
			       "link: host '%s' is reached by ssh; "
			       "a veth pair links hosts of this machine",
			       o->name);
		} else if (o->has_link && o->link != (size_t)i) {
			mx_err(mx, v->pos,
			       "link: host '%s' is already linked "
			       "to '%s'",
			       o->name, m->hosts[o->link].name);
		} else {
			h->link = idx;
			h->has_link = true;
			o->link = i;
			o->has_link = true;
			check_pair(mx, h, o, v->pos);
		}
	}
	free(names);
}

static void check_unique(struct mx *mx)
{
	struct matrix *m = mx->m;
	long local = -1;
	size_t i, j;

	for (i = 0; i < m->nr_hosts; i++) {
		struct matrix_host *h = &m->hosts[i];

		if (h->transport == HOST_LOCAL) {
			if (local >= 0) {
				mx_err(mx, h->pos,
				       "hosts '%s' and '%s' are both "
				       "this machine (transport 'local')",
				       m->hosts[local].name, h->name);
				mx_note(mx, m->hosts[local].pos,
					"host '%s' is defined here",
					m->hosts[local].name);
			}
			local = i;
		}
		if (h->transport == HOST_NETNS && !h->has_link)
			mx_err(mx, h->pos,
			       "host '%s' is a namespace linked to "
			       "nothing; set link to the host at the other end "
			       "of its veth pair",
			       h->name);
		for (j = 0; h->netns && j < i; j++) {
			if (m->hosts[j].netns &&
			    !strcmp(m->hosts[j].netns, h->netns)) {
				mx_err(mx, mx_val_pos(h->src, "netns", h->pos),
				       "hosts '%s' and '%s' use the same "
				       "namespace '%s'",
				       m->hosts[j].name, h->name, h->netns);
				mx_note(mx, m->hosts[j].pos,
					"host '%s' is defined here",
					m->hosts[j].name);
			}
		}
	}
}

void matrix__parse_hosts(struct mx *mx, const struct toml_value *v)
{
	struct matrix *m = mx->m;
	size_t i;

	if (!mx_is(mx, v, TOML_TABLE, "hosts"))
		return;
	m->hosts = xcalloc(v->u.tab.n ? v->u.tab.n : 1, sizeof(*m->hosts));
	for (i = 0; i < v->u.tab.n; i++) {
		const struct toml_kv *kv = &v->u.tab.items[i];
		struct matrix_host *h;

		if (!mx_table_key(mx, kv, "host"))
			continue;
		h = &m->hosts[m->nr_hosts++];
		h->name = xstrdup(kv->key);
		h->pos = kv->pos;
		h->src = kv->val;
		parse_host(mx, h, kv->val);
	}
	resolve_links(mx);
	check_unique(mx);
}
