// SPDX-License-Identifier: GPL-2.0-only
/*
 * A device of a LAVA lab as a host: each boot the run asks for is a LAVA
 * job, submitted through the lab's REST API, that boots the device with
 * the kernel and command line of that boot and keeps it up until the
 * agent powers it off. The device shares nothing with us: its worker
 * fetches the kernel and an initramfs carrying the agent's whole root
 * from our artifact server (by sha256), and the agent in the device
 * dials our agent port and proves the job's secret, which only that
 * initramfs carries, before anything it says is trusted. From then on
 * the host is the testbed's: verification, trials, probes. The lab
 * decides when the job runs (queueing) and on which device; a job that
 * ends early (Incomplete, Canceled) fails that boot with LAVA's own
 * reason.
 *
 * Each job is reported to the run (h->jobs, which keeps it in the store's
 * lab_jobs) from its submission on, so a
 * run killed with SIGKILL and resumed adopts the job still booted for
 * the boot it needs (same definition) and cancels any other it left,
 * instead of queueing a second job for the same boot.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/agent-client/agent-listen.h"
#include "bench/agent-client/agent-sock.h"
#include "bench/host/host-priv.h"
#include "bench/host/host.h"
#include "bench/host/lava/lava-artifacts.h"
#include "bench/host/lava/lava.h"
#include "bench/host/qemu/qemu.h"
#include "chan-auth.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "suggest.h"
#include "util.h"

#define API_TIMEOUT_MS 30000
#define POLL_MS 2000
#define QUEUE_SAY_MS 15000
#define AGENT_TIMEOUT_MS 30000
#define END_WAIT_MS 90000
#define FETCH_WAIT_MS 90000

struct lava_priv {
	struct qemu_vm vm;
	struct lava_api api;
	char *root; /* the agent's root, an initramfs part */
	struct artifact_server *art;
	struct agent_listen *listen;
	/* The booted job's: its agent proves it (never said or stored). */
	uint8_t secret[CHAN_SECRET_SIZE];
	char *secret_file; /* where a resumed run finds it */
	struct lava_files files;
	struct agent_dial dial;
	int64_t job; /* the job booted now; 0: none */
	long long job_t0;
	long long run_t0; /* when LAVA said the job runs */
	bool adopted;	  /* the job is a killed run's */
	long long next_poll;
	char *device;
};

/* The token, from the file or variable the matrix names; never said. */
static int read_token(struct host *h, char **out, char **err)
{
	const struct matrix_lava *l = lava_conf(h->m);
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int ret;

	if (l->token_env) {
		const char *v = getenv(l->token_env);

		if (!v || !*v)
			return errmsg__set(err, -ENOKEY,
					   "host %s: token_env: $%s is not set "
					   "(it should hold the lab's API "
					   "token)",
					   h->m->name, l->token_env);
		*out = xstrdup(v);
	} else {
		ret = read_file(l->token_file, &buf, &len);
		if (ret < 0) {
			free(buf);
			return errmsg__set(err, ret,
					   "host %s: token_file: cannot read "
					   "%s: %s",
					   h->m->name, l->token_file,
					   strerror(-ret));
		}
		if (!stat(l->token_file, &st) && (st.st_mode & 0077))
			pr_warn("host %s: token_file %s can be read by others "
				"(mode %03o); chmod 600 it",
				h->m->name, l->token_file, st.st_mode & 0777);
		*out = buf;
	}
	/* One token: what follows the first line is not part of it. */
	(*out)[strcspn(*out, "\r\n")] = '\0';
	if (!**out || strpbrk(*out, " \t")) {
		errmsg__set(err, -ENOKEY,
			    "host %s: the API token in %s%s is %s", h->m->name,
			    l->token_env ? "$" : "",
			    l->token_env ? l->token_env : l->token_file,
			    **out ? "not one word" : "empty");
		free(*out);
		*out = NULL;
		return -ENOKEY;
	}
	return 0;
}

/*
 * Every tag the matrix asks for is one the lab has: LAVA 2023.01 answers
 * a job with an unknown tag with an HTTP 500 page, not words.
 */
static int check_tags(struct host *h, struct lava_priv *p, char **err)
{
	const struct matrix_lava *l = lava_conf(h->m);
	json_t *res = NULL;
	char **names, *why = NULL;
	size_t nr = 0, i;
	int ret;

	if (!l->nr_tags)
		return 0;
	ret = lava_api__call(&p->api, "GET", "/api/v0.2/tags/?limit=1000", NULL,
			     API_TIMEOUT_MS, &res, &why);
	if (ret) {
		errmsg__set(err, ret, "host %s: %s", h->m->name, why);
		free(why);
		return ret;
	}
	/* The tags' answer has the device types' shape: names. */
	names = lava__names(res, &nr);
	json_decref(res);
	for (i = 0; i < l->nr_tags; i++) {
		const char *best;
		size_t n;

		for (n = 0; n < nr && strcmp(names[n], l->tags[i]); n++)
			;
		if (n < nr)
			continue;
		best = suggest__best(l->tags[i], (const char *const *)names);
		/* Every tag it lacks, not only the first. */
		ret = errmsg__set(err, -ENOENT,
				  "%s%shost %s: tags: LAVA at %s has no device "
				  "tag '%s'%s%s%s",
				  why ? why : "", why ? "; " : "", h->m->name,
				  p->api.server, l->tags[i],
				  best ? "; did you mean '" : "",
				  best ? best : "", best ? "'?" : "");
		if (err) {
			free(why);
			why = xstrdup(*err);
		}
	}
	free(why);
	strv_free(names, nr);
	return ret;
}

/*
 * The device type's template is the one the matrix says it extends: ours
 * leaves the NIC to the job, LAVA's stock one adds its own, so a wrong
 * word boots a guest with no NIC, or with two. A template LAVA cannot
 * show (none installed yet) is left to the job to find out.
 */
