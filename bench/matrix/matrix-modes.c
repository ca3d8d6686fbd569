// SPDX-License-Identifier: GPL-2.0-only
/*
 * [modes.NAME]: the built-in IOMMU modes, the user's own, and how each is
 * put in place on a host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "util.h"

static const char *const method_names[] = { "auto", "sysfs",  "kexec", "grub",
					    "none", "reboot", NULL };

static const char *const apply_names[] = {
	[APPLY_NONE] = "none",	     [APPLY_SYSFS] = "sysfs",
	[APPLY_KEXEC] = "kexec",     [APPLY_GRUB] = "grub",
	[APPLY_RESTART] = "restart",
};

const char *group_type__name(enum group_type g)
{
	return g == GROUP_TYPE_UNSET ? "" : iommu_group_types()[g - 1];
}

int group_type__mode(enum group_type g)
{
	if (g < GROUP_TYPE_DMA || g >= GROUP_TYPE_DMA + NR_IOMMU_MODES)
		return -ENOENT;
	return g - GROUP_TYPE_DMA;
}

const char *mode_method__name(enum mode_method m)
{
	return method_names[m];
}

const char *mode_apply__name(enum mode_apply a)
{
	return apply_names[a];
}

/*
 * The built-ins beyond the IOMMU's own modes (src/iommu-mode.h), which
 * come first, in their order.
 */
static const struct {
	const char *name;
	const char *description;
} records_only[] = {
	{ "current",
	  "whatever the host runs now: nothing applied, the mode recorded" },
	/*
	 * How a Kconfig default is measured: a boot whose command line has
	 * none of the keys the other modes set (the agent drops them), and
	 * whatever the kernel then chose, recorded as the effective mode.
	 */
	{ "default", "the kernel's own choice: booted with no iommu.strict or "
		     "iommu.passthrough argument, the mode it chose recorded" },
};

#define NR_BUILTINS (NR_IOMMU_MODES + ARRAY_SIZE(records_only))

void matrix__init_modes(struct matrix *m)
{
	size_t i;

	m->modes = xcalloc(NR_BUILTINS, sizeof(*m->modes));
	for (i = 0; i < NR_IOMMU_MODES; i++) {
		const struct iommu_mode_info *info = iommu_mode__info(i);
		struct matrix_mode *md = &m->modes[i];

		md->name = xstrdup(info->name);
		md->builtin = true;
		md->group_type = GROUP_TYPE_DMA + i;
		md->description = xstrdup(info->description);
		md->cmdline = xcalloc(2, sizeof(*md->cmdline));
		md->cmdline[0] = xstrdup(info->cmdline);
		md->nr_cmdline = 1;
		md->sysfs_equivalent = true;
		md->method = METHOD_AUTO;
	}
	for (i = 0; i < ARRAY_SIZE(records_only); i++) {
		struct matrix_mode *md = &m->modes[NR_IOMMU_MODES + i];

		md->name = xstrdup(records_only[i].name);
		md->builtin = true;
		md->description = xstrdup(records_only[i].description);
		md->method = matrix_mode__is_default(md) ? METHOD_REBOOT :
							   METHOD_NONE;
	}
	m->nr_modes = NR_BUILTINS;
}

void matrix_mode__release(struct matrix_mode *md)
{
	free(md->name);
	strv_free(md->cmdline, md->nr_cmdline);
	free(md->description);
}

bool matrix_mode__is_default(const struct matrix_mode *md)
{
	return md->builtin && !strcmp(md->name, "default");
}

bool matrix_mode__records_only(const struct matrix_mode *md)
{
	return md->builtin && md->group_type == GROUP_TYPE_UNSET;
}

static void parse_builtin(struct mx *mx, struct matrix_mode *md,
			  const struct toml_value *tab, const char *where)
{
	static const char *const keys[] = { "method", "cmdline", "description",
					    "group_type", NULL };
	const struct toml_value *gt = toml_table__get(tab, "group_type");
	int method = md->method;
	int g;

	if (md->method == METHOD_NONE) {
		/* "current" is the absence of a mode: nothing to configure. */
		static const char *const none[] = { "description", NULL };

		mx_check_keys(mx, tab, none, where);
		mx_text(mx, tab, "description", &md->description);
		return;
	}
	if (matrix_mode__is_default(md)) {
		/* Only how it boots: an argument would not be the default. */
		static const char *const dkeys[] = { "method", "description",
						     NULL };
		static const char *const boots[] = { "reboot", "kexec", "grub",
						     NULL };
		const struct toml_value *c = toml_table__get(tab, "cmdline");
		int b;

		if (c) {
			mx_err(mx, c->pos,
			       "cmdline: mode 'default' boots with no "
			       "DMA-policy argument, which is what it "
			       "measures; define a mode of another name for "
			       "arguments of its own");
			return;
		}
		mx_check_keys(mx, tab, dkeys, where);
		if (mx_enum(mx, tab, "method", boots, &b) > 0)
			md->method = b == 0 ? METHOD_REBOOT :
				     b == 1 ? METHOD_KEXEC :
					      METHOD_GRUB;
		mx_text(mx, tab, "description", &md->description);
		return;
	}
	mx_check_keys(mx, tab, keys, where);
	if (mx_enum(mx, tab, "method", method_names, &method) > 0)
		md->method = method;
	if (mx_strings(mx, tab, "cmdline", MX_KARG, &md->cmdline,
		       &md->nr_cmdline) > 0)
		md->sysfs_equivalent = false;
	mx_text(mx, tab, "description", &md->description);
	if (gt && mx_enum(mx, tab, "group_type", iommu_group_types(), &g) > 0 &&
	    g + 1 != (int)md->group_type)
		mx_err(mx, gt->pos,
		       "group_type: built-in mode '%s' is %s; "
		       "define a mode of another name for %s",
		       md->name, group_type__name(md->group_type),
		       gt->u.str.ptr);
}

