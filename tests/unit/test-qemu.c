// SPDX-License-Identifier: GPL-2.0-only
/*
 * The testbed VM's QEMU argv and guest command line from a matrix: the
 * arguments that decide what the guest's IOMMU does (caching mode off
 * unless asked, the NIC behind the vIOMMU, the mode's words last), and
 * the matrix keys that reach them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/qemu.h"
#include "matrix-load.h"
#include "tap.h"
#include "util.h"

#define MATRIX(qemu_extra)                                                  \
	"[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"                \
	"address = \"10.77.0.2/24\"\nlink = \"peer\"\n"                     \
	"[hosts.vm.qemu]\nmemory = \"1G\"\ncpus = 3\n" qemu_extra           \
	"[hosts.peer]\ntransport = \"netns\"\naddress = \"10.77.0.1/24\"\n" \
	"[[kernels]]\nname = \"deb\"\npackage = "                           \
	"\"linux-image-6.1.0-57-amd64\"\n"                                  \
	"[[workloads]]\nname = \"rx\"\nserver = \"vm\"\nclient = \"peer\"\n"

/* The argv as one string, words joined by '|', for substring checks. */
static char *joined(const struct strvec *a)
{
	char *s = xstrdup("|");
	size_t i;

	for (i = 0; i < a->nr; i++) {
		char *n = xasprintf("%s%s|", s, a->v[i]);

		free(s);
		s = n;
	}
	return s;
}

static void test_defaults(void)
{
	struct matrix *m = load(MATRIX(""));
	const struct matrix_host *h;
	struct qemu_boot b = { .accel = ACCEL_TCG,
			       .image = "/c/vmlinuz",
			       .initrd = "/c/initrd",
			       .cmdline = "console=ttyS0",
			       .tap = "tap-x",
			       .agent_sock = "/run/x,y/agent.sock",
			       .console = "/run/x/console.log" };
	struct strvec a = { 0 };
	char *s;

	if (!ok(m, "a qemu host with a package kernel loads"))
		return;
	h = &m->hosts[matrix__find_host(m, "vm")];
	is_str(h->nic, "eth0", "the guest's NIC defaults to eth0");
	is_int(h->qemu.cpus, 3, "cpus");
	ok(h->qemu.iommu == QEMU_IOMMU_INTEL, "the intel vIOMMU by default");
	ok(!h->qemu.caching_mode, "caching mode off by default");
	is_str(m->kernels[0].release, "6.1.0-57-amd64",
	       "the release comes with the package name");
	ok(m->kernels[0].kind == KERNEL_PACKAGE, "a package kernel");

	qemu__argv(h, &b, &a);
	s = joined(&a);
	is_str(a.v[0], QEMU_BINARY, "argv[0]");
	has_str(s, "|-device|intel-iommu,intremap=on,caching-mode=off|",
		"an Intel vIOMMU, caching mode off");
	has_str(s,
		"virtio-net-pci,netdev=n0,iommu_platform=on,"
		"disable-legacy=on|",
		"the NIC's DMA goes through the vIOMMU");
	has_str(s, "|-netdev|tap,id=n0,ifname=tap-x,script=no,downscript=no|",
		"the tap");
	has_str(s, "|-accel|tcg,thread=multi|-cpu|max|", "TCG");
	has_str(s, "|-m|1024M|-device|", "memory in MiB");
	has_str(s, "|-smp|3|", "cpus");
	has_str(s, "socket,id=agent,path=/run/x,,y/agent.sock,server=on",
		"a "
		"comma in a path is doubled, not an option separator");
	has_str(s, "readonly=on", "the host's root is shared read-only");
	has_str(s, "|-no-reboot|", "a guest reboot or panic ends QEMU");
	ok(!strstr(s, "-daemonize"), "QEMU stays our child");
	free(s);
	strvec__release(&a);

	b.accel = ACCEL_KVM;
	b.tap = NULL;
	qemu__argv(h, &b, &a);
	s = joined(&a);
	has_str(s, "|q35,kernel-irqchip=split|", "KVM: split irqchip");
	has_str(s, "|-accel|kvm|-cpu|host|", "KVM: host CPU");
	has_str(s, "|-netdev|user,id=n0,restrict=on|",
		"no link: a user-mode NIC that reaches nothing");
	free(s);
	strvec__release(&a);
	matrix__free(m);
}