static int check_template(struct host *h, struct lava_priv *p, char **err)
{
	const struct matrix_lava *l = lava_conf(h->m);
	char *path, *text = NULL, *why = NULL;
	bool ours;
	int ret;

	path = xasprintf("/api/v0.2/devicetypes/%s/template/", l->device_type);
	ret = lava_api__text(&p->api, path, API_TIMEOUT_MS, &text, &why);
	free(path);
	if (ret) {
		pr_debug("host %s: the template of device type %s: %s",
			 h->m->name, l->device_type, why);
		free(why);
		return 0;
	}
	ours = strstr(text, LAVA_TEMPLATE_NAME) != NULL;
	free(text);
	if (ours && l->template != LAVA_TEMPLATE_IOMMU_BENCH)
		return errmsg__set(err, -EINVAL,
				   "host %s: template: device type '%s' at %s "
				   "extends iommu-bench's template, which "
				   "leaves the NIC to the job; set template = "
				   "\"iommu-bench\"",
				   h->m->name, l->device_type, p->api.server);
	if (!ours && l->template == LAVA_TEMPLATE_IOMMU_BENCH)
		return errmsg__set(err, -EINVAL,
				   "host %s: template: device type '%s' at %s "
				   "does not extend iommu-bench's template "
				   "(" LAVA_TEMPLATE_NAME
				   ".jinja2), so its jobs would boot without "
				   "the NIC they ask for; its lab's admin "
				   "installs it (docs/lava.md), or set "
				   "template = \"qemu\"",
				   h->m->name, l->device_type, p->api.server);
	return 0;
}

/* The device type exists, and the token is one the lab takes. */
static int check_lab(struct host *h, struct lava_priv *p, char **err)
{
	const char *type = lava_conf(h->m)->device_type;
	json_t *res = NULL;
	char *path, *why = NULL;
	int ret;

	path = xasprintf("/api/v0.2/devicetypes/%s/", type);
	ret = lava_api__call(&p->api, "GET", path, NULL, API_TIMEOUT_MS, &res,
			     &why);
	free(path);
	json_decref(res);
	if (ret == -ENOENT) {
		char **names = NULL, *hint = NULL;
		size_t nr = 0, i;

		free(why);
		why = NULL;
		if (!lava_api__call(&p->api, "GET",
				    "/api/v0.2/devicetypes/?limit=1000", NULL,
				    API_TIMEOUT_MS, &res, &why)) {
			const char *best;
			char *list = NULL;

			names = lava__names(res, &nr);
			best = suggest__best(type, (const char *const *)names);
			for (i = 0; i < nr; i++) {
				char *s = xasprintf("%s%s%s", list ? list : "",
						    list ? ", " : "", names[i]);
				free(list);
				list = s;
			}
			hint = best ? xasprintf("; did you mean '%s'?", best) :
				      xasprintf(" (it has: %s)",
						list ? list : "none");
			free(list);
		}
		json_decref(res);
		errmsg__set(err, ret,
			    "host %s: device_type: LAVA at %s has no device "
			    "type '%s'%s",
			    h->m->name, p->api.server, type, hint ? hint : "");
		free(hint);
		strv_free(names, nr);
		free(why);
		return ret;
	}
	if (ret) {
		errmsg__set(err, ret, "host %s: %s", h->m->name, why);
		free(why);
		return ret;
	}
	ret = check_template(h, p, err);
	if (ret)
		return ret;
	return check_tags(h, p, err);
}

/*
 * Our two ports on the address the lab reaches: the job's files, and
 * the agents' channel. A port another run holds is said as such.
 */
static int open_servers(struct host *h, struct lava_priv *p, char **err)
{
	const struct matrix_lava *l = lava_conf(h->m);
	char *label = xasprintf("host %s", h->m->name), *why = NULL;
	int ret;

	ret = artifact_server__start(l->controller, (uint16_t)l->http_port,
				     label, &p->art, &why);
	if (!ret)
		ret = agent_listen__open(l->controller, (uint16_t)l->agent_port,
					 h->m->name, &p->listen, &why);
	free(label);
	if (ret) {
		errmsg__set(err, ret,
			    "host %s: %s (controller = \"%s\" must be an "
			    "address of this machine that the lab reaches; "
			    "http_port %u and agent_port %u must be free)",
			    h->m->name, why, l->controller, l->http_port,
			    l->agent_port);
		free(why);
		return ret;
	}
	label = lava__hostport(l->controller, l->http_port);
	host__say(h,
		  "host %s: serving the jobs' files at http://%s/, agents "
		  "connect to port %u",
		  h->m->name, label, l->agent_port);
	free(label);
	return 0;
}

/* The agent that dialed us and proved the booted job's secret. */
static int dial_lab(void *arg, struct agent_conn **out)
{
	struct host *h = arg;
	struct lava_priv *p = h->priv;
	char *err = NULL;
	int ret;

	ret = agent_listen__accept(p->listen, p->secret, sizeof(p->secret), 100,
				   out, &err);
	if (ret == -EACCES)
		host__say(h, "host %s: %s", h->m->name, err);
	else if (ret && ret != -EAGAIN)
		/* user-mode networking's NAT opens a connection to us as
		 * soon as the guest's SYN leaves, and drops it when the
		 * guest gave up on it (no route yet): no news. */
		pr_debug("host %s: %s", h->m->name, err ? err : "");
	free(err);
	return ret;
}

