// SPDX-License-Identifier: GPL-2.0-only
/*
 * iperf3.server / iperf3.wait / iperf3.client. The server runs in the
 * background of the serve process, so that the controller can start the
 * client on the other host between iperf3.server and iperf3.wait.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench/agent/agent.h"
#include "bench/workload/iperf3.h"
#include "errmsg.h"
#include "units.h"
#include "util.h"

/* Keys of the plan's workload object that are the controller's. */
static const char *const ignored_keys[] = { "name",   "type", "server",
					    "client", "sut",  "trial_seconds",
					    NULL };

static bool is_ignored(const char *key)
{
	const char *const *k;

	for (k = ignored_keys; *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}

static int get_uint(json_t *v, const char *key, unsigned int max,
		    unsigned int *out, char **err)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > max)
		return errmsg__set(err, -EINVAL,
				   "iperf3: \"%s\" must be an integer 0..%u",
				   key, max);
	*out = (unsigned int)json_integer_value(v);
	return 0;
}

static int get_bool(json_t *v, const char *key, bool *out, char **err)
{
	if (!json_is_boolean(v))
		return errmsg__set(err, -EINVAL,
				   "iperf3: \"%s\" must be true or false", key);
	*out = json_is_true(v);
	return 0;
}

/* Sizes and bitrates: bytes / bit/s as an integer, or "128K", "10G". */
static int get_amount(json_t *v, const char *key, bool bits, uint64_t *out,
		      char **err)
{
	char msg[128];

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return errmsg__set(err, -EINVAL,
				   "iperf3: \"%s\" must be an integer or a "
				   "string like \"128K\"",
				   key);
	if ((bits ? units__parse_bitrate : units__parse_size)(
		    json_string_value(v), out, msg, sizeof(msg)) < 0)
		return errmsg__set(err, -EINVAL, "iperf3: \"%s\": %s", key,
				   msg);
	return 0;
}

static int get_str(json_t *v, const char *key, const char **out, char **err)
{
	const char *s = json_string_value(v);

	/* Addresses and algorithm names: the safe charset plus ':' (IPv6). */
	if (!s || !*s || s[0] == '-' ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789.:_-") != strlen(s))
		return errmsg__set(err, -EINVAL,
				   "iperf3: bad \"%s\" (expected an address or "
				   "name of [A-Za-z0-9.:_-])",
				   key);
	*out = s;
	return 0;
}

/* A CPU, a list of one per process, or {server, client} of either. */
static int get_affinity(json_t *v, bool client, int **cpus, size_t *n,
			char **err)
{
	size_t i;

	if (json_is_object(v))
		v = json_object_get(v, client ? "client" : "server");
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v))
		v = json_pack("[O]", v);
	else if (json_is_array(v))
		json_incref(v);
	else
		return errmsg__set(err, -EINVAL,
				   "iperf3: \"affinity\" must be a CPU number, "
				   "a list of them or {server, client}");
	*n = json_array_size(v);
	*cpus = xcalloc(*n ? *n : 1, sizeof(**cpus));
	for (i = 0; i < *n; i++) {
		json_t *c = json_array_get(v, i);

		if (!json_is_integer(c) || json_integer_value(c) < 0 ||
		    json_integer_value(c) > 4095) {
			json_decref(v);
			return errmsg__set(
				err, -EINVAL,
				"iperf3: \"affinity\" entry %zu must "
				"be a CPU number 0..4095",
				i);
		}
		(*cpus)[i] = (int)json_integer_value(c);
	}
	json_decref(v);
	return 0;
}

/*
 * The plain numbers and switches: each is a field of struct iperf3_opts
 * (an unsigned int with one bound, or a bool), so one table says them all.
 */
#define OPT(f) offsetof(struct iperf3_opts, f)
static const struct {
	const char *key;
	bool is_bool;
	unsigned int max;
	size_t off;
} plain_keys[] = {
	{ "streams", false, 128, OPT(streams) },
	{ "processes", false, IPERF3_MAX_PROCESSES, OPT(processes) },
	{ "duration_seconds", false, 86400, OPT(duration_s) },
	{ "omit_seconds", false, 600, OPT(omit_s) },
	{ "port", false, 65535, OPT(port) },
	{ "mss", false, 9216, OPT(mss) },
	{ "timeout_ms", false, 86400000, OPT(timeout_ms) },
	{ "connect_timeout_ms", false, 600000, OPT(connect_timeout_ms) },
	{ "reverse", true, 0, OPT(reverse) },
	{ "bidir", true, 0, OPT(bidir) },
	{ "zerocopy", true, 0, OPT(zerocopy) },
	{ "no_delay", true, 0, OPT(no_delay) },
};
#undef OPT

