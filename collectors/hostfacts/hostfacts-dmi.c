// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the machine is, for people reading a report: the DMI vendor,
 * product, board, BIOS and chassis. Serials and the UUID are left to
 * identity, which keys on them and keeps them out of sight; nothing
 * here is a secret.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

/* SMBIOS 3.x, table 17 (System Enclosure or Chassis Types). */
static const char *const chassis_names[] = {
	[1] = "other",
	[2] = "unknown",
	[3] = "desktop",
	[4] = "low profile desktop",
	[5] = "pizza box",
	[6] = "mini tower",
	[7] = "tower",
	[8] = "portable",
	[9] = "laptop",
	[10] = "notebook",
	[11] = "hand held",
	[12] = "docking station",
	[13] = "all in one",
	[14] = "sub notebook",
	[15] = "space-saving",
	[16] = "lunch box",
	[17] = "main server chassis",
	[18] = "expansion chassis",
	[19] = "subchassis",
	[20] = "bus expansion chassis",
	[21] = "peripheral chassis",
	[22] = "RAID chassis",
	[23] = "rack mount chassis",
	[24] = "sealed-case PC",
	[25] = "multi-system chassis",
	[26] = "compact PCI",
	[27] = "advanced TCA",
	[28] = "blade",
	[29] = "blade enclosure",
	[30] = "tablet",
	[31] = "convertible",
	[32] = "detachable",
	[33] = "IoT gateway",
	[34] = "embedded PC",
	[35] = "mini PC",
	[36] = "stick PC",
};

const char *hostfacts__chassis_name(int type)
{
	if (type <= 0 || (size_t)type >= ARRAY_SIZE(chassis_names))
		return NULL;
	return chassis_names[type];
}

/* A DMI string as firmware wrote it, blanks at either end dropped. */
static char *dmi_str(const char *root, const char *field)
{
	char *s, *p, *out;

	if (hf_read_str(&s, root, "/sys/class/dmi/id/%s", field))
		return NULL;
	for (p = s; *p == ' ' || *p == '\t'; p++)
		;
	out = *p ? hf_strcap(p, strlen(p), HF_STR_MAX) : NULL;
	free(s);
	return out;
}

int hostfacts__dmi(const char *root, struct hostfacts_dmi *dmi)
{
	long type;

	memset(dmi, 0, sizeof(*dmi));
	dmi->chassis_type = -1;
	if (!hf_exists(root, "/sys/class/dmi/id"))
		return -ENOENT;
	dmi->sys_vendor = dmi_str(root, "sys_vendor");
	dmi->product_name = dmi_str(root, "product_name");
	dmi->product_version = dmi_str(root, "product_version");
	dmi->board_vendor = dmi_str(root, "board_vendor");
	dmi->board_name = dmi_str(root, "board_name");
	dmi->bios_vendor = dmi_str(root, "bios_vendor");
	dmi->bios_version = dmi_str(root, "bios_version");
	dmi->bios_date = dmi_str(root, "bios_date");
	if (!hf_read_long(&type, root, "/sys/class/dmi/id/chassis_type") &&
	    type >= 0 && type <= 255)
		dmi->chassis_type = (int)type;
	return 0;
}

void hostfacts__dmi_release(struct hostfacts_dmi *dmi)
{
	free_all(dmi->sys_vendor, dmi->product_name, dmi->product_version,
		 dmi->board_vendor, dmi->board_name, dmi->bios_vendor,
		 dmi->bios_version, dmi->bios_date);
	memset(dmi, 0, sizeof(*dmi));
}

json_t *hf_json_dmi(const char *root, struct strvec *warn)
{
	struct hostfacts_dmi d;
	json_t *o;

	if (hostfacts__dmi(root, &d)) {
		strvec__push(warn, "dmi: /sys/class/dmi/id does not exist "
				   "(no SMBIOS: a devicetree board, or a "
				   "kernel without DMI)");
		return json_null();
	}
	o = json_pack(
		"{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"sys_vendor", json_string_or_null(d.sys_vendor), "product_name",
		json_string_or_null(d.product_name), "product_version",
		json_string_or_null(d.product_version), "board_vendor",
		json_string_or_null(d.board_vendor), "board_name",
		json_string_or_null(d.board_name), "bios_vendor",
		json_string_or_null(d.bios_vendor), "bios_version",
		json_string_or_null(d.bios_version), "bios_date",
		json_string_or_null(d.bios_date), "chassis_type",
		hf_json_int_or_null(d.chassis_type), "chassis",
		json_string_or_null(hostfacts__chassis_name(d.chassis_type)));
	hostfacts__dmi_release(&d);
	return o;
}
