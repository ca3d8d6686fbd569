// SPDX-License-Identifier: GPL-2.0-only
/*
 * One trial: mode in place and verified, collectors on around the
 * workload (an iperf3 pair, or fio on the SUT's disk), then everything
 * measured stored in a single transaction, so a crash leaves the whole
 * trial or none of it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/run/run-fetch.h"
#include "bench/run/run.h"
#include "bench/workload/dma-map.h"
#include "bench/workload/fio.h"
#include "bench/workload/iperf3.h"
#include "clock.h"
#include "collectors/collector.h"
#include "collectors/perf/perf-collector.h"
#include "collectors/procstat/procstat.h"
#include "log.h"
#include "store/store.h"
#include "util.h"

/* perf report inside a TCG guest takes tens of seconds (measured). */
#define COLLECT_TIMEOUT_MS 180000
#define WORKLOAD_SLACK_MS 30000

struct trial_out {
	char *effective;
	char *collectors; /* what ran during the trial, for trials.collectors */
	json_t *client;	  /* the workload's results: iperf3's or fio's */
	json_t *collected;
	struct run_fetch fetched; /* artifacts brought from the SUT */
	char *err;
	/* The SUT's own CPU time over the workload, where the host has it. */
	bool vm_cpu;
	double vm_cores; /* CPU-seconds per second of the workload */
};

