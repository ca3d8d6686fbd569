// SPDX-License-Identifier: GPL-2.0-only
/*
 * transport = "lava" without a lab: the matrix's [hosts.X.lava] and what
 * it refuses, the job definition a boot becomes (the machine, the
 * kernel's command line quoted once, the files by URL and sha256, the
 * agent dialing the controller), and LAVA's
 * answers read (a job's state, why it failed, a submission's id). The
 * lab itself is tests/cli/testbed-lava.t's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/host/lava/lava.h"
#include "bench/host/qemu/qemu.h"
#include "cpio.h"
#include "chan-auth.h"
#include "sha256.h"
#include "matrix-load.h"
#include "scratch-files.h"
#include "strvec.h"
#include "tap.h"
#include "util.h"

#define HOSTS(lava_extra, host_extra)                                          \
	"[hosts.lab]\ntransport = \"lava\"\nrole = \"sut\"\n" host_extra       \
	"[hosts.lab.lava]\nserver = \"http://lava.example:8000\"\n" lava_extra \
	"[hosts.peer]\ntransport = \"local\"\n"                                \
	"address = \"127.0.0.1\"\n"                                            \
	"[[kernels]]\nname = \"deb\"\npackage = "                              \
	"\"linux-image-6.1.0-57-amd64\"\n"

#define MATRIX(lava_extra, host_extra) \
	HOSTS(lava_extra, host_extra)  \
	"[[workloads]]\nname = \"tx\"\nserver = \"peer\"\nclient = \"lab\"\n"

#define TOKEN                                            \
	"token_file = \"/etc/iommu-bench/lava.token\"\n" \
	"controller = \"192.0.2.10\"\n"

/* A lab whose LAVA server is at @url, a peer without an address. */
#define WITH_SERVER(url)                                      \
	"[hosts.lab]\ntransport = \"lava\"\nrole = \"sut\"\n" \
	"[hosts.lab.lava]\nserver = \"" url "\"\n" TOKEN      \
	"[hosts.peer]\ntransport = \"local\"\n"               \
	"[[kernels]]\nname = \"d\"\npackage = "               \
	"\"linux-image-6.1.0-57-amd64\"\n"                    \
	"[[workloads]]\nname = \"tx\"\nserver = \"peer\"\n"   \
	"client = \"lab\"\n"

static void test_defaults(void)
{
	struct matrix *m = load(MATRIX(TOKEN, ""));
	const struct matrix_host *h;

	if (!ok(m, "a lava host with a token file loads"))
		return;
	h = &m->hosts[matrix__find_host(m, "lab")];
	ok(h->transport == HOST_LAVA, "transport lava");
	is_str(lava_conf(h)->device_type, "qemu",
	       "device_type defaults to qemu");
	ok(!lava_conf(h)->peer_address,
	   "no peer_address: the peer is at the controller's address");
	ok(lava_conf(h)->http_port == 7780 && lava_conf(h)->agent_port == 7781,
	   "the artifact server on 7780, the agents' channel on 7781");
	is_str(h->address, "10.0.2.15/24", "the guest's own address");
	is_str(h->nic, "eth0", "its NIC");
	ok(qemu_conf(h)->nic == QEMU_NIC_E1000E,
	   "an e1000e, behind the vIOMMU");
	ok(qemu_conf(h)->iommu == QEMU_IOMMU_INTEL, "the intel vIOMMU");
	ok(matrix_host__is_vm(h), "a VM: every kernel is handed over");
	ok(matrix__boot_method(h) == APPLY_RESTART,
	   "each boot is a new job (restart)");
	ok(lava_conf(h)->priority == 50 &&
		   lava_conf(h)->queue_timeout_ms == 1800000,
	   "priority 50, queue_timeout 30 min");
	matrix__free(m);
}

