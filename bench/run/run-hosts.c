// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's hosts: transports opened, one agent each, and who the host
 * and its current boot are, recorded before any trial runs there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/run.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "store/store.h"
#include "util.h"

/* Agent start and hello: a transient failure (refused, EOF) retried. */
#define CONNECT_TRIES 3
#define HELLO_TIMEOUT_MS 30000
#define FACTS_TIMEOUT_MS 60000

int run_host__call(struct run_host *h, const char *verb, json_t *args,
		   int timeout_ms, json_t **result, char **err)
{
	long long t0;
	int ret;

	errmsg__reset(err);
	*result = NULL;
	if (!h->agent) {
		errmsg__set(err, 0, "host %s: no agent", h->h.m->name);
		json_decref(args);
		return -ENOTCONN;
	}
	if (!args)
		args = json_object();
	t0 = mono_ms();
	ret = agent_conn__call(h->agent, verb, args, timeout_ms, result, err);
	/* Where a trial's time goes, for -vv: a VM under TCG is slow. */
	pr_debug("host %s: %s: %s in %lld ms", h->h.m->name, verb,
		 ret ? "failed" : "answered", mono_ms() - t0);
	json_decref(args);
	if (ret && err && !*err)
		errmsg__set(err, 0, "%s", strerror(-ret));
	if (ret && err && h->agent->unanswered && h->h.ops->explain) {
		char *seen = h->h.ops->explain(&h->h);

		if (seen)
			errmsg__set(err, 0, "%s; %s", *err, seen);
		free(seen);
	}
	return ret;
}

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void host__forget_boot(struct run_host *h)
{
	free_all(h->boot_id, h->kernel_release, h->build_id);
	h->boot_id = h->kernel_release = h->build_id = NULL;
	h->boot_row = 0;
}

/* hello + facts into the store: the host (machine) and this boot. */
static int host__record(struct run_ctx *ctx, struct run_host *h)
{
	json_t *hello = NULL, *facts = NULL, *kern;
	const char *identity;
	char *err = NULL, *facts_s = NULL;
	struct store_boot b = { 0 };
	int ret;

	ret = run_host__call(h, "hello", NULL, HELLO_TIMEOUT_MS, &hello, &err);
	if (ret) {
		pr_err("host %s: the agent does not answer hello: %s",
		       h->h.m->name, err);
		goto out;
	}
	if (json_integer_value(json_object_get(hello, "protocol")) !=
	    AGENT_PROTOCOL) {
		pr_err("host %s: the agent speaks protocol %lld, this "
		       "controller %d: update it",
		       h->h.m->name,
		       (long long)json_integer_value(
			       json_object_get(hello, "protocol")),
		       AGENT_PROTOCOL);
		ret = -EPROTO;
		goto out;
	}
	/* Without them a profile trial may patch __schedule (agent-keys.c). */
	pr_info("host %s: the agent holds %lld of perf's static keys",
		h->h.m->name,
		(long long)json_integer_value(
			json_object_get(hello, "perf_keys_held")));
	ret = run_host__call(h, "facts", json_pack("{s:b}", "collectors", 0),
			     FACTS_TIMEOUT_MS, &facts, &err);
	if (ret) {
		pr_err("host %s: facts: %s", h->h.m->name, err);
		goto out;
	}
	identity = jstr(json_object_get(facts, "identity"), "key");
	if (!identity || !*identity)
		identity = jstr(hello, "boot_id"); /* no machine-id: per boot */
	ret = store__host_upsert(ctx->st, h->h.m->name,
				 identity ? identity : "unknown", &h->host_id);
	if (ret)
		goto out;
	host__forget_boot(h);
	kern = json_object_get(facts, "kernel");
	h->boot_id = xstrdup(jstr(hello, "boot_id") ? jstr(hello, "boot_id") :
						      "unknown");
	h->kernel_release = xstrdup(jstr(hello, "kernel_release") ?
					    jstr(hello, "kernel_release") :
					    "");
	if (jstr(hello, "build_id"))
		h->build_id = xstrdup(jstr(hello, "build_id"));
	if (!h->found_release) {
		h->found_release = xstrdup(h->kernel_release);
		h->found_build_id = h->build_id ? xstrdup(h->build_id) : NULL;
	}
	if (h->h.ops->platform) {
		json_t *pl = h->h.ops->platform(&h->h);

		if (pl)
			json_object_set_new(facts, "testbed", pl);
	}
	facts_s = json_dumps(facts, JSON_COMPACT);
	b.boot_id = h->boot_id;
	b.kernel_release = h->kernel_release;
	b.kernel_build_id = h->build_id;
	b.cmdline = jstr(kern, "cmdline") ? jstr(kern, "cmdline") : "";
	b.facts_json = facts_s;
	ret = store__boot_upsert(ctx->st, h->host_id, &b, &h->boot_row);
out:
	free(facts_s);
	free(err);
	json_decref(hello);
	json_decref(facts);
	return ret;
}

