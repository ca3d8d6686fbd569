// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dma_map workload from the matrix's side: its keys loaded with the
 * agent's defaults, each refusal at its position in its words, what plan
 * shows, the agent's arguments made from it, and an answer of
 * dma_map.run (as the agent writes it) turned into metrics in a real
 * store.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/host/qemu/qemu-conf.h"
#include "bench/matrix/matrix.h"
#include "bench/run/run.h"
#include "bench/workload/dma-map.h"
#include "matrix-load.h"
#include "scratch-store.h"
#include "store/store-priv.h"
#include "strvec.h"
#include "tap.h"
#include "util.h"

#define SUT                                                  \
	"[hosts.sut]\ntransport = \"ssh\"\nrole = \"sut\"\n" \
	"address = \"sut.lab\"\nallow_reboot = true\n"
#define DMA "[[workloads]]\nname = \"dm\"\ntype = \"dma_map\"\nhost = \"sut\"\n"

static void test_defaults(void)
{
	struct matrix *m = load(SUT DMA "device = \"0000:00:04.0\"\n");
	const struct matrix_dma_map *p;

	ok(m, "a dma_map workload with only its device loads");
	if (!m)
		return;
	p = &m->workloads[0].u.dma_map;
	is_int(m->workloads[0].type, WORKLOAD_DMA_MAP, "type dma_map");
	is_str(p->device, "0000:00:04.0", "the device");
	ok(!p->unbind, "unbind off by default");
	is_int(p->threads, DMA_MAP_DEFAULT_THREADS, "threads: the selftest's");
	is_int(p->seconds, DMA_MAP_DEFAULT_SECONDS, "seconds: the selftest's");
	is_int(p->granule, DMA_MAP_DEFAULT_GRANULE, "granule: one page");
	is_int(p->dma_bits, DMA_MAP_DEFAULT_DMA_BITS, "dma_bits: 32");
	is_int(p->trans_ns, 0, "no delay");
	is_int(p->node, DMA_MAP_NO_NODE, "any node");
	is_int(p->dir, DMA_MAP_DIR_BIDIRECTIONAL, "bidirectional");
	is_int(m->workloads[0].sut, 0, "the host is the SUT");
	ok(matrix_workload__trial_ms(&m->workloads[0]) > 20000,
	   "a trial is its seconds and more");
	matrix__free(m);
}

static void test_keys(void)
{
	struct matrix *m = load(SUT DMA "device = \"0000:3A:00.7\"\n"
					"unbind = true\nthreads = 8\n"
					"seconds = \"5s\"\ngranule = 16\n"
					"direction = \"from_device\"\n"
					"dma_bits = 48\ntrans_ns = 100\n"
					"node = 0\n");
	const struct matrix_workload *w;
	const struct matrix_dma_map *p;
	char line[256];
	json_t *o, *a;

	ok(m, "every key given loads");
	if (!m)
		return;
	w = &m->workloads[0];
	p = &w->u.dma_map;
	is_str(p->device, "0000:3a:00.7", "the address lower-cased");
	ok(p->unbind, "unbind");
	is_int(p->threads, 8, "threads");
	is_int(p->seconds, 5, "seconds from a duration");
	is_int(p->granule, 16, "granule");
	is_int(p->dir, DMA_MAP_DIR_FROM_DEVICE, "direction");
	is_int(p->dma_bits, 48, "dma_bits");
	is_int(p->trans_ns, 100, "trans_ns");
	is_int(p->node, 0, "node");
	is_int((int)matrix_workload__trial_ms(w), 7000,
	       "the estimate: 5 s and the lending's 2 s");

	w->ops->describe(m, w, line, sizeof(line));
	is_str(line,
	       "sut:0000:3a:00.7, 8 threads, 16 pages per map, "
	       "from_device, 48-bit, unbind, 5s",
	       "plan's line");

	o = json_object();
	w->ops->plan_json(m, w, o);
	a = json_pack("{s:s, s:s, s:b, s:i, s:i, s:s, s:i, s:i, s:i, s:f}",
		      "host", "sut", "device", "0000:3a:00.7", "unbind", 1,
		      "threads", 8, "granule", 16, "direction", "from_device",
		      "dma_bits", 48, "trans_ns", 100, "node", 0,
		      "duration_seconds", 5.0);
	ok(json_equal(o, a), "plan --json's keys");
	json_decref(a);
	json_decref(o);

	a = run_args__dma_map(w);
	o = json_pack("{s:s, s:b, s:i, s:i, s:i, s:s, s:i, s:i, s:i}", "device",
		      "0000:3a:00.7", "unbind", 1, "threads", 8, "seconds", 5,
		      "granule", 16, "direction", "from_device", "dma_bits", 48,
		      "trans_ns", 100, "node", 0);
	ok(json_equal(o, a), "dma_map.run's arguments, every one given");
	json_decref(a);
	json_decref(o);
	matrix__free(m);
}

