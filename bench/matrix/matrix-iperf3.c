// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iperf3 workload's keys. Ranges are iperf3 3.12's own limits, so
 * that a matrix which passes `plan` does not fail at the first trial.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "matrix-priv.h"
#include "units.h"
#include "util.h"

#define IPERF3_MAX_STREAMS 128		      /* MAX_STREAMS */
#define IPERF3_MAX_TCP_LEN (1U << 20)	      /* MAX_BLOCKSIZE */
#define IPERF3_MAX_UDP_LEN 65507	      /* MAX_UDP_BLOCKSIZE */
#define IPERF3_MAX_WINDOW (512U << 20)	      /* MAX_TCP_BUFFER */
#define IPERF3_MAX_MSS 9216		      /* MAX_MSS */
#define IPERF3_MAX_DURATION (86400 * 1000ULL) /* MAX_TIME */
#define IPERF3_MAX_OMIT (600 * 1000ULL)	      /* MAX_OMIT_TIME */
#define MAX_PROCESSES 64

static const char *const iperf3_keys[] = {
	"protocol",   "streams",  "processes", "duration", "omit",
	"reverse",    "bidir",	  "length",    "window",   "bitrate",
	"congestion", "zerocopy", "mss",       "no_delay", "port",
	"affinity",   NULL,
};

static void iperf3__release(struct matrix_workload *w)
{
	struct matrix_iperf3 *p = &w->u.iperf3;

	free_all(p->congestion, p->server_cpus.cpus, p->client_cpus.cpus);
}

static uint64_t iperf3__trial_ms(const struct matrix_workload *w)
{
	return w->u.iperf3.omit_ms + w->u.iperf3.duration_ms;
}

static void parse_affinity(struct mx *mx, struct matrix_iperf3 *p,
			   const struct toml_value *tab)
{
	static const char *const keys[] = { "server", "client", NULL };
	const struct toml_value *a = toml_table__get(tab, "affinity");

	if (!a || !mx_is(mx, a, TOML_TABLE, "affinity"))
		return;
	mx_check_keys(mx, a, keys, "affinity");
	mx_cpus(mx, a, "server", p->processes, "process", "processes",
		&p->server_cpus.cpus, &p->server_cpus.nr);
	mx_cpus(mx, a, "client", p->processes, "process", "processes",
		&p->client_cpus.cpus, &p->client_cpus.nr);
}

/* iperf3 3.12 takes -t and -O in whole seconds. */
static void whole_seconds(struct mx *mx, const struct toml_value *tab,
			  const char *key, uint64_t ms, uint64_t min,
			  uint64_t max)
{
	struct toml_pos pos = mx_val_pos(tab, key, (struct toml_pos){ 0 });
	char a[UNITS_FMT_MAX], b[UNITS_FMT_MAX], c[UNITS_FMT_MAX];

	if (!pos.line)
		return;
	if (ms % 1000)
		mx_err(mx, pos,
		       "%s: %s is not a whole number of seconds, "
		       "which iperf3 needs",
		       key, units__format_duration(ms, a, sizeof(a)));
	else if (ms < min || ms > max)
		mx_err(mx, pos, "%s: %s is out of range (%s..%s)", key,
		       units__format_duration(ms, a, sizeof(a)),
		       units__format_duration(min, b, sizeof(b)),
		       units__format_duration(max, c, sizeof(c)));
}

/* Options that only TCP has: iperf3 would refuse them for UDP. */
static void tcp_only(struct mx *mx, const struct matrix_iperf3 *p,
		     const struct toml_value *tab)
{
	static const char *const keys[] = { "congestion", "zerocopy", "mss",
					    "no_delay", NULL };
	const char *const *k;

	if (p->protocol != PROTO_UDP)
		return;
	for (k = keys; *k; k++)
		if (toml_table__get(tab, *k))
			mx_err(mx, mx_key_pos(tab, *k, (struct toml_pos){ 0 }),
			       "%s: only for protocol = \"tcp\"", *k);
}

static void check_sizes(struct mx *mx, struct matrix_workload *w,
			const struct toml_value *tab)
{
	struct matrix_iperf3 *p = &w->u.iperf3;
	uint64_t max_len = p->protocol == PROTO_UDP ? IPERF3_MAX_UDP_LEN :
						      IPERF3_MAX_TCP_LEN;
	char buf[UNITS_FMT_MAX];

	if (mx_size(mx, tab, "length", &p->length) > 0 &&
	    (p->length < 1 || p->length > max_len))
		mx_err(mx, mx_val_pos(tab, "length", w->pos),
		       "length: %s is out of range (1..%s for %s)",
		       units__format_size(p->length, buf, sizeof(buf)),
		       p->protocol == PROTO_UDP ? "65507" : "1M",
		       p->protocol == PROTO_UDP ? "UDP" : "TCP");
	if (mx_size(mx, tab, "window", &p->window) > 0 &&
	    (p->window < 1 || p->window > IPERF3_MAX_WINDOW))
		mx_err(mx, mx_val_pos(tab, "window", w->pos),
		       "window: %s is out of range (1..512M)",
		       units__format_size(p->window, buf, sizeof(buf)));
	if (mx_bitrate(mx, tab, "bitrate", &p->bitrate) > 0)
		p->has_bitrate = true;
	else if (p->protocol == PROTO_UDP && !toml_table__get(tab, "bitrate"))
		mx_warn(mx, w->pos,
			"workload '%s': UDP without bitrate runs "
			"at iperf3's default of 1 Mbit/s; set bitrate "
			"(\"0\" for unlimited)",
			w->name);
}

