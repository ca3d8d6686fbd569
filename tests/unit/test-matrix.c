// SPDX-License-Identifier: GPL-2.0-only
/*
 * The matrix and its plan: the shipped configs load, defaults and
 * built-in modes are what docs/matrix.md says, modes are applied the way
 * the host allows, and expansion, ordering, reboots and estimates come
 * out as designed. Broken files are tests/configs/bad/, run by plan.t.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/qemu/qemu-conf.h"
#include "bench/matrix/matrix.h"
#include "bench/matrix/plan.h"
#include "matrix-load.h"
#include "tap.h"
#include "util.h"

/* Two ssh hosts; callers add what they test. */
#define HOSTS                                                \
	"[hosts.sut]\ntransport = \"ssh\"\nrole = \"sut\"\n" \
	"address = \"sut.lab\"\n"
#define PEER "[hosts.peer]\ntransport = \"ssh\"\naddress = \"peer.lab\"\n"
#define WORKLOAD                                               \
	"[[workloads]]\nname = \"tcp-rx\"\nserver = \"sut\"\n" \
	"client = \"peer\"\n"

/* The plan of @toml, a matrix that loads; the matrix for unplan(). */
static struct matrix *planned(const char *toml, struct plan *p)
{
	struct matrix *m = load(toml);

	plan__build(p, m, &errs);
	return m;
}

static void unplan(struct plan *p, struct matrix *m)
{
	plan__release(p);
	matrix__free(m);
}

static void test_shipped(void)
{
	static const char *const files[] = { "demo-netns.toml",
					     "demo.toml",
					     "testbed-kernels.toml",
					     "testbed-overhead.toml",
					     "graviton-strict-vs-lazy.toml",
					     "skip-sync-patch.toml" };
	const char *srcdir = getenv("SRCDIR") ? getenv("SRCDIR") : ".";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *path = xasprintf("%s/configs/%s", srcdir, files[i]);
		struct matrix *m;
		struct plan p;

		config_errors__release(&errs);
		config_errors__init(&errs, path);
		if (!is_int(matrix__load(path, &m, &errs), 0, "%s loads",
			    files[i])) {
			config_errors__print(&errs, stdout);
			free(path);
			continue;
		}
		is_int(errs.nr_errors, 0, "%s: no errors", files[i]);
		is_int(plan__build(&p, m, &errs), 0, "%s: plans", files[i]);
		ok(p.summary.trials == p.summary.cells * m->run.repetitions,
		   "%s: trials = cells x repetitions", files[i]);
		plan__release(&p);
		matrix__free(m);
		free(path);
	}

	/* The demo's story, checked: the running kernel, mode "current". */
	{
		char *path = xasprintf("%s/configs/demo-netns.toml", srcdir);
		struct matrix *m;

		config_errors__release(&errs);
		config_errors__init(&errs, path);
		if (!matrix__load(path, &m, &errs)) {
			is_int(m->nr_kernels, 1, "demo: one kernel");
			is_int(m->kernels[0].kind, KERNEL_RUNNING,
			       "demo: the running one");
			is_int(m->run.nr_modes, 1, "demo: one mode");
			is_str(m->modes[m->run.modes[0]].name, "current",
			       "demo: mode current");
			is_int(m->hosts[0].transport, HOST_NETNS,
			       "demo: a namespace");
			ok(m->hosts[0].has_link && m->hosts[1].has_link,
			   "demo: the namespaces are linked");
			matrix__free(m);
		}
		free(path);
	}
}