static int parse_key(const char *key, json_t *v, struct iperf3_opts *o,
		     char **err)
{
	unsigned int s;
	size_t i;
	int ret;

	if (!strcmp(key, "protocol")) {
		const char *p = json_string_value(v);

		if (!p || (strcmp(p, "tcp") && strcmp(p, "udp")))
			return errmsg__set(
				err, -EINVAL,
				"iperf3: \"protocol\" must be \"tcp\" "
				"or \"udp\"");
		o->udp = !strcmp(p, "udp");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(plain_keys); i++) {
		void *field = (char *)o + plain_keys[i].off;

		if (strcmp(key, plain_keys[i].key))
			continue;
		if (plain_keys[i].is_bool)
			return get_bool(v, key, field, err);
		return get_uint(v, key, plain_keys[i].max, field, err);
	}
	if (!strcmp(key, "length"))
		return get_amount(v, key, false, &o->length, err);
	if (!strcmp(key, "window"))
		return get_amount(v, key, false, &o->window, err);
	if (!strcmp(key, "bitrate")) {
		o->has_bitrate = true;
		return get_amount(v, key, true, &o->bitrate, err);
	}
	if (!strcmp(key, "host"))
		return get_str(v, key, &o->host, err);
	if (!strcmp(key, "bind"))
		return get_str(v, key, &o->bind, err);
	if (!strcmp(key, "congestion"))
		return get_str(v, key, &o->congestion, err);
	if (!strcmp(key, "interval_seconds")) {
		ret = get_uint(v, key, 60, &s, err);
		o->interval_s = s;
		return ret;
	}
	if (!strcmp(key, "affinity") || is_ignored(key))
		return 0;
	return errmsg__set(err, -EINVAL,
			   "iperf3: unknown key \"%s\" (expected the iperf3 "
			   "keys of a workload, host, bind)",
			   key);
}

/* @args into @o; strings point into @args, CPUs into *@cpus (free). */
static int iperf3_opts_from_json(json_t *args, bool client,
				 struct iperf3_opts *o, int **cpus, char **err)
{
	const char *key;
	json_t *v;
	int ret;

	*o = (struct iperf3_opts){ 0 };
	*cpus = NULL;
	json_object_foreach(args, key, v) {
		if (json_is_null(v))
			continue;
		ret = parse_key(key, v, o, err);
		if (ret < 0)
			return ret;
	}
	ret = get_affinity(json_object_get(args, "affinity"), client, cpus,
			   &o->nr_cpus, err);
	if (ret < 0)
		return ret;
	o->cpus = *cpus;
	if (client && !o->host)
		return errmsg__set(err, -EINVAL,
				   "iperf3.client: \"host\" (the server's "
				   "address) is missing");
	return iperf3__check_opts(o, client, err);
}

void agent_iperf3__release(struct agent *a)
{
	iperf3__server_stop(a->iperf3);
	a->iperf3 = NULL;
	json_decref(a->iperf3_args);
	a->iperf3_args = NULL;
	free(a->iperf3_cpus);
	a->iperf3_cpus = NULL;
}

int agent_verb__iperf3_server(struct agent *a, json_t *args, json_t **res,
			      char **err)
{
	struct iperf3_opts o;
	json_t *ports;
	unsigned int i, port;
	char *why = NULL;
	int ret;

	if (a->iperf3)
		return errmsg__set(err, -EBUSY,
				   "iperf3.server: a server already runs; send "
				   "iperf3.wait first");
	ret = iperf3_opts_from_json(args, false, &o, &a->iperf3_cpus, err);
	if (ret < 0)
		goto fail;
	a->iperf3_args = json_incref(args);
	ret = iperf3__server_start(&o, &a->iperf3, &why);
	if (ret < 0) {
		errmsg__set(err, ret, "iperf3.server: cannot start: %s",
			    why ? why : strerror(-ret));
		free(why);
		goto fail;
	}
	ports = json_array();
	port = o.port ? o.port : IPERF3_DEFAULT_PORT;
	for (i = 0; i < (o.processes ? o.processes : 1); i++)
		json_array_append_new(ports, json_integer(port + i));
	*res = json_pack("{s:o}", "ports", ports);
	return 0;
fail:
	a->iperf3 = NULL;
	agent_iperf3__release(a);
	return ret;
}

/* iperf3's own words for a server that failed, where its JSON has them. */
static const char *reports_error(const json_t *reports)
{
	const json_t *r;
	size_t i;

	json_array_foreach(reports, i, r) {
		const char *e = json_string_value(json_object_get(r, "error"));

		if (e)
			return e;
	}
	return NULL;
}

int agent_verb__iperf3_wait(struct agent *a, json_t *args, json_t **res,
			    char **err)
{
	json_t *t = json_object_get(args, "timeout_ms");
	json_t *reports = NULL;
	char *words = NULL;
	int ret;

	if (!a->iperf3)
		return errmsg__set(err, -EINVAL,
				   "iperf3.wait: no iperf3.server before it");
	if (t && !json_is_integer(t))
		return errmsg__set(err, -EINVAL,
				   "iperf3.wait: \"timeout_ms\" must be an "
				   "integer");
	ret = iperf3__server_wait(a->iperf3,
				  t ? (int)json_integer_value(t) : -1, &reports,
				  &words);
	agent_iperf3__release(a);
	if (ret < 0) {
		const char *why = reports_error(reports);

		ret = errmsg__set(err, ret,
				  "iperf3.wait: the server failed: %s",
				  why	? why :
				  words ? words :
					  strerror(-ret));
		json_decref(reports);
		free(words);
		return ret;
	}
	*res = json_pack("{s:o}", "reports", reports ? reports : json_array());
	return 0;
}

int agent_verb__iperf3_client(struct agent *a, json_t *args, json_t **res,
			      char **err)
{
	struct iperf3_opts o;
	int *cpus = NULL;
	char *why = NULL;
	int ret;

	(void)a;
	ret = iperf3_opts_from_json(args, true, &o, &cpus, err);
	if (ret < 0)
		goto out;
	ret = iperf3__client_run(&o, res, &why);
	if (ret < 0)
		errmsg__set(err, ret, "iperf3.client to %s: %s", o.host,
			    why ? why : strerror(-ret));
out:
	free(why);
	free(cpus);
	return ret;
}