static int lava_host__open(struct host *h, char **err)
{
	struct lava_priv *p;
	char *token = NULL;
	int ret;

	if (h->priv)
		return 0;
	p = xcalloc(1, sizeof(*p));
	h->priv = p;
	p->dial.dial = dial_lab;
	p->dial.arg = h;
	ret = qemu_vm__lock(h, &p->vm, "lava", err);
	if (ret)
		return ret;
	ret = read_token(h, &token, err);
	if (ret)
		return ret;
	ret = lava_api__init(&p->api, lava_conf(h->m)->server, token);
	explicit_bzero(token, strlen(token));
	free(token);
	if (ret)
		return errmsg__set(err, ret,
				   "host %s: cannot start a client "
				   "of %s: %s",
				   h->m->name, lava_conf(h->m)->server,
				   strerror(-ret));
	ret = check_lab(h, p, err);
	if (ret)
		return ret;
	pr_info("host %s: LAVA at %s, device type %s", h->m->name,
		p->api.server, lava_conf(h->m)->device_type);
	ret = qemu_vm__files(h, &p->vm, err);
	if (ret)
		return ret;
	ret = lava_root__make(qemu_conf(h->m)->arch, &p->root, err);
	if (ret)
		return ret;
	return open_servers(h, p, err);
}

static int job_get(struct lava_priv *p, int64_t id, struct lava_job *j,
		   char **err)
{
	char *path = xasprintf("/api/v0.2/jobs/%lld/", (long long)id);
	json_t *res = NULL;
	int ret;

	ret = lava_api__call(&p->api, "GET", path, NULL, API_TIMEOUT_MS, &res,
			     err);
	free(path);
	if (!ret)
		ret = lava_job__parse(res, j, err);
	json_decref(res);
	return ret;
}

/* A job whose files nobody fetched: the lab cannot reach us. */
static const char *unfetched(struct lava_priv *p)
{
	if (!p->art || !p->files.kernel_url ||
	    artifact_server__fetched(p->art, p->files.kernel_sha, NULL))
		return "";
	return "; nothing fetched its kernel from this machine's artifact "
	       "server: can the lab's workers reach the controller "
	       "address and http_port?";
}

static char *job_reason(struct lava_priv *p, const struct lava_job *j);

/*
 * A multinode job's other device, when its job ended first: LAVA then
 * cancels this one's (both roles are essential), so the reason is there.
 * "; ..." or "", a new string.
 */
static char *mate_reason(struct host *h)
{
	struct lava_priv *mp = h->mate ? h->mate->priv : NULL;
	struct lava_job j;
	char *err = NULL, *why, *s;

	/* (A SUT's job ending cancels its peer's: no news there.) */
	if (!mp || !mp->job || h->m->role != ROLE_SUT ||
	    job_get(mp, mp->job, &j, &err)) {
		free(err);
		return xstrdup("");
	}
	if (j.state != LAVA_FINISHED && j.state != LAVA_ENDING) {
		lava_job__release(&j);
		return xstrdup("");
	}
	why = job_reason(mp, &j);
	s = xasprintf("; its peer device, host %s: %s", h->mate->m->name, why);
	free(why);
	lava_job__release(&j);
	return s;
}

/* LAVA's reason for a job that ended; a new string. */
static char *job_reason(struct lava_priv *p, const struct lava_job *j)
{
	char *path = xasprintf("/api/v0.2/jobs/%lld/tests/?limit=500",
			       (long long)j->id);
	json_t *res = NULL;
	char *err = NULL, *why = NULL, *s;

	if (!lava_api__call(&p->api, "GET", path, NULL, API_TIMEOUT_MS, &res,
			    &err))
		why = lava_job__error(res);
	json_decref(res);
	free(err);
	free(path);
	s = xasprintf("LAVA job %lld ended %s%s%s (its log: "
		      "%s/scheduler/job/%lld)%s",
		      (long long)j->id, j->health ? j->health : "unknown",
		      why ? ": " : "", why ? why : "", p->api.server,
		      (long long)j->id, unfetched(p));
	free(why);
	return s;
}

static void job_store(struct host *h, int64_t id, const char *state,
		      const char *health, const char *device, const char *error)
{
	struct lava_priv *p = h->priv;
	struct host_job j = {
		.server = p->api.server,
		.id = id,
		.state = (char *)state,
		.health = (char *)health,
		.device = (char *)device,
		.error = (char *)error,
	};

	if (h->jobs && h->jobs->set(h->jobs_arg, &j))
		pr_warn("host %s: LAVA job %lld: not kept as %s", h->m->name,
			(long long)id, state);
}

static void job_cancel(struct host *h, int64_t id)
{
	struct lava_priv *p = h->priv;
	char *path = xasprintf("/api/v0.2/jobs/%lld/cancel/", (long long)id);
	json_t *res = NULL;
	char *err = NULL;

	/* LAVA 2023.01 cancels on GET; POST is refused (405). */
	if (lava_api__call(&p->api, "GET", path, NULL, API_TIMEOUT_MS, &res,
			   &err))
		pr_warn("host %s: cannot cancel LAVA job %lld: %s", h->m->name,
			(long long)id, err);
	else
		host__say(h, "host %s: LAVA job %lld canceled", h->m->name,
			  (long long)id);
	json_decref(res);
	free(err);
	free(path);
	job_store(h, id, "ended", "Canceled", NULL, NULL);
}

static void secret_forget(struct lava_priv *p)
{
	if (p->secret_file)
		unlink(p->secret_file);
}

/*
 * End the job booted now: the agent powers the guest off, which is the
 * end the job's monitor waits for, and LAVA finishes it Complete. A
 * guest that cannot be reached, an interrupted run, or a job that does
 * not finish in time is canceled instead.
 */
static int never_gone(void *arg, char **err)
{
	(void)arg;
	(void)err;
	return 0;
}

static char *no_console(void *arg)
{
	(void)arg;
	return xstrdup("");
}