static void test_defaults(void)
{
	struct matrix *m = load(HOSTS "nic = \"eth1\"\n" PEER WORKLOAD);
	const struct matrix_iperf3 *p;

	if (!ok(m, "a minimal matrix loads"))
		return;
	is_str(m->run.name, "test", "run name defaults to the file's");
	is_int(m->run.repetitions, 5, "5 repetitions");
	is_int(m->run.warmup, 1, "1 warmup");
	is_int(m->run.order, ORDER_GROUPED, "grouped");
	is_int(m->run.cooldown_ms, 1000, "cooldown 1s");
	ok(!m->run.db, "no db: the tool's default");
	is_int(m->run.nr_modes, 3, "three modes by default");
	is_str(m->modes[m->run.modes[0]].name, "strict", "strict first");
	is_str(m->modes[m->run.modes[1]].name, "lazy", "then lazy");
	is_str(m->modes[m->run.modes[2]].name, "passthrough",
	       "then passthrough");
	is_int(m->nr_kernels, 1, "one kernel");
	is_str(m->kernels[0].name, "running", "named running");
	is_int(m->kernels[0].kind, KERNEL_RUNNING, "the running kernel");
	is_int(m->hosts[1].role, ROLE_PEER, "role defaults to peer");
	is_int(m->hosts[0].reboot, REBOOT_KEXEC, "ssh reboots by kexec");
	ok(!m->hosts[0].allow_reboot, "reboots not allowed by default");
	is_int(m->hosts[0].port, 0, "port left to ssh's config");
	is_int(m->hosts[0].boot_timeout_ms, 600000, "boot_timeout 10m");
	is_int(m->hosts[0].boot_estimate_ms, 60000, "kexec estimate 1m");
	p = &m->workloads[0].u.iperf3;
	is_int(m->workloads[0].type, WORKLOAD_IPERF3, "type iperf3");
	is_int(m->workloads[0].sut, 0, "the workload's SUT is sut");
	is_int(p->protocol, PROTO_TCP, "tcp");
	is_int(p->streams, 1, "1 stream");
	is_int(p->processes, 1, "1 process");
	is_int(p->duration_ms, 10000, "10s");
	is_int(p->omit_ms, 0, "no omit");
	is_int(p->port, 5201, "port 5201");
	ok(!p->reverse && !p->bidir, "client sends");
	ok(m->collect.procstat.enabled, "procstat on");
	ok(!m->collect.bpf.enabled, "bpf off");
	ok(!m->collect.perf.enabled, "perf off");
	ok(!m->collect.perf.event, "perf event left to the collector");
	is_int(m->collect.perf.frequency, 999, "perf at 999 Hz");
	is_int(m->collect.bpf.nr_probes, 11, "the default probes");
	is_int(m->collect.procstat.interval_ms, 1000, "procstat every 1s");
	matrix__free(m);
}

static void test_builtin_modes(void)
{
	struct matrix *m =
		load(HOSTS PEER WORKLOAD "[run]\nmodes = [\"current\"]\n");
	static const struct {
		const char *name, *cmdline;
		enum group_type g;
	} want[] = {
		{ "strict", "iommu.strict=1", GROUP_TYPE_DMA },
		{ "lazy", "iommu.strict=0", GROUP_TYPE_DMA_FQ },
		{ "passthrough", "iommu.passthrough=1", GROUP_TYPE_IDENTITY },
	};
	size_t i;

	if (!ok(m, "built-ins exist without being declared"))
		return;
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		long idx = matrix__find_mode(m, want[i].name);

		if (!ok(idx >= 0, "%s is built in", want[i].name))
			continue;
		is_int(m->modes[idx].nr_cmdline, 1, "%s: one argument",
		       want[i].name);
		is_str(m->modes[idx].cmdline[0], want[i].cmdline, "%s: %s",
		       want[i].name, want[i].cmdline);
		is_int(m->modes[idx].group_type, want[i].g, "%s: group type",
		       want[i].name);
		is_int(m->modes[idx].method, METHOD_AUTO, "%s: method auto",
		       want[i].name);
	}
	i = matrix__find_mode(m, "current");
	is_int(m->modes[i].method, METHOD_NONE, "current: method none");
	is_int(m->modes[i].nr_cmdline, 0, "current: no cmdline");
	is_int(matrix__apply(&m->hosts[0], &m->modes[i]), APPLY_NONE,
	       "current: nothing applied");
	matrix__free(m);
}

