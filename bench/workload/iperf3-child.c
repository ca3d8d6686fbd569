// SPDX-License-Identifier: GPL-2.0-only
/*
 * One iperf3 end, inside a forked child: the only file that includes
 * libiperf's header. The child's stdout is the parent's capture pipe;
 * libiperf would print its own JSON there too, so the pipe is kept on a
 * private descriptor and stdout becomes /dev/null before the test runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h> /* before iperf_api.h, which needs it and does not say so */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iperf_api.h>

#include "bench/workload/iperf3-priv.h"
#include "util.h"

/* iperf3's own UDP default (-u without -b): 1 Mbit/s. */
#define IPERF3_UDP_RATE (1024 * 1024)

static void setup_client(struct iperf_test *t, const struct iperf3_opts *o)
{
	iperf_set_test_server_hostname(t, o->host);
	if (o->udp) {
		set_protocol(t, Pudp);
		/* 0: libiperf sizes datagrams from the path MTU. */
		iperf_set_test_blksize(t, o->length ? (int)o->length : 0);
		iperf_set_test_rate(t, o->has_bitrate ? o->bitrate :
							IPERF3_UDP_RATE);
	} else {
		if (o->length)
			iperf_set_test_blksize(t, (int)o->length);
		iperf_set_test_rate(t, o->bitrate);
	}
	iperf_set_test_duration(t, o->duration_s ? (int)o->duration_s : 10);
	iperf_set_test_omit(t, (int)o->omit_s);
	iperf_set_test_num_streams(t, o->streams ? (int)o->streams : 1);
	iperf_set_test_reverse(t, o->reverse);
	iperf_set_test_bidirectional(t, o->bidir);
	if (o->window)
		iperf_set_test_socket_bufsize(t, (int)o->window);
	if (o->congestion)
		iperf_set_test_congestion_control(t, (char *)o->congestion);
	iperf_set_test_zerocopy(t, o->zerocopy);
	if (o->mss)
		iperf_set_test_mss(t, (int)o->mss);
	iperf_set_test_no_delay(t, o->no_delay);
	iperf_set_test_connect_timeout(t, (int)iperf3__connect_timeout_ms(o));
	if (o->interval_s > 0) {
		iperf_set_test_reporter_interval(t, o->interval_s);
		iperf_set_test_stats_interval(t, o->interval_s);
	}
}

int iperf3__child(void *arg)
{
	const struct iperf3_child *c = arg;
	const struct iperf3_opts *o = c->opts;
	struct iperf_test *t;
	const char *json;
	int out, null_fd, ret;

	out = dup(1);
	null_fd = open("/dev/null", O_WRONLY);
	if (out < 0 || null_fd < 0 || dup2(null_fd, 1) < 0) {
		fprintf(stderr, "iperf3: cannot redirect stdout: %s\n",
			strerror(errno));
		return 1;
	}
	close(null_fd);
	t = iperf_new_test();
	if (!t || iperf_defaults(t) < 0) {
		fprintf(stderr, "iperf3: cannot create a test: %s\n",
			iperf_strerror(i_errno));
		return 1;
	}
	iperf_set_test_role(t, c->server ? 's' : 'c');
	iperf_set_test_server_port(t, (int)c->port);
	if (o->bind)
		iperf_set_test_bind_address(t, o->bind);
	iperf_set_test_json_output(t, 1);
	if (c->server)
		iperf_set_test_one_off(t, 1);
	else
		setup_client(t, o);

	ret = c->server ? iperf_run_server(t) : iperf_run_client(t);
	json = iperf_get_test_json_output_string(t);
	if (json && *json) {
		if (write_all(out, json, strlen(json)))
			ret = -1;
	} else {
		/* No report to carry the error: say it on stderr. */
		fprintf(stderr, "iperf3: %s\n", iperf_strerror(i_errno));
		ret = -1;
	}
	fflush(stderr);
	iperf_free_test(t);
	close(out);
	return ret < 0 ? 1 : 0;
}

const char *iperf3__version(void)
{
	return iperf_get_iperf_version();
}