static void job_end(struct host *h, struct lava_priv *p)
{
	const struct agent_sock_watch quick = { never_gone, no_console, NULL };
	struct agent_conn *c = p->vm.ready;
	struct lava_job j;
	long long end;
	char *err = NULL;
	int64_t id = p->job;
	json_t *res = NULL;
	int ret = 0;

	p->vm.ready = NULL;
	/* Only a job still booted needs its secret kept for a resume. */
	secret_forget(p);
	if (!id) {
		if (c)
			agent_conn__close(c);
		return;
	}
	p->job = 0;
	free(p->device);
	p->device = NULL;
	if (h->interrupted && h->interrupted()) {
		if (c)
			agent_conn__close(c);
		job_cancel(h, id);
		return;
	}
	/* A job LAVA ended meanwhile (a multinode job's, canceled with its
	 * peer's) has no guest left to wait for. */
	if (!c && !job_get(p, id, &j, &err)) {
		bool ended = j.state == LAVA_FINISHED || j.state == LAVA_ENDING;

		/* Canceling ends Canceled. */
		if (ended)
			job_store(h, id, "ended",
				  j.state == LAVA_ENDING ? "Canceled" :
							   j.health,
				  NULL, NULL);
		lava_job__release(&j);
		if (ended)
			return;
	}
	free(err);
	err = NULL;
	/* The wait every agent is given: 10 s of its own canceled a sound
	 * guest's job on a busy host (testbed-lava.t under make check). */
	if (!c)
		ret = agent__wait(&p->dial, AGENT_TIMEOUT_MS, NULL, &quick, &c,
				  &err);
	if (!ret) {
		ret = agent_conn__call(c, "reboot.now",
				       json_pack("{s:s}", "method", "poweroff"),
				       AGENT_TIMEOUT_MS, &res, &err);
		json_decref(res);
		agent_conn__close(c);
	}
	if (ret) {
		pr_warn("host %s: the guest of LAVA job %lld did not power "
			"off (%s)",
			h->m->name, (long long)id, err ? err : strerror(-ret));
		free(err);
		job_cancel(h, id);
		return;
	}
	end = mono_ms() + END_WAIT_MS;
	while (mono_ms() < end) {
		err = NULL;
		if (!job_get(p, id, &j, &err)) {
			bool done = j.state == LAVA_FINISHED;

			if (done) {
				host__say(h,
					  "host %s: LAVA job %lld finished %s, "
					  "%lld s after it was %s",
					  h->m->name, (long long)id,
					  j.health ? j.health : "",
					  (mono_ms() - p->job_t0) / 1000,
					  p->adopted ? "adopted" : "submitted");
				job_store(h, id, "ended", j.health, NULL, NULL);
			}
			lava_job__release(&j);
			if (done)
				return;
		}
		free(err);
		usleep(POLL_MS * 1000);
	}
	pr_warn("host %s: LAVA job %lld did not finish within %d s of its "
		"guest's power-off",
		h->m->name, (long long)id, END_WAIT_MS / 1000);
	job_cancel(h, id);
}

/* The watch of agent_sock__wait(): the job, polled every POLL_MS. */
/*
 * A running job whose worker has asked nothing of us: LAVA retries an
 * unreachable URL for over ten minutes before it gives up, so the boot
 * is failed here, in words, once the worker has had ample time (it
 * checks the URLs with HEAD as the job starts; a multinode job's
 * downloads wait until its group is whole, so the check is what counts).
 * A job adopted from a killed run fetched from that run.
 */
static int unreached(struct host *h, struct lava_priv *p, char **err)
{
	long long wait = h->m->boot_timeout_ms / 2;
	char *hp;

	if (wait > FETCH_WAIT_MS)
		wait = FETCH_WAIT_MS;
	if (p->adopted || !p->run_t0 || mono_ms() - p->run_t0 < wait ||
	    artifact_server__asked(p->art, p->files.kernel_sha))
		return 0;
	hp = lava__hostport(lava_conf(h->m)->controller,
			    lava_conf(h->m)->http_port);
	errmsg__set(err, 0,
		    "LAVA job %lld has fetched nothing from "
		    "http://%s/ in its first %lld s: can the lab's "
		    "workers reach the controller address and http_port?",
		    (long long)p->job, hp, wait / 1000);
	free(hp);
	return -EHOSTUNREACH;
}

static int job_gone(void *arg, char **err)
{
	struct host *h = arg;
	struct lava_priv *p = h->priv;
	struct lava_job j;
	char *words = NULL, *reason, *mate;

	if (h->interrupted && h->interrupted())
		return errmsg__set(err, -EINTR,
				   "interrupted while LAVA job %lld booted",
				   (long long)p->job);
	if (mono_ms() < p->next_poll)
		return 0;
	p->next_poll = mono_ms() + POLL_MS;
	if (job_get(p, p->job, &j, &words)) {
		/* A lab that does not answer for a while is not a boot
		 * that failed: the boot timeout decides. */
		pr_debug("host %s: %s", h->m->name, words);
		free(words);
		return 0;
	}
	if (j.state == LAVA_RUNNING || j.state == LAVA_SUBMITTED) {
		lava_job__release(&j);
		return unreached(h, p, err);
	}
	reason = job_reason(p, &j);
	mate = mate_reason(h);
	errmsg__set(err, 0, "%s%s", reason, mate);
	free_all(reason, mate);
	job_store(h, j.id, "ended", j.health, NULL, *err);
	lava_job__release(&j);
	p->job = 0;
	return -ECHILD;
}

static char *job_console(void *arg)
{
	struct host *h = arg;
	struct lava_priv *p = h->priv;

	return xasprintf("(the guest's console is in LAVA's log: "
			 "%s/scheduler/job/%lld)",
			 p->api.server, (long long)p->job);
}

/*
 * Jobs a killed run left: the one of this run booted for this very
 * definition is adopted, any other canceled (one left by another run,
 * started afresh with --new, would hold the device until its timeout).
 * The id adopted, or 0.
 */