int run_host__connect(struct run_ctx *ctx, struct run_host *h)
{
	int ret = -EIO, try;
	char *err = NULL;

	for (try = 1; try <= CONNECT_TRIES; try++) {
		if (h->agent) {
			agent_conn__close(h->agent);
			h->agent = NULL;
		}
		ret = h->h.ops->agent(&h->h, &h->agent, &err);
		if (!ret)
			ret = host__record(ctx, h);
		if (!ret || ret == -EPROTO || run_signal__level())
			break;
		pr_warn("host %s: agent start failed (%s), try %d of %d",
			h->h.m->name, err ? err : strerror(-ret), try,
			CONNECT_TRIES);
		free(err);
		err = NULL;
		usleep(200000u << try);
	}
	free(err);
	return ret;
}

/*
 * A host the tool boots itself has no agent before its first boot: boot
 * it as its first selected trial wants (so that trial needs no second
 * boot). Should that boot fail, a plain boot of the kernel still gives
 * the host a row in the store and an agent; its trials then fail on
 * their own, and the run goes on.
 */
static int host__first_boot(struct run_ctx *ctx, size_t idx)
{
	struct run_host *h = &ctx->hosts[idx];
	const struct plan_trial *t = NULL;
	char *err = NULL;
	size_t i;
	int ret;

	for (i = 0; i < ctx->plan.nr_trials && !t; i++)
		if (ctx->plan.trials[i].host == idx &&
		    run_filter__match(&ctx->filter, ctx->m,
				      &ctx->plan.trials[i]))
			t = &ctx->plan.trials[i];
	if (!t) {
		ret = run_state__boot(ctx, h, 0, -1, &err);
	} else {
		ret = run_state__boot(ctx, h, t->kernel,
				      t->apply == APPLY_RESTART ||
						      t->apply == APPLY_KEXEC ?
					      (long)t->mode :
					      -1,
				      &err);
		/* A lab that cannot reach us, or a peer device that does
		 * not come up, fails a plain boot alike. */
		if (ret && ret != -EHOSTUNREACH && ret != -ENOLINK &&
		    (t->apply == APPLY_RESTART || t->apply == APPLY_KEXEC)) {
			pr_warn("%s; trying a boot without the mode's cmdline",
				err);
			errmsg__clear(&err);
			ret = run_state__boot(ctx, h, t->kernel, -1, &err);
		}
	}
	if (ret == -ENOLINK)
		pr_warn("%s", err);
	else if (ret)
		pr_err("%s", err ? err : strerror(-ret));
	errmsg__clear(&err);
	return ret;
}

/*
 * Each dma_map workload's device asked of its host as soon as the host
 * answers, before its first trial (and on a lab machine before any
 * reboot): a device that is not there, or one its driver holds without
 * unbind, or one the host needs, fails the run here, not trial by trial.
 */
