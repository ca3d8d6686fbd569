// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fio workload's keys: one host, one of its disks, fio's own
 * vocabulary for the I/O pattern. The disk is named, never a path here:
 * a qemu host's disks are scratch images the run makes, an ssh host's
 * are listed under [hosts.NAME] disks, so that a typo cannot aim fio at
 * the wrong device.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "units.h"
#include "util.h"

#define FIO_MAX_BS (64ULL << 20)
#define FIO_MAX_IODEPTH 4096
#define FIO_MAX_JOBS 256
#define FIO_MAX_DURATION (86400 * 1000ULL)

/* In the order of enum fio_rw. */
static const char *const fio_rw_names[] = {
	"read", "write", "randread", "randwrite", "readwrite", "randrw", NULL,
};

static const char *const fio_keys[] = {
	"host",	   "target", "rw",	    "bs",	"iodepth",
	"numjobs", "direct", "destructive", "duration", NULL,
};

const char *fio_rw__name(enum fio_rw rw)
{
	return fio_rw_names[rw];
}

bool fio_rw__writes(enum fio_rw rw)
{
	return rw != FIO_READ && rw != FIO_RANDREAD;
}

const struct matrix_disk *matrix_fio__disk(const struct matrix *m,
					   const struct matrix_workload *w)
{
	const struct matrix_disk *d;
	size_t nr;

	d = matrix_host__disks(&m->hosts[w->sut], &nr);
	return w->u.fio.disk < nr ? &d[w->u.fio.disk] : NULL;
}

static void fio__release(struct matrix_workload *w)
{
	(void)w;
}

static uint64_t fio__trial_ms(const struct matrix_workload *w)
{
	return w->u.fio.duration_ms;
}

static void target(struct mx *mx, struct matrix_workload *w,
		   const struct toml_value *tab)
{
	const struct matrix_host *h = &mx->m->hosts[w->sut];
	const struct toml_value *v = toml_table__get(tab, "target");
	const struct matrix_disk *disks;
	const char **names;
	char *name = NULL;
	size_t nr, i;
	long idx;

	if (!v) {
		mx_err(mx, w->pos,
		       "missing key 'target' in workload '%s' (a disk of "
		       "host '%s')",
		       w->name, h->name);
		return;
	}
	if (mx_string(mx, tab, "target", MX_NAME, &name) <= 0)
		return;
	disks = matrix_host__disks(h, &nr);
	if (!nr) {
		mx_err(mx, v->pos, "target: host '%s' has no disks; give it %s",
		       h->name,
		       h->transport == HOST_QEMU ?
			       "[hosts.NAME.qemu] disks = [{ name = \"nvme0\", "
			       "size = \"1G\" }]" :
			       "disks = [{ name = \"data\", path = "
			       "\"/dev/nvme1n1\" }]");
		free(name);
		return;
	}
	names = xcalloc(nr + 1, sizeof(*names));
	for (i = 0; i < nr; i++)
		names[i] = disks[i].name;
	idx = mx_ref(mx, v->pos, "target", "disk", name, names, nr);
	if (idx >= 0)
		w->u.fio.disk = idx;
	free(names);
	free(name);
}

static void fio__parse(struct mx *mx, struct matrix_workload *w,
		       const struct toml_value *tab)
{
	const struct matrix_host *h = &mx->m->hosts[w->sut];
	struct matrix_fio *p = &w->u.fio;
	char a[UNITS_FMT_MAX];
	int rw;

	p->rw = FIO_RANDREAD;
	p->bs = 4096;
	p->iodepth = 1;
	p->numjobs = 1;
	p->direct = true;
	p->duration_ms = 10 * 1000;
	if (mx_enum(mx, tab, "rw", fio_rw_names, &rw) > 0)
		p->rw = rw;
	if (mx_size(mx, tab, "bs", &p->bs) > 0 &&
	    (p->bs < 512 || p->bs > FIO_MAX_BS || p->bs % 512))
		mx_err(mx, mx_val_pos(tab, "bs", w->pos),
		       "bs: %s is out of range (512..64M, a multiple of 512)",
		       units__format_size(p->bs, a, sizeof(a)));
	mx_uint32(mx, tab, "iodepth", 1, FIO_MAX_IODEPTH, &p->iodepth);
	mx_uint32(mx, tab, "numjobs", 1, FIO_MAX_JOBS, &p->numjobs);
	mx_bool(mx, tab, "direct", &p->direct);
	mx_bool(mx, tab, "destructive", &p->destructive);
	if (mx_duration(mx, tab, "duration", &p->duration_ms) > 0 &&
	    (p->duration_ms < 1000 || p->duration_ms > FIO_MAX_DURATION ||
	     p->duration_ms % 1000))
		mx_err(mx, mx_val_pos(tab, "duration", w->pos),
		       "duration: %s is not whole seconds in 1s..24h",
		       units__format_duration(p->duration_ms, a, sizeof(a)));
	if (p->destructive && !fio_rw__writes(p->rw))
		mx_warn(mx, mx_key_pos(tab, "destructive", w->pos),
			"destructive: workload '%s' only reads (rw = \"%s\"); "
			"destructive changes nothing",
			w->name, fio_rw_names[p->rw]);
	target(mx, w, tab);
	/* The guest runs fio from the controller's root: this arch's. */
	if (h->transport == HOST_QEMU && matrix_host__arch(h) != arch__native())
		mx_err(mx, mx_val_pos(tab, "host", w->pos),
		       "host: '%s' is an %s guest, and fio runs there from "
		       "this machine's root, which has %s binaries; a fio "
		       "workload needs a guest of this machine's arch",
		       h->name,
		       matrix_host__arch(h) ? matrix_host__arch(h)->name :
					      "unknown",
		       arch__native() ? arch__native()->name : "unknown");
}

static void fio__describe(const struct matrix *m,
			  const struct matrix_workload *w, char *buf,
			  size_t size)
{
	const struct matrix_fio *p = &w->u.fio;
	const struct matrix_disk *d = matrix_fio__disk(m, w);
	char bs[UNITS_FMT_MAX], dur[UNITS_FMT_MAX];

	snprintf(buf, size,
		 "%s %s on %s:%s, bs %s, iodepth %u x %u job%s%s, %s",
		 fio_rw_names[p->rw], p->direct ? "direct" : "buffered",
		 m->hosts[w->sut].name, d ? d->name : "?",
		 units__format_size(p->bs, bs, sizeof(bs)), p->iodepth,
		 p->numjobs, p->numjobs == 1 ? "" : "s",
		 p->destructive ? ", destructive" : "",
		 units__format_duration(p->duration_ms, dur, sizeof(dur)));
}

static void fio__plan_json(const struct matrix *m,
			   const struct matrix_workload *w, json_t *o)
{
	const struct matrix_fio *p = &w->u.fio;
	const struct matrix_disk *d = matrix_fio__disk(m, w);

	json_object_set_new(o, "host", json_string(m->hosts[w->sut].name));
	json_object_set_new(o, "target",
			    d ? json_string(d->name) : json_null());
	json_object_set_new(o, "rw", json_string(fio_rw_names[p->rw]));
	json_object_set_new(o, "bs", json_integer((json_int_t)p->bs));
	json_object_set_new(o, "iodepth", json_integer(p->iodepth));
	json_object_set_new(o, "numjobs", json_integer(p->numjobs));
	json_object_set_new(o, "direct", json_boolean(p->direct));
	json_object_set_new(o, "destructive", json_boolean(p->destructive));
	json_object_set_new(o, "duration_seconds",
			    json_real(p->duration_ms / 1000.0));
}

WORKLOAD_TYPE_OPS(fio, false);
