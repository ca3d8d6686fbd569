// SPDX-License-Identifier: GPL-2.0-only
/*
 * A dma_map sweep run end to end over a fake host: the real matrix,
 * plan, trial loop and store, an agent that answers dma_map.run as the
 * real one does. Its answer is made from the arguments it was sent, so
 * the metrics stored show which workload of the sweep sent what; the
 * whole answer is kept beside each trial.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/run/run.h"
#include "fake-agent.h"
#include "fake-run.h"
#include "tap.h"
#include "util.h"

static const char matrix_toml[] =
	FAKE_RUN_LAZY_KEXEC("dm", 1) "[hosts.a]\n"
				     "transport = \"ssh\"\n"
				     "role = \"sut\"\n"
				     "address = \"a.lab\"\n"
				     "allow_reboot = true\n"
				     "[[workloads]]\n"
				     "name = \"dm\"\n"
				     "type = \"dma_map\"\n"
				     "host = \"a\"\n"
				     "collect = false\n"
				     "device = \"0000:00:04.0\"\n"
				     "threads = [1, 4]\n"
				     "granule = 8\n"
				     "seconds = \"1s\"\n"
				     "direction = \"to_device\"\n";

/*
 * dma_map.run as bench/workload/dma-map.c answers it: the means made
 * from the arguments (map: 100 ns per thread; unmap: the granule's
 * pages x 100 ns), so that a wrong argument shows in the metrics.
 */
static json_t *dma_map_answer(json_t *args)
{
	json_int_t t = json_integer_value(json_object_get(args, "threads"));
	json_int_t g = json_integer_value(json_object_get(args, "granule"));
	const char *dir = json_string_value(json_object_get(args, "direction"));
	const char *dev = json_string_value(json_object_get(args, "device"));

	if (!dir || strcmp(dir, "to_device") || !dev ||
	    strcmp(dev, "0000:00:04.0") ||
	    json_integer_value(json_object_get(args, "seconds")) != 1 ||
	    json_integer_value(json_object_get(args, "dma_bits")) != 32)
		return NULL;
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:I, "
			 "s:I, s:i, s:s, s:s, s:b, s:s, s:n, s:I, s:I, s:n}",
			 "map_ns", t * 100, "map_ns_stddev", (json_int_t)0,
			 "unmap_ns", g * 100, "unmap_ns_stddev",
			 (json_int_t)100, "threads", t, "seconds",
			 (json_int_t)1, "granule", g, "dir", dir, "dma_bits",
			 (json_int_t)32, "trans_ns", (json_int_t)0, "node", -1,
			 "device", dev, "driver_before", "virtio-pci", "lent",
			 1, "layout", "btf", "layout_note", "struct_size",
			 (json_int_t)136, "elapsed_ms", (json_int_t)1010,
			 "restored");
}

/*
 * The agent is another process: what dma_map.check was asked goes to
 * SCRATCH/checked, and it refuses while SCRATCH/refuse exists.
 */
static char scratch[] = "/tmp/test-run-dma-map.XXXXXX";

static json_t *fake_answer(const char *host, const char *verb, json_t *args)
{
	if (!strcmp(verb, "dma_map.check")) {
		char *p = xasprintf("%s/checked", scratch);
		bool refuse;

		json_dump_file(args, p, JSON_SORT_KEYS | JSON_COMPACT);
		free(p);
		p = xasprintf("%s/refuse", scratch);
		refuse = !access(p, F_OK);
		free(p);
		return refuse ? NULL :
				json_pack("{s:s, s:n}", "device",
					  "0000:00:04.0", "driver");
	}
	if (!strcmp(verb, "hello"))
		return json_pack("{s:i, s:s, s:s}", "protocol", AGENT_PROTOCOL,
				 "boot_id", "boot-1", "kernel_release",
				 "6.0-fake");
	if (!strcmp(verb, "dma_map.run"))
		return dma_map_answer(args);
	return fake_agent__answer(host, verb);
}

static const struct host_ops fake_ops = FAKE_HOST_OPS(fake_host__booted);

int main(void)
{
	char *dir = scratch, *db, *dump, *raw, *checked, *flag;
	size_t len;
	FILE *fp;
	struct run_ctx ctx = { 0 };
	int ret;

	if (!mkdtemp(dir))
		tap_skip_all("cannot make a scratch folder");
	db = xasprintf("%s/dm.db", dir);
	ret = fake_run__load(&ctx, matrix_toml);
	ctx.results_dir = xstrdup(dir);
	if (!ret)
		ret = fake_run__start(&ctx, db, matrix_toml, &fake_ops, false);
	is_int(ret, 0, "the matrix, plan, store and fake host are set up");
	if (ret)
		goto out;
	is_int(run_hosts__check_dma_map(&ctx, 0), 0,
	       "the device asked of the host before any trial");
	raw = xasprintf("%s/checked", dir);
	checked = NULL;
	read_file(raw, &checked, &len);
	is_str(checked, "{\"device\":\"0000:00:04.0\",\"unbind\":false}",
	       "... with its device and unbind");
	unlink(raw);
	free_all(raw, checked);
	flag = xasprintf("%s/refuse", dir);
	fp = fopen(flag, "w");
	if (fp)
		fclose(fp);
	ok(run_hosts__check_dma_map(&ctx, 0) < 0,
	   "a host that refuses the device fails the run there");
	unlink(flag);
	free(flag);
	is_int(run__execute(&ctx), 0, "both workloads of the sweep ran");
	fake_run__release(&ctx);

	dump = fake_run__dump(db,
			      "SELECT c.workload || ' ' || m.name || '=' || "
			      "m.value || ' ' || m.unit FROM metrics m "
			      "JOIN trials t ON t.id = m.trial_id "
			      "JOIN cells c ON c.id = t.cell_id "
			      "WHERE m.unit = 'ns' ORDER BY c.workload, m.name",
			      NULL);
	is_str(dump,
	       "dm-t1 map_ns=100.0 ns\n"
	       "dm-t1 map_ns_stddev=0.0 ns\n"
	       "dm-t1 unmap_ns=800.0 ns\n"
	       "dm-t1 unmap_ns_stddev=100.0 ns\n"
	       "dm-t4 map_ns=400.0 ns\n"
	       "dm-t4 map_ns_stddev=0.0 ns\n"
	       "dm-t4 unmap_ns=800.0 ns\n"
	       "dm-t4 unmap_ns_stddev=100.0 ns\n",
	       "each workload's arguments reached the agent, its means "
	       "the store");
	free(dump);
	dump = fake_run__dump(db,
			      "SELECT count(*) FROM artifacts "
			      "WHERE kind = 'dma_map.json'",
			      NULL);
	is_str(dump, "2\n", "the answer kept beside each trial");
	free(dump);
	raw = xasprintf("%s/1/1/dma_map.json", dir);
	ok(!access(raw, R_OK), "as %s", raw + strlen(dir));
	free(raw);
out:
	free(ctx.results_dir);
	free(db);
	return fake_run__end(&ctx, dir);
}
