// SPDX-License-Identifier: GPL-2.0-only
/*
 * iperf3's JSON reports (one per process, from the client's side) into
 * one results object, and that into the store. jansson only: libiperf
 * exports its own cJSON_* symbols, which would clash with libcjson.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench/workload/iperf3-priv.h"
#include "bench/workload/workload-metrics.h"
#include "errmsg.h"
#include "json-util.h"
#include "store/store.h"
#include "strvec.h"
#include "util.h"

struct side {
	double recv_bps, send_bps;
	double retransmits; /* NAN: not reported (UDP, or no tcp_info) */
	double cpu_client, cpu_server;
	double packets, lost, jitter_ms;
};

/* A sum object's key, plus the reverse direction's in a bidir test. */
static double both(const json_t *end, const char *sum, const char *key)
{
	char rev[64];
	double a = json_number_or_nan(json_object_get(end, sum), key), b;

	snprintf(rev, sizeof(rev), "%s_bidir_reverse", sum);
	b = json_number_or_nan(json_object_get(end, rev), key);
	return isnan(b) ? a : a + b;
}

static int read_side(const json_t *report, unsigned int port, bool udp,
		     struct side *s, char **err)
{
	const json_t *end = json_object_get(report, "end");
	const json_t *cpu = json_object_get(end, "cpu_utilization_percent");
	const json_t *recv = json_object_get(end, "sum_received");

	s->recv_bps = both(end, "sum_received", "bits_per_second");
	s->send_bps = both(end, "sum_sent", "bits_per_second");
	if (isnan(s->recv_bps) || isnan(s->send_bps)) {
		errmsg__set(err, -EINVAL,
			    "iperf3 report of the client on port %u has no "
			    "end.sum_received/sum_sent bits_per_second",
			    port);
		return -EINVAL;
	}
	s->retransmits = udp ? NAN : both(end, "sum_sent", "retransmits");
	s->cpu_client = json_number_or_nan(cpu, "host_total");
	s->cpu_server = json_number_or_nan(cpu, "remote_total");
	s->packets =
		json_number_or_nan(json_object_get(end, "sum_sent"), "packets");
	s->lost = json_number_or_nan(recv, "lost_packets");
	s->jitter_ms = json_number_or_nan(recv, "jitter_ms");
	return 0;
}

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* Interval @k (omitted ones not counted) of @report, or NULL. */
static const json_t *interval(const json_t *report, size_t k)
{
	const json_t *arr = json_object_get(report, "intervals"), *iv;
	size_t i;

	json_array_foreach(arr, i, iv) {
		const json_t *sum = json_object_get(iv, "sum");

		if (json_is_true(json_object_get(sum, "omitted")))
			continue;
		if (!k--)
			return iv;
	}
	return NULL;
}

static json_t *intervals(json_t *const *reports, size_t n, double omit)
{
	json_t *out = json_array();
	const json_t *iv;
	size_t k, i;

	for (k = 0; (iv = interval(reports[0], k)); k++) {
		const json_t *sum = json_object_get(iv, "sum");
		double bps = 0, re = 0;
		bool has_re = false;

		for (i = 0; i < n; i++) {
			const json_t *p = interval(reports[i], k);
			double b, r;

			if (!p)
				continue;
			b = both(p, "sum", "bits_per_second");
			r = both(p, "sum", "retransmits");
			bps += isnan(b) ? 0 : b;
			if (!isnan(r)) {
				re += r;
				has_re = true;
			}
		}
		json_array_append_new(
			out,
			json_pack("{s:f, s:f, s:f, s:o}", "start",
				  omit + json_number_or_nan(sum, "start"),
				  "end", omit + json_number_or_nan(sum, "end"),
				  "bits_per_second", bps, "retransmits",
				  has_re ? json_real(re) : json_null()));
	}
	return out;
}

/* Bytes of @report's receiving streams, every interval; NAN: none. */
static double received_one(const json_t *report)
{
	const json_t *iv, *st;
	double bytes = NAN;
	size_t k, j;

	json_array_foreach(json_object_get(report, "intervals"), k, iv) {
		json_array_foreach(json_object_get(iv, "streams"), j, st) {
			double b = json_number_or_nan(st, "bytes");

			if (json_is_false(json_object_get(st, "sender")) &&
			    !isnan(b))
				bytes = isnan(bytes) ? b : bytes + b;
		}
	}
	return bytes;
}

static void add_bytes(json_t *results, double b)
{
	double had = json_number_or_nan(results, "bytes");

	if (!isnan(b))
		json_object_set_new(results, "bytes",
				    json_real(isnan(had) ? b : had + b));
}

void iperf3__add_received(json_t *results, const json_t *reports)
{
	const json_t *r;
	size_t i;

	json_array_foreach(reports, i, r)
		add_bytes(results, received_one(r));
}

static void add(double *acc, double v)
{
	if (!isnan(v))
		*acc = isnan(*acc) ? v : *acc + v;
}

