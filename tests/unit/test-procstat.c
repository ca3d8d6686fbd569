// SPDX-License-Identifier: GPL-2.0-only
/*
 * procstat: the parsers and deltas on fixture files (a CPU that goes
 * offline, a counter that runs backwards, NIC interrupt lines among
 * look-alikes), then the collector for real around a busy loop pinned
 * to CPU 0, its results stored in a real SQLite file.
 */
#include <math.h>
#include <sched.h>
#include <time.h>

#include "clock.h"
#include "collectors-test.h"
#include "collectors/collector.h"
#include "collectors/procstat/procstat-parse.h"
#include "collectors/procstat/procstat.h"
#include "fixture.h"

/* A fixture, less its leading '#' comment lines (SPDX and purpose). */
static char *fixture(const char *name)
{
	char *buf = fixture__read("procstat", name), *p;

	for (p = buf; *p == '#';)
		p = strchrnul(p, '\n') + (strchr(p, '\n') ? 1 : 0);
	memmove(buf, p, strlen(p) + 1);
	return buf;
}

static int parse_pair(struct procstat_snap *a, struct procstat_snap *b,
		      const struct procstat_nic *nic)
{
	static const char *const files[2][3] = {
		{ "stat-a.txt", "softirqs-a.txt", "interrupts-a.txt" },
		{ "stat-b.txt", "softirqs-b.txt", "interrupts-b.txt" },
	};
	struct procstat_snap *s[2] = { a, b };
	int i, err = 0;

	for (i = 0; i < 2 && !err; i++) {
		char *st = fixture(files[i][0]), *so = fixture(files[i][1]);
		char *in = fixture(files[i][2]);

		err = procstat__parse_stat(st, s[i])		 ?:
			      procstat__parse_softirqs(so, s[i]) ?:
			      procstat__parse_interrupts(in, nic, s[i]);
		s[i]->t = 10.0 * i;
		free_all(st, so, in);
	}
	return err;
}

static void test_stat(void)
{
	struct procstat_snap s = { 0 };
	char *text = fixture("stat-a.txt"), *err;

	is_int(procstat__parse_stat(text, &s), 0, "/proc/stat parses");
	is_int(s.nr_cpus, 4, "four CPUs, the aggregate line left out");
	is_int(s.cpus[3].cpu, 3, "keyed by CPU number");
	is_int(s.cpus[3].v[PS_SOFTIRQ], 15, "softirq column");
	free(text);

	text = fixture("stat-old.txt");
	is_int(procstat__parse_stat(text, &s), 0, "an old 4-column format");
	is_int(s.cpus[0].v[PS_IDLE], 100, "idle read");
	is_int(s.cpus[0].v[PS_STEAL], 0, "missing columns are 0");
	free(text);

	text = fixture("stat-bad.txt");
	ct_capture_begin();
	is_int(procstat__parse_stat(text, &s), -EINVAL, "garbage is refused");
	err = ct_capture_end();
	has_str(err, "'cpu0 ten 0 10 100'", "naming the line");
	free(err);
	free(text);
	procstat__snap_release(&s);
}

static void test_delta(void)
{
	static const char *const keys[] = { "eth0", "virtio2" };
	struct procstat_nic nic = { keys, 2, NULL, 0 };
	struct procstat_snap a = { 0 }, b = { 0 };
	struct procstat_delta d;
	bool found38 = false;
	size_t i;

	if (!is_int(parse_pair(&a, &b, &nic), 0, "both snapshots parse"))
		return;
	if (!is_int(procstat__delta(&a, &b, &d), 0, "the delta"))
		return;
	is_int(d.nr_cpus, 3, "CPU 2 went offline: three CPUs counted");
	ok(d.nr_missing == 1 && d.missing[0] == 2, "and CPU 2 is named");
	is_int(d.cpus[0].total, 295, "CPU 0: 295 ticks");
	is_int(d.cpus[0].busy, 245, "CPU 0: 245 busy");
	is_int(d.cpus[2].cpu, 3, "the third CPU counted is CPU 3");
	is_int(d.cpus[2].v[PS_IOWAIT], 0, "iowait that ran backwards is 0");
	ok(d.backwards, "and the delta says a counter ran backwards");
	is_int(d.sum.total, 701, "all ticks");
	is_int(d.sum.busy, 409, "all busy ticks");
	is_int(d.sum.net_rx, 2310, "NET_RX of the CPUs counted");
	is_int(d.sum.net_tx, 6, "NET_TX of the CPUs counted");
	ok(fabs(d.seconds - 10.0) < 1e-9, "the window");
	is_int(d.nr_irqs, 5, "five NIC lines (virtio2-*, eth0-*, *-eth0-*)");
	is_int(d.irq_total, 2110, "their interrupts, CPU 2's column gone");
	for (i = 0; i < d.nr_irqs; i++)
		if (!strcmp(d.irqs[i].id, "38"))
			found38 = d.irqs[i].count == 1000;
	ok(found38, "virtio2-input.0 took 1000 interrupts");
	procstat__delta_release(&d);
	procstat__snap_release(&a);
	procstat__snap_release(&b);
}

static void test_irq_match(void)
{
	static const char *const keys[] = { "eth0" };
	static const unsigned int irqs[] = { 64 };
	struct procstat_nic nic = { keys, 1, irqs, 1 };

	ok(procstat__irq_matches(&nic, "61", "IR-PCI-MSI 1-edge eth0-TxRx-3"),
	   "eth0-TxRx-3");
	ok(procstat__irq_matches(&nic, "62", "x 1-edge i40e-eth0-TxRx-0"),
	   "i40e-eth0-TxRx-0");
	ok(!procstat__irq_matches(&nic, "63", "x 1-edge eth01-TxRx-0"),
	   "not eth01-TxRx-0");
	ok(!procstat__irq_matches(&nic, "65", "x 1-edge veth0"), "not veth0");
	ok(procstat__irq_matches(&nic, "64", "x 1-edge mlx5_comp0@pci:0:3b"),
	   "an MSI vector of the device, by number");
	ok(!procstat__irq_matches(&nic, "NMI", "Non-maskable interrupts"),
	   "not NMI");
	ok(!procstat__irq_matches(NULL, "61", "eth0"), "no NIC, no match");
}

