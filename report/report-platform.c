// SPDX-License-Identifier: GPL-2.0-only
/*
 * The platform a boot ran on, in one line, from its host facts: the
 * machine's arch and CPU model, the IOMMU the kernel found, and for a
 * testbed VM the emulator, machine and accelerator the controller
 * recorded. An x86 and an arm64 run, or TCG and KVM, must never be
 * mistaken for one another in a report.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "markup.h"
#include "report-priv.h"
#include "strvec.h"
#include "util.h"

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

char *report__platform(const char *facts_json)
{
	json_t *f = facts_json ? json_loads(facts_json, 0, NULL) : NULL;
	json_t *cpu = json_object_get(f, "cpu");
	json_t *iommu = json_object_get(f, "iommu");
	json_t *tb = json_object_get(f, "testbed");
	json_t *unit = json_array_get(json_object_get(iommu, "units"), 0);
	struct strvec parts = { 0 };
	json_int_t online = json_integer_value(json_object_get(cpu, "online"));
	const char *arch = str(json_object_get(f, "kernel"), "arch");
	char *s;

	if (!f)
		return NULL;
	strvec__pushf(&parts, "%s%s%s", arch ? arch : "unknown arch",
		      str(cpu, "model") ? ", " : "",
		      str(cpu, "model") ? str(cpu, "model") : "");
	if (online)
		strvec__pushf(&parts, "%lld CPU%s", (long long)online,
			      online == 1 ? "" : "s");
	if (json_is_true(json_object_get(iommu, "present")) &&
	    str(unit, "label"))
		strvec__push(&parts, str(unit, "label"));
	else
		strvec__push(&parts, "no IOMMU");
	if (tb)
		strvec__pushf(&parts, "QEMU %s (%s) under %s",
			      str(tb, "machine") ? str(tb, "machine") : "?",
			      str(tb, "cpu") ? str(tb, "cpu") : "?",
			      str(tb, "accel") &&
					      !strcmp(str(tb, "accel"), "kvm") ?
				      "KVM" :
				      "TCG");
	/* The device under test decides which DMA calls happen at all. */
	if (str(tb, "nic")) {
		json_int_t mtu = json_integer_value(json_object_get(tb, "mtu"));

		if (mtu)
			strvec__pushf(&parts, "%s NIC at MTU %lld",
				      str(tb, "nic"), (long long)mtu);
		else
			strvec__pushf(&parts, "%s NIC", str(tb, "nic"));
	}
	for (size_t i = 0; i < json_array_size(json_object_get(tb, "disks"));
	     i++) {
		json_t *d = json_array_get(json_object_get(tb, "disks"), i);

		strvec__pushf(&parts, "%s disk %s",
			      str(d, "model") ? str(d, "model") : "?",
			      str(d, "name") ? str(d, "name") : "?");
	}
	s = strvec__join(&parts, ", ");
	strvec__release(&parts);
	json_decref(f);
	return s;
}

void report__platforms(struct report_ctx *c)
{
	const struct report_data *d = c->d;
	struct strvec seen = { 0 };
	size_t i;
	char *p;

	fputs("<p class=\"small\">Platform: ", c->fp);
	for (i = 0; i < d->nr_boots; i++) {
		const char *host = rd__str(d, d->boots[i].host);

		if (strvec__contains(&seen, host))
			continue;
		p = report__platform(d->boots[i].facts);
		if (!p)
			continue;
		markup__escapef(c->fp, "%s%s: %s", seen.nr ? "; " : "", host,
				p);
		strvec__push(&seen, host);
		free(p);
	}
	if (!seen.nr)
		fputs("not recorded (no host facts)", c->fp);
	fputs(".</p>\n", c->fp);
	strvec__release(&seen);
}