static void iperf3__parse(struct mx *mx, struct matrix_workload *w,
			  const struct toml_value *tab)
{
	static const char *const protos[] = { "tcp", "udp", NULL };
	struct matrix_iperf3 *p = &w->u.iperf3;
	struct toml_pos bidir;
	int proto;

	p->protocol = PROTO_TCP;
	p->streams = 1;
	p->processes = 1;
	p->duration_ms = 10 * 1000;
	p->port = 5201;
	if (mx_enum(mx, tab, "protocol", protos, &proto) > 0)
		p->protocol = proto;
	mx_uint32(mx, tab, "streams", 1, IPERF3_MAX_STREAMS, &p->streams);
	mx_uint32(mx, tab, "processes", 1, MAX_PROCESSES, &p->processes);
	if (mx_duration(mx, tab, "duration", &p->duration_ms) > 0)
		whole_seconds(mx, tab, "duration", p->duration_ms, 1000,
			      IPERF3_MAX_DURATION);
	if (mx_duration(mx, tab, "omit", &p->omit_ms) > 0)
		whole_seconds(mx, tab, "omit", p->omit_ms, 0, IPERF3_MAX_OMIT);
	if (toml_table__get(tab, "omit") && p->omit_ms >= p->duration_ms) {
		char a[UNITS_FMT_MAX], b[UNITS_FMT_MAX];

		mx_err(mx, mx_val_pos(tab, "omit", w->pos),
		       "omit: %s must be shorter than duration (%s); the "
		       "omitted seconds come on top of it and are discarded",
		       units__format_duration(p->omit_ms, a, sizeof(a)),
		       units__format_duration(p->duration_ms, b, sizeof(b)));
	}
	mx_bool(mx, tab, "reverse", &p->reverse);
	mx_bool(mx, tab, "bidir", &p->bidir);
	bidir = mx_key_pos(tab, "bidir", w->pos);
	if (p->reverse && p->bidir)
		mx_err(mx, bidir,
		       "bidir: reverse and bidir exclude each other "
		       "(bidir already sends both ways)");
	check_sizes(mx, w, tab);
	mx_string(mx, tab, "congestion", MX_NAME, &p->congestion);
	mx_bool(mx, tab, "zerocopy", &p->zerocopy);
	mx_uint32(mx, tab, "mss", 88, IPERF3_MAX_MSS, &p->mss);
	mx_bool(mx, tab, "no_delay", &p->no_delay);
	tcp_only(mx, p, tab);
	if (mx_uint32(mx, tab, "port", 1, 65535, &p->port) >= 0 &&
	    p->port + p->processes - 1 > 65535)
		mx_err(mx, mx_val_pos(tab, "port", w->pos),
		       "port: %u processes use ports %u..%u, past 65535",
		       p->processes, p->port, p->port + p->processes - 1);
	parse_affinity(mx, p, tab);
}

/* Which way the data flows: "peer -> guest", "<->" for bidir. */
static void iperf3__describe(const struct matrix *m,
			     const struct matrix_workload *w, char *buf,
			     size_t size)
{
	const struct matrix_iperf3 *p = &w->u.iperf3;
	const char *s = m->hosts[w->server].name, *c = m->hosts[w->client].name;
	char d[UNITS_FMT_MAX], o[UNITS_FMT_MAX], procs[32] = "";

	if (p->processes > 1)
		snprintf(procs, sizeof(procs), " x %u processes", p->processes);
	snprintf(buf, size, "%s %s %s %s, %u stream%s%s, %s%s%s%s",
		 p->protocol == PROTO_UDP ? "udp" : "tcp",
		 p->bidir   ? c :
		 p->reverse ? s :
			      c,
		 p->bidir ? "<->" : "->", p->reverse && !p->bidir ? c : s,
		 p->streams, p->streams == 1 ? "" : "s", procs,
		 units__format_duration(p->duration_ms, d, sizeof(d)),
		 p->omit_ms ? " (+" : "",
		 p->omit_ms ? units__format_duration(p->omit_ms, o, sizeof(o)) :
			      "",
		 p->omit_ms ? " omitted)" : "");
}

static void iperf3__plan_json(const struct matrix *m,
			      const struct matrix_workload *w, json_t *o)
{
	const struct matrix_iperf3 *p = &w->u.iperf3;

	json_object_set_new(o, "server", json_string(m->hosts[w->server].name));
	json_object_set_new(o, "client", json_string(m->hosts[w->client].name));
	json_object_set_new(o, "protocol",
			    json_string(p->protocol == PROTO_UDP ? "udp" :
								   "tcp"));
	json_object_set_new(o, "streams", json_integer(p->streams));
	json_object_set_new(o, "processes", json_integer(p->processes));
	json_object_set_new(o, "duration_seconds",
			    json_real(p->duration_ms / 1000.0));
	json_object_set_new(o, "omit_seconds", json_real(p->omit_ms / 1000.0));
	json_object_set_new(o, "reverse", json_boolean(p->reverse));
	json_object_set_new(o, "bidir", json_boolean(p->bidir));
}

WORKLOAD_TYPE_OPS(iperf3, true);
