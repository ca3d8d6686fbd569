// SPDX-License-Identifier: GPL-2.0-only
/*
 * Who the host is and what kernel it booted: the identity the store keys
 * hosts on, boot_id, release, the GNU build id and the command line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "collectors/hostfacts/hostfacts-priv.h"
#include "util.h"

#define NT_GNU_BUILD_ID 3

static bool all_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return s[i] == '\0';
}

static bool is_uuid(const char *s)
{
	size_t i;

	if (strlen(s) != 36)
		return false;
	for (i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = tolower((unsigned char)*s);
}

/*
 * Firmware fills DMI fields it does not care about with the same
 * strings on every board; keying on them would merge machines.
 */
static bool dmi_placeholder(const char *s)
{
	static const char *const junk[] = {
		"0",
		"none",
		"n/a",
		"not specified",
		"not applicable",
		"not available",
		"to be filled by o.e.m.",
		"default string",
		"system serial number",
		"chassis serial number",
		"0123456789",
		"03000200-0400-0500-0006-000700080009",
	};
	bool zero = true, eff = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(junk); i++)
		if (!strcasecmp(s, junk[i]))
			return true;
	for (i = 0; s[i]; i++) {
		if (s[i] == '-' || s[i] == ' ')
			continue;
		zero &= s[i] == '0';
		eff &= s[i] == 'f' || s[i] == 'F';
	}
	return zero || eff;
}

/* DMI strings may hold anything; the key must stay one printable word. */
static char *dmi_read(const char *root, const char *field)
{
	char *s, *p;

	if (hf_read_str(&s, root, "/sys/class/dmi/id/%s", field))
		return NULL;
	while (*s == ' ') /* leading blanks are common in serials */
		memmove(s, s + 1, strlen(s));
	if (!*s || dmi_placeholder(s)) {
		free(s);
		return NULL;
	}
	for (p = s; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == ';' || *p == '=')
			*p = '_';
	return s;
}

static char *machine_id_read(const char *root)
{
	static const char *const paths[] = { "/etc/machine-id",
					     "/var/lib/dbus/machine-id" };
	size_t i;
	char *s;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (hf_read_str(&s, root, "%s", paths[i]))
			continue;
		/* systemd writes "uninitialized" until first boot completes */
		if (strlen(s) == 32 && all_hex(s, 32)) {
			lower(s);
			return s;
		}
		free(s);
	}
	return NULL;
}

int hostfacts__identity(const char *root, struct hostfacts_identity *id)
{
	struct strvec parts = { 0 };
	size_t i, len = 1;
	char *uuid;

	memset(id, 0, sizeof(*id));
	id->machine_id = machine_id_read(root);
	uuid = dmi_read(root, "product_uuid");
	if (uuid && is_uuid(uuid)) {
		lower(uuid);
		id->product_uuid = uuid;
	} else {
		free(uuid);
	}
	id->product_serial = dmi_read(root, "product_serial");
	id->board_serial = dmi_read(root, "board_serial");
	id->vendor = dmi_read(root, "sys_vendor");
	id->product = dmi_read(root, "product_name");

	if (id->machine_id)
		strvec__pushf(&parts, "machine-id=%s", id->machine_id);
	if (id->product_uuid)
		strvec__pushf(&parts, "product-uuid=%s", id->product_uuid);
	if (!parts.nr && id->product_serial)
		strvec__pushf(&parts, "product-serial=%s", id->product_serial);
	if (!parts.nr && id->board_serial)
		strvec__pushf(&parts, "board-serial=%s", id->board_serial);
	if (!parts.nr)
		return -ENOENT;
	for (i = 0; i < parts.nr; i++)
		len += strlen(parts.v[i]) + 1;
	id->key = xcalloc(1, len);
	for (i = 0; i < parts.nr; i++) {
		if (i)
			strcat(id->key, ";");
		strcat(id->key, parts.v[i]);
	}
	strv_free(parts.v, parts.nr);
	return 0;
}

#define ID_STR(f) HF_STR_FIELD(struct hostfacts_identity, f)
static const struct hf_str_field id_strs[] = {
	{ ID_STR(key) },	  { ID_STR(machine_id) },
	{ ID_STR(product_uuid) }, { ID_STR(product_serial) },
	{ ID_STR(board_serial) }, { ID_STR(vendor) },
	{ ID_STR(product) },
};

void hostfacts__identity_release(struct hostfacts_identity *id)
{
	hf_str_fields_free(id, id_strs, ARRAY_SIZE(id_strs));
	memset(id, 0, sizeof(*id));
}

/* The word of the file at @path, if @valid takes it; else -EINVAL. */
static int read_valid(char **out, const char *root, const char *path,
		      bool (*valid)(const char *s))
{
	char *s;
	int err;

	err = hf_read_str(&s, root, "%s", path);
	if (err)
		return err;
	if (!valid(s)) {
		free(s);
		return -EINVAL;
	}
	*out = s;
	return 0;
}

