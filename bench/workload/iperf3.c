// SPDX-License-Identifier: GPL-2.0-only
/*
 * The iperf3 runner: forks one child per iperf3 end (see iperf3-child.c),
 * knows when a one-off server is ready without connecting to it, bounds
 * every wait, and turns any failure into iperf3's own words.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/workload/iperf3-priv.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

/* How long a server may take to listen, and to finish after its client. */
#define IPERF3_LISTEN_TIMEOUT_MS 5000
#define IPERF3_SERVER_GRACE_MS 10000
/*
 * Beyond the test itself: the connection (libiperf 3.12's connect
 * timeout does not cover a SYN into the void, so this limit does) and
 * the exchange of results at the end.
 */
#define IPERF3_SLACK_MS 15000

struct iperf3_server {
	struct iperf3_opts opts;
	unsigned int n;
	struct spawn *sp;
	struct iperf3_child *child;
};

static bool bad(const char *what, unsigned long long v, unsigned long long lo,
		unsigned long long hi, char **err)
{
	if (v >= lo && v <= hi)
		return false;
	errmsg__set(err, -EINVAL,
		    "iperf3: %s %llu is out of range (expected %llu..%llu)",
		    what, v, lo, hi);
	return true;
}

int iperf3__check_opts(const struct iperf3_opts *o, bool client, char **err)
{
	unsigned int n = iperf3__nr_processes(o), port = iperf3__first_port(o);
	size_t i;

	if (o->netns && !name_is_safe(o->netns))
		return errmsg__set(err, -EINVAL,
				   "iperf3: network namespace '%s' is not a "
				   "valid name (expected [A-Za-z0-9._-], at "
				   "most 64 bytes)",
				   o->netns);
	if (bad("processes", n, 1, IPERF3_MAX_PROCESSES, err) ||
	    bad("port", port, 1, 65536 - n, err))
		return -EINVAL;
	if (o->cpus && o->nr_cpus != n)
		return errmsg__set(err, -EINVAL,
				   "iperf3: %zu CPUs given for %u processes "
				   "(expected one per process)",
				   o->nr_cpus, n);
	for (i = 0; o->cpus && i < o->nr_cpus; i++)
		if (bad("CPU", o->cpus[i], 0, CPU_SETSIZE - 1, err))
			return -EINVAL;
	if (!client)
		return 0;
	if (!o->host || !*o->host)
		return errmsg__set(err, -EINVAL,
				   "iperf3: the client needs the server's "
				   "address");
	if (o->congestion && !name_is_safe(o->congestion))
		return errmsg__set(err, -EINVAL,
				   "iperf3: congestion control '%s' is not a "
				   "valid name",
				   o->congestion);
	if (o->reverse && o->bidir)
		return errmsg__set(err, -EINVAL,
				   "iperf3: reverse and bidir exclude each "
				   "other");
	if ((o->streams && bad("streams", o->streams, 1, 128, err)) ||
	    bad("duration (s)", iperf3__duration_s(o), 1, 86400, err) ||
	    bad("omit (s)", o->omit_s, 0, 600, err) ||
	    (o->length &&
	     bad("length", o->length, 1, o->udp ? 65507 : 1 << 20, err)) ||
	    (o->window && bad("window", o->window, 1, 512u << 20, err)) ||
	    (o->mss && bad("mss", o->mss, 88, 9216, err)))
		return -EINVAL;
	return 0;
}

static unsigned int run_timeout_ms(const struct iperf3_opts *o)
{
	if (o->timeout_ms)
		return o->timeout_ms;
	return (iperf3__duration_s(o) + o->omit_s) * 1000 +
	       iperf3__connect_timeout_ms(o) + IPERF3_SLACK_MS;
}

/* iperf3's words for a failed end: its JSON error, else its stderr. */
/*
 * Every number as a double: iperf3 3.12's UDP server reports its
 * sum_sent.packets as a negative count printed unsigned (2^64 - n),
 * which an integer parse refuses, and with it the whole report. The
 * results read numbers as doubles anyway (iperf3-results.c).
 */
#define IPERF3_JSON_FLAGS JSON_DECODE_INT_AS_REAL

/* iperf3's words as a new string, for the caller's char **err. */
static char *report_failure(const char *side, unsigned int port,
			    const struct spawn *sp)
{
	char line[512], how[96], *why;
	json_t *j = sp->out ? json_loads(sp->out, IPERF3_JSON_FLAGS, NULL) :
			      NULL;
	const char *e = json_string_value(json_object_get(j, "error"));

	if (!e && sp->err)
		e = *spawn__last_line(sp->err, line, sizeof(line)) ? line :
								     NULL;
	why = xasprintf("iperf3 %s on port %u: %s", side, port,
			e ? e : spawn__describe(sp, how, sizeof(how)));
	json_decref(j);
	return why;
}