static int64_t jobs_adopt(struct host *h, struct lava_priv *p, const char *sha)
{
	struct host_job *v = NULL;
	size_t nr = 0, i;
	int64_t adopted = 0;

	if (!h->jobs || h->jobs->open(h->jobs_arg, h, &v, &nr))
		return 0;
	for (i = 0; i < nr; i++) {
		struct lava_job j;
		char *err = NULL;

		if (strcmp(v[i].server, p->api.server))
			continue;
		if (job_get(p, v[i].id, &j, &err)) {
			pr_warn("host %s: LAVA job %lld of an earlier run: %s",
				h->m->name, (long long)v[i].id, err);
			free(err);
			continue;
		}
		if (j.state == LAVA_FINISHED || j.state == LAVA_ENDING) {
			job_store(h, j.id, "ended", j.health, j.device, NULL);
		} else if (!adopted && v[i].this_run &&
			   !strcmp(v[i].sha256, sha)) {
			adopted = j.id;
			host__say(
				h,
				"host %s: LAVA job %lld, submitted before the "
				"run was stopped, is still %s: adopted, not "
				"submitted again",
				h->m->name, (long long)j.id,
				j.state == LAVA_RUNNING ? "running" : "queued");
		} else {
			host__say(h,
				  "host %s: LAVA job %lld, left by %s run "
				  "%lld, is not for this boot",
				  h->m->name, (long long)j.id,
				  v[i].this_run ? "this" : "the killed",
				  (long long)v[i].run_id);
			job_cancel(h, j.id);
		}
		lava_job__release(&j);
	}
	host_jobs__free(v, nr);
	return adopted;
}

/* Job @id of the lab, kept as @h's (submitted). */
static void job_add(struct host *h, int64_t id, const char *sha,
		    const struct matrix_kernel *k, const char *cmdline)
{
	struct lava_priv *p = h->priv;
	struct host_job j = {
		.server = p->api.server,
		.id = id,
		.sha256 = (char *)sha,
		.kernel = k->name,
		.cmdline = (char *)cmdline,
	};

	if (h->jobs && h->jobs->add(h->jobs_arg, h, &j))
		pr_warn("host %s: LAVA job %lld is not stored: a run resumed "
			"after a kill would not find it",
			h->m->name, (long long)id);
}

/*
 * A multinode submission's two jobs: the SUT's is the group's first, N
 * ("N.0"); the peer's ("N.1") is the job of the same group whose role
 * is peer, N + 1 unless another submission came between.
 */
static int group_ids(struct host *h, const json_t *res, int64_t *sut,
		     char **err)
{
	struct lava_priv *p = h->priv, *mp = h->mate->priv;
	struct lava_job first, j;
	char *words = NULL;
	size_t nr = 0;
	int64_t id;
	int ret;

	if (lava_job__submitted_group(res, sut, &nr) || nr != 2)
		return errmsg__set(
			err, -EPROTO, "%s",
			"LAVA accepted the multinode job but did not "
			"name its two jobs");
	ret = job_get(p, *sut, &first, err);
	if (ret)
		return ret;
	for (id = *sut + 1; id <= *sut + 64 && !mp->job; id++) {
		if (job_get(p, id, &j, &words)) {
			free(words);
			words = NULL;
			continue;
		}
		if (j.group && first.group && !strcmp(j.group, first.group) &&
		    j.role && !strcmp(j.role, LAVA_ROLE_PEER))
			mp->job = id;
		lava_job__release(&j);
	}
	lava_job__release(&first);
	if (!mp->job)
		return errmsg__set(err, -EPROTO,
				   "LAVA job %lld's peer role is in no job "
				   "after it",
				   (long long)*sut);
	return 0;
}

static int job_submit(struct host *h, struct lava_priv *p, const char *def,
		      const char *sha, const struct matrix_kernel *k,
		      const char *cmdline, const char *peer_cmdline, char **err)
{
	json_t *body = json_pack("{s:s}", "definition", def), *res = NULL;
	char *text = json_dumps(body, JSON_COMPACT), *why = NULL;
	int64_t id = 0;
	int ret;

	json_decref(body);
	ret = lava_api__call(&p->api, "POST", "/api/v0.2/jobs/", text,
			     API_TIMEOUT_MS, &res, &why);
	free(text);
	if (!ret && h->mate)
		ret = group_ids(h, res, &id, &why);
	else if (!ret && lava_job__submitted(res, &id)) {
		why = xstrdup("LAVA accepted the job but said no job id");
		ret = -EPROTO;
	}
	json_decref(res);
	if (ret) {
		errmsg__set(err, 0,
			    "host %s: cannot submit the job of kernel "
			    "'%s': %s",
			    h->m->name, k->name, why);
		free(why);
		return ret;
	}
	p->job = id;
	job_add(h, id, sha, k, cmdline);
	if (h->mate) {
		struct lava_priv *mp = h->mate->priv;

		job_add(h->mate, mp->job, sha, k, peer_cmdline);
		host__say(h,
			  "host %s: LAVA multinode job submitted: %s/scheduler/"
			  "job/%lld (role " LAVA_ROLE_SUT
			  "), job %lld (role " LAVA_ROLE_PEER ", host %s)",
			  h->m->name, p->api.server, (long long)id,
			  (long long)mp->job, h->mate->m->name);
		return 0;
	}
	host__say(h, "host %s: LAVA job %lld submitted: %s/scheduler/job/%lld",
		  h->m->name, (long long)id, p->api.server, (long long)id);
	return 0;
}