static void test_errors(void)
{
	/*
	 * What the error must say, and what it must never echo (a secret),
	 * unless as the user gave it.
	 */
	static const struct {
		const char *toml, *want, *what;
		const char *never, *but_as, *never_what;
	} bad[] = {
		{ MATRIX("", ""), "needs one of token_file",
		  "no token source is refused" },
		{ MATRIX(TOKEN "token_env = \"LAVA_TOKEN\"\n", ""), "not both",
		  "two token sources are refused" },
		{ MATRIX("token = \"s3cr3t-t0ken\"\n", ""),
		  "token: the API token never goes in the matrix",
		  "a token in the matrix is refused", "s3cr3t-t0ken", NULL,
		  "and not echoed" },
		{ MATRIX("token_env = \"1BAD\"\n", ""), "not a variable name",
		  "a bad variable name" },
		{ WITH_SERVER("http://u:pw@lava:8000"),
		  "no user or password in the URL",
		  "credentials in the URL are refused", "u:pw@",
		  "'http://u:pw@lava:8000'", "(the URL is quoted as given)" },
		{ WITH_SERVER("ftp://lava"),
		  "must start with http:// or https://", "a scheme not http" },
		{ MATRIX(TOKEN "device_typ = \"qemu\"\n", ""),
		  "did you mean 'device_type'", "a typo gets a suggestion" },
		{ MATRIX("token_env = \"T\"\n", ""), "missing key 'controller'",
		  "the address the lab reaches us at is needed" },
		{ MATRIX(TOKEN "agent_port = 7780\n", ""),
		  "agent_port: 7780 is http_port's too",
		  "the two ports must differ" },
		{ MATRIX("token_env = \"T\"\ncontroller = \"lab.example\"\n",
			 ""),
		  "controller", "the controller is an address, not a name" },
		{ MATRIX(TOKEN "job_timeout = \"30s\"\n", ""),
		  "job_timeout: at least 1m", "a job_timeout too short" },
		{ MATRIX(TOKEN "priority = 101\n", ""), "priority",
		  "priority past 100" },
		{ MATRIX(TOKEN, "") "[hosts.lab.qemu]\nnic = \"virtio\"\n",
		  "use \"e1000e\"", "a virtio NIC would bypass the vIOMMU" },
		{ MATRIX(TOKEN, "") "[hosts.lab.qemu]\narch = \"arm64\"\n",
		  "template = \"iommu-bench\"",
		  "arm64 needs a device type that extends ours" },
		{ MATRIX(TOKEN, "") "[hosts.lab.qemu]\naccel = \"kvm\"\n",
		  "a job sets only", "what the worker sets up is refused" },
		{ MATRIX(TOKEN, "reboot = \"kexec\"\n"),
		  "does not apply to transport 'lava'",
		  "a lava host has no reboot of its own" },
		{ HOSTS(TOKEN, "") "[[workloads]]\nname = \"rx\"\n"
				   "server = \"lab\"\nclient = \"peer\"\n",
		  "nothing reaches into", "a LAVA guest cannot be the server" },
		{ "[hosts.lab]\ntransport = \"lava\"\nrole = \"sut\"\n"
		  "[hosts.peer]\ntransport = \"local\"\n"
		  "[[kernels]]\nname = \"d\"\npackage = "
		  "\"linux-image-6.1.0-57-amd64\"\n"
		  "[[workloads]]\nname = \"tx\"\nserver = \"peer\"\n"
		  "client = \"lab\"\n",
		  "but no [hosts.lab.lava] table", "the lava table is needed" },
		{ MATRIX(TOKEN, "") "[[kernels]]\nname = \"now\"\n",
		  "is the running kernel", "a running kernel on a LAVA VM" },
	};
	size_t i;
	char *e;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		e = load_bad(bad[i].toml);
		has_str(e, bad[i].want, "%s", bad[i].what);
		if (bad[i].never)
			ok(!strstr(e, bad[i].never) ||
				   (bad[i].but_as && strstr(e, bad[i].but_as)),
			   "%s", bad[i].never_what);
		free(e);
	}
}

#define SHA_K "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define SHA_I "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

/* A boot's files, as the artifact server names them. */
static const struct lava_files files = {
	.kernel_url = "http://192.0.2.10:7780/sha256/" SHA_K,
	.initrd_url = "http://192.0.2.10:7780/sha256/" SHA_I,
	.kernel_sha = SHA_K,
	.initrd_sha = SHA_I,
};