static int start_ends(const struct iperf3_opts *o, bool server,
		      struct spawn *sp, struct iperf3_child *child, size_t n)
{
	unsigned int port = iperf3__first_port(o);
	struct spawn_opts so = {
		.flags = SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR,
		.netns = o->netns,
		.pdeathsig = SIGKILL,
	};
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		child[i] = (struct iperf3_child){ o, port + i, server };
		so.pin = o->cpus != NULL;
		so.cpu = o->cpus ? o->cpus[i] : 0;
		err = spawn__fn(&sp[i], iperf3__child, &child[i],
				server ? "iperf3 server" : "iperf3 client",
				&so);
		if (err)
			return err;
	}
	return 0;
}

static bool has_inode(pid_t pid, unsigned long inode)
{
	char path[64], link[64], want[48];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		ssize_t len;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", path, de->d_name);
		len = readlink(p, link, sizeof(link) - 1);
		free(p);
		if (len > 0) {
			link[len] = '\0';
			found = !strcmp(link, want);
		}
	}
	closedir(d);
	return found;
}

/*
 * Whether @pid owns a TCP socket listening on @port. /proc/PID/net is
 * the table of that process's own network namespace, so this works for
 * a server in another namespace; owning the socket rules out a stale
 * iperf3 on the same port.
 */
static bool listening(pid_t pid, unsigned int port)
{
	static const char *const files[] = { "tcp", "tcp6" };
	bool found = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files) && !found; i++) {
		char path[64], line[512];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid,
			 files[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			unsigned int lport, st;
			unsigned long inode;

			if (sscanf(line,
				   " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x "
				   "%x %*s %*s %*s %*s %*s %lu",
				   &lport, &st, &inode) != 3)
				continue;
			found = lport == port && st == 0x0A &&
				has_inode(pid, inode);
		}
		fclose(f);
	}
	return found;
}

static int wait_listening(struct iperf3_server *s, char **err)
{
	unsigned int port = iperf3__first_port(&s->opts);
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	int waited = 0;
	unsigned int i = 0;

	while (i < s->n) {
		if (listening(s->sp[i].pid, port + i)) {
			i++;
			continue;
		}
		if (!spawn__wait(&s->sp[i], 0)) {
			errmsg__move(err, 0,
				     report_failure("server", port + i,
						    &s->sp[i]));
			return -EIO;
		}
		if (waited >= IPERF3_LISTEN_TIMEOUT_MS)
			return errmsg__set(err, -ETIMEDOUT,
					   "iperf3 server on port %u is not "
					   "listening after %d ms",
					   port + i, IPERF3_LISTEN_TIMEOUT_MS);
		nanosleep(&tick, NULL);
		waited += 5;
	}
	return 0;
}

int iperf3__server_start(const struct iperf3_opts *o,
			 struct iperf3_server **out, char **err)
{
	struct iperf3_server *s;
	int ret;

	*out = NULL;
	ret = iperf3__check_opts(o, false, err);
	if (ret)
		return ret;
	s = xcalloc(1, sizeof(*s));
	s->opts = *o;
	s->n = iperf3__nr_processes(o);
	s->sp = xcalloc(s->n, sizeof(*s->sp));
	s->child = xcalloc(s->n, sizeof(*s->child));
	ret = start_ends(&s->opts, true, s->sp, s->child, s->n);
	if (ret)
		errmsg__set(err, ret, "iperf3: cannot start a server: %s",
			    strerror(-ret));
	else
		ret = wait_listening(s, err);
	if (ret) {
		iperf3__server_stop(s);
		return ret;
	}
	*out = s;
	return 0;
}

static json_t *parse_report(const struct spawn *sp)
{
	if (!sp->out || !sp->out_len)
		return NULL;
	return json_loadb(sp->out, sp->out_len, IPERF3_JSON_FLAGS, NULL);
}

