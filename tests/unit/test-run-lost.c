// SPDX-License-Identifier: GPL-2.0-only
/*
 * A host that does not come back from a reboot: its remaining trials are
 * stored failed, naming the host and its boot_timeout, without being
 * tried, and the run carries on with the other hosts. A lab machine's
 * reboot cannot happen here, so the hosts are fakes behind the real
 * host_ops interface: each agent is a forked child answering the real
 * protocol, and host 'a''s wait_boot times out. The store, the plan and
 * the trial loop are the real ones.
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

static const char matrix_toml[] = FAKE_RUN_LAZY_KEXEC(
	"lost", 2) "[hosts.a]\n"
		   "transport = \"ssh\"\n"
		   "role = \"sut\"\n"
		   "address = \"a.lab\"\n"
		   "nic = \"eth0\"\n"
		   "allow_reboot = true\n"
		   "boot_timeout = \"1s\"\n"
		   "[hosts.b]\n"
		   "transport = \"ssh\"\n"
		   "role = \"sut\"\n"
		   "address = \"b.lab\"\n"
		   "nic = \"eth0\"\n"
		   "allow_reboot = true\n"
		   "[hosts.p]\n"
		   "transport = \"ssh\"\n"
		   "role = \"peer\"\n"
		   "address = \"p.lab\"\n" FAKE_RUN_WORKLOADS;

static int nr_wait_boot_a, nr_wait_boot_b;

/* The agent's side of the protocol, enough for a trial to get going. */
static json_t *fake_answer(const char *host, const char *verb, json_t *args)
{
	(void)args;
	if (!strcmp(verb, "hello"))
		return json_pack("{s:i, s:s, s:s}", "protocol", AGENT_PROTOCOL,
				 "boot_id", "boot-1", "kernel_release",
				 "6.0-fake");
	return fake_agent__answer(host, verb);
}

/* Host a never comes back; b does. */
static int fake__wait_boot(struct host *h, const char *old, uint64_t tmo,
			   char **err)
{
	(void)old;
	(void)tmo;
	(void)err;
	if (!strcmp(h->m->name, "a")) {
		nr_wait_boot_a++;
		return -ETIMEDOUT;
	}
	nr_wait_boot_b++;
	return 0;
}

static const struct host_ops fake_ops = FAKE_HOST_OPS(fake__wait_boot);

/* "host:status:error" of every trial, in plan order, joined by '\n'. */
static char *trials__dump(const char *db)
{
	return fake_run__dump(db,
			      "SELECT h.name || ':' || t.status || ':' || "
			      "coalesce(t.error, '') FROM trials t "
			      "JOIN cells c ON c.id = t.cell_id "
			      "JOIN hosts h ON h.id = c.host_id ORDER BY t.id",
			      NULL);
}

int main(void)
{
	char dir[] = "/tmp/test-run-lost.XXXXXX", *db, *dump, *line;
	struct run_ctx ctx = { 0 };
	int ret, nr_lost = 0, nr_b = 0;

	if (!mkdtemp(dir))
		tap_skip_all("cannot make a scratch folder");
	db = xasprintf("%s/lost.db", dir);
	ret = fake_run__load(&ctx, matrix_toml);
	if (!ret)
		ret = fake_run__start(&ctx, db, matrix_toml, &fake_ops, false);
	is_int(ret, 0, "the matrix, plan, store and fake hosts are set up");
	if (ret)
		goto out;
	is_int(run__execute(&ctx), 1,
	       "the run ends, with failures (1), rather than giving up");
	is_int(nr_wait_boot_a, 1, "host a's boot is waited for once only");
	is_int(nr_wait_boot_b, 1, "host b still reboots after a is lost");
	fake_run__release(&ctx);

	dump = trials__dump(db);
	for (line = strtok(dump, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strncmp(line, "a:failed:", 9) && strstr(line, "host a") &&
		    strstr(line, "boot_timeout"))
			nr_lost++;
		if (!strncmp(line, "b:failed:", 9) &&
		    strstr(line, "fake: no traffic"))
			nr_b++;
		tap_diag("%s", line);
	}
	free(dump);
	is_int(nr_lost, 2,
	       "both of a's trials are failed naming host a and boot_timeout");
	is_int(nr_b, 2, "both of b's trials were tried (they reached iperf3)");
out:
	free(db);
	return fake_run__end(&ctx, dir);
}