static void test_refused(void)
{
	load_refused(SUT DMA "threads = 4\n",
		     "test.toml:6:1: error: missing key 'device' in workload "
		     "'dm' (a PCI address of host 'sut', like "
		     "\"0000:00:04.0\")",
		     "no device");
	load_refused(SUT DMA "device = \"00:04.0\"\n",
		     "test.toml:10:10: error: device: '00:04.0' is not a PCI "
		     "address DDDD:BB:DD.F",
		     "a short address");
	load_refused(SUT DMA "device = \"0000:00:04.0/../x\"\n",
		     "test.toml:10:10: error: device: '0000:00:04.0/../x' is "
		     "not a PCI address",
		     "a path is no address");
	load_refused(SUT DMA "device = \"0000:00:20.0\"\n", "device up to 1f",
		     "device 0x20 is no device number");
	load_refused(SUT DMA "device = 4\n",
		     "test.toml:10:10: error: device: "
		     "expected a string",
		     "an address is a string");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\nthreads = 1025\n",
		     "test.toml:11:11: error: threads: 1025 is out of range "
		     "(1..1024)",
		     "threads over the kernel's");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\nthreads = 0\n",
		     "threads: 0 is out of range (1..1024)", "no threads");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\ngranule = 2048\n",
		     "test.toml:11:11: error: granule: 2048 is out of range "
		     "(1..1024)",
		     "granule over the kernel's");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\ndma_bits = 16\n",
		     "test.toml:11:12: error: dma_bits: 16 is out of range "
		     "(20..64)",
		     "a mask too narrow");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\n"
			     "trans_ns = 10000001\n",
		     "test.toml:11:12: error: trans_ns: 10000001 is out of "
		     "range (0..10000000)",
		     "a delay over 10 ms");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\nnode = -2\n",
		     "test.toml:11:8: error: node: -2 is out of range "
		     "(-1..1023; -1: any node)",
		     "a node below NUMA_NO_NODE");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\nseconds = \"301s\"\n",
		     "test.toml:11:11: error: seconds: 5m1s is not whole "
		     "seconds in 1s..300s (the kernel's range)",
		     "seconds over the kernel's");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\n"
			     "seconds = \"1500ms\"\n",
		     "seconds: 1s500ms is not whole seconds",
		     "not whole seconds");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\n"
			     "direction = \"to_devce\"\n",
		     "test.toml:11:13: error: direction: 'to_devce' is not one "
		     "of bidirectional, to_device, from_device; did you mean "
		     "'to_device'?",
		     "a direction's typo");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\ngranul = 2\n",
		     "test.toml:11:1: error: unknown key 'granul' in workload "
		     "'dm'",
		     "a key's typo");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\ngranul = 2\n",
		     "did you mean 'granule'?", "and its suggestion");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\nbs = 4096\n",
		     "unknown key 'bs' in workload 'dm'",
		     "fio's keys are not dma_map's");
	load_refused(SUT "[hosts.peer]\ntransport = \"ssh\"\n"
			 "address = \"p\"\n"
			 "[[workloads]]\nname = \"dm\"\ntype = \"dma_map\"\n"
			 "host = \"peer\"\ndevice = \"0000:00:04.0\"\n",
		     "is a peer", "the host must be the SUT");
}