static void test_overrides(void)
{
	struct matrix *m =
		load(HOSTS "allow_reboot = true\nnic = \"eth1\"\n" PEER WORKLOAD
			   "[modes.strict]\nmethod = \"kexec\"\n"
			   "[modes.lazy]\ncmdline = [\"iommu.strict=0\", "
			   "\"iommu.forcedac=1\"]\n"
			   "[modes.fq-only]\ngroup_type = \"DMA-FQ\"\n"
			   "[modes.mine]\nmethod = \"none\"\n"
			   "[run]\nmodes = [\"strict\", \"lazy\", "
			   "\"passthrough\", \"fq-only\"]\n");
	const struct matrix_host *h;
	long s, l, p, f;

	if (!ok(m, "overrides load"))
		return;
	h = &m->hosts[0];
	s = matrix__find_mode(m, "strict");
	l = matrix__find_mode(m, "lazy");
	p = matrix__find_mode(m, "passthrough");
	f = matrix__find_mode(m, "fq-only");
	is_int(m->modes[s].method, METHOD_KEXEC, "strict's method overridden");
	is_str(m->modes[s].cmdline[0], "iommu.strict=1",
	       "strict keeps its cmdline");
	is_int(matrix__apply(h, &m->modes[s]), APPLY_KEXEC,
	       "strict: kexec as asked, though the host has a nic");
	is_int(m->modes[l].nr_cmdline, 2, "lazy's cmdline replaced");
	ok(!m->modes[l].sysfs_equivalent, "a new cmdline is not sysfs's");
	is_int(matrix__apply(h, &m->modes[l]), APPLY_KEXEC,
	       "lazy with extra arguments boots");
	is_int(matrix__apply(h, &m->modes[p]), APPLY_SYSFS,
	       "passthrough: sysfs, the host has a nic");
	ok(!m->modes[f].builtin, "fq-only is custom");
	is_int(matrix__apply(h, &m->modes[f]), APPLY_SYSFS,
	       "a group type alone: sysfs");
	is_int(matrix__find_mode(m, "mine") >= 0, 1, "a method-none mode");
	is_int(errs.nr_warnings, 1, "one warning: 'mine' is not run");
	matrix__free(m);
}

static void test_apply(void)
{
	struct matrix *m =
		load(HOSTS "allow_reboot = true\n"
			   "[hosts.grubby]\ntransport = \"ssh\"\n"
			   "role = \"sut\"\naddress = \"g.lab\"\n"
			   "allow_reboot = true\nreboot = \"grub\"\n"
			   "[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"
			   "address = \"10.9.0.2/24\"\nlink = \"ns\"\n"
			   "[hosts.ns]\ntransport = \"netns\"\n"
			   "address = \"10.9.0.1/24\"\n" PEER WORKLOAD
			   "[[workloads]]\nname = \"g\"\nserver = \"grubby\"\n"
			   "client = \"peer\"\n"
			   "[[workloads]]\nname = \"v\"\nserver = \"vm\"\n"
			   "client = \"ns\"\n"
			   "[[kernels]]\nname = \"k\"\nimage = \"/dev/null\"\n"
			   "[run]\nmodes = [\"lazy\"]\n");
	long lazy;

	if (!ok(m, "ssh, grub and qemu SUTs load"))
		return;
	lazy = matrix__find_mode(m, "lazy");
	is_int(matrix__apply(&m->hosts[0], &m->modes[lazy]), APPLY_KEXEC,
	       "no nic, reboot kexec: kexec");
	is_int(matrix__apply(&m->hosts[1], &m->modes[lazy]), APPLY_GRUB,
	       "no nic, reboot grub: grub");
	/* A VM's NIC is eth0 unless told: its group switches by sysfs. */
	is_int(matrix__apply(&m->hosts[2], &m->modes[lazy]), APPLY_SYSFS,
	       "a VM switches a built-in mode through sysfs");
	m->modes[lazy].method = METHOD_REBOOT;
	is_int(matrix__apply(&m->hosts[2], &m->modes[lazy]), APPLY_RESTART,
	       "method reboot: a VM restarts");
	m->modes[lazy].method = METHOD_AUTO;
	ok(m->hosts[2].allow_reboot, "a VM may be restarted by default");
	is_int(qemu_conf(&m->hosts[2])->cpus, 2, "qemu: 2 CPUs");
	is_int(qemu_conf(&m->hosts[2])->memory, 2ULL << 30, "qemu: 2G");
	is_int(m->hosts[1].boot_estimate_ms, 300000, "grub estimate 5m");
	is_int(m->hosts[2].boot_estimate_ms, 20000, "VM estimate 20s");
	matrix__free(m);
}