static void parse_custom(struct mx *mx, struct matrix_mode *md,
			 const struct toml_value *tab, const char *where)
{
	static const char *const keys[] = { "method", "cmdline", "group_type",
					    "description", NULL };
	int method = METHOD_AUTO, g;

	mx_check_keys(mx, tab, keys, where);
	md->method = METHOD_AUTO;
	if (mx_enum(mx, tab, "method", method_names, &method) > 0)
		md->method = method;
	mx_strings(mx, tab, "cmdline", MX_KARG, &md->cmdline, &md->nr_cmdline);
	if (mx_enum(mx, tab, "group_type", iommu_group_types(), &g) > 0)
		md->group_type = g + 1;
	mx_text(mx, tab, "description", &md->description);

	if (md->method == METHOD_NONE)
		return;
	if (!toml_table__get(tab, "cmdline") &&
	    !toml_table__get(tab, "group_type"))
		mx_err(mx, md->pos,
		       "mode '%s' sets neither cmdline nor "
		       "group_type, so there is nothing to apply (method = "
		       "\"none\" if you arrange it yourself)",
		       md->name);
	else if (md->method == METHOD_SYSFS &&
		 md->group_type == GROUP_TYPE_UNSET)
		mx_err(mx, mx_val_pos(tab, "method", md->pos),
		       "method: mode '%s' has no group_type to write to sysfs",
		       md->name);
	else if ((md->method == METHOD_KEXEC || md->method == METHOD_GRUB ||
		  md->method == METHOD_REBOOT) &&
		 !md->nr_cmdline)
		mx_err(mx, mx_val_pos(tab, "method", md->pos),
		       "method: '%s' boots with the mode's cmdline, and mode "
		       "'%s' has none",
		       method_names[md->method], md->name);
}

void matrix__parse_modes(struct mx *mx, const struct toml_value *v)
{
	struct matrix *m = mx->m;
	size_t i, alloc = m->nr_modes;

	if (!mx_is(mx, v, TOML_TABLE, "modes"))
		return;
	for (i = 0; i < v->u.tab.n; i++) {
		const struct toml_kv *kv = &v->u.tab.items[i];
		struct matrix_mode *md;
		char where[96];
		long idx;

		if (!mx_table_key(mx, kv, "mode"))
			continue;
		snprintf(where, sizeof(where), "[modes.%s]", kv->key);
		idx = matrix__find_mode(m, kv->key);
		if (idx >= 0) {
			md = &m->modes[idx];
			md->pos = kv->pos;
			md->src = kv->val;
			parse_builtin(mx, md, kv->val, where);
			continue;
		}
		ALLOC_GROW(m->modes, m->nr_modes + 1, alloc);
		md = &m->modes[m->nr_modes++];
		memset(md, 0, sizeof(*md));
		md->name = xstrdup(kv->key);
		md->pos = kv->pos;
		md->src = kv->val;
		parse_custom(mx, md, kv->val, where);
	}
}

enum mode_apply matrix__boot_method(const struct matrix_host *host)
{
	if (matrix_host__is_vm(host))
		return host->reboot == REBOOT_KEXEC ? APPLY_KEXEC :
						      APPLY_RESTART;
	switch (host->reboot) {
	case REBOOT_KEXEC:
		return APPLY_KEXEC;
	case REBOOT_GRUB:
		return APPLY_GRUB;
	case REBOOT_RESTART:
		return APPLY_RESTART;
	default:
		return APPLY_NONE;
	}
}

/*
 * "auto" prefers a sysfs switch of the NIC's group: seconds instead of a
 * reboot, and for the device under test the same state as the command
 * line gives. A mode with its own cmdline may carry more than the group
 * type (iommu.forcedac=1, say), so it boots.
 */
enum mode_apply matrix__apply(const struct matrix_host *host,
			      const struct matrix_mode *mode)
{
	enum mode_apply boot = matrix__boot_method(host);

	switch (mode->method) {
	case METHOD_NONE:
		return APPLY_NONE;
	case METHOD_SYSFS:
		return APPLY_SYSFS;
	case METHOD_KEXEC:
		return matrix_host__is_vm(host) ? boot : APPLY_KEXEC;
	case METHOD_GRUB:
		return matrix_host__is_vm(host) ? APPLY_RESTART : APPLY_GRUB;
	case METHOD_REBOOT:
		return boot;
	case METHOD_AUTO:
		break;
	}
	if (mode->group_type != GROUP_TYPE_UNSET && host->nic &&
	    !host->disk_workload &&
	    (mode->sysfs_equivalent || !mode->nr_cmdline))
		return APPLY_SYSFS;
	if (mode->nr_cmdline)
		return boot;
	if (mode->group_type != GROUP_TYPE_UNSET)
		return APPLY_SYSFS;
	return APPLY_NONE;
}
