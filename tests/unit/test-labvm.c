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
	toml = stanza_matrix(s);
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
		   !strcmp(h->nic, "enp0s3") && h->nr_power_cycle == 4,
	   "an ssh SUT that reboots by grub, its key, host keys, NIC and "
	   "power cycle");
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
		if (strstr(buf, "system_reset") || strstr(buf, "quit")) {
			snprintf(q->got, sizeof(q->got), "%s", buf);
			write_all(c, q->reply, strlen(q->reply));
			break;
		}
	}
	close(c);
	return NULL;
}

static int qmp_try(const char *reply, const char *cmd, char **err, char *got,
		   size_t size)
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
	ret = labvm_qmp__run(sock, cmd, 5000, NULL, err);
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
		       "system_reset", &err, got, sizeof(got)),
	       0, "system_reset answered, an event before the return");
	has_str(got, "{\"execute\": \"system_reset\"}",
		"the monitor was sent system_reset");
	free(err);
	err = NULL;
	is_int(qmp_try("{\"error\": {\"class\": \"GenericError\", \"desc\": "
		       "\"no\"}}\n",
		       "system_reset", &err, got, sizeof(got)),
	       -EIO, "an error from QEMU is an error");
	has_str(err, "QEMU refused system_reset: no", "... with its words");
	free(err);
	err = NULL;
	is_int(labvm_qmp__run("/tmp/no/such/qmp.sock", "quit", 1000, NULL,
			      &err),
	       -ENOENT, "no monitor there");
	has_str(err, "cannot reach QEMU's monitor", "... says so");
	free(err);
	err = NULL;
	is_int(labvm_qmp__run("/tmp/x", "quit\"}", 1000, NULL, &err), -EINVAL,
	       "a command that is not a QMP word is refused");
	free(err);
}

int main(void)
{
	test_recipes();
	test_stanza();
	test_quote();
	test_names();
	test_qmp();
	return tap_done();
}