/* What the lava host's job definition must say, and why. */
static const struct tap_substr definition_checks[] = {
	{ "device_type: 'qemu'\n", "the device type" },
	{ "job_name: 'iommu-bench: host lab, kernel deb, it''s'\n",
	  "the name in YAML single quotes, a quote doubled" },
	{ "priority: 70\n", "the priority" },
	{ "tags:\n- 'fast'\n- 'x86'\n", "the tags" },
	{ "job: {seconds: 600}", "the job's timeout" },
	{ "  - '-machine q35'\n", "the testbed's machine" },
	{ "  - '-smp 3'\n  - '-m 2048M'\n", "its CPUs and memory" },
	{ "  - '-device intel-iommu,intremap=on,caching-mode=off'\n",
	  "the intel vIOMMU, caching mode off" },
	{ "  model: 'model=e1000e'\n", "an e1000e NIC" },
	{ "image_arg: '-kernel {kernel} -append ''console=ttyS0 "
	  "iommu.strict=1'''\n",
	  "the command line quoted once for LAVA's shell words, once "
	  "for YAML" },
	{ "url: 'http://192.0.2.10:7780/sha256/" SHA_K "'\n"
	  "        sha256sum: '" SHA_K "'\n",
	  "the kernel from our artifact server, by its sha256" },
	{ "url: 'http://192.0.2.10:7780/sha256/" SHA_I "'\n"
	  "        sha256sum: '" SHA_I "'\n",
	  "the initramfs too" },
	{ "timeout: {seconds: 240}", "boot_timeout bounds the boot" },
	{ "start: 'iommu-bench-guest: ready'",
	  "the monitor starts at the guest's ready line" },
	{ "end: 'reboot: Power down'", "and ends at its power-off" },
};

static void test_definition(void)
{
	struct matrix *m =
		load(MATRIX(TOKEN "tags = [\"fast\", \"x86\"]\n"
				  "priority = 70\n",
			    "boot_timeout = \"4m\"\n") "[hosts.lab.qemu]\n"
						       "cpus = 3\n"
						       "memory = "
						       "\"2G\"\n");
	struct lava_boot b = {
		.job_name = "iommu-bench: host lab, kernel deb, it's",
		.files = &files,
		.cmdline = "console=ttyS0 iommu.strict=1",
		.timeout_ms = 600000,
	};
	const struct matrix_host *h;
	struct lava_boot lb;
	char *d, *cmdline;

	if (!ok(m, "a lava host with tags and a qemu table loads"))
		return;
	h = &m->hosts[matrix__find_host(m, "lab")];
	d = lava__definition(h, &b);
	if (!ok(d != NULL, "a definition is written"))
		goto out;
	has_all(d, definition_checks);
	ok(!strstr(d, "file://") && !strstr(d, "9p") && !strstr(d, "socket"),
	   "nothing of this machine's but URLs: no file://, 9p or socket");
	free(d);
	lava_boot__init(&lb, h, "deb", &files, NULL, 0);
	d = lava__definition(h, &lb);
	has_str(d, "job: {seconds: 7440}",
		"a boot's job: boot_timeout + job_timeout (4m + 2h)");
	has_str(lb.cmdline, "iommu_bench.exe=" LAVA_ROOT_AGENT " ",
		"the agent in the initramfs's root");
	has_str(lb.cmdline, " iommu_bench.ctl=192.0.2.10:7781",
		"dialing the controller's agent port");
	lava_boot__release(&lb);
	free(d);
	b.cmdline = "console=ttyS0 x='y'";
	d = lava__definition(h, &b);
	ok(d == NULL, "a command line holding a quote is not written");
	free(d);
	cmdline = lava__hostport("fd00::1", 7781);
	is_str(cmdline, "[fd00::1]:7781", "an IPv6 address in brackets");
	free(cmdline);
out:
	matrix__free(m);
}

