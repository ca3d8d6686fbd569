// SPDX-License-Identifier: GPL-2.0-only
/*
 * labvm = "NAME" in a host's table: what a lab machine in a VM that
 * `iommu-bench labvm start NAME` runs is, read from its state, so that
 * a matrix kept in configs/ names the machine instead of this machine's
 * paths and addresses. An ssh host gets its address, user, key, host
 * keys, NIC and power cycle; a local host (its peer) this machine's end
 * of the link. Whatever the table says itself wins: the keys are read
 * after this. A machine not running yet is no error for a plan (it
 * touches no host); the run refuses to open the host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/labvm/labvm.h"
#include "matrix-priv.h"
#include "util.h"

static const char *jstr(const json_t *j, const char *key)
{
	return json_string_value(json_object_get(j, key));
}

static void set(char **field, const char *value)
{
	if (!value)
		return;
	free(*field);
	*field = xstrdup(value);
}

void mx_labvm(struct mx *mx, struct matrix_host *h,
	      const struct toml_value *tab)
{
	const struct toml_value *v = toml_table__get(tab, "labvm");
	char *name = NULL, *err = NULL;
	json_t *s = NULL;

	if (!v || mx_string(mx, tab, "labvm", MX_NAME, &name) <= 0)
		return;
	h->labvm = xstrdup(name);
	if (labvm__status(name, &s, &err) == -ENOENT) {
		/* Its arch is the machine's, which is not started yet. */
		mx_warn(mx, v->pos,
			"labvm: no lab machine '%s' runs yet: `iommu-bench "
			"labvm start %s` (with --arch arm64 for an arm64 "
			"machine) before the run",
			name, name);
		goto out;
	}
	if (err) {
		mx_err(mx, v->pos, "labvm: %s", err);
		goto out;
	}
	if (!json_is_true(json_object_get(s, "running"))) {
		mx_err(mx, v->pos,
		       "labvm: lab machine '%s' is not running (its QEMU is "
		       "gone): `iommu-bench labvm stop %s`, then start it "
		       "again",
		       name, name);
		goto out;
	}
	if (h->transport == HOST_LOCAL) {
		set(&h->address, jstr(s, "host_address"));
		goto out;
	}
	set(&h->address, jstr(s, "address"));
	set(&h->user, "root");
	set(&h->ssh_key, jstr(s, "key"));
	set(&h->known_hosts, jstr(s, "known_hosts"));
	set(&h->nic, jstr(s, "nic"));
	set(&h->console, jstr(s, "console"));
	strv_free(h->power_cycle, h->nr_power_cycle);
	h->power_cycle = xcalloc(5, sizeof(*h->power_cycle));
	h->power_cycle[0] = xstrdup(self_exe());
	h->power_cycle[1] = xstrdup("labvm");
	h->power_cycle[2] = xstrdup("reset");
	h->power_cycle[3] = xstrdup(name);
	h->nr_power_cycle = 4;
out:
	json_decref(s);
	free_all(name, err);
}
