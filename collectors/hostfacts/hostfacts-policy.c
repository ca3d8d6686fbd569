// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DMA policy in effect, and how we know. Four witnesses, in the
 * order they are believed: the groups' types (what the DMA API uses now,
 * and what a sysfs mode change rewrites), the kernel's boot-time log
 * line, the command line, and the config default. The last three say
 * what the boot asked for; the Intel driver, for one, silently forces
 * strict on a caching-mode IOMMU, so only the groups can VERIFY a mode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

/* Groups named one by one in the evidence of a mixed host. */
#define MIXED_GROUPS_SHOWN 16

/* The names of what is not one of the IOMMU's modes. */
static const char *const mode_names[] = {
	[HOSTFACTS_DMA_UNKNOWN] = "unknown",
	[HOSTFACTS_DMA_NONE] = "none",
	[HOSTFACTS_DMA_MIXED] = "mixed",
};

static const char *const source_names[] = {
	[HOSTFACTS_SRC_NONE] = "none",	   [HOSTFACTS_SRC_GROUPS] = "groups",
	[HOSTFACTS_SRC_KMSG] = "kmsg",	   [HOSTFACTS_SRC_CMDLINE] = "cmdline",
	[HOSTFACTS_SRC_CONFIG] = "config",
};

static const char *const kmsg_needles[] = {
	"Default domain type:",
	"DMA domain TLB invalidation policy:",
	"IOMMU batching disallowed",
	NULL,
};

static const struct iommu_mode_info *mode_info(enum hostfacts_dma_mode m)
{
	return iommu_mode__info(m - HOSTFACTS_DMA_STRICT);
}

const char *hostfacts__dma_mode_name(enum hostfacts_dma_mode m)
{
	if (mode_info(m))
		return mode_info(m)->name;
	return (size_t)m < ARRAY_SIZE(mode_names) ? mode_names[m] : "unknown";
}

const char *hostfacts__dma_source_name(enum hostfacts_dma_source s)
{
	return (size_t)s < ARRAY_SIZE(source_names) ? source_names[s] : "none";
}

static const char *mode_type(enum hostfacts_dma_mode m)
{
	return mode_info(m) ? mode_info(m)->group_type : "?";
}

/* Everything the witnesses said, before it is weighed. */
struct policy_ctx {
	const char *root;
	struct hostfacts_iommu_unit *units;
	struct hostfacts_group *groups;
	size_t nr_groups;
	bool cmdline_off;  /* intel_iommu=off and friends */
	bool batching_off; /* "IOMMU batching disallowed" */
	int kmsg_err;	   /* 0, or why the log could not be read */
	int units_err;	   /* -ENOENT: no /sys/class/iommu at all */
	struct strvec ev;  /* the evidence, being written */
	struct strvec tables;
};

static void read_kmsg(struct policy_ctx *c, struct hostfacts_dma_policy *p)
{
	struct strvec lines = { 0 };
	const char *s;
	size_t i;

	c->kmsg_err = hf_kmsg_grep(c->root, kmsg_needles, &lines);
	for (i = 0; i < lines.nr; i++) {
		s = lines.v[i];
		if (strstr(s, "Default domain type: Passthrough"))
			p->kmsg = HOSTFACTS_DMA_PASSTHROUGH;
		else if (strstr(s, "invalidation policy: strict"))
			p->kmsg = HOSTFACTS_DMA_STRICT;
		else if (strstr(s, "invalidation policy: lazy"))
			p->kmsg = HOSTFACTS_DMA_LAZY;
		else if (strstr(s, "IOMMU batching disallowed"))
			c->batching_off = true;
	}
	p->kmsg_lines = lines.v;
	p->nr_kmsg_lines = lines.nr;
}