int run_hosts__check_dma_map(struct run_ctx *ctx, size_t idx)
{
	struct run_host *h = &ctx->hosts[idx];
	const struct matrix *m = ctx->m;
	json_t *res = NULL;
	char *err = NULL;
	size_t w, i;
	int ret;

	/* A boot that failed: its trials fail on their own. */
	if (!h->agent)
		return 0;
	for (w = 0; w < m->nr_workloads; w++) {
		const struct matrix_workload *mw = &m->workloads[w];

		if (mw->type != WORKLOAD_DMA_MAP || mw->sut != idx)
			continue;
		for (i = 0; i < ctx->plan.nr_trials; i++)
			if (ctx->plan.trials[i].workload == w &&
			    run_filter__match(&ctx->filter, m,
					      &ctx->plan.trials[i]))
				break;
		if (i == ctx->plan.nr_trials)
			continue;
		ret = run_host__call(h, "dma_map.check",
				     json_pack("{s:s, s:b}", "device",
					       mw->u.dma_map.device, "unbind",
					       mw->u.dma_map.unbind),
				     HELLO_TIMEOUT_MS, &res, &err);
		json_decref(res);
		if (ret) {
			pr_err("host %s: workload '%s': %s", h->h.m->name,
			       mw->name, err ? err : strerror(-ret));
			free(err);
			return ret;
		}
	}
	return 0;
}

static void host_say(void *arg, const char *msg)
{
	run_progress__msg(arg, "%s", msg);
}

int run_hosts__open(struct run_ctx *ctx)
{
	const struct matrix *m = ctx->m;
	char *err = NULL;
	size_t i;
	int ret;

	ctx->hosts = xcalloc(m->nr_hosts, sizeof(*ctx->hosts));
	for (i = 0; i < m->nr_hosts; i++) {
		struct run_host *h = &ctx->hosts[i];

		h->h.m = &m->hosts[i];
		h->h.matrix = m;
		if (m->hosts[i].has_mate)
			h->h.mate = &ctx->hosts[m->hosts[i].mate].h;
		h->h.jobs = &run_jobs_ops;
		h->h.jobs_arg = ctx;
		h->h.interrupted = run_signal__level;
		h->h.say = host_say;
		h->h.say_arg = ctx;
		h->booted_kernel = h->booted_mode = -1;
		h->h.ops = host_ops__find(m->hosts[i].transport);
		if (!h->h.ops) {
			pr_err("host %s: transport %s is not supported by this "
			       "build",
			       m->hosts[i].name,
			       host_transport__name(m->hosts[i].transport));
			return -EOPNOTSUPP;
		}
	}
	for (i = 0; i < m->nr_hosts; i++) {
		struct run_host *h = &ctx->hosts[i];

		run_progress__msg(ctx, "opening host %s (%s)", h->h.m->name,
				  h->h.ops->name);
		ret = h->h.ops->open(&h->h, &err);
		if (ret) {
			pr_err("host %s: cannot open its %s transport: %s",
			       h->h.m->name, h->h.ops->name,
			       err ? err : strerror(-ret));
			free(err);
			return ret;
		}
		h->opened = true;
	}
	/* Booted once every host is open: a VM's link is its peer's. */
	for (i = 0; i < m->nr_hosts; i++) {
		struct run_host *h = &ctx->hosts[i];

		/* A multinode job's peer device boots with its SUT. */
		if (h->h.mate && h->h.m->role != ROLE_SUT)
			continue;
		ret = h->h.ops->restart ? host__first_boot(ctx, i) :
					  run_host__connect(ctx, h);
		/*
		 * The host answered and its peer device did not: the run
		 * goes on, and the trials of that boot fail with the reason
		 * (run_state__boot() keeps it); another boot may find it up.
		 * A host that did not answer either has no row to fail
		 * trials in: the run stops, saying why.
		 */
		if (ret == -ENOLINK && h->agent) {
			pr_warn("host %s: its trials of that boot fail; the "
				"run goes on",
				h->h.m->name);
			continue;
		}
		if (!ret)
			ret = run_hosts__check_dma_map(ctx, i);
		if (ret)
			return ret;
	}
	return 0;
}

void run_hosts__recover(struct run_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->m->nr_hosts; i++) {
		struct run_host *h = &ctx->hosts[i];

		if (!h->agent || !h->agent->unanswered)
			continue;
		if (h->h.ops->restart) {
			pr_warn("host %s: its agent gave no answer; the next "
				"trial boots it afresh",
				h->h.m->name);
			agent_conn__close(h->agent);
			h->agent = NULL;
			/* A peer device boots only with its SUT: the SUT's
			 * next trial boots both. */
			if (h->h.mate && h->h.m->role != ROLE_SUT &&
			    ctx->hosts[h->h.m->mate].agent) {
				agent_conn__close(
					ctx->hosts[h->h.m->mate].agent);
				ctx->hosts[h->h.m->mate].agent = NULL;
			}
			continue;
		}
		pr_warn("host %s: its agent gave no answer; starting another",
			h->h.m->name);
		if (run_host__connect(ctx, h))
			pr_warn("host %s: the agent did not come back",
				h->h.m->name);
	}
}