/* Our device type: the machine and the NIC in the job's options. */
static void test_template(void)
{
	struct lava_boot b = { .job_name = "j",
			       .files = &files,
			       .cmdline = "console=ttyAMA0",
			       .timeout_ms = 600000 };
	struct matrix *m;
	char *d;

	m = load(MATRIX(TOKEN "template = \"iommu-bench\"\n",
			"") "[hosts.lab.qemu]\nnic = \"virtio\"\n");
	if (!ok(m, "virtio-net with our device type loads"))
		return;
	d = lava__definition(&m->hosts[matrix__find_host(m, "lab")], &b);
	has_str(d,
		"  - '-netdev user,id=n0'\n  - '-device virtio-net-pci,"
		"netdev=n0,iommu_platform=on,disable-legacy=on'\n",
		"virtio-net behind the vIOMMU, as the job's own device");
	ok(d && !strstr(d, "model:"), "no NIC model for LAVA's -net nic");
	free(d);
	matrix__free(m);
	m = load(
		"[hosts.lab]\ntransport = \"lava\"\nrole = \"sut\"\n"
		"[hosts.lab.lava]\nserver = \"http://lava.example:8000\"\n" TOKEN
		"template = \"iommu-bench\"\n"
		"[hosts.lab.qemu]\narch = \"arm64\"\nnic = \"virtio\"\n"
		"[hosts.peer]\ntransport = \"local\"\n"
		"address = \"127.0.0.1\"\n"
		"[[kernels]]\nname = \"deb\"\npackage = "
		"\"linux-image-6.1.0-57-arm64\"\n"
		"[[workloads]]\nname = \"tx\"\nserver = \"peer\"\n"
		"client = \"lab\"\n");
	if (!ok(m, "an arm64 guest with our device type loads"))
		return;
	d = lava__definition(&m->hosts[matrix__find_host(m, "lab")], &b);
	has_str(d, "  arch: arm64\n", "LAVA runs qemu-system-aarch64");
	has_str(d, "  - '-machine virt,gic-version=3,iommu=smmuv3'\n",
		"virt with the SMMUv3");
	has_str(d, "  - '-cpu cortex-a57'\n", "the testbed's TCG CPU");
	free(d);
	matrix__free(m);
}

/* A LAVA SUT and a LAVA peer device: one multinode job per boot. */
#define MN_HOST_T(name, role, addr, tmpl, extra)                               \
	"[hosts." name "]\ntransport = \"lava\"\nrole = \"" role "\"\n" addr   \
	"[hosts." name ".lava]\nserver = \"http://lava.example:8000\"\n" TOKEN \
	"template = \"" tmpl "\"\n" extra "[hosts." name ".qemu]\n"            \
	"nic = \"e1000e\"\n"
#define MN_HOST(name, role, addr, extra) \
	MN_HOST_T(name, role, addr, "iommu-bench", extra)
#define MN_REST                                                             \
	"[[kernels]]\nname = \"deb\"\npackage = "                           \
	"\"linux-image-6.1.0-57-amd64\"\n"                                  \
	"[[workloads]]\nname = \"tx\"\nserver = \"lp\"\nclient = \"lab\"\n" \
	"[[workloads]]\nname = \"rx\"\nserver = \"lp\"\nclient = \"lab\"\n" \
	"reverse = true\n"
#define MN_SUT MN_HOST("lab", "sut", "address = \"10.93.0.1/24\"\n", "")
#define MN_PEER(addr, extra) MN_HOST("lp", "peer", addr, extra)
#define MN_PORTS "http_port = 7782\nagent_port = 7783\n"

