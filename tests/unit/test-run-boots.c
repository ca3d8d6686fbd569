// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which kernel a lab host is booted into, trial by trial, with mode
 * "current" (no boot of its own): the kernel the run found ("running"),
 * an image already on the host, and a build the controller holds, in
 * interleaved order. Each change of kernel is a boot through the host's
 * method; a build boots from where kernel.find says it was installed;
 * "running" after another kernel boots back to the kernel the run found,
 * by release, and a host that stays on the wrong one fails verification
 * rather than measuring it. A lab host's reboot cannot happen here, so
 * the hosts are fakes behind the real host_ops interface: each agent is
 * a forked child answering the real protocol from a state file that
 * reboot.now rewrites. The plan, the store and the trial loop are real.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/agent/agent-file.h"
#include "bench/agent-client/agent-conn.h"
#include "bench/run/run.h"
#include "config-error.h"
#include "fake-agent.h"
#include "fake-run.h"
#include "store/store.h"
#include "tap.h"
#include "util.h"

#define FOUND "6.0-fake"
#define BUILT_ID "0123456789abcdef0123456789abcdef01234567"

static const char matrix_toml[] =
	"[run]\n"
	"name = \"boots\"\n"
	"repetitions = 2\n"
	"warmup = 0\n"
	"cooldown = \"0s\"\n"
	"order = \"interleaved\"\n"
	"modes = [\"current\"]\n"
	"[hosts.a]\n"
	"transport = \"ssh\"\n"
	"role = \"sut\"\n"
	"address = \"a.lab\"\n"
	"allow_reboot = true\n"
	"kernel_dir = \"/kd\"\n"
	"[hosts.b]\n"
	"transport = \"ssh\"\n"
	"role = \"sut\"\n"
	"address = \"b.lab\"\n"
	"allow_reboot = true\n"
	"kernel_dir = \"/kd\"\n"
	"[hosts.p]\n"
	"transport = \"ssh\"\n"
	"role = \"peer\"\n"
	"address = \"p.lab\"\n"
	"[[kernels]]\n"
	"name = \"running\"\n"
	"[[kernels]]\n"
	"name = \"img\"\n"
	"image = \"/boot/vmlinuz-6.9-img\"\n"
	"release = \"6.9-img\"\n"
	"[[kernels]]\n"
	"name = \"built\"\n"
	"build = { tree = \"/nonexistent/linux\" }\n" FAKE_RUN_WORKLOADS;

static char scratch[64];

/*
 * A host's state: its boot count, release and the release the prepared
 * kexec would boot. Host b is stuck: a boot "back" by release leaves it
 * where it is, as a host whose /boot lost the old kernel might.
 */
struct fake_state {
	int boot;
	char release[64], pending[64];
};

static char *state_path(const char *host)
{
	return xasprintf("%s/%s.state", scratch, host);
}

static void state_load(const char *host, struct fake_state *s)
{
	char *p = state_path(host);
	FILE *f = fopen(p, "r");

	memset(s, 0, sizeof(*s));
	s->boot = 1;
	snprintf(s->release, sizeof(s->release), "%s", FOUND);
	if (f) {
		if (fscanf(f, "%d %63s %63s", &s->boot, s->release,
			   s->pending) < 2)
			s->boot = 1;
		fclose(f);
	}
	free(p);
}

static void state_save(const char *host, const struct fake_state *s)
{
	char *p = state_path(host);
	FILE *f = fopen(p, "w");

	if (f) {
		fprintf(f, "%d %s %s\n", s->boot, s->release,
			*s->pending ? s->pending : "-");
		fclose(f);
	}
	free(p);
}

/* What each prepared boot asked for, one line per reboot.prepare. */
static void log_prepare(const char *host, json_t *args)
{
	char *p = xasprintf("%s/%s.log", scratch, host);
	FILE *f = fopen(p, "a");
	const char *image = json_string_value(json_object_get(args, "image"));
	const char *rel = json_string_value(json_object_get(args, "release"));

	if (f) {
		fprintf(f, "%s %s\n", image ? image : "-", rel ? rel : "-");
		fclose(f);
	}
	free(p);
}

static json_t *fake_answer(const char *host, const char *verb, json_t *args)
{
	struct fake_state s;

	state_load(host, &s);
	if (!strcmp(verb, "hello")) {
		char *id = xasprintf("boot-%d", s.boot);
		json_t *r = json_pack("{s:i, s:s, s:s, s:s}", "protocol",
				      AGENT_PROTOCOL, "boot_id", id,
				      "kernel_release", s.release, "build_id",
				      !strcmp(s.release, "6.9-built") ?
					      BUILT_ID :
					      "feedfacefeedface");

		free(id);
		return r;
	}
	if (!strcmp(verb, "kernel.find"))
		return json_pack("{s:b, s:s, s:s}", "installed", 1, "image",
				 "/kd/6.9-built-0123456789ab/vmlinuz", "initrd",
				 "/kd/6.9-built-0123456789ab/initrd.img");
	if (!strcmp(verb, "reboot.prepare")) {
		const char *image =
			json_string_value(json_object_get(args, "image"));
		const char *rel =
			json_string_value(json_object_get(args, "release"));

		log_prepare(host, args);
		if (image && strstr(image, "6.9-built"))
			snprintf(s.pending, sizeof(s.pending), "6.9-built");
		else if (image && strstr(image, "vmlinuz-6.9-img"))
			snprintf(s.pending, sizeof(s.pending), "6.9-img");
		else if (rel && strcmp(host, "b"))
			snprintf(s.pending, sizeof(s.pending), "%s", rel);
		else
			snprintf(s.pending, sizeof(s.pending), "%s", s.release);
		state_save(host, &s);
		return json_object();
	}
	if (!strcmp(verb, "reboot.now")) {
		s.boot++;
		snprintf(s.release, sizeof(s.release), "%s", s.pending);
		state_save(host, &s);
		return json_object();
	}
	return fake_agent__answer(host, verb);
}