void run_hosts__close(struct run_ctx *ctx)
{
	size_t i;

	if (!ctx->hosts)
		return;
	for (i = 0; i < ctx->m->nr_hosts; i++) {
		struct run_host *h = &ctx->hosts[i];

		if (h->agent)
			agent_conn__close(h->agent);
		h->agent = NULL;
	}
	/* Backwards: the netns peer whose open() made the veth goes last. */
	for (i = ctx->m->nr_hosts; i-- > 0;) {
		struct run_host *h = &ctx->hosts[i];

		if (h->opened)
			h->h.ops->close(&h->h);
		h->opened = false;
		host__forget_boot(h);
		free_all(h->applied_mode, h->lost, h->failed_boot,
			 h->found_release, h->found_build_id);
	}
	free(ctx->hosts);
	ctx->hosts = NULL;
}

/*
 * The running kernel is known by what the first SUT booted; images by
 * the matrix until a boot says more.
 */
/*
 * A resumed run's "running" kernel is the one its start found on each
 * host, not whatever a killed run left booted there (a build, say): the
 * stored row is kept, and each host that ran a trial of it is sent back
 * to that boot's release and build id. -ENOENT: a new run.
 */
static int running__resumed(struct run_ctx *ctx, const struct matrix_kernel *k,
			    int64_t *kernel_id)
{
	bool found = false;
	size_t i;

	for (i = 0; i < ctx->m->nr_hosts; i++) {
		struct run_host *h = &ctx->hosts[i];
		char *rel = NULL, *bid = NULL;
		int ret;

		if (h->h.m->role != ROLE_SUT || !h->host_id)
			continue;
		ret = store__run_kernel_seen(ctx->st, ctx->run_id, h->host_id,
					     k->name, kernel_id, &rel, &bid);
		if (ret == -ENOENT)
			continue;
		if (ret)
			return ret;
		found = true;
		if (rel && strcmp(rel, h->found_release ?: "")) {
			run_progress__msg(ctx,
					  "host %s: kernel '%s' is %s, as the "
					  "run found it at its start (%s runs "
					  "now)",
					  h->h.m->name, k->name, rel,
					  h->kernel_release ?: "?");
			free(h->found_release);
			free(h->found_build_id);
			h->found_release = rel;
			h->found_build_id = bid;
			h->booted_kernel = RUN_KERNEL_UNKNOWN;
			continue;
		}
		free(rel);
		free(bid);
	}
	return found ? 0 : -ENOENT;
}

int run_kernels__store(struct run_ctx *ctx)
{
	const struct matrix *m = ctx->m;
	const struct run_host *sut = NULL;
	size_t i;
	int ret;

	for (i = 0; i < m->nr_hosts && !sut; i++)
		if (m->hosts[i].role == ROLE_SUT)
			sut = &ctx->hosts[i];
	ctx->kernel_ids = xcalloc(m->nr_kernels, sizeof(*ctx->kernel_ids));
	for (i = 0; i < m->nr_kernels; i++) {
		const struct matrix_kernel *k = &m->kernels[i];
		struct store_kernel sk = { .name = k->name,
					   .release = k->release,
					   .image_path = k->image };

		if (k->kind == KERNEL_RUNNING && sut) {
			ret = running__resumed(ctx, k, &ctx->kernel_ids[i]);
			if (ret != -ENOENT) {
				if (ret)
					return ret;
				continue;
			}
			sk.release = sut->kernel_release;
			sk.build_id = sut->build_id;
		} else if (k->kind == KERNEL_BUILD) {
			sk.build_id = k->build_id;
			sk.recipe_json = k->recipe;
		} else if (k->kind == KERNEL_PACKAGE) {
			sk.package = k->fetched;
			sk.version = k->version;
			sk.suite = k->suite;
		}
		ret = store__kernel_upsert(ctx->st, &sk, &ctx->kernel_ids[i]);
		if (ret)
			return ret;
	}
	return 0;
}