static void test_multinode(void)
{
	static const struct tap_substr multinode_checks[] = {
		{ "protocols:\n  lava-multinode:\n    roles:\n      sut:\n"
		  "        device_type: 'qemu'\n        count: 1\n"
		  "        essential: true\n        context:\n",
		  "role sut, essential, with its own context" },
		{ "      peer:\n        device_type: 'qemu'\n"
		  "        count: 1\n        essential: true\n",
		  "role peer, essential: either's end cancels the other" },
		{ "- deploy:\n    role: [sut]\n", "the SUT's files" },
		{ "- deploy:\n    role: [peer]\n", "the peer's files" },
		{ "- boot:\n    role: [sut, peer]\n", "both boot" },
		{ "- test:\n    role: [sut, peer]\n", "both are watched" },
		{ "          - '-device e1000e,netdev=lab0,mac=02:",
		  "the first NIC on the lab's network" },
		{ "          - '-netdev user,id=n0'\n"
		  "          - '-device e1000e,netdev=n0'\n",
		  "then the agent's, on user-mode networking" },
		{ "iommu.strict=1", "the SUT's command line" },
	};
	static const struct tap_substr cmdline_checks[] = {
		{ "iommu_bench.ip=10.93.0.2/24 ",
		  "the peer at its address on the lab's network" },
		{ " iommu_bench.ctlnic=eth1 iommu_bench.ctlip=10.0.2.15/24",
		  "the agent's way out on the second NIC" },
		{ "iommu_bench.ctl=192.0.2.10:7783",
		  "dialing the peer's own agent port" },
	};
	struct lava_boot b = { .job_name = "j",
			       .files = &files,
			       .cmdline = "console=ttyS0 iommu.strict=1",
			       .timeout_ms = 600000 };
	struct lava_boot pb = b;
	const struct matrix_host *s, *p;
	struct matrix *m;
	char *d, *e, *cmdline;

	m = load(MN_SUT MN_PEER("address = \"10.93.0.2/24\"\n", MN_PORTS)
			 MN_REST);
	if (!ok(m, "a LAVA SUT and a LAVA peer device load"))
		return;
	s = &m->hosts[matrix__find_host(m, "lab")];
	p = &m->hosts[matrix__find_host(m, "lp")];
	ok(s->has_mate && p->has_mate && &m->hosts[s->mate] == p &&
		   &m->hosts[p->mate] == s,
	   "they are each other's mates");
	pb.cmdline = "console=ttyS0";
	d = lava__multinode_definition(s, &b, p, &pb);
	if (!ok(d != NULL, "a multinode definition is written"))
		goto out;
	has_all(d, multinode_checks);
	ok(!strstr(d, "\ndevice_type:") && !strstr(d, "\ncontext:"),
	   "no top-level device_type or context (LAVA refuses them)");
	free(d);
	cmdline = lava__boot_cmdline(p, NULL, 0);
	has_all(cmdline, cmdline_checks);
	free(cmdline);
out:
	matrix__free(m);

	e = load_bad(MN_SUT MN_PEER("", MN_PORTS) MN_REST);
	has_str(e, "host 'lp': missing key 'address': in a multinode job",
		"a device with no address on the lab's network is refused");
	free(e);
	e = load_bad(MN_SUT MN_PEER("address = \"10.93.0.2/24\"\n", "")
			     MN_REST);
	has_str(e,
		"its SUT 'lab' listens on 7780 and 7781 of the same "
		"controller",
		"the same ports as its SUT are refused");
	free(e);
	e = load_bad(MN_SUT MN_HOST_T("lp", "peer",
				      "address = \"10.93.0.2/24\"\n", "qemu",
				      MN_PORTS) MN_REST);
	has_str(e, "a multinode job's devices reach each other on the lab's",
		"LAVA's stock template is refused");
	free(e);
	e = load_bad(MN_SUT MN_PEER("address = \"10.93.0.2/24\"\n",
				    MN_PORTS "server = \"http://other:8000\"\n")
			     MN_REST);
	ok(e != NULL, "another lab's server is refused");
	free(e);
	e = load_bad(MN_SUT MN_PEER(
		"address = \"10.93.0.2/24\"\n",
		MN_PORTS) "[hosts.peer]\ntransport = \"local\"\n"
			  "address = \"127.0.0.1\"\n"
			  "[[kernels]]\nname = \"deb\"\npackage = "
			  "\"linux-image-6.1.0-57-amd64\"\n"
			  "[[workloads]]\nname = \"tx\"\nserver = \"peer\"\n"
			  "client = \"lab\"\n");
	has_str(e, "host 'lp': a LAVA device with role = \"peer\" is booted",
		"a LAVA peer device no workload pairs is refused");
	free(e);
}