static int spin(void *arg)
{
	int64_t t0 = mono_ms();

	(void)arg;
	while (mono_ms() - t0 < 1500)
		;
	return 0;
}

static json_t *collect_busy(void)
{
	json_t *cfg =
		json_pack("{s:b, s:s}", "enabled", 1, "interval", "250ms");
	struct collector_opts o = { .nic = "eth0", .config = cfg };
	const struct collector_ops *ops = &procstat_collector_ops;
	struct spawn busy;
	struct collector *c = NULL;
	json_t *r = NULL;

	if (access("/sys/class/net/eth0", F_OK))
		o.nic = "lo";
	if (!is_int(ops->create(&o, &c), 0, "create (interval 250ms, nic %s)",
		    o.nic))
		goto out;
	is_int(ops->start(c), 0, "start");
	spawn__fn(&busy, spin, NULL, "busy loop",
		  &(struct spawn_opts){ .pin = true, .cpu = 0 });
	spawn__wait(&busy, 10000);
	ok(spawn__succeeded(&busy), "a busy loop ran 1.5 s on CPU 0");
	spawn__release(&busy);
	is_int(ops->stop(c), 0, "stop");
	is_int(ops->results(c, &r), 0, "results");
out:
	if (c)
		ops->destroy(c);
	json_decref(cfg);
	return r;
}

static void test_collector(struct store *st, int64_t trial)
{
	json_t *r = collect_busy(), *cpu0 = NULL, *c;
	double window, ticks, want, hz;
	int64_t n = 0;
	size_t i;

	if (!r)
		return;
	window = json_number_value(json_object_get(r, "window_seconds"));
	hz = json_integer_value(json_object_get(r, "user_hz"));
	ticks = json_integer_value(
		json_object_get(json_object_get(r, "total"), "jiffies"));
	want = window * hz *
	       (double)json_integer_value(json_object_get(r, "nr_cpus"));
	tap_diag("window %.3f s, %.0f ticks (expected %.0f)", window, ticks,
		 want);
	ok(fabs(ticks - want) <= 0.1 * want + 4,
	   "ticks over all CPUs = window x CPUs x USER_HZ (within 10%%)");
	json_array_foreach(json_object_get(r, "per_cpu"), i, c)
		if (json_integer_value(json_object_get(c, "cpu")) == 0)
			cpu0 = c;
	tap_diag("CPU 0 busy %.1f%%",
		 json_number_value(json_object_get(cpu0, "util_pct")));
	ok(json_number_value(json_object_get(cpu0, "util_pct")) > 80,
	   "CPU 0 was busy > 80%% during the busy loop");
	ok(json_array_size(json_object_get(r, "intervals")) >= 4,
	   "an interval series every 250 ms (%zu)",
	   json_array_size(json_object_get(r, "intervals")));
	ok(json_is_object(json_object_get(r, "nic")), "the NIC's section");

	is_int(procstat_collector_ops.store(st, trial, r), 0, "stored");
	is_int(procstat__store_efficiency(st, trial, 10e9, r), 0,
	       "efficiency stored");
	store__count(st, "metrics", &n);
	ok(n >= 12, "CPU shares, per-CPU and softirq metrics (%lld)",
	   (long long)n);
	store__count(st, "intervals", &n);
	ok(n >= 4 * 8, "interval rows (%lld)", (long long)n);
	json_decref(r);
}

static void test_config(void)
{
	const struct collector_ops *ops = &procstat_collector_ops;
	json_t *bad = json_pack("{s:f}", "intervall", 1.0);
	json_t *tiny = json_pack("{s:f}", "interval_seconds", 0.001);
	struct collector_opts o = { .config = bad };
	struct collector *c = NULL;
	char *err;

	ct_capture_begin();
	is_int(ops->create(&o, &c), -EINVAL, "an unknown setting");
	o.config = tiny;
	is_int(ops->create(&o, &c), -EINVAL, "a 1 ms interval");
	o.config = NULL;
	o.nic = "eth0;reboot";
	is_int(ops->create(&o, &c), -EINVAL, "a NIC name with a ';'");
	err = ct_capture_end();
	has_str(err, "'intervall'", "the unknown setting is named");
	has_str(err, "0.001 s is out of range", "the interval is named");
	has_str(err, "'eth0;reboot'", "the NIC is named");
	free(err);
	json_decref(bad);
	json_decref(tiny);
}

static void test_support(void)
{
	json_t *info = NULL;

	is_int(procstat_collector_ops.support(&info), 0, "support()");
	ok(json_is_true(json_object_get(info, "available")) &&
		   json_integer_value(json_object_get(info, "cpus_online")) > 0,
	   "procstat is available and counts the CPUs");
	json_decref(info);
	ok(fabs(procstat__efficiency(10, 2.5) - 4) < 1e-12,
	   "10 Gbit/s on 2.5 busy cores is 4 Gbit/s per core");
	ok(isnan(procstat__efficiency(10, 0)), "no busy cores: no efficiency");
}

int main(void)
{
	struct store *st;
	int64_t run, trial;

	ct_guard();
	test_stat();
	test_delta();
	test_irq_match();
	test_config();
	test_support();
	st = ct_store(&run, &trial);
	test_collector(st, trial);
	store__commit(st);
	store__close(st);
	return tap_done();
}
