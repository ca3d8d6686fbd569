// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lab machine's parts that need no VM: its recipes and their key,
 * the files an image gets, the stanza start prints (loaded back as a
 * matrix, hostile paths included), the link's plan, and the power
 * switch's QMP dialogue against a fake QEMU monitor on a socket.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench/labvm/labvm-priv.h"
#include "bench/labvm/labvm.h"
#include "matrix-load.h"
#include "qmp.h"
#include "tap.h"
#include "toml.h"
#include "util.h"

static void test_recipes(void)
{
	const struct labvm_recipe *x86 = labvm_recipe__find("x86_64");
	const struct labvm_recipe *arm = labvm_recipe__find("arm64");
	char a[SHA256_HEX_SIZE], b[SHA256_HEX_SIZE], c[SHA256_HEX_SIZE];
	struct labvm_file *f;
	size_t nr, i;
	bool dhcp = false, key = false, kexec = false;

	ok(x86 && !strcmp(x86->suite, "bookworm") &&
		   x86->firmware == LABVM_BIOS && x86->iommu_device,
	   "x86_64: Debian 12, BIOS, a vIOMMU device");
	ok(arm && !strcmp(arm->suite, "trixie") &&
		   arm->firmware == LABVM_UEFI &&
		   strstr(arm->machine, "iommu=smmuv3") && arm->bios,
	   "arm64: Debian 13, UEFI firmware, virt with SMMUv3");
	ok(!labvm_recipe__find("aarch64") && !labvm_recipe__find(""),
	   "other names find none");
	for (i = 0; i < labvm_nr_recipes; i++)
		ok(strstr(labvm_recipes[i].packages, "openssh-server") &&
			   strstr(labvm_recipes[i].packages, "kexec-tools") &&
			   strstr(labvm_recipes[i].packages, "iperf3") &&
			   strstr(labvm_recipes[i].packages, "fio") &&
			   strstr(labvm_recipes[i].packages,
				  "initramfs-tools") &&
			   strstr(labvm_recipes[i].packages, "grub"),
		   "%s has sshd, kexec-tools, iperf3, fio, initramfs-tools, "
		   "grub",
		   labvm_recipes[i].name);

	labvm_recipe__key(x86, "ssh-ed25519 AAAA one", a);
	labvm_recipe__key(x86, "ssh-ed25519 AAAA one", b);
	labvm_recipe__key(x86, "ssh-ed25519 AAAA two", c);
	ok(strlen(a) == 64 && !strcmp(a, b), "a recipe's key is stable");
	ok(strcmp(a, c), "another key for root is another image");
	labvm_recipe__key(arm, "ssh-ed25519 AAAA one", c);
	ok(strcmp(a, c), "another recipe is another image");

	labvm_recipe__files(x86, "ssh-ed25519 AAAA one", &f, &nr);
	for (i = 0; i < nr; i++) {
		if (!strcmp(f[i].path, "/etc/systemd/network/10-lab.network"))
			dhcp = strstr(f[i].content, "DHCP=ipv4");
		if (!strcmp(f[i].path, "/root/.ssh/authorized_keys"))
			key = !strcmp(f[i].content, "ssh-ed25519 AAAA one\n") &&
			      f[i].mode == 0600;
		if (!strcmp(f[i].path, "/etc/default/kexec"))
			kexec = strstr(f[i].content, "LOAD_KEXEC=false");
	}
	ok(dhcp, "the NIC takes its address by DHCP: none in the image");
	ok(key, "root's authorized_keys holds the controller's key, 0600");
	ok(kexec, "a plain reboot goes through firmware, not kexec");
	labvm_files__free(f, nr);
}

/* A matrix of the stanza start prints for @s, one workload on it. */
static char *stanza_matrix(const json_t *s)
{
	char *text = labvm__stanza(s, "/usr/bin/iommu-bench"), *toml;

	toml = xasprintf("[run]\nmodes = [\"strict\"]\n%s\n[[workloads]]\n"
			 "name = \"w\"\nserver = \"lab1\"\nclient = "
			 "\"lab1-peer\"\n",
			 text);
	free(text);
	return toml;
}