int iperf3__server_wait(struct iperf3_server *s, int timeout_ms,
			json_t **reports, char **err)
{
	unsigned int port = iperf3__first_port(&s->opts);
	struct spawn **v = xcalloc(s->n, sizeof(*v));
	json_t *arr = json_array();
	unsigned int i;
	bool said = false;
	int ret;

	for (i = 0; i < s->n; i++)
		v[i] = &s->sp[i];
	ret = spawn__wait_many(v, s->n,
			       timeout_ms < 0 ? (int)run_timeout_ms(&s->opts) :
						timeout_ms);
	for (i = 0; i < s->n; i++) {
		json_t *r = s->sp[i].reaped ? parse_report(&s->sp[i]) : NULL;

		/* The first failure's words: the others follow from it. */
		if (!s->sp[i].reaped) {
			if (!said)
				errmsg__set(err, 0,
					    "iperf3 server on port %u still "
					    "running after its test",
					    port + i);
			said = true;
			ret = ret ? ret : -ETIMEDOUT;
		} else if (!r || json_object_get(r, "error") ||
			   !spawn__succeeded(&s->sp[i])) {
			char *why =
				report_failure("server", port + i, &s->sp[i]);

			/* The caller learns why from the report. */
			if (!json_object_get(r, "error")) {
				if (!json_is_object(r)) {
					json_decref(r);
					r = json_object();
				}
				json_object_set_new(r, "error",
						    json_string(why));
			}
			if (!said)
				errmsg__move(err, 0, why);
			else
				free(why);
			said = true;
			ret = ret ? ret : -EIO;
		}
		json_array_append_new(arr, r ? r : json_null());
	}
	free(v);
	if (reports)
		*reports = arr;
	else
		json_decref(arr);
	return ret;
}

void iperf3__server_stop(struct iperf3_server *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		spawn__release(&s->sp[i]);
	free_all(s->sp, s->child, s);
}

/* The clients' reports, or the first failure in iperf3's words. */
static int collect_clients(const struct iperf3_opts *o, struct spawn *sp,
			   size_t n, json_t **reports, char **err)
{
	unsigned int port = iperf3__first_port(o);
	int ret = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		reports[i] = parse_report(&sp[i]);
		if (ret)
			continue;
		if (!reports[i] || json_object_get(reports[i], "error") ||
		    !spawn__succeeded(&sp[i])) {
			errmsg__move(err, 0,
				     report_failure("client", port + i,
						    &sp[i]));
			ret = -EIO;
		}
	}
	return ret;
}

int iperf3__client_run(const struct iperf3_opts *o, json_t **results,
		       char **err)
{
	size_t i, n = iperf3__nr_processes(o);
	unsigned int first = iperf3__first_port(o);
	struct spawn *sp, **v;
	struct iperf3_child *child;
	json_t **reports;
	unsigned int *ports;
	int ret;

	*results = NULL;
	ret = iperf3__check_opts(o, true, err);
	if (ret)
		return ret;
	sp = xcalloc(n, sizeof(*sp));
	v = xcalloc(n, sizeof(*v));
	child = xcalloc(n, sizeof(*child));
	reports = xcalloc(n, sizeof(*reports));
	ports = xcalloc(n, sizeof(*ports));
	for (i = 0; i < n; i++) {
		v[i] = &sp[i];
		ports[i] = first + i;
	}
	ret = start_ends(o, false, sp, child, n);
	if (ret) {
		errmsg__set(err, ret, "iperf3: cannot start a client: %s",
			    strerror(-ret));
		goto out;
	}
	ret = spawn__wait_many(v, n, (int)run_timeout_ms(o));
	if (ret == -ETIMEDOUT) {
		errmsg__set(err, ret,
			    "iperf3 client(s) to %s, ports %u..%u, did not "
			    "finish within %u ms; killed",
			    o->host, first, first + (unsigned int)n - 1,
			    run_timeout_ms(o));
		goto out;
	}
	ret = collect_clients(o, sp, n, reports, err);
	if (!ret)
		ret = iperf3__summarize(reports, ports, n, o, results, err);
out:
	for (i = 0; i < n; i++) {
		spawn__release(&sp[i]);
		json_decref(reports[i]);
	}
	free_all(sp, v, child, reports, ports);
	return ret;
}

int iperf3__run(const struct iperf3_opts *server,
		const struct iperf3_opts *client, json_t **results, char **err)
{
	struct iperf3_server *s;
	json_t *reports = NULL;
	int ret;

	*results = NULL;
	ret = iperf3__check_opts(client, true, err);
	if (ret)
		return ret;
	if (iperf3__first_port(server) != iperf3__first_port(client) ||
	    iperf3__nr_processes(server) != iperf3__nr_processes(client))
		return errmsg__set(err, -EINVAL,
				   "iperf3: server ports %u+%u and client "
				   "ports %u+%u differ",
				   iperf3__first_port(server),
				   iperf3__nr_processes(server),
				   iperf3__first_port(client),
				   iperf3__nr_processes(client));
	ret = iperf3__server_start(server, &s, err);
	if (ret)
		return ret;
	ret = iperf3__client_run(client, results, err);
	if (!ret &&
	    iperf3__server_wait(s, IPERF3_SERVER_GRACE_MS, &reports, NULL))
		pr_warn("iperf3: the clients succeeded but a server did not "
			"end cleanly");
	/* The servers received what the clients sent (unless reversed). */
	if (!ret)
		iperf3__add_received(*results, reports);
	json_decref(reports);
	iperf3__server_stop(s);
	return ret;
}