static void test_keys(void)
{
	struct matrix *m = load(HOSTS
				"nic = \"eth1\"\n" PEER WORKLOAD
				"[run]\nmodes = [\"lazy\"]\nrepetitions = 2\n");
	char key[PLAN_KEY_MAX];
	struct plan p;

	if (!ok(m, "loads for keys"))
		return;
	plan__build(&p, m, &errs);
	plan_trial__key(m, &p.trials[0], key, sizeof(key));
	is_str(key, "host=sut/kernel=running/mode=lazy/workload=tcp-rx",
	       "the cell key");
	plan_trial__key(m, &p.trials[p.nr_trials - 1], key, sizeof(key));
	is_str(key, "host=sut/kernel=running/mode=lazy/workload=tcp-rx",
	       "repetitions share their cell's key");
	is_int(plan__cell_key(m, 0, 0, matrix__find_mode(m, "strict"), 0, key,
			      sizeof(key)),
	       strlen("host=sut/kernel=running/mode=strict/workload=tcp-rx"),
	       "plan__cell_key returns the length");
	is_str(key, "host=sut/kernel=running/mode=strict/workload=tcp-rx",
	       "a key for any cell");
	unplan(&p, m);
}

#define ORDER_MATRIX(order, extra)                                       \
	HOSTS "nic = \"eth1\"\nallow_reboot = true\n" PEER WORKLOAD      \
	      "[[workloads]]\nname = \"tcp-tx\"\nserver = \"sut\"\n"     \
	      "client = \"peer\"\nreverse = true\n"                      \
	      "[[kernels]]\nname = \"base\"\n"                           \
	      "[[kernels]]\nname = \"new\"\nimage = \"/dev/null\"\n"     \
	      "[run]\nmodes = [\"strict\", \"lazy\"]\nrepetitions = 3\n" \
	      "warmup = 1\norder = \"" order "\"\n" extra

/* Every (cell, repetition) exactly once among the recorded trials. */
static bool is_complete(const struct plan *p)
{
	const struct matrix *m = p->m;
	size_t n = m->nr_kernels * m->nr_modes * m->nr_workloads *
		   (m->run.repetitions + 1);
	unsigned char *seen = calloc(n, 1);
	bool good = true;
	size_t i;

	for (i = 0; i < p->nr_trials; i++) {
		const struct plan_trial *t = &p->trials[i];
		size_t at =
			((t->kernel * m->nr_modes + t->mode) * m->nr_workloads +
			 t->workload) *
				(m->run.repetitions + 1) +
			t->repetition;

		if (t->warmup)
			continue;
		good &= !seen[at];
		seen[at] = 1;
	}
	free(seen);
	return good &&
	       p->summary.trials == p->summary.cells * m->run.repetitions;
}