static void test_stanza(void)
{
	json_t *s = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
			      "name", "lab1", "recipe", "bookworm-amd64",
			      "release", "6.1.0-50-amd64", "address",
			      "10.91.3.2", "host_address", "10.91.3.1", "key",
			      "/tmp/a \"quoted\" dir\\key", "known_hosts",
			      "/tmp/kh", "nic", "enp0s3");
	const struct matrix_host *h = NULL, *p = NULL;
	char *toml = stanza_matrix(s);
	struct matrix *m;
	size_t i;

	has_str(toml,
		"power_cycle = [\"/usr/bin/iommu-bench\", \"labvm\", "
		"\"reset\", \"lab1\"]",
		"the power cycle is this tool's labvm reset");
	has_str(toml, "ssh_key = \"/tmp/a \\\"quoted\\\" dir\\\\key\"",
		"a path's quotes and backslashes are escaped as TOML wants");
	ok(!strstr(toml, "console ="),
	   "a state without its console (an older start): no console key");
	/* A path ssh would split is refused before it is looked for. */
	load_refused(toml,
		     "ssh_key: '/tmp/a \"quoted\" dir\\key' holds a blank",
		     "a key path ssh would split is refused by the matrix");
	free(toml);
	json_object_set_new(s, "key", json_string("/dev/null"));
	toml = stanza_matrix(s);
	load_refused(toml, "known_hosts: cannot read '/tmp/kh'",
		     "known_hosts must be readable too");
	free(toml);
	json_object_set_new(s, "known_hosts", json_string("/dev/null"));
	json_object_set_new(
		s, "console",
		json_string("/run/iommu-bench/labvm/lab1/serial.log"));
	toml = stanza_matrix(s);
	has_str(toml, "console = \"/run/iommu-bench/labvm/lab1/serial.log\"",
		"the console its serial port is logged to");
	m = load(toml);
	ok(m, "the stanza loads as a matrix's hosts");
	for (i = 0; m && i < m->nr_hosts; i++) {
		if (!strcmp(m->hosts[i].name, "lab1"))
			h = &m->hosts[i];
		if (!strcmp(m->hosts[i].name, "lab1-peer"))
			p = &m->hosts[i];
	}
	ok(h && h->transport == HOST_SSH && h->role == ROLE_SUT &&
		   h->allow_reboot && h->reboot == REBOOT_GRUB &&
		   !strcmp(h->address, "10.91.3.2") &&
		   !strcmp(h->ssh_key, "/dev/null") &&
		   !strcmp(h->known_hosts, "/dev/null") &&
		   !strcmp(h->nic, "enp0s3") && h->nr_power_cycle == 4 &&
		   h->console &&
		   !strcmp(h->console,
			   "/run/iommu-bench/labvm/lab1/serial.log"),
	   "an ssh SUT that reboots by grub, its key, host keys, NIC, "
	   "power cycle and console");
	ok(p && p->transport == HOST_LOCAL && p->role == ROLE_PEER &&
		   !strcmp(p->address, "10.91.3.1"),
	   "its peer: this machine at its end of the link");
	matrix__free(m);
	free(toml);
	json_decref(s);
}

static void test_quote(void)
{
	char *q = toml__quote("a\"b\\c\nd\x01");

	is_str(q, "\"a\\\"b\\\\c\\u000ad\\u0001\"",
	       "toml__quote escapes quotes, backslashes, control characters");
	free(q);
}