/*
 * A boot's files: the secret's own cpio part, and the initramfs named by
 * the digest of its three parts end to end, as the worker will check it.
 */
static void test_files(void)
{
	static const char kernel[] = "a kernel", base[] = "the base cpio",
			  root[] = "the agent's root";
	uint8_t secret[CHAN_SECRET_SIZE];
	char dir[] = "/tmp/test-lava.XXXXXX", *pk, *pb, *pr, *all, want[65];
	struct qemu_kernel qk = { 0 };
	struct lava_files f;
	struct matrix *m;
	struct cpio c;
	char *err = NULL;
	size_t i;

	for (i = 0; i < sizeof(secret); i++)
		secret[i] = (uint8_t)(0xa0 + i);
	ok(!lava__secret_part(secret, sizeof(secret), &c) &&
		   memmem(c.buf, c.len, "iommu-bench-secret", 18) &&
		   memmem(c.buf, c.len,
			  "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9"
			  "babbbcbdbebf\n",
			  65) &&
		   memmem(c.buf, c.len, "000081800", 9),
	   "the secret's part: one file, 0600, the secret in hex");
	ok(lava__secret_part(secret, 5, &(struct cpio){ 0 }) == -EINVAL,
	   "a secret of another size is refused");
	if (!ok(mkdtemp(dir) != NULL, "a scratch folder")) {
		cpio__release(&c);
		return;
	}
	pk = xasprintf("%s/k", dir);
	pb = xasprintf("%s/b", dir);
	pr = xasprintf("%s/r", dir);
	scratch__write_text(pk, kernel);
	scratch__write_text(pb, base);
	scratch__write_text(pr, root);
	qk.image = pk;
	qk.initrd = pb;
	m = load(MATRIX(TOKEN, ""));
	if (!ok(m, "a lava host loads"))
		goto out;
	ok(!lava_files__make(&m->hosts[matrix__find_host(m, "lab")], &qk, pr,
			     secret, sizeof(secret), NULL, &f, &err),
	   "a boot's files are named without a server (a plan's review)");
	sha256__hex(kernel, strlen(kernel), want);
	is_str(f.kernel_sha, want, "the kernel by its own digest");
	all = xasprintf("%s%s", base, root);
	all = xrealloc(all, strlen(all) + c.len);
	memcpy(all + strlen(base) + strlen(root), c.buf, c.len);
	sha256__hex(all, strlen(base) + strlen(root) + c.len, want);
	is_str(f.initrd_sha, want,
	       "the initramfs: base, root and secret end to end");
	has_str(f.initrd_url, "http://192.0.2.10:7780/sha256/",
		"fetched from the controller's artifact server");
	free(all);
	lava_files__release(&f);
	matrix__free(m);
out:
	cpio__release(&c);
	free(err);
	unlink(pk);
	unlink(pb);
	unlink(pr);
	rmdir(dir);
	free_all(pk, pb, pr);
}

static json_t *parse(const char *s)
{
	json_t *j = json_loads(s, 0, NULL);

	if (!j)
		tap_diag("bad JSON in the test: %s", s);
	return j;
}