static void test_grouped(void)
{
	struct matrix *m = load(ORDER_MATRIX("grouped", ""));
	struct plan p;
	size_t i;

	if (!ok(m, "grouped loads"))
		return;
	is_int(plan__build(&p, m, &errs), 0, "grouped plans");
	is_int(p.summary.cells, 8, "2 kernels x 2 modes x 2 workloads");
	is_int(p.summary.trials, 24, "x 3 repetitions");
	is_int(p.summary.warmup_trials, 8, "one warmup per cell");
	is_int(p.nr_trials, 32, "every trial listed");
	ok(is_complete(&p), "each cell's repetitions once");
	is_int(p.summary.reboots, 1, "one boot, into 'new'");
	is_int(p.summary.mode_switches, 4,
	       "a sysfs switch per mode per kernel");
	is_int(p.summary.sysfs_switches, 4, "all by sysfs");
	ok(p.trials[0].warmup && p.trials[0].mode_switch,
	   "the first trial warms up after the switch");
	ok(!p.trials[1].warmup && p.trials[1].repetition == 1,
	   "then repetition 1");
	is_int(p.trials[16].kernel, 1, "trial 17 is on the new kernel");
	ok(p.trials[16].reboot_before, "after a boot");
	for (i = 1; i < p.nr_trials; i++)
		if (p.trials[i].start_ms <= p.trials[i - 1].start_ms)
			break;
	is_int(i, p.nr_trials, "start times increase");
	unplan(&p, m);
}

static void test_interleaved(void)
{
	struct matrix *m = load(ORDER_MATRIX("interleaved", ""));
	struct plan p;

	if (!ok(m, "interleaved loads"))
		return;
	plan__build(&p, m, &errs);
	ok(is_complete(&p), "each cell's repetitions once");
	/* Round r: base/strict, base/lazy, new/strict, new/lazy; 2 each. */
	is_int(p.trials[1].repetition, 1, "round 1 first");
	ok(!p.trials[1].warmup && p.trials[1].kernel == 0,
	   "round 1 starts on base");
	is_int(p.summary.reboots, 5,
	       "into new, and back and forth between rounds");
	is_int(p.summary.warmup_trials, 24,
	       "every state change warms each workload up again");
	is_int(p.summary.mode_switches, 12, "four switches per round");
	unplan(&p, m);

	/* One state: interleaving changes nothing, one warmup each. */
	m = planned(HOSTS "nic = \"eth1\"\n" PEER WORKLOAD
			  "[run]\nmodes = [\"lazy\"]\norder = \"interleaved\"\n"
			  "repetitions = 4\nwarmup = 2\n",
		    &p);
	is_int(p.summary.warmup_trials, 2, "no change, no new warmups");
	is_int(p.summary.mode_switches, 1, "one switch into lazy");
	unplan(&p, m);
}

static void test_random(void)
{
	struct matrix *a = load(ORDER_MATRIX("random", "seed = 42\n"));
	struct matrix *b = load(ORDER_MATRIX("random", "seed = 42\n"));
	struct matrix *c = load(ORDER_MATRIX("random", "seed = 43\n"));
	struct plan pa, pb, pc;
	bool same_ab = true, same_ac = true;
	size_t i;

	if (!ok(a && b && c, "random loads"))
		return;
	plan__build(&pa, a, &errs);
	plan__build(&pb, b, &errs);
	plan__build(&pc, c, &errs);
	ok(is_complete(&pa), "each cell's repetitions once");
	is_int(pa.nr_trials, pb.nr_trials, "same seed, same length");
	for (i = 0; i < pa.nr_trials && i < pb.nr_trials; i++)
		same_ab &= !memcmp(&pa.trials[i], &pb.trials[i],
				   sizeof(pa.trials[i]));
	ok(same_ab, "same seed, same order");
	for (i = 0; i < pa.nr_trials && i < pc.nr_trials; i++)
		same_ac &= pa.trials[i].kernel == pc.trials[i].kernel &&
			   pa.trials[i].mode == pc.trials[i].mode &&
			   pa.trials[i].workload == pc.trials[i].workload &&
			   pa.trials[i].repetition == pc.trials[i].repetition;
	ok(!same_ac, "another seed, another order");
	ok(pa.summary.reboots > 1, "random order reboots more (%zu)",
	   pa.summary.reboots);
	plan__release(&pa);
	plan__release(&pb);
	plan__release(&pc);
	matrix__free(a);
	matrix__free(b);
	matrix__free(c);
}

/*
 * The generator is part of the format: a published seed must give the
 * same order forever. splitmix64 from seed 1, pinned.
 */