static void test_names(void)
{
	struct labvm_net n;
	char *err = NULL;

	ok(labvm__name_ok("lab1") && labvm__name_ok("tl123.a_b-c"),
	   "plain names are lab machine names");
	ok(!labvm__name_ok("") && !labvm__name_ok("../x") &&
		   !labvm__name_ok("-x") && !labvm__name_ok(".x") &&
		   !labvm__name_ok("a b") &&
		   !labvm__name_ok("0123456789012345678901234567890123"),
	   "empty, a path, an option, hidden, a blank, 34 bytes: refused");
	is_int(labvm_net__plan("x", 256, &n, &err), -EINVAL,
	       "subnet 256 is refused");
	has_str(err, "0 to 255", "... saying the range");
	free(err);
	err = NULL;
	if (!labvm_net__plan("x", 77, &n, &err)) {
		is_str(n.tap, "iblab77", "subnet 77: the tap iblab77");
		is_str(n.vm_ip, "10.91.77.2", "the VM at .2");
		is_str(n.host_ip, "10.91.77.1", "this machine at .1");
		is_str(n.mac, "52:54:00:91:4d:02", "the MAC names the subnet");
	} else {
		tap_skip("10.91.77.0/24 is in use here");
		free(err);
	}
}

/* A QEMU monitor that greets, takes capabilities, then answers @reply. */
struct fake_qmp {
	int fd;
	const char *reply;
	char got[512];
};

static void *qmp_serve(void *arg)
{
	struct fake_qmp *q = arg;
	const char *greeting = "{\"QMP\": {\"version\": {}, \"capabilities\": "
			       "[]}}\n";
	char buf[512];
	size_t off = 0;
	ssize_t n;
	int c = accept(q->fd, NULL, NULL);

	if (c < 0)
		return NULL;
	write_all(c, greeting, strlen(greeting));
	while (off < sizeof(buf) - 1 &&
	       (n = read(c, buf + off, sizeof(buf) - 1 - off)) > 0) {
		off += (size_t)n;
		buf[off] = '\0';
		if (strstr(buf, "qmp_capabilities") &&
		    !strstr(q->got, "caps")) {
			strcpy(q->got, "caps");
			write_all(c, "{\"return\": {}}\n", 15);
		}
		/* The command after the capabilities, whole. */
		if (strstr(q->got, "caps") &&
		    strstr(strstr(buf, "qmp_capabilities"), "\n{") &&
		    buf[off - 1] == '\n') {
			snprintf(q->got, sizeof(q->got), "%s", buf);
			write_all(c, q->reply, strlen(q->reply));
			break;
		}
	}
	close(c);
	return NULL;
}