static void test_qemu(void)
{
	struct matrix *m =
		load("[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"
		     "address = \"10.77.0.2/24\"\nlink = \"peer\"\n"
		     "[hosts.peer]\ntransport = \"netns\"\n"
		     "address = \"10.77.0.1/24\"\n"
		     "[[kernels]]\nname = \"deb\"\npackage = "
		     "\"linux-image-6.1.0-57-amd64\"\n"
		     "[[workloads]]\nname = \"dm\"\ntype = \"dma_map\"\n"
		     "host = \"vm\"\n");

	ok(m && m->nr_workloads == 1 &&
		   !strcmp(m->workloads[0].u.dma_map.device, "0000:00:10.0") &&
		   qemu_conf(&m->hosts[0])->spare_pci,
	   "a qemu host without a device: its VM's spare one, 0000:00:10.0");
	matrix__free(m);

	load_refused("[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"
		     "address = \"10.77.0.2/24\"\nlink = \"peer\"\n"
		     "[hosts.peer]\ntransport = \"netns\"\n"
		     "address = \"10.77.0.1/24\"\n"
		     "[[workloads]]\nname = \"dm\"\ntype = \"dma_map\"\n"
		     "host = \"vm\"\ndevice = \"0000:00:02.0\"\n",
		     "test.toml:13:10: error: device: host 'vm' is a testbed "
		     "VM, and the one device it lends is its spare, "
		     "0000:00:10.0, which it gets when 'device' is left out "
		     "(got \"0000:00:02.0\")",
		     "another device of a testbed VM");
}

/* 60 characters: room for a suffix of 4 at most. */
#define LONG_NAME "a-workload-name-of-sixty-characters-xxxxxxxxxxxxxxxxxxxxxxxx"

static void test_sweep(void)
{
	static const char *const names[] = {
		"dm-t1-g1",  "dm-t1-g16", "dm-t4-g1",
		"dm-t4-g16", "dm-t8-g1",  "dm-t8-g16",
	};
	struct matrix *m = load(SUT DMA "device = \"0000:00:04.0\"\n"
					"threads = [1, 4, 8]\n"
					"granule = [1, 16]\nseconds = \"3s\"\n"
					"[[workloads]]\nname = \"one\"\n"
					"type = \"dma_map\"\nhost = \"sut\"\n"
					"device = \"0000:00:05.0\"\n");
	const struct matrix_workload *w;
	char *msg;
	size_t i;

	ok(m, "threads and granule as lists load");
	if (!m)
		return;
	is_int((int)m->nr_workloads, 7, "3 x 2 workloads, then the next");
	for (i = 0; i < 6 && i < m->nr_workloads; i++) {
		w = &m->workloads[i];
		is_str(w->name, names[i], "sweep %zu named by its values", i);
		is_int(w->u.dma_map.threads,
		       i / 2 == 0 ? 1 :
		       i / 2 == 1 ? 4 :
				    8,
		       "its threads");
		is_int(w->u.dma_map.granule, i % 2 ? 16 : 1, "its granule");
		is_int(w->u.dma_map.seconds, 3, "the rest shared");
		is_str(w->u.dma_map.device, "0000:00:04.0", "its own device");
	}
	if (m->nr_workloads == 7)
		is_str(m->workloads[6].name, "one", "a workload after it");
	matrix__free(m);

	m = load(SUT DMA "device = \"0000:00:04.0\"\n"
			 "direction = [\"to_device\", \"from_device\"]\n");
	ok(m && m->nr_workloads == 2, "a direction sweep");
	if (m && m->nr_workloads == 2) {
		is_str(m->workloads[0].name, "dm-to_device", "named by it");
		is_int(m->workloads[1].u.dma_map.dir, DMA_MAP_DIR_FROM_DEVICE,
		       "the second direction");
	}
	matrix__free(m);

	load_refused(SUT DMA "device = \"0000:00:04.0\"\n"
			     "threads = [1, 2048]\n",
		     "test.toml:11:15: error: threads: 2048 is out of range "
		     "(1..1024)",
		     "an item out of range, at its position");
	load_refused(SUT "[[workloads]]\nname = \"" LONG_NAME "\"\n"
			 "type = \"dma_map\"\nhost = \"sut\"\n"
			 "device = \"0000:00:04.0\"\ngranule = [1, 1024]\n",
		     "name: the sweep's workload '" LONG_NAME "-g1024' has a "
		     "name longer than 64 characters",
		     "a generated name too long");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\n"
			     "granule = [4, 4]\n",
		     "test.toml:11:15: error: granule: 4 is twice in the list",
		     "an item twice");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\ngranule = []\n",
		     "test.toml:11:11: error: granule: the list is empty",
		     "an empty list");
	load_refused(SUT DMA "device = \"0000:00:04.0\"\n"
			     "direction = [\"to_device\", \"frm_device\"]\n",
		     "test.toml:11:27: error: direction: 'frm_device' is not "
		     "one of bidirectional, to_device, from_device; did you "
		     "mean 'from_device'?",
		     "a direction's typo in a list");
	msg = load_bad(SUT DMA "device = \"0000:00:04.0\"\n"
			       "threads = [1, 0, 2]\n");
	ok(!strstr(msg, "duplicate"), "a refused item makes no sweep whose "
				      "names would clash");
	free(msg);
	load_refused(SUT DMA "device = \"0000:00:04.0\"\n"
			     "threads = [1, 2]\n"
			     "[[workloads]]\nname = \"dm-t2\"\n"
			     "type = \"dma_map\"\nhost = \"sut\"\n"
			     "device = \"0000:00:05.0\"\n",
		     "duplicate workload name 'dm-t2'",
		     "a sweep's name taken by another workload");
}