static void test_random_stable(void)
{
	static const uint64_t want[] = { 465, 519, 590, 235 };
	uint64_t s = 1;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		is_int(plan__random(&s, 1000), want[i], "seed 1, draw %zu", i);
	s = 0;
	ok(plan__random(&s, UINT64_MAX) == 0xe220a8397b1dcdafULL,
	   "splitmix64's reference output for seed 0");
	for (i = 0; i < 1000; i++)
		if (plan__random(&s, 7) >= 7)
			break;
	is_int(i, 1000, "draws stay below the bound");
}

/* strict and lazy, both applied by kexec on a host that may reboot. */
#define KEXEC_MODES                                 \
	HOSTS "allow_reboot = true\n" PEER WORKLOAD \
	      "[run]\nmodes = [\"strict\", \"lazy\"]\nrepetitions = 4\n"
/* A mode with its own cmdline, on a host that may reboot. */
#define DAC_MODE                                                    \
	HOSTS "allow_reboot = true\nnic = \"eth1\"\n" PEER WORKLOAD \
	      "[modes.dac]\ncmdline = [\"iommu.forcedac=1\"]\n"

static void test_reboots(void)
{
	struct matrix *m;
	struct plan p;

	/* kexec-applied modes: grouped boots once per mode. */
	m = planned(KEXEC_MODES, &p);
	is_int(p.summary.reboots, 2, "grouped: a boot per mode");
	is_int(p.summary.mode_switches, 2, "each one a switch");
	is_int(p.summary.sysfs_switches, 0, "none by sysfs");
	is_int(p.trials[0].apply, APPLY_KEXEC, "applied by kexec");
	unplan(&p, m);

	m = planned(KEXEC_MODES "order = \"interleaved\"\n", &p);
	is_int(p.summary.reboots, 8, "interleaved: a boot per trial");
	unplan(&p, m);

	/*
	 * Leaving a mode booted with its own cmdline takes a clean boot:
	 * sysfs cannot undo iommu.forcedac=1.
	 */
	m = planned(DAC_MODE "[run]\nmodes = [\"dac\", \"strict\"]\n"
			     "order = \"interleaved\"\n"
			     "repetitions = 2\nwarmup = 0\n",
		    &p);
	is_int(p.summary.reboots, 4, "dac, a clean boot, dac, a clean boot");
	ok(p.trials[1].reboot_before && p.trials[1].mode_switch,
	   "strict after dac: a boot and a sysfs switch");
	unplan(&p, m);

	/* grouped puts sysfs modes before boot modes to share boots. */
	m = planned(DAC_MODE
		    "[run]\nmodes = [\"dac\", \"strict\"]\nrepetitions = 2\n",
		    &p);
	is_int(p.summary.reboots, 1, "grouped: strict first, then one boot");
	is_int(p.trials[0].mode, matrix__find_mode(m, "strict"),
	       "strict went first");
	unplan(&p, m);
}

static void test_estimate(void)
{
	struct matrix *m =
		load(HOSTS PEER WORKLOAD
		     "[run]\nmodes = [\"current\"]\nrepetitions = 2\n"
		     "warmup = 0\ncooldown = \"1s\"\n");
	struct plan p;

	if (!ok(m, "a matrix for the estimate"))
		return;
	plan__build(&p, m, &errs);
	/* 2 x (0s omit + 10s + 5s overhead) + one 1s cooldown. */
	is_int(p.summary.estimated_ms, 31000, "two trials and a cooldown");
	is_int(p.summary.trial_ms, 30000, "of which trials");
	is_int(p.summary.cooldown_ms, 1000, "and the cooldown");
	is_int(p.summary.reboots + p.summary.mode_switches, 0,
	       "current: no change");
	is_int(p.trials[1].start_ms, 16000, "the second starts at 16s");
	unplan(&p, m);

	m = planned(
		HOSTS
		"allow_reboot = true\nboot_estimate = \"3m\"\n" PEER WORKLOAD
		"[run]\nmodes = [\"lazy\"]\nrepetitions = 1\n"
		"warmup = 0\n",
		&p);
	is_int(p.summary.estimated_ms, 180000 + 15000,
	       "boot_estimate counts once");
	unplan(&p, m);
}