/* Until LAVA starts the job: its queueing time said as it grows. */
static int job_wait_start(struct host *h, struct lava_priv *p, char **err)
{
	long long t0 = mono_ms(), said = t0;
	uint64_t limit = lava_conf(h->m)->queue_timeout_ms;

	for (;;) {
		struct lava_job j;
		char *why = NULL;

		if (h->interrupted && h->interrupted())
			return errmsg__set(
				err, -EINTR,
				"host %s: interrupted while LAVA job "
				"%lld was queued",
				h->m->name, (long long)p->job);
		if (job_get(p, p->job, &j, &why)) {
			pr_debug("host %s: %s", h->m->name, why);
			free(why);
		} else if (j.state == LAVA_SUBMITTED) {
			lava_job__release(&j);
		} else if (j.state == LAVA_RUNNING) {
			free(p->device);
			p->device = j.device ? xstrdup(j.device) : NULL;
			host__say(h,
				  "host %s: LAVA job %lld running on %s after "
				  "%lld s in the queue",
				  h->m->name, (long long)p->job,
				  j.device ? j.device : "a device",
				  (mono_ms() - t0) / 1000);
			job_store(h, j.id, "running", NULL, j.device, NULL);
			lava_job__release(&j);
			p->run_t0 = mono_ms();
			return 0;
		} else {
			char *mate = mate_reason(h);

			why = job_reason(p, &j);
			job_store(h, j.id, "ended", j.health, j.device, why);
			errmsg__set(err, 0, "host %s: %s%s", h->m->name, why,
				    mate);
			free_all(why, mate);
			lava_job__release(&j);
			p->job = 0;
			return -ECHILD;
		}
		if (mono_ms() - said >= QUEUE_SAY_MS) {
			said = mono_ms();
			host__say(h, "host %s: LAVA job %lld queued for %lld s",
				  h->m->name, (long long)p->job,
				  (said - t0) / 1000);
		}
		if (limit && (uint64_t)(mono_ms() - t0) > limit) {
			errmsg__set(err, 0,
				    "host %s: LAVA job %lld still queued "
				    "after queue_timeout (%llu s): no "
				    "device of type %s free",
				    h->m->name, (long long)p->job,
				    (unsigned long long)limit / 1000,
				    lava_conf(h->m)->device_type);
			job_cancel(h, p->job);
			p->job = 0;
			return -ETIMEDOUT;
		}
		usleep(POLL_MS * 1000);
	}
}

/*
 * The secret of the job booting @k with @cmdline: a killed run's, when
 * this run left a job for that very boot that a resumed run may adopt
 * (its guest proves the secret it was given); otherwise a new one. It
 * is kept, mode 0600, in the host's state folder until the job ends:
 * never in the store, a URL or a message.
 */
static int boot_secret(struct host *h, struct lava_priv *p,
		       const struct matrix_kernel *k, const char *cmdline,
		       char **err)
{
	struct host_job *v = NULL;
	char sha[SHA256_HEX_SIZE], *key, *why = NULL;
	bool left = false;
	size_t nr = 0, i;

	key = xasprintf("%s%c%s", k->name, '\0', cmdline);
	sha256__hex(key, strlen(k->name) + 1 + strlen(cmdline), sha);
	free(key);
	free(p->secret_file);
	sha[16] = '\0';
	p->secret_file = xasprintf("%s/boot-%s.secret", p->vm.dir, sha);
	if (h->jobs && !h->jobs->open(h->jobs_arg, h, &v, &nr)) {
		for (i = 0; i < nr && !left; i++)
			left = v[i].this_run && !strcmp(v[i].kernel, k->name) &&
			       !strcmp(v[i].cmdline, cmdline);
		host_jobs__free(v, nr);
	}
	if (left && !chan_secret__read(p->secret_file, p->secret, &why))
		return 0;
	free(why);
	if (chan_secret__new(p->secret))
		return errmsg__set(err, -EIO,
				   "host %s: no random bytes for the job's "
				   "secret",
				   h->m->name);
	return chan_secret__write(p->secret_file, p->secret, err);
}

/*
 * What @h's device boots for @k with @args (its files made and served,
 * its secret kept): in @b (lava_boot__release()).
 */
static int boot_prepare(struct host *h, const struct matrix_kernel *k,
			const char *const *args, size_t nr_args,
			struct lava_boot *b, char **err)
{
	struct lava_priv *p = h->priv;
	const struct qemu_kernel *qk = &p->vm.kernels[k - h->matrix->kernels];
	char *cmdline;
	int ret;

	if (!qk->image)
		return errmsg__set(err, -EINVAL,
				   "host %s: kernel '%s' (%s) cannot be booted "
				   "on a LAVA device yet",
				   h->m->name, k->name,
				   kernel_kind__name(k->kind));
	cmdline = lava__boot_cmdline(h->m, args, nr_args);
	ret = boot_secret(h, p, k, cmdline, err);
	lava_files__release(&p->files);
	if (!ret)
		ret = lava_files__make(h->m, qk, p->root, p->secret,
				       sizeof(p->secret), p->art, &p->files,
				       err);
	free(cmdline);
	if (ret)
		return ret;
	lava_boot__init(b, h->m, k->name, &p->files, args, nr_args);
	return 0;
}

/*
 * The definition of the job booting @k with @args, and its guest's
 * command line (*@cmdline); with a peer device, the multinode job that
 * boots it too, with the same kernel and no boot arguments (a peer is
 * never reconfigured), its command line in *@peer_cmdline. NULL and *@err.
 */
static char *definition(struct host *h, const struct matrix_kernel *k,
			const char *const *args, size_t nr_args, char **cmdline,
			char **peer_cmdline, char **err)
{
	struct lava_boot b = { 0 }, pb = { 0 };
	char *def = NULL;

	*cmdline = *peer_cmdline = NULL;
	if (boot_prepare(h, k, args, nr_args, &b, err))
		return NULL;
	if (h->mate) {
		if (boot_prepare(h->mate, k, NULL, 0, &pb, err)) {
			lava_boot__release(&b);
			return NULL;
		}
		def = lava__multinode_definition(h->m, &b, h->mate->m, &pb);
		*peer_cmdline = xstrdup(pb.cmdline);
	} else {
		def = lava__definition(h->m, &b);
	}
	*cmdline = xstrdup(b.cmdline);
	lava_boot__release(&b);
	lava_boot__release(&pb);
	if (!def)
		errmsg__set(err, 0,
			    "host %s: the job of kernel '%s' cannot be "
			    "written: the command line holds a quote",
			    h->m->name, k->name);
	return def;
}

