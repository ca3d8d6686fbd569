// SPDX-License-Identifier: GPL-2.0-only
/*
 * What each boot ran on, for a reader who must reproduce it: a lab
 * machine's vendor and BIOS, how it booted (firmware, grub's entry, a
 * one-shot entry still pending) and how long that took, the distro and
 * what its kernel defaults to. Every string comes from the host, so
 * every string is escaped; facts from before these keys existed (format
 * 1) say so instead of showing blanks as if they were facts.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "markup.h"
#include "report-machine.h"
#include "strvec.h"
#include "util.h"

#define MAX_ROWS 24

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void small(FILE *fp, const char *text)
{
	fputs("<span class=\"small\">", fp);
	markup__escape(fp, text);
	fputs("</span>", fp);
}

/*
 * The section @key of @facts, or NULL after saying why there is none:
 * absent (older facts) or null (the host could not tell).
 */
static json_t *section(FILE *fp, json_t *facts, const char *key,
		       const char *when_null)
{
	json_t *s = json_object_get(facts, key);

	if (!s)
		small(fp, "not recorded");
	else if (json_is_null(s))
		small(fp, when_null);
	return json_is_null(s) ? NULL : s;
}

/* The strings of @o under @keys that are set, one space apart. */
static void words(FILE *fp, const json_t *o, const char *const *keys)
{
	struct strvec sv = { 0 };
	char *s;

	for (; *keys; keys++)
		if (str(o, *keys) && *str(o, *keys))
			strvec__push(&sv, str(o, *keys));
	s = strvec__join(&sv, " ");
	markup__escape(fp, s);
	free(s);
	strvec__release(&sv);
}

static void machine_cell(FILE *fp, json_t *facts)
{
	static const char *const name[] = { "sys_vendor", "product_name",
					    "product_version", NULL };
	static const char *const bios[] = { "bios_vendor", "bios_version",
					    "bios_date", NULL };
	json_t *dmi = section(fp, facts, "dmi", "no DMI");

	if (!dmi)
		return;
	words(fp, dmi, name);
	if (str(dmi, "chassis"))
		markup__escapef(fp, " (%s)", str(dmi, "chassis"));
	if (str(dmi, "bios_version") || str(dmi, "bios_date")) {
		fputs("<br><span class=\"small\">BIOS ", fp);
		words(fp, dmi, bios);
		fputs("</span>", fp);
	}
}

static void firmware_cell(FILE *fp, json_t *facts)
{
	json_t *fw = section(fp, facts, "firmware", "unknown");
	json_t *sb = json_object_get(fw, "secure_boot");
	json_int_t bits =
		json_integer_value(json_object_get(fw, "platform_bits"));

	if (!fw)
		return;
	markup__escape(fp, str(fw, "kind") ? str(fw, "kind") : "unknown");
	if (json_is_boolean(sb))
		fprintf(fp, ", Secure Boot %s",
			json_is_true(sb) ? "on" : "off");
	if (bits)
		fprintf(fp, ", %lld-bit", (long long)bits);
}

static void distro_cell(FILE *fp, json_t *facts)
{
	static const char *const id[] = { "id", "version_id", NULL };
	json_t *d = section(fp, facts, "distro", "no os-release");

	if (!d)
		return;
	if (str(d, "pretty_name"))
		markup__escape(fp, str(d, "pretty_name"));
	else
		words(fp, d, id);
}

static void entry_name(FILE *fp, const json_t *e)
{
	if (str(e, "submenu"))
		markup__escapef(fp, "%s > ", str(e, "submenu"));
	markup__escape(fp, str(e, "title") ? str(e, "title") : str(e, "id"));
}

static void loader_cell(FILE *fp, json_t *facts)
{
	json_t *bl = section(fp, facts, "boot_loader", "unknown");
	json_t *grub = json_object_get(bl, "grub");
	json_t *booted = json_object_get(bl, "booted_entry");
	const char *next = str(grub, "next_entry");

	if (!bl)
		return;
	if (str(bl, "name"))
		markup__escape(fp, str(bl, "name"));
	else
		small(fp, "none left a trace (kernel started directly)");
	if (json_is_object(booted)) {
		fputs("<br>entry: ", fp);
		entry_name(fp, booted);
		if (json_is_false(json_object_get(booted, "exact")))
			small(fp, " (other arguments than the kernel got)");
	} else if (str(bl, "boot_image")) {
		fputs("<br>", fp);
		small(fp, "no grub entry boots ");
		markup__escape(fp, str(bl, "boot_image"));
	}
	/* A one-shot entry not taken yet: the next reboot is not default. */
	if (next && *next) {
		fputs("<br>next_entry: <b>", fp);
		markup__escape(fp, next);
		fputs("</b>", fp);
	}
}

static void span(FILE *fp, const char *label, json_t *ms, bool *first)
{
	double v;

	if (!json_is_integer(ms))
		return;
	v = (double)json_integer_value(ms);
	fprintf(fp, "%s%s ", *first ? "" : " + ", label);
	if (v < 1000)
		fprintf(fp, "%.0f ms", v);
	else
		fprintf(fp, "%.1f s", v / 1000);
	*first = false;
}