static void read_config(struct policy_ctx *c, struct hostfacts_dma_policy *p)
{
	struct strvec lines = { 0 };
	char *release = NULL;
	size_t i;

	hostfacts__kernel_release(c->root, &release);
	if (hf_kernel_config(c->root, release, &p->config_source, &lines))
		goto out;
	for (i = 0; i < lines.nr; i++) {
		if (!strcmp(lines.v[i], "CONFIG_IOMMU_DEFAULT_DMA_STRICT=y"))
			p->config = HOSTFACTS_DMA_STRICT;
		else if (!strcmp(lines.v[i], "CONFIG_IOMMU_DEFAULT_DMA_LAZY=y"))
			p->config = HOSTFACTS_DMA_LAZY;
		else if (!strcmp(lines.v[i],
				 "CONFIG_IOMMU_DEFAULT_PASSTHROUGH=y"))
			p->config = HOSTFACTS_DMA_PASSTHROUGH;
	}
	p->config_lines = lines.v;
	p->nr_config_lines = lines.nr;
out:
	free(release);
}

static void read_cmdline(struct policy_ctx *c, struct hostfacts_dma_policy *p)
{
	char *cmdline;

	if (hostfacts__cmdline(c->root, &cmdline))
		return;
	hostfacts__cmdline_keys(cmdline, &p->keys, &p->nr_keys);
	p->cmdline = hf_cmdline_mode(p->keys, p->nr_keys, &c->cmdline_off);
	free(cmdline);
}

static void count_groups(struct policy_ctx *c, struct hostfacts_dma_policy *p)
{
	size_t i, kinds = 0;
	int m;

	for (i = 0; i < c->nr_groups; i++) {
		m = iommu_mode__by_group_type(c->groups[i].type);
		if (m < 0)
			p->nr_other++;
		else
			p->nr_mode[m]++;
	}
	for (m = NR_IOMMU_MODES - 1; m >= 0; m--) {
		if (!p->nr_mode[m])
			continue;
		kinds++;
		p->groups = HOSTFACTS_DMA_STRICT + m;
	}
	if (kinds > 1)
		p->groups = HOSTFACTS_DMA_MIXED;
}

/*
 * The groups in each mode: "2 DMA (strict), 0 DMA-FQ (lazy), ...", or
 * without the modes' names "2 DMA, 0 DMA-FQ, ...".
 */
static char *counts_text(const struct hostfacts_dma_policy *p, bool named)
{
	const struct iommu_mode_info *info;
	char *s = xstrdup(""), *t;
	int m;

	for (m = 0; m < NR_IOMMU_MODES; m++) {
		info = iommu_mode__info(m);
		t = named ? xasprintf("%s%s%zu %s (%s)", s, m ? ", " : "",
				      p->nr_mode[m], info->group_type,
				      info->name) :
			    xasprintf("%s%s%zu %s", s, m ? ", " : "",
				      p->nr_mode[m], info->group_type);
		free(s);
		s = t;
	}
	return s;
}

/* "iommu.strict=0 intel_iommu=on": the keys, for the evidence. */
static char *keys_text(const struct hostfacts_dma_policy *p)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < p->nr_keys; i++) {
		t = xasprintf("%s%s%s%s%s", s, i ? " " : "", p->keys[i].key,
			      *p->keys[i].value ? "=" : "", p->keys[i].value);
		free(s);
		s = t;
	}
	return s;
}

static const char *kmsg_policy_line(const struct hostfacts_dma_policy *p)
{
	size_t i;

	for (i = p->nr_kmsg_lines; i-- > 0;)
		if (!strstr(p->kmsg_lines[i], "batching"))
			return p->kmsg_lines[i];
	return "";
}

/*
 * ", but the groups are lazy: ..." when the groups decided and @said
 * differs; "" otherwise.
 */
static char *overruled(const struct hostfacts_dma_policy *p,
		       enum hostfacts_dma_mode said)
{
	if (p->source != HOSTFACTS_SRC_GROUPS || said == p->mode)
		return xstrdup("");
	return xasprintf(", but the groups are %s (%s): the group type wins, "
			 "it is what the DMA API uses now",
			 hostfacts__dma_mode_name(p->mode), mode_type(p->mode));
}