/*
 * The peer device's side of a multinode job that runs now, submitted
 * or adopted at @t0: LAVA starts a group's jobs together, so it runs
 * too; its device kept, its clock for unreached() started.
 */
static void mate_running(struct host *h, long long t0)
{
	struct lava_priv *mp = h->mate->priv;
	struct lava_job j;
	char *err = NULL;

	mp->job_t0 = t0;
	mp->run_t0 = mono_ms();
	mp->next_poll = 0;
	free(mp->device);
	mp->device = NULL;
	if (job_get(mp, mp->job, &j, &err)) {
		free(err);
		return;
	}
	mp->device = j.device ? xstrdup(j.device) : NULL;
	job_store(h->mate, j.id, "running", NULL, j.device, NULL);
	lava_job__release(&j);
}

/* The agent of @h's booted job, dialed in and proven: in p->vm.ready. */
static int agent_boot(struct host *h, uint64_t timeout_ms, char **err)
{
	struct lava_priv *p = h->priv;
	const struct agent_sock_watch w = { job_gone, job_console, h };

	return agent__wait(&p->dial, (int)timeout_ms, NULL, &w, &p->vm.ready,
			   err);
}

/*
 * Jobs a killed run left for this very boot: adopted when the SUT's and,
 * in a multinode job, its peer device's both are; a lone one canceled.
 */
static int64_t adopt(struct host *h, struct lava_priv *p, const char *sha)
{
	struct lava_priv *mp = h->mate ? h->mate->priv : NULL;
	int64_t id = jobs_adopt(h, p, sha), mid = 0;

	if (!h->mate)
		return id;
	mid = jobs_adopt(h->mate, mp, sha);
	if (id && mid) {
		mp->job = mid;
		mp->adopted = true;
		return id;
	}
	if (id)
		job_cancel(h, id);
	if (mid)
		job_cancel(h->mate, mid);
	return 0;
}

/* A restart asked of a host that can take one: opened, and no peer. */
static int restart_check(struct host *h, char **err)
{
	struct lava_priv *p = h->priv;
	struct lava_priv *mp = h->mate ? h->mate->priv : NULL;

	if (!p || (h->mate && !mp))
		return errmsg__set(err, -EINVAL, "host %s: restart before open",
				   h->m->name);
	if (h->mate && h->m->role != ROLE_SUT)
		return errmsg__set(err, -EINVAL,
				   "host %s: a peer device boots with its SUT "
				   "(%s)",
				   h->m->name, h->mate->m->name);
	return 0;
}

/*
 * The job that boots @k, running: the one a killed run left for this
 * very boot (*@adopted, its id), or a new one submitted; *@t0 when it
 * was adopted or submitted. On failure no job of the pair is left.
 */
static int job_boot(struct host *h, const struct matrix_kernel *k,
		    const char *const *args, size_t nr_args, int64_t *adopted,
		    long long *t0, char **err)
{
	struct lava_priv *p = h->priv;
	struct lava_priv *mp = h->mate ? h->mate->priv : NULL;
	char sha[SHA256_HEX_SIZE], *cmdline, *peer_cmdline, *def;
	int ret;

	job_end(h, p);
	if (mp) {
		job_end(h->mate, mp);
		mp->adopted = false;
	}
	def = definition(h, k, args, nr_args, &cmdline, &peer_cmdline, err);
	if (!def)
		return -EINVAL;
	sha256__hex(def, strlen(def), sha);
	*t0 = mono_ms();
	*adopted = adopt(h, p, sha);
	p->adopted = *adopted;
	if (*adopted) {
		p->job = *adopted;
		ret = 0;
	} else {
		pr_info("host %s: booting %s through LAVA: %s", h->m->name,
			k->name, cmdline);
		ret = job_submit(h, p, def, sha, k, cmdline, peer_cmdline, err);
	}
	free_all(def, cmdline, peer_cmdline);
	if (ret) {
		if (mp)
			mp->job = 0;
		return ret;
	}
	p->job_t0 = *t0;
	p->run_t0 = 0;
	ret = job_wait_start(h, p, err);
	if (ret) {
		if (mp && mp->job)
			job_cancel(h->mate, mp->job);
		if (mp)
			mp->job = 0;
		return ret;
	}
	if (mp)
		mate_running(h, *t0);
	return 0;
}

/*
 * The booted job's agents answering: the SUT's, then its peer device's,
 * since both must answer before any trial. -ENOLINK: the SUT came up
 * and its peer device did not.
 */
static int agents_boot(struct host *h, char **err)
{
	struct lava_priv *mp = h->mate ? h->mate->priv : NULL;
	char *why = NULL;
	int64_t id;
	int ret;

	ret = agent_boot(h, h->m->boot_timeout_ms, err);
	/* The SUT's job canceled by LAVA because its peer's ended. */
	if (ret == -ECHILD && mp && strstr(*err, "; its peer device, host "))
		return -ENOLINK;
	if (ret || !mp)
		return ret;
	id = mp->job;
	ret = agent_boot(h->mate, h->mate->m->boot_timeout_ms, &why);
	if (ret)
		ret = errmsg__set(err, -ENOLINK,
				  "its peer device, host %s (LAVA job %lld), "
				  "did not come up: %s",
				  h->mate->m->name, (long long)id,
				  why ? why : strerror(-ret));
	free(why);
	return ret;
}

/*
 * Boot @k failed (@ret): said as such, and what still runs of its job
 * canceled, but for a SUT that answered while its peer device did not.
 */
