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

/*
 * The strings, each named as its file in /sys/class/dmi/id and its key in
 * the facts' JSON.
 */
#define DMI_STR(f) HF_STR_FIELD(struct hostfacts_dmi, f)
static const struct hf_str_field dmi_strs[] = {
	{ DMI_STR(sys_vendor) },      { DMI_STR(product_name) },
	{ DMI_STR(product_version) }, { DMI_STR(board_vendor) },
	{ DMI_STR(board_name) },      { DMI_STR(bios_vendor) },
	{ DMI_STR(bios_version) },    { DMI_STR(bios_date) },
};

int hostfacts__dmi(const char *root, struct hostfacts_dmi *dmi)
{
	size_t i;
	long type;

	memset(dmi, 0, sizeof(*dmi));
	dmi->chassis_type = -1;
	if (!hf_exists(root, "/sys/class/dmi/id"))
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(dmi_strs); i++)
		*hf_str_at(dmi, &dmi_strs[i]) = dmi_str(root, dmi_strs[i].name);
	if (!hf_read_long(&type, root, "/sys/class/dmi/id/chassis_type") &&
	    type >= 0 && type <= 255)
		dmi->chassis_type = (int)type;
	return 0;
}

void hostfacts__dmi_release(struct hostfacts_dmi *dmi)
{
	hf_str_fields_free(dmi, dmi_strs, ARRAY_SIZE(dmi_strs));
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
	o = json_object();
	hf_str_fields_json(o, &d, dmi_strs, ARRAY_SIZE(dmi_strs));
	json_object_set_new(o, "chassis_type",
			    hf_json_int_or_null(d.chassis_type));
	json_object_set_new(
		o, "chassis",
		json_string_or_null(hostfacts__chassis_name(d.chassis_type)));
	hostfacts__dmi_release(&d);
	return o;
}