static void test_cmdline(void)
{
	struct matrix *m = load(MATRIX("cmdline = [\"loglevel=4\"]\n"
				       "caching_mode = true\n"));
	const char *args[] = { "iommu.strict=0", "quiet" };
	const struct matrix_host *h;
	struct qemu_boot b = { .accel = ACCEL_TCG,
			       .image = "i",
			       .initrd = "r",
			       .cmdline = "c",
			       .agent_sock = "s",
			       .console = "c" };
	struct strvec a = { 0 };
	char *c, *s;

	if (!ok(m, "qemu cmdline and caching_mode load"))
		return;
	h = &m->hosts[matrix__find_host(m, "vm")];
	c = qemu__cmdline(h, "/usr/bin/iommu-bench", args, 2);
	has_str(c, "console=ttyS0 panic=-1 intel_iommu=on ",
		"console, panic, the vIOMMU on");
	has_str(c,
		" iommu_bench.ip=10.77.0.2/24 iommu_bench.nic=eth0 "
		"iommu_bench.exe=/usr/bin/iommu-bench ",
		"the keys the guest's init reads");
	has_str(c, "loglevel=4 iommu.strict=0 quiet",
		"the host's words, then the kernel's and mode's, last");
	ok(strstr(c, "iommu_bench.machine_id=") &&
		   strlen(strstr(c, "iommu_bench.machine_id=") +
			  strlen("iommu_bench.machine_id=")) > 32,
	   "a machine id");
	free(c);
	qemu__argv(h, &b, &a);
	s = joined(&a);
	has_str(s, "caching-mode=on", "caching_mode = true reaches QEMU");
	free(s);
	strvec__release(&a);
	matrix__free(m);
}

static void test_errors(void)
{
	char *e;

	e = load_bad(MATRIX("caching_mode = 1\n"));
	has_str(e, "caching_mode", "caching_mode must be a boolean");
	free(e);
	e = load_bad(MATRIX("iommu = \"amd\"\n"));
	has_str(e, "iommu", "an unknown vIOMMU is refused");
	free(e);
	e = load_bad(MATRIX("iommu = \"none\"\ncaching_mode = true\n"));
	has_str(e, "only the intel vIOMMU has it",
		"caching mode without the intel vIOMMU");
	free(e);
	e = load_bad(
		"[hosts.vm]\ntransport = \"qemu\"\nrole = \"sut\"\n"
		"[hosts.peer]\ntransport = \"ssh\"\naddress = \"p\"\n"
		"[[kernels]]\nname = \"deb\"\npackage = \"linux-headers-6.1\"\n"
		"[[workloads]]\nname = \"rx\"\nserver = \"vm\"\n"
		"client = \"peer\"\n");
	has_str(e, "not a Debian kernel image package",
		"a package that is not linux-image-*");
	free(e);
	e = load_bad("[hosts.sut]\ntransport = \"ssh\"\nrole = \"sut\"\n"
		     "address = \"s\"\nallow_reboot = true\n"
		     "[hosts.peer]\ntransport = \"ssh\"\naddress = \"p\"\n"
		     "[[kernels]]\nname = \"deb\"\n"
		     "package = \"linux-image-6.1.0-57-amd64\"\n"
		     "[[workloads]]\nname = \"rx\"\nserver = \"sut\"\n"
		     "client = \"peer\"\n");
	has_str(e, "only a qemu host boots",
		"a package kernel on an ssh host is refused");
	free(e);
	e = load_bad(MATRIX("") "[modes.x]\nmethod = \"reboot\"\n"
				"group_type = \"DMA\"\n");
	has_str(e, "boots with the mode's cmdline",
		"method reboot needs a cmdline");
	free(e);
}

static void test_escape(void)
{
	char *e = qemu__escape("a,b,,c");

	is_str(e, "a,,b,,,,c", "commas doubled");
	free(e);
}

int main(void)
{
	test_defaults();
	test_cmdline();
	test_errors();
	test_escape();
	config_errors__release(&errs);
	return tap_done();
}