static int mkdir_p(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* results/<run>/<trial>/ on the controller, made; NULL when it cannot be. */
static char *trial_dir(struct run_ctx *ctx, int64_t trial_id)
{
	char *dir = xasprintf("%s/%lld/%lld", ctx->results_dir,
			      (long long)ctx->run_id, (long long)trial_id);

	if (mkdir_p(dir)) {
		pr_warn("cannot create %s: %m; no artifacts for this trial",
			dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/*
 * Where the SUT's collectors write: the trial's folder itself where the
 * agent shares this disk, else a folder the agent makes under its own
 * artifact root (a name: bench/agent/agent-proto.h), fetched after the trial.
 * The pid keeps two controllers that drive one host apart.
 */
static char *trial_outdir(struct run_ctx *ctx, const struct run_host *sut,
			  int64_t trial_id)
{
	if (run_fetch__host_shares_disk(sut))
		return trial_dir(ctx, trial_id);
	return xasprintf("run%lld-trial%lld-%d", (long long)ctx->run_id,
			 (long long)trial_id, (int)getpid());
}

/* The folder collect.start made on a host that does not share our disk. */
static char *remote_outdir(const struct run_host *sut, const json_t *res)
{
	const char *d = json_string_value(json_object_get(res, "outdir"));

	if (run_fetch__host_shares_disk(sut) || !d)
		return NULL;
	return xstrdup(d);
}

/* A fetch that fails is a warning: what was measured still counts. */
static void artifacts__fetch(struct run_ctx *ctx, struct run_host *sut,
			     int64_t trial_id, const char *remote,
			     struct trial_out *o)
{
	char *dir = trial_dir(ctx, trial_id);

	if (!dir) {
		pr_warn("trial %lld: the artifacts of host %s stay in %s",
			(long long)trial_id, sut->h.m->name, remote);
		return;
	}
	if (run_fetch__artifacts(sut, remote, dir, o->collected, &o->fetched))
		pr_warn("trial %lld: not every artifact of host %s was "
			"fetched; its measurements count all the same",
			(long long)trial_id, sut->h.m->name);
	free(dir);
}

/*
 * A failed step can leave a server waiting for a client that never
 * comes, or collectors running: a fresh agent is the sure way back.
 */
static void host__reset(struct run_ctx *ctx, struct run_host *h)
{
	if (run_host__connect(ctx, h))
		pr_warn("host %s: the agent did not come back", h->h.m->name);
}

/* The SUT's CPU time and the wall clock when the workload began. */
struct vm_cpu {
	bool ok;
	uint64_t cpu_ns, wall_ns;
};

static void vm_cpu__begin(struct run_host *sut, struct vm_cpu *vc)
{
	vc->ok = sut->h.ops->cpu_ns &&
		 !sut->h.ops->cpu_ns(&sut->h, &vc->cpu_ns);
	vc->wall_ns = mono_ns();
}

static void vm_cpu__end(struct run_host *sut, const struct vm_cpu *vc,
			struct trial_out *o)
{
	uint64_t cpu, wall = mono_ns() - vc->wall_ns;

	if (!vc->ok || sut->h.ops->cpu_ns(&sut->h, &cpu) || cpu < vc->cpu_ns ||
	    !wall)
		return;
	o->vm_cpu = true;
	o->vm_cores = (double)(cpu - vc->cpu_ns) / (double)wall;
}

/* The iperf3 pair: server, client (timed), then the server's report. */
static int iperf3__trial(struct run_ctx *ctx, const struct plan_trial *t,
			 struct trial_out *o)
{
	const struct matrix_workload *w = &ctx->m->workloads[t->workload];
	struct run_host *sut = &ctx->hosts[t->host];
	struct run_host *srv = &ctx->hosts[w->server];
	struct run_host *cli = &ctx->hosts[w->client];
	int tmo = matrix_workload__trial_ms(w) + WORKLOAD_SLACK_MS;
	json_t *args, *res = NULL;
	const char *at;
	struct vm_cpu vc;
	char ip[64];
	int ret;

	/* A device behind its lab's NAT has its own name for the
	 * server's machine (its transport's server_ip). */
	at = matrix_host__server_ip(cli->h.m);
	if (at)
		ret = snprintf(ip, sizeof(ip), "%s", at) >= (int)sizeof(ip) ?
			      -ENAMETOOLONG :
			      0;
	else
		ret = run_args__data_ip(&ctx->m->hosts[w->server], ip,
					sizeof(ip));
	if (ret) {
		o->err = xasprintf("host %s has no address for iperf3",
				   srv->h.m->name);
		return ret;
	}
	ret = run_host__call(srv, "iperf3.server",
			     run_args__iperf3(ctx->m, w, false), tmo, &res,
			     &o->err);
	json_decref(res);
	if (ret)
		return ret;
	args = run_args__iperf3(ctx->m, w, true);
	json_object_set_new(args, "host", json_string(ip));
	vm_cpu__begin(sut, &vc);
	ret = run_host__call(cli, "iperf3.client", args, tmo, &o->client,
			     &o->err);
	if (ret) {
		host__reset(ctx, srv);
		return ret;
	}
	vm_cpu__end(sut, &vc, o);
	ret = run_host__call(srv, "iperf3.wait", NULL, tmo, &res, &o->err);
	/* The servers' share of the bytes received, for per-GB figures. */
	if (!ret)
		iperf3__add_received(o->client,
				     json_object_get(res, "reports"));
	json_decref(res);
	return ret;
}

/*
 * A workload that runs on the SUT alone, to its end: @verb with @args
 * (taken), its answer in o->client and the VM's CPU time around it.
 */
static int sut__trial(struct run_ctx *ctx, const struct plan_trial *t,
		      const char *verb, json_t *args, struct trial_out *o)
{
	const struct matrix_workload *w = &ctx->m->workloads[t->workload];
	struct run_host *sut = &ctx->hosts[t->host];
	/* dma_map blocks for all its seconds, and the kthreads' stop after. */
	int tmo = matrix_workload__trial_ms(w) + WORKLOAD_SLACK_MS;
	struct vm_cpu vc;
	int ret;

	vm_cpu__begin(sut, &vc);
	ret = run_host__call(sut, verb, args, tmo, &o->client, &o->err);
	if (!ret)
		vm_cpu__end(sut, &vc, o);
	return ret;
}

/* fio on the SUT's disk, to its end. */
static int fio__trial(struct run_ctx *ctx, const struct plan_trial *t,
		      struct trial_out *o)
{
	const struct matrix_workload *w = &ctx->m->workloads[t->workload];

	return sut__trial(ctx, t, "fio.run", run_args__fio(ctx->m, w), o);
}

/*
 * The kernel's DMA map benchmark on the SUT's device. Its answer names
 * no workload, so it is told here which one, for results__store().
 */
static int dma_map__trial(struct run_ctx *ctx, const struct plan_trial *t,
			  struct trial_out *o)
{
	const struct matrix_workload *w = &ctx->m->workloads[t->workload];
	int ret = sut__trial(ctx, t, "dma_map.run", run_args__dma_map(w), o);

	if (ret)
		return ret;
	json_object_set_new(o->client, "workload", json_string("dma_map"));
	return 0;
}

/*
 * A profile the host left to us: its files are here now. A measured
 * trial without it still counts; a profile trial is there for nothing
 * else, so it fails with the reason (o->err) rather than pass empty.
 */
static int profile__finish(const struct plan_trial *t, struct run_host *sut,
			   int64_t trial_id, struct trial_out *o)
{
	char *why = NULL;
	int ret = 0;

	if (!perf_collector__report_deferred(
		    json_object_get(o->collected, "perf"), &why))
		return 0;
	/* Why the file did not come says more than that it is missing. */
	if (o->fetched.why) {
		free(why);
		why = xstrdup(o->fetched.why);
	}
	if (t->profile) {
		o->err = xasprintf("no profile: %s", why);
		ret = -EIO;
	} else {
		pr_warn("trial %lld: no profile from host %s: %s",
			(long long)trial_id, sut->h.m->name, why);
	}
	free(why);
	return ret;
}

static int workload__run(struct run_ctx *ctx, const struct plan_trial *t,
			 int64_t trial_id, struct trial_out *o)
{
	const struct matrix_workload *w = &ctx->m->workloads[t->workload];
	struct run_host *sut = &ctx->hosts[t->host];
	json_t *args, *res = NULL;
	char *outdir, *remote;
	int ret;

	if (w->collect) {
		outdir = trial_outdir(ctx, sut, trial_id);
		args = run_args__collect(ctx->m, sut->h.m, outdir, t->profile);
		free(outdir);
		o->collectors = json_dumps(json_object_get(args, "collectors"),
					   JSON_COMPACT | JSON_SORT_KEYS);
		ret = run_host__call(sut, "collect.start", args,
				     COLLECT_TIMEOUT_MS, &res, &o->err);
		remote = ret ? NULL : remote_outdir(sut, res);
		json_decref(res);
		/* stop_collect decrefs what collect.stop answers, if asked. */
		res = NULL;
		if (ret)
			return ret;
	} else {
		remote = NULL;
		o->collectors = xstrdup("{}");
	}
	switch (w->type) {
	case WORKLOAD_FIO:
		ret = fio__trial(ctx, t, o);
		break;
	case WORKLOAD_DMA_MAP:
		ret = dma_map__trial(ctx, t, o);
		break;
	default:
		ret = iperf3__trial(ctx, t, o);
		break;
	}
	if (ret)
		goto stop_collect;
	if (!w->collect)
		return 0;
	ret = run_host__call(sut, "collect.stop", NULL, COLLECT_TIMEOUT_MS,
			     &o->collected, &o->err);
	/* The fetch removes the host's folder once all of it came home. */
	if (!ret && remote)
		artifacts__fetch(ctx, sut, trial_id, remote, o);
	/* An agent that gave no answer would only keep us waiting again. */
	if (ret && remote && sut->agent && !sut->agent->unanswered)
		run_fetch__remove(sut, remote);
	free(remote);
	if (!ret)
		ret = profile__finish(t, sut, trial_id, o);
	return ret;
stop_collect:
	if (w->collect && sut->agent &&
	    run_host__call(sut, "collect.stop", NULL, COLLECT_TIMEOUT_MS, &res,
			   NULL))
		host__reset(ctx, sut);
	json_decref(res);
	/* A failed trial's artifacts are not worth a fetch. */
	if (remote && sut->agent && !sut->agent->unanswered)
		run_fetch__remove(sut, remote);
	free(remote);
	return ret;
}

/*
 * The raw results beside the rows, as files of the trial: what the rows
 * leave out (every iperf3 interval and stream, each probe's targets and
 * failed rungs) is still there for whoever asks later.
 */
static int raw__store(struct run_ctx *ctx, int64_t trial_id, const char *name,
		      const json_t *v)
{
	char *dir, *path;
	int ret = 0;

	if (!v || !(dir = trial_dir(ctx, trial_id)))
		return 0;
	path = xasprintf("%s/%s", dir, name);
	if (json_dump_file(v, path, JSON_COMPACT | JSON_SORT_KEYS))
		pr_warn("cannot write %s; not kept", path);
	else
		ret = store__artifact_add(ctx->st, 0, trial_id, path, name,
					  NULL);
	free(path);
	free(dir);
	return ret;
}

/*
 * Fetched files that a collector's own store records, as it does where
 * the agent wrote them into the trial's folder directly.
 */
static bool recorded_by_collector(const struct run_fetched *f)
{
	static const char *const own[] = { "perf/perf_data" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (!strcmp(f->where, own[i]))
			return true;
	return false;
}

/* A file without its row costs nothing measured: it is still there. */
static void fetched__store(struct run_ctx *ctx, int64_t trial_id,
			   const struct run_fetch *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++) {
		if (recorded_by_collector(&f->files[i]))
			continue;
		if (store__artifact_add(ctx->st, 0, trial_id, f->files[i].path,
					f->files[i].kind, NULL))
			pr_warn("trial %lld: %s not recorded as an artifact",
				(long long)trial_id, f->files[i].path);
	}
}

/*
 * What the VM cost its host: QEMU's CPU-seconds per second over the
 * workload, and the throughput per such core. Under TCG the guest's
 * clock runs on while its vCPU waits for a host CPU, so its own busy
 * time (busy_cores) reads contention as work; the host's count of the
 * VM's CPU time does not (docs/collectors.md).
 */
static int vm_cpu__store(struct run_ctx *ctx, int64_t trial_id,
			 const struct trial_out *o)
{
	double tput =
		json_number_value(json_object_get(o->client, "throughput_bps"));
	int ret;

	if (!o->vm_cpu || !(o->vm_cores > 0))
		return 0;
	ret = store__metric_add(ctx->st, trial_id, "vm_cores", o->vm_cores,
				"cores", STORE_BETTER_LOWER, NULL);
	if (!ret && tput > 0)
		ret = store__metric_add(ctx->st, trial_id, "vm_gbit_per_core",
					tput / 1e9 / o->vm_cores, "Gbit/s/core",
					STORE_BETTER_HIGHER, NULL);
	return ret;
}

static int results__store(struct run_ctx *ctx, int64_t trial_id,
			  struct trial_out *o)
{
	const char *name, *raw = "iperf3.json";
	char *why = NULL;
	json_t *v;
	int ret;

	name = json_string_value(json_object_get(o->client, "workload"));
	if (name && !strcmp(name, "fio")) {
		ret = fio__store(ctx->st, trial_id, o->client);
		raw = "fio.json";
	} else if (name && !strcmp(name, "dma_map")) {
		/* Its layout, struct_size and driver_before stay in it. */
		ret = dma_map__store(ctx->st, trial_id, o->client);
		raw = "dma_map.json";
	} else {
		ret = iperf3__store(ctx->st, trial_id, o->client, &why);
	}
	if (why)
		pr_err("%s", why);
	free(why);
	if (!ret)
		ret = raw__store(ctx, trial_id, raw, o->client);
	if (!ret)
		ret = raw__store(ctx, trial_id, "collectors.json",
				 o->collected);
	if (ret)
		return ret;
	json_object_foreach(o->collected, name, v) {
		const struct collector_ops *ops = collector__find(name);

		if (!ops) {
			pr_warn("collect.stop: unknown collector '%s' ignored",
				name);
			continue;
		}
		ret = ops->store(ctx->st, trial_id, v);
		if (ret)
			return ret;
	}
	fetched__store(ctx, trial_id, &o->fetched);
	ret = store__probe_rates(
		ctx->st, trial_id,
		json_number_value(json_object_get(o->client, "bytes")));
	if (!ret)
		ret = vm_cpu__store(ctx, trial_id, o);
	if (ret)
		return ret;
	/* Throughput per busy core needs both sides: iperf3 and procstat. */
	v = json_object_get(o->collected, "procstat");
	if (v)
		return procstat__store_efficiency(
			ctx->st, trial_id,
			json_number_value(
				json_object_get(o->client, "throughput_bps")),
			v);
	return 0;
}

/*
 * Test-only hook: IOMMU_BENCH_TEST_PAUSE=commit stops the controller
 * (SIGSTOP), once, inside a trial's transaction right before its
 * commit, so tests/cli/resume.t can SIGKILL it there deterministically.
 * Nothing else sets it; unset, it costs a getenv() per trial.
 */
static void test__pause(const char *where)
{
	static bool paused;
	const char *p = getenv("IOMMU_BENCH_TEST_PAUSE");

	if (paused || !p || strcmp(p, where))
		return;
	paused = true;
	raise(SIGSTOP);
}

static int trial__store(struct run_ctx *ctx, const struct plan_trial *t,
			int64_t trial_id, struct trial_out *o, bool ok)
{
	enum store_trial_status status = ok ? STORE_TRIAL_OK :
					      STORE_TRIAL_FAILED;
	int ret;

	ret = store__begin(ctx->st);
	if (ret)
		return ret;
	ret = store__trial_start(
		ctx->st, trial_id, ctx->hosts[t->host].boot_row, o->effective,
		o->effective ?
			run_state__expected_mode(&ctx->m->modes[t->mode]) :
			NULL);
	if (!ret && o->collectors)
		ret = store__trial_collectors(ctx->st, trial_id, o->collectors);
	if (!ret && ok)
		ret = results__store(ctx, trial_id, o);
	if (!ret)
		ret = store__trial_finish(ctx->st, trial_id, status,
					  ok ? NULL : o->err);
	if (!ret) {
		test__pause("commit");
		ret = store__commit(ctx->st);
	}
	if (ret)
		store__rollback(ctx->st);
	return ret;
}

/* 0 stored ok, 1 stored failed, or a negative errno: nothing stored. */
int run_trial__exec(struct run_ctx *ctx, size_t i)
{
	const struct plan_trial *t = &ctx->plan.trials[i];
	int64_t trial_id = ctx->trial_ids[i];
	struct trial_out o = { 0 };
	uint64_t t0 = mono_ms(), wall;
	int ret, sret;

	ret = run_state__ensure(ctx, t, &o.effective, &o.err);
	if (!ret)
		ret = workload__run(ctx, t, trial_id, &o);
	if (ret && run_signal__level() >= 2) {
		free(o.err);
		o.err = xstrdup("interrupted");
	}
	if (ret && !o.err)
		o.err = xasprintf("%s", strerror(-ret));
	sret = trial__store(ctx, t, trial_id, &o, !ret);
	if (sret && !ret) {
		/* What did not store is a failure, stored as one. */
		free(o.err);
		o.err = xstrdup("the results could not be stored");
		ret = -EIO;
		sret = trial__store(ctx, t, trial_id, &o, false);
	}
	wall = mono_ms() - t0;
	run_progress__trial(ctx, i, ret ? "failed" : "ok", o.err,
			    ret ? NULL : o.client, wall);
	/* Even an ok trial's artifacts may have gone unanswered. */
	run_hosts__recover(ctx);
	free_all(o.effective, o.collectors, o.err);
	json_decref(o.client);
	json_decref(o.collected);
	run_fetch__release(&o.fetched);
	if (sret)
		return sret;
	return ret ? 1 : 0;
}

int run_trial__fail(struct run_ctx *ctx, size_t i, const char *why)
{
	struct trial_out o = { .err = xasprintf("%s; not run", why) };
	int ret;

	ret = trial__store(ctx, &ctx->plan.trials[i], ctx->trial_ids[i], &o,
			   false);
	run_progress__trial(ctx, i, "failed", o.err, NULL, 0);
	free(o.err);
	return ret ? ret : 1;
}
