// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ssh transport against a real sshd on 127.0.0.1, which
 * tests/cli/ssh.t starts and describes in the environment
 * (IOMMU_BENCH_SSH_CONFIG, IOMMU_BENCH_SSH_REMOTE_DIR, SSH_TEST_CLOSED_PORT).
 * Run on its own it has no server and skips.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "bench/host/host-priv.h"
#include "bench/host/ssh/ssh.h"
#include "bench/host/host.h"
#include "bench/matrix/matrix.h"
#include "matrix-load.h"
#include "sha256.h"
#include "tap.h"
#include "util.h"

static struct matrix *ssh_matrix(const char *closed_port)
{
	struct matrix *m;
	char *toml;

	toml = xasprintf("[run]\nmodes = [\"current\"]\n"
			 "[hosts.sut]\ntransport = \"ssh\"\nrole = \"sut\"\n"
			 "address = \"127.0.0.1\"\n"
			 "[hosts.dead]\ntransport = \"ssh\"\n"
			 "address = \"127.0.0.1\"\nport = %s\n"
			 "[[workloads]]\nname = \"w\"\nserver = \"sut\"\n"
			 "client = \"dead\"\n",
			 closed_port);
	m = load(toml);
	free(toml);
	return m;
}

static long long mtime_ns(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static void check_agent(struct host *h)
{
	struct agent_conn *c = NULL;
	json_t *res = NULL;
	char *err = NULL;

	if (!is_int(h->ops->agent(h, &c, NULL), 0, "the agent starts over ssh"))
		return;
	is_int(agent_conn__call(c, "hello", NULL, 20000, &res, &err), 0,
	       "and answers hello");
	ok(json_string_value(json_object_get(res, "boot_id")),
	   "with a boot_id");
	json_decref(res);
	free(err);
	agent_conn__close(c);
}

static char *boot_id(void)
{
	char *buf = NULL;
	size_t len;

	if (read_file("/proc/sys/kernel/random/boot_id", &buf, &len))
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* A library in the agent's folder there, or NULL. */
static char *first_lib(const char *libdir)
{
	char *out = NULL;
	struct dirent *de;
	DIR *d = opendir(libdir);

	while (d && (de = readdir(d)) && !out)
		if (!strncmp(de->d_name, "lib", 3))
			out = xasprintf("%s/%s", libdir, de->d_name);
	if (d)
		closedir(d);
	return out;
}

/* @text appended to @path after @ms, by a child: a console speaking. */
static pid_t say_later(const char *path, const char *text, int ms)
{
	pid_t pid = fork();
	FILE *f;

	if (pid)
		return pid;
	usleep(ms * 1000);
	f = fopen(path, "a");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	_exit(0);
}

/*
 * The serial console watched while a boot never comes (the boot id
 * never changes here): a panic logged there ends the wait at once, and
 * with a power_cycle the machine is power-cycled and awaited again.
 */
static void test_console(struct host *h, struct matrix *m, const char *id)
{
	struct matrix_host *mh = &m->hosts[0];
	char *why = NULL, path[] = "/tmp/test-console-XXXXXX";
	int fd = mkstemp(path), ret;
	time_t t0;
	pid_t pid;

	if (fd < 0) {
		tap_skip("no scratch file");
		return;
	}
	close(fd);
	mh->console = xstrdup(path);
	pid = say_later(path, "[ 5.1] Kernel panic - not syncing: test\n",
			1500);
	t0 = time(NULL);
	ret = h->ops->wait_boot(h, id, 60000, &why);
	waitpid(pid, NULL, 0);
	ok(ret == -EHOSTDOWN && time(NULL) - t0 < 20 && why &&
		   strstr(why, "its boot stopped (its console says 'Kernel "
			       "panic - not syncing: test')") &&
		   strstr(why, "no power_cycle to end it"),
	   "a panic on its console ends a 60 s wait in %lld s: %s",
	   (long long)(time(NULL) - t0), why ? why : "");
	free(why);
	why = NULL;

	mh->power_cycle = xcalloc(2, sizeof(*mh->power_cycle));
	mh->power_cycle[0] = xstrdup("true");
	mh->nr_power_cycle = 1;
	pid = say_later(path, "[ 9.0] reboot: System halted\n", 1500);
	t0 = time(NULL);
	ret = h->ops->wait_boot(h, id, 4000, &why);
	waitpid(pid, NULL, 0);
	ok(ret < 0 && ret != -EHOSTDOWN && time(NULL) - t0 < 30 && why &&
		   strstr(why, "power cycle included"),
	   "halted, then power-cycled and awaited anew, where the halt is "
	   "behind it: the boot timeout then ends it: %s",
	   why ? why : "");
	free(why);
	unlink(path);
}

static void test_copy(struct matrix *m, const char *base)
{
	struct host h = { .m = &m->hosts[0], .matrix = m };
	char mine[SHA256_HEX_SIZE], theirs[SHA256_HEX_SIZE];
	char *id = boot_id(), *remote, *lib, *old, *sums;
	struct ssh_priv *p;
	long long before;
	time_t t0;
	char *why = NULL;
	FILE *f;

	h.ops = host_ops__find(h.m->transport);
	/* An agent of another build of the tool, to be tidied away. */
	old = xasprintf("%s/agent-0123456789abcdef", base);
	mkdir(base, 0755);
	mkdir(old, 0755);
	is_int(h.ops->open(&h, NULL), 0, "open installs the agent");
	p = h.priv;
	remote = xstrdup(p->remote);
	ok(!strncmp(remote, base, strlen(base)) && strstr(remote, "/agent-") &&
		   strstr(remote, "/iommu-bench"),
	   "in a folder of its bundle's id under the remote folder (%s)",
	   remote);
	ok(!sha256__file(host__self_exe(), mine, NULL) &&
		   !sha256__file(remote, theirs, NULL) && !strcmp(mine, theirs),
	   "the remote copy is this binary");
	lib = first_lib(p->libdir);
	ok(lib, "its libraries are beside it (%s)", p->libdir);
	sums = xasprintf("%s/SHA256SUMS", p->dir);
	ok(!access(sums, R_OK), "with their SHA256SUMS");
	ok(access(old, F_OK), "an older agent's folder is removed");
	check_agent(&h);
	is_int(h.ops->wait_boot(&h, "not-this-boot", 10000, &why), 0,
	       "wait_boot sees a boot other than the old one");
	t0 = time(NULL);
	ok(h.ops->wait_boot(&h, id, 3000, &why) < 0 && time(NULL) - t0 < 15 &&
		   why && strstr(why, "still the old boot"),
	   "wait_boot gives up when the boot never changes, saying why");
	free(why);
	why = NULL;
	test_console(&h, m, id);
	h.ops->close(&h);
	before = mtime_ns(remote);
	is_int(h.ops->open(&h, NULL), 0, "a second open");
	ok(before > 0 && mtime_ns(remote) == before,
	   "copies nothing: the agent is current");
	h.ops->close(&h);
	/* A library damaged there fails its sha256: the folder is sent again. */
	f = lib ? fopen(lib, "r+e") : NULL;
	if (f) {
		fputs("damaged", f);
		fclose(f);
	}
	is_int(h.ops->open(&h, NULL), 0, "an open after a library was damaged");
	ok(lib && !access(lib, R_OK) && mtime_ns(remote) != before,
	   "copies the agent's folder again");
	h.ops->close(&h);
	free_all(id, remote, lib, old, sums);
}

static void test_unreachable(struct matrix *m)
{
	struct host h = { .m = &m->hosts[1], .matrix = m };
	time_t t0 = time(NULL);
	char *err = NULL;

	h.ops = host_ops__find(h.m->transport);
	ok(h.ops->open(&h, &err) < 0, "a closed port fails open");
	ok(time(NULL) - t0 < 15, "quickly (%lld s)",
	   (long long)(time(NULL) - t0));
	has_str(err, "cannot reach", "and says it cannot reach the host");
	free(err);
	h.ops->close(&h);
}

int main(void)
{
	const char *cfg = getenv("IOMMU_BENCH_SSH_CONFIG");
	const char *dir = getenv("IOMMU_BENCH_SSH_REMOTE_DIR");
	const char *closed = getenv("SSH_TEST_CLOSED_PORT");
	struct matrix *m;

	if (!cfg || !dir || !closed || !getenv("IOMMU_BENCH"))
		tap_skip_all("run by tests/cli/ssh.t, which starts an sshd");
	m = ssh_matrix(closed);
	if (!ok(m, "the matrix loads"))
		return tap_done();
	test_copy(m, dir);
	test_unreachable(m);
	matrix__free(m);
	return tap_done();
}