int iperf3__summarize(json_t *const *reports, const unsigned int *ports,
		      size_t n, const struct iperf3_opts *o, json_t **results,
		      char **err)
{
	struct side tot = { 0, 0, NAN, NAN, NAN, NAN, NAN, NAN }, s;
	json_t *per = json_array(), *udp = json_null();
	double jitter_sum = 0;
	size_t i;

	*results = NULL;
	for (i = 0; i < n; i++) {
		const char *e =
			json_string_value(json_object_get(reports[i], "error"));

		if (e) {
			errmsg__set(err, -EIO,
				    "iperf3 client on port %u "
				    "failed: %s",
				    ports[i], e);
			goto fail;
		}
		if (read_side(reports[i], ports[i], o->udp, &s, err))
			goto fail;
		tot.recv_bps += s.recv_bps;
		tot.send_bps += s.send_bps;
		add(&tot.retransmits, s.retransmits);
		add(&tot.cpu_client, s.cpu_client);
		add(&tot.cpu_server, s.cpu_server);
		add(&tot.packets, s.packets);
		add(&tot.lost, s.lost);
		jitter_sum += isnan(s.jitter_ms) ? 0 : s.jitter_ms;
		json_array_append_new(
			per,
			json_pack("{s:i, s:f, s:f, s:o, s:o, s:o}", "port",
				  (int)ports[i], "throughput_bps", s.recv_bps,
				  "sender_bps", s.send_bps, "retransmits",
				  num_or_null(s.retransmits), "cpu_client_pct",
				  num_or_null(s.cpu_client), "cpu_server_pct",
				  num_or_null(s.cpu_server)));
	}
	if (o->udp)
		udp = json_pack(
			"{s:o, s:o, s:o, s:o}", "packets",
			num_or_null(tot.packets), "lost_packets",
			num_or_null(tot.lost), "lost_pct",
			num_or_null(tot.packets > 0 ?
					    100.0 * tot.lost / tot.packets :
					    NAN),
			"jitter_ms", json_real(jitter_sum / (double)n));
	*results = json_pack(
		"{s:s, s:i, s:i, s:i, s:i, s:b, s:b, s:f, s:f, s:o, s:o, s:o, "
		"s:o, s:o, s:o}",
		"protocol", o->udp ? "udp" : "tcp", "processes", (int)n,
		"streams", (int)(o->streams ? o->streams : 1),
		"duration_seconds", (int)iperf3__duration_s(o), "omit_seconds",
		(int)o->omit_s, "reverse", o->reverse, "bidir", o->bidir,
		"throughput_bps", tot.recv_bps, "sender_bps", tot.send_bps,
		"retransmits", num_or_null(tot.retransmits), "cpu_client_pct",
		num_or_null(tot.cpu_client), "cpu_server_pct",
		num_or_null(tot.cpu_server), "udp", udp, "per_process", per,
		"intervals", intervals(reports, n, (double)o->omit_s));
	/* What this end received; the servers' share is added by whoever
	 * waits for them (iperf3__add_received). */
	for (i = 0; i < n; i++)
		add_bytes(*results, received_one(reports[i]));
	return 0;
fail:
	json_decref(per);
	return -EIO;
}

static const struct workload_metric metrics[] = {
	{ "throughput_bps", "throughput", "bit/s", STORE_BETTER_HIGHER },
	{ "sender_bps", "throughput_sender", "bit/s", STORE_BETTER_HIGHER },
	{ "retransmits", "retransmits", "count", STORE_BETTER_LOWER },
	{ "cpu_client_pct", "cpu_client_pct", "%", STORE_BETTER_LOWER },
	{ "cpu_server_pct", "cpu_server_pct", "%", STORE_BETTER_LOWER },
	{ "udp.lost_pct", "udp_lost_pct", "%", STORE_BETTER_LOWER },
	{ "udp.jitter_ms", "udp_jitter_ms", "ms", STORE_BETTER_LOWER },
	{ "udp.packets", "udp_packets", "count", STORE_BETTER_NONE },
	{ "bytes", "bytes", "bytes", STORE_BETTER_NONE },
};

void iperf3__metric_names(struct strvec *out)
{
	workload_metrics__names(metrics, ARRAY_SIZE(metrics), out);
}

static int store_intervals(struct store *st, int64_t trial_id,
			   const json_t *ivs)
{
	const json_t *iv;
	size_t i;
	int err = 0;

	json_array_foreach(ivs, i, iv) {
		double t0 = json_number_or_nan(iv, "start"),
		       t1 = json_number_or_nan(iv, "end");
		double bps = json_number_or_nan(iv, "bits_per_second");
		double re = json_number_or_nan(iv, "retransmits");

		if (isnan(t0) || isnan(t1) || t0 < 0 || t1 < t0)
			continue;
		if (!isnan(bps))
			err = store__interval_add(st, trial_id, "throughput",
						  t0, t1, bps, "bit/s", NULL);
		if (!err && !isnan(re))
			err = store__interval_add(st, trial_id, "retransmits",
						  t0, t1, re, "count", NULL);
		if (err)
			return err;
	}
	return 0;
}

int iperf3__store(struct store *st, int64_t trial_id, const json_t *results,
		  char **err)
{
	int ret;

	if (!json_is_number(json_object_get(results, "throughput_bps")))
		return errmsg__set(err, -EINVAL,
				   "iperf3 results have no throughput_bps");
	ret = workload_metrics__store(st, trial_id, results, metrics,
				      ARRAY_SIZE(metrics));
	if (ret)
		return ret;
	return store_intervals(st, trial_id,
			       json_object_get(results, "intervals"));
}