int hostfacts__boot_id(const char *root, char **out)
{
	int err = read_valid(out, root, "/proc/sys/kernel/random/boot_id",
			     is_uuid);

	if (!err)
		lower(*out);
	return err;
}

/* It names /boot/config-RELEASE: it must stay one path component. */
static bool is_release(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, "..");
}

int hostfacts__kernel_release(const char *root, char **out)
{
	return read_valid(out, root, "/proc/sys/kernel/osrelease", is_release);
}

static uint32_t note_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int hostfacts__build_id(const char *root, char **out)
{
	char *path = hf_path(root, "/sys/kernel/notes"), *buf, *hex;
	const unsigned char *p;
	size_t len, off = 0, i;
	int err;

	err = read_file(path, &buf, &len);
	free(path);
	if (err)
		return err;
	p = (const unsigned char *)buf;
	err = -ENOENT;
	/* Elf_Nhdr, then name and desc, each padded to 4 bytes. */
	while (len - off >= 12) {
		uint64_t namesz = note_u32(p + off),
			 descsz = note_u32(p + off + 4);
		uint32_t type = note_u32(p + off + 8);
		uint64_t name_pad = (namesz + 3) & ~3ull;
		uint64_t desc_pad = (descsz + 3) & ~3ull;
		const unsigned char *name = p + off + 12;

		if (name_pad + desc_pad > len - off - 12) {
			err = -EINVAL;
			break;
		}
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(name, "GNU", 4) && descsz) {
			hex = xmalloc(descsz * 2 + 1);
			for (i = 0; i < descsz; i++)
				sprintf(hex + 2 * i, "%02x",
					name[name_pad + i]);
			*out = hex;
			err = 0;
			break;
		}
		off += 12 + name_pad + desc_pad;
	}
	if (err == -ENOENT && off != len)
		err = -EINVAL; /* a header cut short */
	free(buf);
	return err;
}

int hostfacts__cmdline(const char *root, char **out)
{
	return hf_read_str(out, root, "/proc/cmdline");
}

json_t *hf_json_identity(const char *root, struct strvec *warn)
{
	struct hostfacts_identity id;
	json_t *o;
	int err;

	err = hostfacts__identity(root, &id);
	if (err)
		strvec__pushf(warn, "identity: no /etc/machine-id and no "
				    "readable DMI uuid or serial");
	o = json_object();
	hf_str_fields_json(o, &id, id_strs, ARRAY_SIZE(id_strs));
	hostfacts__identity_release(&id);
	return o;
}

static json_t *config_json(const char *root, const char *release,
			   struct strvec *warn)
{
	struct strvec lines = { 0 };
	json_t *o, *opts;
	char *source = NULL, *eq;
	size_t i;
	int err;

	err = hf_kernel_config(root, release, &source, &lines);
	if (err) {
		strvec__pushf(warn,
			      "kernel config: neither /boot/config-%s nor "
			      "/proc/config.gz is readable",
			      release ? release : "RELEASE");
		return json_pack("{s:n, s:{}}", "source", "options");
	}
	opts = json_object();
	for (i = 0; i < lines.nr; i++) {
		eq = strchr(lines.v[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		json_object_set_new(opts, lines.v[i],
				    json_string_or_null(eq + 1));
	}
	o = json_pack("{s:o, s:o}", "source", json_string_or_null(source),
		      "options", opts);
	free(source);
	strv_free(lines.v, lines.nr);
	return o;
}

json_t *hf_json_kernel(const char *root, struct strvec *warn)
{
	char *release = NULL, *build_id = NULL, *boot_id = NULL;
	char *cmdline = NULL, *version = NULL, *arch = NULL;
	struct utsname uts;
	json_t *o;

	hf_warn_err(warn, "kernel release: /proc/sys/kernel/osrelease",
		    hostfacts__kernel_release(root, &release));
	hf_warn_err(warn, "build id: /sys/kernel/notes",
		    hostfacts__build_id(root, &build_id));
	hf_warn_err(warn, "boot id: /proc/sys/kernel/random/boot_id",
		    hostfacts__boot_id(root, &boot_id));
	hf_warn_err(warn, "cmdline: /proc/cmdline",
		    hostfacts__cmdline(root, &cmdline));
	hf_read_str(&version, root, "/proc/sys/kernel/version");
	if (hf_root_is_real(root) && !uname(&uts))
		arch = xstrdup(uts.machine);
	else
		hf_read_str(&arch, root, "/proc/sys/kernel/arch");

	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "release",
		      json_string_or_null(release), "version",
		      json_string_or_null(version), "arch",
		      json_string_or_null(arch), "build_id",
		      json_string_or_null(build_id), "boot_id",
		      json_string_or_null(boot_id), "cmdline",
		      json_string_or_null(cmdline), "config",
		      config_json(root, release, warn));
	free_all(release, build_id, boot_id, cmdline, version, arch);
	return o;
}