static int boot_failed(struct host *h, const struct matrix_kernel *k, int ret,
		       char **err)
{
	struct lava_priv *p = h->priv;
	struct lava_priv *mp = h->mate ? h->mate->priv : NULL;
	char *words = xasprintf("host %s: boot %u (kernel '%s') failed: %s",
				h->m->name, p->vm.boots + 1, k->name, *err);

	errmsg__set(err, ret, "%s", words);
	free(words);
	/*
	 * The SUT answered and its peer device did not: the peer's job is
	 * canceled, and LAVA cancels the SUT's after it (both roles are
	 * essential); the SUT's agent is left to the run meanwhile, to
	 * record the boot its trials fail on.
	 */
	if (ret == -ENOLINK && p->vm.ready) {
		if (mp->job)
			job_cancel(h->mate, mp->job);
		mp->job = 0;
		return ret;
	}
	/* A multinode job is one: what still runs of it goes. */
	/* (A job that ended, -ECHILD, is 0 already.) */
	if (p->job && ret != -ECHILD)
		job_cancel(h, p->job);
	p->job = 0;
	if (mp && mp->job)
		job_cancel(h->mate, mp->job);
	if (mp)
		mp->job = 0;
	return ret;
}

/*
 * The killed run's agent still serves there, with whatever it had
 * started (collectors, an iperf3 server): it is told to go, and the
 * guest's init starts a fresh one.
 */
static int agents_renew(struct host *h, char **err)
{
	struct lava_priv *p = h->priv;
	struct lava_priv *mp = h->mate ? h->mate->priv : NULL;
	int ret;

	agent_conn__close(p->vm.ready);
	p->vm.ready = NULL;
	ret = agent_boot(h, AGENT_TIMEOUT_MS, err);
	if (!ret && mp) {
		agent_conn__close(mp->vm.ready);
		mp->vm.ready = NULL;
		ret = agent_boot(h->mate, AGENT_TIMEOUT_MS, err);
	}
	return ret;
}

static int lava_host__restart(struct host *h, const struct matrix_kernel *k,
			      const char *const *args, size_t nr_args,
			      char **err)
{
	struct lava_priv *p = h->priv;
	struct lava_priv *mp = h->mate ? h->mate->priv : NULL;
	int64_t adopted = 0;
	long long t0 = 0;
	int ret;

	ret = restart_check(h, err);
	if (!ret)
		ret = job_boot(h, k, args, nr_args, &adopted, &t0, err);
	if (ret)
		return ret;
	p->next_poll = 0;
	ret = agents_boot(h, err);
	if (ret)
		return boot_failed(h, k, ret, err);
	if (adopted) {
		ret = agents_renew(h, err);
		if (ret)
			return ret;
	}
	p->vm.boots++;
	host__say(h,
		  "host %s: boot %u answered %lld s after %s (LAVA job %lld on "
		  "%s)",
		  h->m->name, p->vm.boots, (mono_ms() - t0) / 1000,
		  adopted ? "its adoption" : "its submission",
		  (long long)p->job, p->device ? p->device : "its device");
	if (mp)
		host__say(h,
			  "host %s: its peer device %s answered too (LAVA "
			  "job %lld on %s)",
			  h->m->name, h->mate->m->name, (long long)mp->job,
			  mp->device ? mp->device : "its device");
	return 0;
}

static int lava_host__agent(struct host *h, struct agent_conn **out, char **err)
{
	struct lava_priv *p = h->priv;
	const struct agent_sock_watch w = { job_gone, job_console, h };
	char *why = NULL;
	int ret;

	if (!p || !p->job)
		return errmsg__set(err, -ENOTCONN,
				   "host %s: no job runs (not booted yet, or "
				   "it ended)",
				   h->m->name);
	if (qemu_vm__take_ready(&p->vm, out))
		return 0;
	ret = agent__wait(&p->dial, AGENT_TIMEOUT_MS, NULL, &w, out, &why);
	if (ret)
		errmsg__set(err, ret, "host %s: %s", h->m->name, why);
	free(why);
	return ret;
}

/* What the lab ran, stored with each boot's facts as "testbed". */
static json_t *lava_host__platform(struct host *h)
{
	struct lava_priv *p = h->priv;

	const struct qemu_machine *qm = qemu__machine(h->m);

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s, "
			 "s:I, s:s?}}",
			 "emulator", qm ? qm->binary : "qemu-system-x86_64",
			 "arch", qm ? qm->arch : "x86_64", "machine",
			 qm ? qm->machine : "q35", "viommu",
			 qemu_iommu__name(qemu_conf(h->m)->iommu), "nic",
			 qemu_nic__name(qemu_conf(h->m)->nic), "accel",
			 "the worker's", "lab", "lava", "lava", "server",
			 p ? p->api.server : lava_conf(h->m)->server,
			 "device_type", lava_conf(h->m)->device_type, "job",
			 (json_int_t)(p ? p->job : 0), "device",
			 p ? p->device : NULL);
}

static void lava_host__close(struct host *h)
{
	struct lava_priv *p = h->priv;

	if (!p)
		return;
	if (p->api.http)
		job_end(h, p);
	lava_api__release(&p->api);
	artifact_server__stop(p->art);
	if (p->listen)
		agent_listen__close(p->listen);
	explicit_bzero(p->secret, sizeof(p->secret));
	lava_files__release(&p->files);
	free_all(p->root, p->secret_file);
	free(p->device);
	qemu_vm__release(h, &p->vm);
	free(p);
	h->priv = NULL;
}

const struct host_ops host_lava_ops = {
	.name = "lava",
	.open = lava_host__open,
	.agent = lava_host__agent,
	.restart = lava_host__restart,
	.platform = lava_host__platform,
	.close = lava_host__close,
};