static void boot_time_cell(FILE *fp, json_t *facts)
{
	static const char *const parts[] = { "firmware", "loader", "kernel",
					     "initrd", "userspace" };
	json_t *sd = section(fp, facts, "systemd", "unknown");
	json_t *t = json_object_get(sd, "boot_time"), *total;
	bool first = true;
	char key[32];
	size_t i;

	if (!sd)
		return;
	if (!json_is_true(json_object_get(sd, "running"))) {
		small(fp, "no systemd");
		return;
	}
	if (!json_is_object(t)) {
		small(fp, "systemd, boot time not measured");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		snprintf(key, sizeof(key), "%s_ms", parts[i]);
		span(fp, parts[i], json_object_get(t, key), &first);
	}
	total = json_object_get(t, "total_ms");
	if (json_is_integer(total))
		fprintf(fp, " = <b>%.1f s</b>",
			(double)json_integer_value(total) / 1000);
}

static void kconfig_cell(FILE *fp, json_t *facts)
{
	static const struct {
		const char *option, *mode;
	} defaults[] = {
		{ "CONFIG_IOMMU_DEFAULT_DMA_STRICT", "strict" },
		{ "CONFIG_IOMMU_DEFAULT_DMA_LAZY", "lazy" },
		{ "CONFIG_IOMMU_DEFAULT_PASSTHROUGH", "passthrough" },
	};
	json_t *kc = section(fp, facts, "kernel_config", "no config found");
	json_t *opts = json_object_get(kc, "options"), *v;
	const char *mode = NULL, *name;
	struct strvec sv = { 0 };
	char *s;
	size_t i;

	if (!kc)
		return;
	for (i = 0; i < ARRAY_SIZE(defaults); i++)
		if (str(opts, defaults[i].option) &&
		    !strcmp(str(opts, defaults[i].option), "y"))
			mode = defaults[i].mode;
	fputs("IOMMU default: <b>", fp);
	markup__escape(fp, mode ? mode : "not set");
	fputs("</b><br><span class=\"small\">", fp);
	json_object_foreach(opts, name, v) {
		if (!json_is_string(v) || strstr(name, "_DEFAULT_"))
			continue;
		strvec__pushf(&sv, "%s=%s",
			      strncmp(name, "CONFIG_", 7) ? name : name + 7,
			      json_string_value(v));
	}
	s = strvec__join(&sv, ", ");
	markup__escape(fp, s);
	free(s);
	strvec__release(&sv);
	if (str(kc, "source"))
		markup__escapef(fp, " (%s)", str(kc, "source"));
	fputs("</span>", fp);
}

/* Facts from before format 2 have none of the keys this table shows. */
static bool facts_old(json_t *facts)
{
	static const char *const keys[] = { "dmi",     "firmware",
					    "distro",  "boot_loader",
					    "systemd", "kernel_config" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (json_object_get(facts, keys[i]))
			return false;
	return true;
}

static void machine_row(struct report_ctx *c, const struct rd_boot *b)
{
	static void (*const cells[])(FILE * fp, json_t * facts) = {
		machine_cell, firmware_cell,  distro_cell,
		loader_cell,  boot_time_cell, kconfig_cell,
	};
	const struct report_data *d = c->d;
	json_t *facts = json_loads(b->facts, 0, NULL);
	size_t i;

	fputs("<tr>", c->fp);
	html__td(c->fp, NULL, rd__str(d, b->host));
	html__td(c->fp, NULL, rd__str(d, b->release));
	html__td(c->fp, NULL, rd__str(d, b->modes));
	if (!facts || facts_old(facts)) {
		fprintf(c->fp, "<td colspan=\"%zu\">", ARRAY_SIZE(cells));
		small(c->fp, facts ? "not recorded: these host facts predate "
				     "format 2" :
				     "host facts unreadable");
		fputs("</td></tr>\n", c->fp);
		json_decref(facts);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(cells); i++) {
		fputs("<td>", c->fp);
		cells[i](c->fp, facts);
		fputs("</td>", c->fp);
	}
	fputs("</tr>\n", c->fp);
	json_decref(facts);
}

void report__machines(struct report_ctx *c)
{
	static const char *const heads[] = {
		"host",
		"kernel release",
		"modes run",
		"machine",
		"firmware",
		"distribution",
		"boot loader and entry",
		"boot time",
		"kernel config",
		NULL,
	};
	const struct report_data *d = c->d;
	size_t i, shown = 0;

	for (i = 0; i < d->nr_boots; i++)
		if (d->boots[i].facts)
			shown++;
	if (!shown)
		return;
	fputs("<table>\n", c->fp);
	html__th_row(c->fp, heads);
	for (i = 0, shown = 0; i < d->nr_boots && shown < MAX_ROWS; i++) {
		if (!d->boots[i].facts)
			continue;
		machine_row(c, &d->boots[i]);
		shown++;
	}
	fputs("</table>\n", c->fp);
}