/* Its answer as bench/workload/dma-map.c makes it. */
static const char reply[] =
	"{\"map_ns\": 300, \"map_ns_stddev\": 100, \"unmap_ns\": 200, "
	"\"operations\": 5000, \"ops_per_s\": 1000.0, "
	"\"unmap_ns_stddev\": 0, \"threads\": 8, \"seconds\": 5, "
	"\"granule\": 16, \"dir\": \"bidirectional\", \"dma_bits\": 32, "
	"\"trans_ns\": 0, \"node\": -1, \"device\": \"0000:00:04.0\", "
	"\"driver_before\": \"virtio-pci\", \"lent\": true, \"layout\": "
	"\"btf\", \"layout_note\": null, \"struct_size\": 136, "
	"\"elapsed_ms\": 5012, \"restored\": null, "
	"\"workload\": \"dma_map\"}";

static void test_store(void)
{
	char dir[] = "/tmp/iommu-bench-dmm.XXXXXX";
	struct scratch_trial t = { "t",	      "machine-1", "boot-1", "6.18",
				   "running", "lazy",	   "key-1" };
	struct strvec names = { 0 };
	sqlite3_stmt *s = NULL;
	struct store *st;
	int64_t run, trial;
	json_t *r;
	char *path;
	int n = 0;

	dma_map__metric_names(&names);
	is_int((int)names.nr, 6, "six metrics");
	strvec__release(&names);
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	path = xasprintf("%s/results.db", dir);
	if (scratch_store__open(path, &t, &st, &run, &trial)) {
		ok(0, "a scratch store");
		free(path);
		return;
	}
	r = json_loads(reply, 0, NULL);
	is_int(dma_map__store(st, trial, r), 0, "the answer into the store");
	if (sqlite3_prepare_v2(st->db,
			       "SELECT name || '=' || value || ' ' || unit || "
			       "' ' || better FROM metrics WHERE trial_id = ?1 "
			       "ORDER BY name",
			       -1, &s, NULL) == SQLITE_OK) {
		static const char *const want[] = {
			"map_ns=300.0 ns lower",
			"map_ns_stddev=100.0 ns none",
			"operations=5000.0 maps none",
			"ops_per_s=1000.0 maps/s higher",
			"unmap_ns=200.0 ns lower",
			"unmap_ns_stddev=0.0 ns none",
		};

		sqlite3_bind_int64(s, 1, trial);
		while (sqlite3_step(s) == SQLITE_ROW && n < 6) {
			is_str((const char *)sqlite3_column_text(s, 0), want[n],
			       "metric %d", n);
			n++;
		}
	}
	sqlite3_finalize(s);
	is_int(n, 6,
	       "map and unmap, with their deviations, the count and rate");
	json_object_del(r, "map_ns");
	is_int(dma_map__store(st, trial + 1000, r), -EINVAL,
	       "an answer without its means is refused");
	json_decref(r);
	store__commit(st);
	store__close(st);
	unlink(path);
	free(path);
	rmdir(dir);
}

int main(void)
{
	test_defaults();
	test_keys();
	test_refused();
	test_qemu();
	test_sweep();
	test_store();
	config_errors__release(&errs);
	return tap_done();
}