static void test_limits(void)
{
	struct matrix *m =
		load(HOSTS "nic = \"eth1\"\n" PEER WORKLOAD
			   "[[workloads]]\nname = \"b\"\nserver = \"sut\"\n"
			   "client = \"peer\"\n[run]\nrepetitions = 10000\n"
			   "warmup = 100\n");
	struct plan p;

	if (!ok(m, "a huge matrix loads"))
		return;
	is_int(plan__build(&p, m, &errs), -E2BIG, "but does not plan");
	ok(errs.nr_errors == 1, "with an error");
	unplan(&p, m);
}

static void test_errors(void)
{
	char *msg;
	struct matrix *m;

	msg = load_bad("[run]\nrepetitons = 5\n" HOSTS PEER WORKLOAD);
	has_str(msg,
		"test.toml:2:1: error: unknown key 'repetitons' in [run]; "
		"did you mean 'repetitions'?",
		"a typo is located");
	free(msg);

	msg = load_bad("[run]\nrepetitons = 5\nwarmup = -1\n" HOSTS PEER
		       "[[workloads]]\nname = \"w\"\nserver = \"sutt\"\n"
		       "client = \"peer\"\n");
	has_str(msg, "test.toml:2:1: error: unknown key", "all errors: 1");
	has_str(msg,
		"test.toml:3:10: error: warmup: -1 is out of range "
		"(0..100)",
		"all errors: 2");
	has_str(msg,
		"server: unknown host 'sutt' (defined: sut, peer); did "
		"you mean 'sut'?",
		"all errors: 3");
	free(msg);

	msg = load_bad("[run\n");
	has_str(msg, "test.toml:1:", "a TOML syntax error has a position");
	free(msg);

	msg = load_bad(HOSTS PEER);
	has_str(msg, "test.toml: error: no [[workloads]]: nothing to run",
		"a file-wide error has no position");
	free(msg);

	config_errors__release(&errs);
	config_errors__init(&errs, "/nonexistent/m.toml");
	is_int(matrix__load("/nonexistent/m.toml", &m, &errs), -ENOENT,
	       "a missing file is -ENOENT");
	ok(!m, "and no matrix");
}

/* [kcidb]: kept as written, the token file's path resolved, an origin. */
#define KCIDB_BASE HOSTS PEER WORKLOAD "[run]\nmodes = [\"current\"]\n[kcidb]\n"
static void test_kcidb(void)
{
	struct matrix *m =
		load(HOSTS PEER WORKLOAD "[run]\nmodes = [\"current\"]\n");

	ok(m && !m->kcidb.present, "no [kcidb]: nothing to submit to");
	matrix__free(m);
	m = load(KCIDB_BASE "url = \"https://kcidb.example/\"\n"
			    "token_file = \"/etc/kcidb.token\"\n");
	if (!ok(m && m->kcidb.present, "[kcidb] loads"))
		return;
	is_str(m->kcidb.url, "https://kcidb.example/", "its url");
	is_str(m->kcidb.token_file, "/etc/kcidb.token", "its token file");
	is_str(m->kcidb.origin, "iommu_bench", "the origin by default");
	matrix__free(m);
	m = load(KCIDB_BASE "url = \"http://127.0.0.1:1\"\n"
			    "token_file = \"t\"\norigin = \"lab_2\"\n");
	is_str(m ? m->kcidb.origin : NULL, "lab_2", "an origin named");
	matrix__free(m);
}

int main(void)
{
	host_transports__set();
	config_errors__init(&errs, "test.toml");
	test_shipped();
	test_defaults();
	test_builtin_modes();
	test_overrides();
	test_apply();
	test_keys();
	test_grouped();
	test_interleaved();
	test_random();
	test_random_stable();
	test_reboots();
	test_estimate();
	test_limits();
	test_errors();
	test_kcidb();
	config_errors__release(&errs);
	return tap_done();
}