/* One sentence per witness that spoke, and whether it was overruled. */
static void weigh_witnesses(struct policy_ctx *c,
			    const struct hostfacts_dma_policy *p)
{
	char *keys, *but;

	if (p->kmsg != HOSTFACTS_DMA_UNKNOWN) {
		but = overruled(p, p->kmsg);
		strvec__pushf(&c->ev, "the kernel log says '%s'%s",
			      kmsg_policy_line(p), but);
		free(but);
	}
	if (p->cmdline != HOSTFACTS_DMA_UNKNOWN) {
		keys = keys_text(p);
		but = overruled(p, p->cmdline);
		strvec__pushf(&c->ev, "the command line asks for %s (%s)%s",
			      hostfacts__dma_mode_name(p->cmdline), keys, but);
		free(but);
		free(keys);
	}
	if (p->config != HOSTFACTS_DMA_UNKNOWN) {
		but = overruled(p, p->config);
		strvec__pushf(&c->ev, "the kernel config defaults to %s (%s)%s",
			      hostfacts__dma_mode_name(p->config),
			      p->config_source, but);
		free(but);
	}
}

/* Why a host would be strict although lazy was asked for. */
static void strict_reasons(struct policy_ctx *c,
			   const struct hostfacts_dma_policy *p)
{
	size_t i;

	for (i = 0; i < p->nr_units; i++)
		if (c->units[i].kind == HOSTFACTS_IOMMU_INTEL &&
		    c->units[i].caching_mode == 1)
			strvec__pushf(&c->ev,
				      "%s reports caching mode (CAP.CM=1, a "
				      "virtual IOMMU): the Intel driver forces "
				      "strict, lazy cannot be had",
				      c->units[i].name);
	if (c->batching_off)
		strvec__pushf(&c->ev,
			      "the kernel log says 'IOMMU batching disallowed "
			      "due to virtualization': lazy cannot be had");
}

static void decide_groups(struct policy_ctx *c, struct hostfacts_dma_policy *p)
{
	size_t i, n = c->nr_groups;
	char *words = counts_text(p, true);

	p->mode = p->groups;
	p->source = HOSTFACTS_SRC_GROUPS;
	strvec__pushf(&c->ev, "%zu IOMMU group%s: %s, %zu other", n,
		      n == 1 ? "" : "s", words, p->nr_other);
	free(words);
	if (p->mode == HOSTFACTS_DMA_UNKNOWN) {
		words = iommu_mode__types_words();
		p->source = HOSTFACTS_SRC_NONE;
		p->summary = xasprintf("unknown: no group has a DMA-API type "
				       "(%s)",
				       words);
		free(words);
		return;
	}
	if (p->mode == HOSTFACTS_DMA_MIXED) {
		/* A big server has hundreds: the counts above tell the rest. */
		for (i = 0; i < n && i < MIXED_GROUPS_SHOWN; i++)
			strvec__pushf(
				&c->ev, "group %u is %s (%s)", c->groups[i].id,
				c->groups[i].type ? c->groups[i].type :
						    "unreadable",
				hostfacts__dma_mode_name(
					hostfacts__group_mode(&c->groups[i])));
		if (n > MIXED_GROUPS_SHOWN)
			strvec__pushf(&c->ev, "... and %zu more groups",
				      n - MIXED_GROUPS_SHOWN);
		words = counts_text(p, false);
		p->summary =
			xasprintf("mixed: the groups disagree (%s)", words);
		free(words);
		return;
	}
	if (p->nr_other)
		p->summary = xasprintf("%s: %zu of %zu IOMMU groups are %s, "
				       "%zu have no DMA-API type",
				       hostfacts__dma_mode_name(p->mode),
				       n - p->nr_other, n, mode_type(p->mode),
				       p->nr_other);
	else if (n == 1)
		p->summary = xasprintf("%s: the one IOMMU group is %s",
				       hostfacts__dma_mode_name(p->mode),
				       mode_type(p->mode));
	else
		p->summary = xasprintf("%s: all %zu IOMMU groups are %s",
				       hostfacts__dma_mode_name(p->mode), n,
				       mode_type(p->mode));
	weigh_witnesses(c, p);
	if (p->mode == HOSTFACTS_DMA_STRICT)
		strict_reasons(c, p);
}

