// SPDX-License-Identifier: GPL-2.0-only
/*
 * What started the machine: UEFI, a legacy BIOS, or (an arm64 board
 * booted straight from U-Boot) nothing but a devicetree; under UEFI,
 * whether Secure Boot is on and the firmware's word size, which decides
 * which grub (i386-efi or x86_64-efi) a lab machine can boot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

/* EFI_GLOBAL_VARIABLE: SecureBoot, BootCurrent ... */
#define EFI_GLOBAL_GUID "8be4df61-93ca-11d2-aa0d-00e098032b8c"

static const char *const firmware_names[] = {
	[HOSTFACTS_FW_UNKNOWN] = "unknown",
	[HOSTFACTS_FW_BIOS] = "bios",
	[HOSTFACTS_FW_UEFI] = "uefi",
	[HOSTFACTS_FW_DEVICETREE] = "devicetree",
};

const char *hostfacts__firmware_name(enum hostfacts_firmware_kind k)
{
	return (size_t)k < ARRAY_SIZE(firmware_names) ? firmware_names[k] :
							"unknown";
}

int hf_efivar_read(const char *root, const char *name, unsigned char **data,
		   size_t *len)
{
	char *path = xasprintf("/sys/firmware/efi/efivars/%s", name), *buf;
	size_t n;
	int err;

	/* Variables are small; a big one is not what we asked for. */
	err = hf_read_capped(&buf, &n, 64 * 1024, root, path);
	free(path);
	if (err)
		return err;
	/* efivarfs puts the variable's 4 attribute bytes first. */
	if (n < 4) {
		free(buf);
		return -EINVAL;
	}
	memmove(buf, buf + 4, n - 4);
	*data = (unsigned char *)buf;
	*len = n - 4;
	return 0;
}

int hostfacts__firmware(const char *root, struct hostfacts_firmware *fw)
{
	unsigned char *sb;
	size_t len;
	long bits;

	memset(fw, 0, sizeof(*fw));
	fw->secure_boot = -1;
	fw->platform_bits = -1;
	if (hf_exists(root, "/sys/firmware/efi")) {
		fw->kind = HOSTFACTS_FW_UEFI;
		if (!hf_efivar_read(root, "SecureBoot-" EFI_GLOBAL_GUID, &sb,
				    &len)) {
			if (len >= 1 && sb[0] <= 1)
				fw->secure_boot = sb[0];
			free(sb);
		}
		if (!hf_read_long(&bits, root,
				  "/sys/firmware/efi/fw_platform_size") &&
		    (bits == 32 || bits == 64))
			fw->platform_bits = (int)bits;
		return 0;
	}
	/*
	 * A BIOS leaves SMBIOS tables (SeaBIOS does too); an arm64 board
	 * that U-Boot booted without EFI has a devicetree and no DMI; a
	 * kernel started with no firmware at all (a microVM) has neither.
	 */
	if (hf_exists(root, "/sys/class/dmi/id"))
		fw->kind = HOSTFACTS_FW_BIOS;
	else if (hf_exists(root, "/sys/firmware/devicetree/base"))
		fw->kind = HOSTFACTS_FW_DEVICETREE;
	else
		fw->kind = HOSTFACTS_FW_UNKNOWN;
	return 0;
}

json_t *hf_json_firmware(const char *root, struct strvec *warn)
{
	struct hostfacts_firmware fw;

	hostfacts__firmware(root, &fw);
	if (fw.kind == HOSTFACTS_FW_UNKNOWN)
		strvec__push(warn, "firmware: no /sys/firmware/efi, no DMI, "
				   "no devicetree: none that left a trace");
	if (fw.kind == HOSTFACTS_FW_UEFI && fw.secure_boot < 0)
		strvec__push(warn, "firmware: the SecureBoot EFI variable is "
				   "not readable (efivarfs not mounted?)");
	return json_pack(
		"{s:o, s:o, s:o}", "kind",
		fw.kind == HOSTFACTS_FW_UNKNOWN ?
			json_null() :
			json_string(hostfacts__firmware_name(fw.kind)),
		"secure_boot",
		fw.secure_boot < 0 ? json_null() : json_boolean(fw.secure_boot),
		"platform_bits", hf_json_int_or_null(fw.platform_bits));
}