static void test_answers(void)
{
	struct lava_job job;
	char *err = NULL, *s;
	int64_t id = 0;
	json_t *j;
	char **names;
	size_t nr;

	j = parse("{\"id\": 7, \"state\": \"Running\", \"health\": "
		  "\"Unknown\", \"actual_device\": \"qemu01\", "
		  "\"submit_time\": \"2026-12-02T16:40:14Z\", "
		  "\"start_time\": null}");
	ok(!lava_job__parse(j, &job, &err), "a running job is read");
	ok(job.id == 7 && job.state == LAVA_RUNNING, "its id and state");
	is_str(job.device, "qemu01", "its device");
	ok(!job.start_time, "a null time is NULL");
	lava_job__release(&job);
	json_decref(j);
	j = parse("{\"id\": 7, \"state\": \"Scheduled\"}");
	ok(!lava_job__parse(j, &job, &err) && job.state == LAVA_SUBMITTED,
	   "Scheduled is still queued");
	lava_job__release(&job);
	json_decref(j);
	j = parse("{\"id\": 7, \"state\": \"Exploded\"}");
	ok(lava_job__parse(j, &job, &err) == -EPROTO, "an unknown state");
	has_str(err, "'Exploded'", "is named");
	free(err);
	err = NULL;
	json_decref(j);
	j = parse("{\"id\": \"7\", \"state\": \"Running\"}");
	ok(lava_job__parse(j, &job, &err) == -EPROTO, "an id that is a string");
	free(err);
	err = NULL;
	json_decref(j);

	j = parse("{\"results\": [{\"name\": \"validate\", \"result\": "
		  "\"pass\"}, {\"name\": \"job\", \"result\": \"fail\", "
		  "\"metadata\": \"case: job\\ndefinition: lava\\n"
		  "error_msg: 'qemu-system-x86_64: -device nope: "
		  "not found'\\nerror_type: Infrastructure\\nresult: "
		  "fail\\n\"}]}");
	s = lava_job__error(j);
	is_str(s, "Infrastructure: qemu-system-x86_64: -device nope: not found",
	       "an Incomplete job's reason, LAVA's words unquoted");
	free(s);
	json_decref(j);
	j = parse("{\"results\": [{\"name\": \"boot-qemu\", \"result\": "
		  "\"fail\"}, {\"name\": \"x\", \"result\": \"fail\"}]}");
	s = lava_job__error(j);
	is_str(s, "failed: boot-qemu, x", "else the failed cases");
	free(s);
	json_decref(j);
	j = parse("{\"results\": []}");
	ok(!lava_job__error(j), "nothing failed: NULL");
	json_decref(j);

	j = parse("{\"message\": \"job(s) successfully submitted\", "
		  "\"job_ids\": [42]}");
	ok(!lava_job__submitted(j, &id) && id == 42, "a submission's id");
	json_decref(j);
	j = parse("{\"job_ids\": []}");
	ok(lava_job__submitted(j, &id) == -EPROTO, "no id is an error");
	json_decref(j);
	j = parse("{\"job_ids\": [\"61.0\", \"61.1\"]}");
	ok(!lava_job__submitted_group(j, &id, &nr) && id == 61 && nr == 2,
	   "a multinode submission: its group's first job and its size");
	json_decref(j);
	j = parse("{\"job_ids\": [\"61.0\", \"62.1\"]}");
	ok(lava_job__submitted_group(j, &id, &nr) == -EPROTO,
	   "sub-jobs of two groups are an error");
	json_decref(j);
	j = parse("{\"job_ids\": [42]}");
	ok(lava_job__submitted_group(j, &id, &nr) == -EPROTO,
	   "a job of one device is no group");
	json_decref(j);
	j = parse("{\"id\": 62, \"state\": \"Running\", \"definition\": "
		  "\"protocols:\\n  lava-multinode:\\n    role: peer\\n"
		  "    target_group: 87f5886a-533b\\n\"}");
	ok(!lava_job__parse(j, &job, &err) && job.role && job.group &&
		   !strcmp(job.role, "peer") &&
		   !strcmp(job.group, "87f5886a-533b"),
	   "a multinode job's role and group, from its definition");
	lava_job__release(&job);
	json_decref(j);

	j = parse("{\"results\": [{\"name\": \"qemu\"}, {\"name\": 3}, "
		  "{\"name\": \"bbb\"}]}");
	names = lava__names(j, &nr);
	ok(nr == 2 && !strcmp(names[0], "qemu") && !strcmp(names[1], "bbb") &&
		   !names[2],
	   "the names of a list, NULL-terminated, non-strings skipped");
	strv_free(names, nr);
	json_decref(j);
}

int main(void)
{
	test_defaults();
	test_errors();
	test_definition();
	test_template();
	test_multinode();
	test_files();
	test_answers();
	return tap_done();
}