/* Units but no groups: nothing is translated yet; say what would be. */
static void decide_no_groups(struct policy_ctx *c,
			     struct hostfacts_dma_policy *p)
{
	strvec__pushf(&c->ev,
		      "%zu IOMMU unit%s (%s ...) but no IOMMU groups: no "
		      "device is translated; the mode is what the boot set "
		      "for devices that come",
		      p->nr_units, p->nr_units == 1 ? "" : "s",
		      c->units[0].name);
	if (p->kmsg != HOSTFACTS_DMA_UNKNOWN) {
		p->mode = p->kmsg;
		p->source = HOSTFACTS_SRC_KMSG;
	} else if (p->cmdline != HOSTFACTS_DMA_UNKNOWN) {
		p->mode = p->cmdline;
		p->source = HOSTFACTS_SRC_CMDLINE;
	} else if (p->config != HOSTFACTS_DMA_UNKNOWN) {
		p->mode = p->config;
		p->source = HOSTFACTS_SRC_CONFIG;
	}
	p->summary = xasprintf("%s (no device behind the IOMMU; from the %s)",
			       hostfacts__dma_mode_name(p->mode),
			       p->source == HOSTFACTS_SRC_NONE ?
				       "nothing: no witness spoke" :
				       hostfacts__dma_source_name(p->source));
	weigh_witnesses(c, p);
}

/* The config's driver options, as "CONFIG_INTEL_IOMMU=n, ...". */
static char *config_drivers(const struct hostfacts_dma_policy *p, bool built)
{
	char *s = NULL, *t;
	size_t i;

	for (i = 0; i < p->nr_config_lines; i++) {
		const char *l = p->config_lines[i];
		bool n = strstr(l, "=n") != NULL;

		if (strstr(l, "DEFAULT") || strstr(l, "IOMMU_DMA") ||
		    strstr(l, "SUPPORT") || n == built)
			continue;
		t = xasprintf("%s%s%s", s ? s : "", s ? ", " : "", l);
		free(s);
		s = t;
	}
	return s;
}

static void decide_none(struct policy_ctx *c, struct hostfacts_dma_policy *p)
{
	char *drivers;
	size_t i;

	p->mode = HOSTFACTS_DMA_NONE;
	p->source = HOSTFACTS_SRC_NONE;
	p->summary = xstrdup("no IOMMU: DMA is not translated; iommu modes "
			     "cannot be switched on this host");
	strvec__pushf(&c->ev, c->units_err == -ENOENT ?
				      "/sys/class/iommu does not exist" :
				      "/sys/class/iommu lists no IOMMU unit");
	strvec__pushf(&c->ev, "/sys/kernel/iommu_groups holds no group");
	drivers = config_drivers(p, true);
	if (drivers)
		strvec__pushf(&c->ev,
			      "the kernel has IOMMU drivers (%s), but none "
			      "found hardware",
			      drivers);
	else if ((drivers = config_drivers(p, false)))
		strvec__pushf(&c->ev, "the kernel has no IOMMU driver (%s)",
			      drivers);
	free(drivers);
	for (i = 0; i < c->tables.nr; i++)
		strvec__pushf(&c->ev,
			      "the ACPI %s table describes an IOMMU that no "
			      "driver enabled",
			      c->tables.v[i]);
	if (!c->tables.nr && hf_exists(c->root, "/sys/firmware/acpi/tables"))
		strvec__pushf(&c->ev, "no ACPI table describes an IOMMU "
				      "(no DMAR, IVRS, IORT or VIOT)");
	if (c->cmdline_off) {
		char *keys = keys_text(p);

		strvec__pushf(&c->ev,
			      "the command line turns the IOMMU off (%s)",
			      keys);
		free(keys);
	}
	if (p->kmsg != HOSTFACTS_DMA_UNKNOWN)
		strvec__pushf(&c->ev,
			      "the kernel log says '%s': that is only the "
			      "default for DMA domains, and there are none",
			      kmsg_policy_line(p));
}

static void kmsg_note(struct policy_ctx *c, struct hostfacts_dma_policy *p)
{
	if (c->kmsg_err)
		strvec__pushf(&c->ev, "the kernel log is not readable (%s)",
			      strerror(-c->kmsg_err));
	else if (p->kmsg == HOSTFACTS_DMA_UNKNOWN &&
		 p->mode != HOSTFACTS_DMA_NONE)
		strvec__pushf(&c->ev, "the kernel log holds no IOMMU policy "
				      "line (rotated out, or an old kernel)");
}