static int qmp_try(const char *reply, const char *cmd, json_t *args, char **err,
		   char *got, size_t size)
{
	char dir[] = "/tmp/test-qmp-XXXXXX", *sock;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct fake_qmp q = { .reply = reply };
	pthread_t th;
	int ret;

	if (!mkdtemp(dir))
		return -errno;
	sock = xasprintf("%s/qmp.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	q.fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(q.fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(q.fd, 1))
		return -errno;
	pthread_create(&th, NULL, qmp_serve, &q);
	ret = qmp__run(sock, cmd, args, 5000, NULL, err);
	pthread_join(th, NULL);
	snprintf(got, size, "%s", q.got);
	close(q.fd);
	unlink(sock);
	rmdir(dir);
	free(sock);
	return ret;
}

static void test_qmp(void)
{
	char got[512], *err = NULL;

	is_int(qmp_try("{\"event\": \"RESET\", \"data\": {}}\n"
		       "{\"return\": {}}\n",
		       "system_reset", NULL, &err, got, sizeof(got)),
	       0, "system_reset answered, an event before the return");
	has_str(got, "{\"execute\": \"system_reset\"}",
		"the monitor was sent system_reset");
	free(err);
	err = NULL;
	is_int(qmp_try("{\"error\": {\"class\": \"GenericError\", \"desc\": "
		       "\"no\"}}\n",
		       "system_reset", NULL, &err, got, sizeof(got)),
	       -EIO, "an error from QEMU is an error");
	has_str(err, "QEMU refused system_reset: no", "... with its words");
	free(err);
	err = NULL;
	is_int(qmp_try("{\"return\": {}}\n", "send-key",
		       json_pack("{s:[{s:s,s:s}]}", "keys", "type", "qcode",
				 "data", "sysrq"),
		       &err, got, sizeof(got)),
	       0, "send-key answered");
	has_str(got,
		"{\"execute\": \"send-key\", \"arguments\": {\"keys\": "
		"[{\"type\": \"qcode\", \"data\": \"sysrq\"}]}}",
		"... sent with its arguments");
	free(err);
	err = NULL;
	is_int(qmp__run("/tmp/no/such/qmp.sock", "quit", NULL, 1000, NULL,
			&err),
	       -ENOENT, "no monitor there");
	has_str(err, "cannot reach QEMU's monitor", "... says so");
	free(err);
	err = NULL;
	is_int(qmp__run("/tmp/x", "quit\"}", NULL, 1000, NULL, &err), -EINVAL,
	       "a command that is not a QMP word is refused");
	free(err);
}

/* The unpack route's pure parts: the GPT, apt's list, dpkg's order. */
static void test_gpt(void)
{
	struct labvm_gpt g;
	char *script;

	is_int(labvm_gpt__layout(4096ULL << 20, 200, &g), 0, "4 GiB lays out");
	ok(g.esp_start == 2048 && g.esp_sectors == 409600,
	   "the ESP: 1 MiB in, 200 MiB long");
	ok(g.root_start == 411648 && g.root_start % 2048 == 0,
	   "the root right after it, 1 MiB aligned");
	/* 8388608 sectors, the backup GPT's 33 kept free, aligned down. */
	ok(g.root_sectors == 7974912 &&
		   g.root_start + g.root_sectors <= 8388608 - 33,
	   "the root ends before the backup GPT: %llu sectors", g.root_sectors);
	script = labvm_gpt__script(&g);
	ok(strstr(script, "label: gpt\n") &&
		   strstr(script, "start=2048, size=409600, type=U") &&
		   strstr(script, "start=411648, size=7974912, type=L"),
	   "sfdisk's script has both partitions as laid out");
	free(script);
	is_int(labvm_gpt__layout(200ULL << 20, 200, &g), -EINVAL,
	       "a disk the ESP fills is refused");
	is_int(labvm_gpt__layout(4096ULL << 20, 0, &g), -EINVAL,
	       "no ESP is refused");
}

static void test_debs(void)
{
	const char *sim =
		"NOTE: This is only a simulation!\n"
		"Inst base-files (13.8+deb13u2 Debian:13.2/stable [arm64])\n"
		"Inst libc6 (2.41-12 Debian:13.2/stable [arm64])\n"
		"Conf libc6 (2.41-12 Debian:13.2/stable [arm64])\n"
		"Inst perl-base (5.40.1-6 Debian:13.2/stable [arm64])\n"
		"Inst base-passwd (3.6.7 Debian:13.2/stable [arm64])\n"
		"Inst tzdata (2025b-4+deb13u1 Debian:13.2/stable [all])\n"
		"Inst bsdutils (1:2.41-5 Debian:13.2/stable [arm64])\n";
	struct labvm_debs d;
	char *err = NULL;
	size_t i;

	is_int(labvm_debs__parse_sim(sim, "/a", &d, &err), 0,
	       "apt's simulation is read");
	is_int((int)d.nr, 6, "one deb per Inst line, Conf lines aside");
	is_str(d.v[5].file, "/a/bsdutils_1%3a2.41-5_arm64.deb",
	       "an epoch's ':' is %%3a in the file name, as apt saves it");
	is_str(d.v[4].file, "/a/tzdata_2025b-4+deb13u1_all.deb",
	       "an arch-all deb is _all");
	d.v[0].rank = labvm_debs__rank("base-files",
				       "Essential: yes\nPriority: required\n");
	d.v[1].rank = labvm_debs__rank("libc6", "Priority: optional\n");
	d.v[2].rank = labvm_debs__rank("perl-base", "Essential: yes\n");
	d.v[3].rank = labvm_debs__rank("base-passwd", "Essential: yes\n");
	d.v[4].rank = labvm_debs__rank("tzdata", "priority: Required\n");
	d.v[5].rank = labvm_debs__rank("bsdutils", "Essential: no\n");
	labvm_debs__order(&d);
	is_str(d.v[0].name, "base-passwd", "base-passwd is unpacked first");
	is_str(d.v[1].name, "base-files", "then base-files");
	ok(d.v[2].rank == LABVM_DEB_ESSENTIAL &&
		   d.v[3].rank == LABVM_DEB_ESSENTIAL &&
		   !strcmp(d.v[2].name, "perl-base") &&
		   !strcmp(d.v[3].name, "tzdata"),
	   "then Essential: yes and Priority: required, by name");
	ok(d.v[4].rank == LABVM_DEB_REST && d.v[5].rank == LABVM_DEB_REST,
	   "then the rest (Essential: no, Priority: optional)");
	for (i = 1; i < d.nr; i++)
		if (d.v[i - 1].rank > d.v[i].rank)
			break;
	ok(i == d.nr, "ranks never go down");
	labvm_debs__release(&d);

	is_int(labvm_debs__parse_sim("Inst ../../etc (1 x [arm64])\n", "/a", &d,
				     &err),
	       -EINVAL, "a name that would climb out of the archives: refused");
	free(err);
	err = NULL;
	is_int(labvm_debs__parse_sim("Inst foo (1/../x y [arm64])\n", "/a", &d,
				     &err),
	       -EINVAL, "a version with a '/': refused");
	free(err);
	err = NULL;
	is_int(labvm_debs__parse_sim("Inst foo (1 y [arm/64])\n", "/a", &d,
				     &err),
	       -EINVAL, "an arch with a '/': refused");
	free(err);
	err = NULL;
	is_int(labvm_debs__parse_sim("0 upgraded\n", "/a", &d, &err), -ENOENT,
	       "nothing to install is an error");
	free(err);
}

static void test_cpio(void)
{
	struct labvm_cpio c = { 0 };

	labvm_cpio__add(&c, "init", 0100755, 0, 0, "abcde", 5);
	ok(c.len % 4 == 0 && !memcmp(c.buf, "070701", 6),
	   "a newc entry, padded to 4 bytes");
	ok(!memcmp(c.buf + 6 + 8, "000081ED", 8), "its mode in hex");
	ok(!memcmp(c.buf + 6 + 6 * 8, "00000005", 8), "its size");
	ok(!memcmp(c.buf + 110, "init\0", 5) &&
		   !memcmp(c.buf + 116, "abcde", 5),
	   "the name, then the data at a 4-byte boundary");
	labvm_cpio__add(&c, "dev/console", 020600, 5, 1, NULL, 0);
	labvm_cpio__finish(&c);
	ok(c.len % 4 == 0 && memmem(c.buf, c.len, "TRAILER!!!", 10),
	   "the trailer ends it");
	labvm_cpio__release(&c);
}

static void test_stage2(void)
{
	const struct labvm_recipe *arm = labvm_recipe__find("arm64");
	const struct labvm_recipe *x86 = labvm_recipe__find("x86_64");

	ok(arm->route == LABVM_UNPACK_VM && x86->route == LABVM_DEBOOTSTRAP,
	   "arm64 takes the unpack route, x86_64 debootstrap's");
	ok(!strncmp(labvm_stage2_sh, "#!/bin/sh\n", 10) &&
		   strstr(labvm_stage2_sh, "labvm-stage2: ok") &&
		   strstr(labvm_stage2_sh, "dpkg --configure -a"),
	   "the stage-2 script is in the binary");
	ok(!strncmp(labvm_stage2_init_sh, "#!/bin/busybox sh\n", 18) &&
		   strstr(labvm_stage2_init_sh, "switch_root"),
	   "so is its initramfs' init");
	ok(strstr(arm->packages, "e2fsprogs") &&
		   strstr(arm->packages, "dosfstools") &&
		   strstr(arm->packages, "zstd"),
	   "trixie's image gets what its minimal set lacks");
}

int main(void)
{
	test_recipes();
	test_stanza();
	test_quote();
	test_names();
	test_qmp();
	test_gpt();
	test_debs();
	test_cpio();
	test_stage2();
	return tap_done();
}