/* reboot.now has rewritten the state already: the new boot is there. */
static const struct host_ops fake_ops = FAKE_HOST_OPS(fake_host__booted);

/* @resume: the run @ctx->run_id again, as `run --resume` would. */
static int ctx__open(struct run_ctx *ctx, const char *db, bool resume)
{
	struct matrix_kernel *built;
	FILE *f;
	int ret;

	ret = fake_run__load(ctx, matrix_toml);
	if (ret)
		return ret;
	/* What run_kernels__build leaves on a build it found cached. */
	built = &ctx->m->kernels[2];
	built->image = xasprintf("%s/bzImage", scratch);
	f = fopen(built->image, "w");
	if (!f || fputs("a kernel\n", f) < 0 || fclose(f))
		return -EIO;
	built->release = xstrdup("6.9-built");
	built->build_id = xstrdup(BUILT_ID);
	return fake_run__start(ctx, db, matrix_toml, &fake_ops, resume);
}

/* "kernel:release:status:error" of host @h's trials, in order, one a line. */
static char *trials__dump(const char *db, const char *h)
{
	return fake_run__dump(db,
			      "SELECT k.name || ':' || "
			      "coalesce(b.kernel_release, '-') || ':' || "
			      "t.status || ':' || coalesce(t.error, '') "
			      "FROM trials t JOIN cells c ON c.id = t.cell_id "
			      "JOIN hosts h ON h.id = c.host_id "
			      "JOIN kernels k ON k.id = c.kernel_id "
			      "LEFT JOIN boots b ON b.id = t.boot_id "
			      "WHERE h.name = ?1 ORDER BY t.id",
			      h);
}

static char *file_text(const char *name)
{
	char *p = xasprintf("%s/%s", scratch, name), *s = NULL;
	size_t n = 0;

	if (read_file(p, &s, &n) < 0)
		s = xstrdup("");
	free(p);
	return s;
}

int main(void)
{
	char *db, *a, *b, *log;
	struct run_ctx ctx = { 0 };
	int64_t run_id;
	int ret;

	snprintf(scratch, sizeof(scratch), "/tmp/test-run-boots.XXXXXX");
	if (!mkdtemp(scratch))
		tap_skip_all("cannot make a scratch folder");
	db = xasprintf("%s/boots.db", scratch);
	ret = ctx__open(&ctx, db, false);
	is_int(ret, 0, "the matrix, plan, store and fake hosts are set up");
	if (ret)
		goto out;
	is_int(run__execute(&ctx), 1,
	       "the run ends with failures (iperf3 is a fake)");
	run_id = ctx.run_id;
	fake_run__release(&ctx);

	a = trials__dump(db, "a");
	tap_diag("host a:\n%s", a);
	is_str(a,
	       "running:6.0-fake:failed:fake: no traffic\n"
	       "img:6.9-img:failed:fake: no traffic\n"
	       "built:6.9-built:failed:fake: no traffic\n"
	       "running:6.0-fake:failed:fake: no traffic\n"
	       "img:6.9-img:failed:fake: no traffic\n"
	       "built:6.9-built:failed:fake: no traffic\n",
	       "host a: every trial on its own kernel, verified, up to iperf3");
	log = file_text("a.log");
	is_str(log,
	       "/boot/vmlinuz-6.9-img -\n"
	       "/kd/6.9-built-0123456789ab/vmlinuz -\n"
	       "- 6.0-fake\n"
	       "/boot/vmlinuz-6.9-img -\n"
	       "/kd/6.9-built-0123456789ab/vmlinuz -\n",
	       "a boot per change: the image, the build where it was "
	       "installed, back to the found kernel by its release");
	free(log);
	free(a);

	b = trials__dump(db, "b");
	tap_diag("host b:\n%s", b);
	ok(strstr(b, "running:6.9-built:failed:host b: kernel 'running' is "
		     "the one the run found (release 6.0-fake") != NULL,
	   "host b stays on the build: its 'running' trial fails "
	   "verification instead of measuring the wrong kernel");
	free(b);

	/*
	 * Killed while host a ran the build: the resumed run's "running"
	 * is still the kernel its start found, so its trials boot back.
	 */
	{
		char *p = state_path("a"), *l = xasprintf("%s/a.log", scratch);
		FILE *f = fopen(p, "w");

		if (f) {
			fprintf(f, "9 6.9-built -\n");
			fclose(f);
		}
		unlink(l);
		free(l);
		free(p);
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.run_id = run_id;
	ret = ctx__open(&ctx, db, true);
	is_int(ret, 0, "the run resumed, host a left in the build");
	if (ret)
		goto out;
	is_int(run__execute(&ctx), 1, "the resumed run reruns its trials");
	fake_run__release(&ctx);
	a = trials__dump(db, "a");
	tap_diag("host a, resumed:\n%s", a);
	ok(!strncmp(a, "running:6.0-fake:failed:fake: no traffic\n", 41) &&
		   !strstr(a, "running:6.9"),
	   "its 'running' trials ran on the kernel the run found, not on "
	   "the build it was left in");
	free(a);
	log = file_text("a.log");
	ok(!strncmp(log, "- 6.0-fake\n", 11),
	   "the first thing the resumed run did was boot back by release");
	free(log);
out:
	free(db);
	return fake_run__end(&ctx, scratch);
}