int hostfacts__dma_policy(const char *root, struct hostfacts_dma_policy *p)
{
	struct policy_ctx c = { .root = root };
	size_t nr_units = 0;
	int err;

	memset(p, 0, sizeof(*p));
	c.units_err = hostfacts__iommu_units(root, &c.units, &nr_units);
	p->nr_units = nr_units;
	err = hostfacts__iommu_groups(root, &c.groups, &c.nr_groups);
	if (err && err != -ENOENT)
		strvec__pushf(&c.ev, "/sys/kernel/iommu_groups: %s",
			      strerror(-err));
	read_cmdline(&c, p);
	read_kmsg(&c, p);
	read_config(&c, p);
	hf_firmware_tables(root, &c.tables);
	count_groups(&c, p);

	if (c.nr_groups)
		decide_groups(&c, p);
	else if (nr_units)
		decide_no_groups(&c, p);
	else
		decide_none(&c, p);
	kmsg_note(&c, p);

	p->evidence = c.ev.v;
	p->nr_evidence = c.ev.nr;
	hostfacts__iommu_units_free(c.units, nr_units);
	hostfacts__iommu_groups_free(c.groups, c.nr_groups);
	strv_free(c.tables.v, c.tables.nr);
	return 0;
}

void hostfacts__dma_policy_release(struct hostfacts_dma_policy *p)
{
	free(p->summary);
	strv_free(p->evidence, p->nr_evidence);
	hostfacts__cmdline_keys_free(p->keys, p->nr_keys);
	strv_free(p->kmsg_lines, p->nr_kmsg_lines);
	free(p->config_source);
	strv_free(p->config_lines, p->nr_config_lines);
	memset(p, 0, sizeof(*p));
}

static json_t *witness(enum hostfacts_dma_mode m)
{
	return m == HOSTFACTS_DMA_UNKNOWN ?
		       json_null() :
		       json_string(hostfacts__dma_mode_name(m));
}

json_t *hf_json_policy(const char *root, struct strvec *warn)
{
	struct hostfacts_dma_policy p;
	json_t *keys = json_array(), *groups = json_object();
	size_t i;
	json_t *o;
	int m;

	/* What could not be read is part of the evidence, not a warning. */
	(void)warn;
	hostfacts__dma_policy(root, &p);
	for (i = 0; i < p.nr_keys; i++)
		json_array_append_new(
			keys,
			json_pack("{s:o, s:o, s:s, s:b}", "key",
				  json_string_or_null(p.keys[i].key), "value",
				  json_string_or_null(p.keys[i].value), "means",
				  hostfacts__dma_mode_name(p.keys[i].means),
				  "disables", p.keys[i].disables));
	for (m = 0; m < NR_IOMMU_MODES; m++)
		json_object_set_new(groups, iommu_mode__info(m)->name,
				    json_integer((json_int_t)p.nr_mode[m]));
	json_object_set_new(groups, "other",
			    json_integer((json_int_t)p.nr_other));
	o = json_pack("{s:s, s:s, s:o, s:o, s:{s:o, s:o, s:o, s:o}, "
		      "s:o, s:I, s:o, s:o, s:o}",
		      "mode", hostfacts__dma_mode_name(p.mode), "source",
		      hostfacts__dma_source_name(p.source), "summary",
		      json_string_or_null(p.summary), "evidence",
		      json_strings(p.evidence, p.nr_evidence), "witnesses",
		      "groups", witness(p.groups), "kmsg", witness(p.kmsg),
		      "cmdline", witness(p.cmdline), "config",
		      witness(p.config), "groups", groups, "units",
		      (json_int_t)p.nr_units, "cmdline_keys", keys, "kmsg",
		      json_strings(p.kmsg_lines, p.nr_kmsg_lines),
		      "config_source", json_string_or_null(p.config_source));
	hostfacts__dma_policy_release(&p);
	return o;
}
