// SPDX-License-Identifier: GPL-2.0-only
/*
 * A host reached by the system's OpenSSH client. BatchMode so that
 * nothing ever prompts, one ControlMaster per host so that the many
 * short commands of a run share one connection, and ~/.ssh/config (or
 * $IOMMU_BENCH_SSH_CONFIG) is honoured. ssh hands the remote argv to the
 * remote user's shell as one string, so every remote token is a fixed
 * word or a path from a safe character set; data only flows over stdin
 * and stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench/agent/agent-proto.h"
#include "bench/agent-client/agent-bundle.h"
#include "bench/agent-client/agent-conn.h"
#include "bench/host/host-priv.h"
#include "bench/host/ssh/ssh.h"
#include "bench/host/host.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "util.h"

#define REMOTE_DIR ".cache/iommu-bench"
#define HELLO_TIMEOUT_MS 30000
#define COPY_TIMEOUT_MS 120000

/* Nothing a remote shell would expand, split or take as an option. */
static bool remote_path_is_safe(const char *p)
{
	const char *s;

	if (!*p || *p == '-' || strstr(p, "..") || strlen(p) > 200)
		return false;
	for (s = p; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._/-",
			    *s))
			return false;
	return true;
}

static void ssh__options(struct host *h, struct strvec *a, int connect_s,
			 bool mux)
{
	struct ssh_priv *p = h->priv;
	const char *cfg = getenv("IOMMU_BENCH_SSH_CONFIG");

	strvec__push(a, "-o");
	strvec__push(a, "BatchMode=yes");
	strvec__push(a, "-o");
	strvec__pushf(a, "ConnectTimeout=%d", connect_s);
	strvec__push(a, "-o");
	strvec__push(a, mux ? "ControlMaster=auto" : "ControlMaster=no");
	strvec__push(a, "-o");
	if (mux) {
		/* %C: a hash of host, port and user, short enough for a
		 * socket path. */
		strvec__pushf(a, "ControlPath=%s/%%C", p->ctl_dir);
		strvec__push(a, "-o");
		strvec__push(a, "ControlPersist=60");
	} else {
		strvec__push(a, "ControlPath=none");
	}
	if (h->m->port) {
		strvec__push(a, "-o");
		strvec__pushf(a, "Port=%u", h->m->port);
	}
	if (h->m->user) {
		strvec__push(a, "-o");
		strvec__pushf(a, "User=%s", h->m->user);
	}
	/* This key only: an agent's others would each cost a try. */
	if (h->m->ssh_key) {
		strvec__push(a, "-o");
		strvec__pushf(a, "IdentityFile=%s", h->m->ssh_key);
		strvec__push(a, "-o");
		strvec__push(a, "IdentitiesOnly=yes");
	}
	/* Pinned host keys: a machine that is not the one named fails. */
	if (h->m->known_hosts) {
		strvec__push(a, "-o");
		strvec__pushf(a, "UserKnownHostsFile=%s", h->m->known_hosts);
		strvec__push(a, "-o");
		strvec__push(a, "GlobalKnownHostsFile=/dev/null");
		strvec__push(a, "-o");
		strvec__push(a, "StrictHostKeyChecking=yes");
	}
	if (cfg && *cfg) {
		strvec__push(a, "-F");
		strvec__push(a, cfg);
	}
}

/* ssh OPTIONS -- ADDRESS, ready for the remote words. */
static void ssh__argv(struct host *h, struct strvec *a, int connect_s, bool mux)
{
	strvec__push(a, "ssh");
	ssh__options(h, a, connect_s, mux);
	strvec__push(a, "--");
	strvec__push(a, h->m->address);
}

static int ssh__remote(struct host *h, const char *const *words, int timeout_ms,
		       char **out, char **err, int *status)
{
	struct strvec a = { 0 };
	size_t i;
	int ret;

	ssh__argv(h, &a, 10, true);
	for (i = 0; words[i]; i++)
		strvec__push(&a, words[i]);
	ret = host__cmd(strvec__argv(&a), timeout_ms, out, err, status);
	strvec__release(&a);
	return ret;
}

void ssh__agent_words(struct host *h, struct strvec *a, const char *verb)
{
	struct ssh_priv *p = h->priv;

	strvec__push(a, "env");
	strvec__pushf(a, "LD_LIBRARY_PATH=%s", p->libdir);
	strvec__pushf(a, AGENT_LIBS_ENV "=%s", p->libdir);
	strvec__push(a, p->remote);
	strvec__push(a, "agent");
	strvec__push(a, verb);
}

int ssh__hello(struct host *h, int connect_s, bool mux, int timeout_ms,
	       json_t **hello, char **err, int *status)
{
	struct ssh_priv *p = h->priv;
	struct strvec a = { 0 };
	json_error_t jerr;
	char *out = NULL;
	int ret;

	ssh__argv(h, &a, connect_s, mux);
	ssh__agent_words(h, &a, "hello");
	ret = host__cmd(strvec__argv(&a), timeout_ms, &out, err, status);
	strvec__release(&a);
	if (ret)
		return ret;
	*hello = json_loads(out, 0, &jerr);
	if (!json_is_object(*hello)) {
		json_decref(*hello);
		*hello = NULL;
		ret = errmsg__set(err, -EPROTO,
				  "`%s agent hello` printed no JSON object: %s",
				  p->remote, jerr.text);
	}
	free(out);
	return ret;
}

void ssh__exit_master(struct host *h)
{
	struct strvec a = { 0 };

	strvec__push(&a, "ssh");
	ssh__options(h, &a, 5, true);
	strvec__push(&a, "-O");
	strvec__push(&a, "exit");
	strvec__push(&a, "--");
	strvec__push(&a, h->m->address);
	host__cmd(strvec__argv(&a), 10000, NULL, NULL, NULL);
	strvec__release(&a);
}

/* scp @files (NULL-terminated) into folder @dir there. */
static int ssh__scp(struct host *h, const char *const *files, const char *dir,
		    char **err)
{
	bool v6 = strchr(h->m->address, ':');
	struct strvec a = { 0 };
	size_t i;
	int ret;

	strvec__push(&a, "scp");
	strvec__push(&a, "-q");
	ssh__options(h, &a, 10, true);
	strvec__push(&a, "--");
	for (i = 0; files[i]; i++)
		strvec__push(&a, files[i]);
	strvec__pushf(&a, v6 ? "[%s]:%s/" : "%s:%s/", h->m->address, dir);
	ret = host__cmd(strvec__argv(&a), COPY_TIMEOUT_MS, NULL, err, NULL);
	strvec__release(&a);
	return ret;
}

/* The bundle's SHA256SUMS, its paths as they are there under @dir. */
static char *sums_text(const struct agent_bundle *b, const char *dir)
{
	struct strvec lines = { 0 };
	char *text;
	size_t i;

	strvec__pushf(&lines, "%s  %s/iommu-bench", b->exe_sha, dir);
	for (i = 0; i < b->libs.nr; i++)
		strvec__pushf(&lines, "%s  %s/%s", b->lib_shas.v[i], dir,
			      strrchr(b->libs.v[i], '/') + 1);
	strvec__push(&lines, "");
	text = strvec__join(&lines, "\n");
	strvec__release(&lines);
	return text;
}

/*
 * The files as they are to be named there, in a folder here: links to
 * the binary and the libraries (scp sends what they point at), and the
 * sums, last, since a folder whose sums check is a whole agent.
 */
static int stage(struct host *h, const struct agent_bundle *b, char **dirp,
		 struct strvec *files, char **err)
{
	struct ssh_priv *p = h->priv;
	char *dir = xasprintf("%s/stage-XXXXXX", p->ctl_dir), *sums, *path;
	size_t i;
	int fd, ret = 0;

	*dirp = NULL;
	if (!mkdtemp(dir)) {
		ret = -errno;
		errmsg__set(err, ret, "cannot make a folder in %s: %s",
			    p->ctl_dir, strerror(-ret));
		free(dir);
		return ret;
	}
	*dirp = dir;
	path = xasprintf("%s/iommu-bench", dir);
	if (symlink(b->exe, path))
		ret = -errno;
	strvec__push_nodup(files, path);
	for (i = 0; !ret && i < b->libs.nr; i++) {
		path = xasprintf("%s/%s", dir, strrchr(b->libs.v[i], '/') + 1);
		if (symlink(b->libs.v[i], path))
			ret = -errno;
		strvec__push_nodup(files, path);
	}
	path = xasprintf("%s/SHA256SUMS", dir);
	strvec__push_nodup(files, path);
	sums = sums_text(b, p->dir);
	fd = ret ? -1 :
		   open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (!ret && (fd < 0 || write_all(fd, sums, strlen(sums))))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(sums);
	if (ret)
		errmsg__set(err, ret, "cannot stage the agent in %s: %s", dir,
			    strerror(-ret));
	return ret;
}

static void unstage(const char *dir, const struct strvec *files)
{
	size_t i;

	for (i = 0; i < files->nr; i++)
		unlink(files->v[i]);
	if (dir)
		rmdir(dir);
}

/* 0 when every file of the agent's folder there has its sha256. */
static int ssh__verify(struct host *h, const char *dir, char **err)
{
	char *sums = xasprintf("%s/SHA256SUMS", dir);
	int ret;

	ret = ssh__remote(h,
			  (const char *const[]){ "sha256sum", "--check",
						 "--strict", "--quiet", sums,
						 NULL },
			  COPY_TIMEOUT_MS, NULL, err, NULL);
	free(sums);
	return ret;
}

/* The other agents' folders there: a tool that changed left them. */
static void ssh__tidy(struct host *h)
{
	struct ssh_priv *p = h->priv;
	const char *mine = strrchr(p->dir, '/') + 1;
	char *out = NULL, *line, *save = NULL;

	if (ssh__remote(h, (const char *const[]){ "ls", "-1", p->base, NULL },
			HELLO_TIMEOUT_MS, &out, NULL, NULL))
		return;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *old;

		if (strncmp(line, "agent-", 6) || !strcmp(line, mine) ||
		    !name_is_safe(line))
			continue;
		old = xasprintf("%s/%s", p->base, line);
		pr_info("host %s: removing the older agent %s", h->m->name,
			old);
		ssh__remote(h,
			    (const char *const[]){ "rm", "-rf", "--", old,
						   NULL },
			    HELLO_TIMEOUT_MS, NULL, NULL, NULL);
		free(old);
	}
	free(out);
}

/*
 * The folder is named by its content's hash, so a copy cut short is
 * only ever completed, never mistaken for another agent: it fails its
 * sums (sent last) until it is whole.
 */
static int ssh__copy(struct host *h, const struct agent_bundle *b, char **err)
{
	struct ssh_priv *p = h->priv;
	struct strvec files = { 0 };
	char *why = NULL, *dir = NULL;
	int ret;

	pr_info("host %s: copying the agent and %zu libraries (%.1f MiB) to "
		"%s",
		h->m->name, b->libs.nr, b->bytes / 1048576.0, p->dir);
	ret = stage(h, b, &dir, &files, &why);
	if (!ret)
		ret = ssh__remote(h,
				  (const char *const[]){ "mkdir", "-p", "--",
							 p->dir, NULL },
				  HELLO_TIMEOUT_MS, NULL, &why, NULL);
	if (!ret)
		ret = ssh__scp(h, strvec__argv(&files), p->dir, &why);
	if (ret)
		errmsg__set(err, ret,
			    "host %s: cannot copy the agent to %s: %s",
			    h->m->name, p->dir, why ? why : strerror(-ret));
	unstage(dir, &files);
	strvec__release(&files);
	free_all(why, dir);
	return ret;
}

/* 0: the agent there is this bundle; 1: missing or stale; < 0: error. */
static int ssh__check(struct host *h, const char *sha, char **err)
{
	struct ssh_priv *p = h->priv;
	json_t *hello = NULL;
	char *why = NULL;
	const char *their;
	int ret, status;
	long long proto;

	ret = ssh__hello(h, 10, true, HELLO_TIMEOUT_MS, &hello, &why, &status);
	if (ret && status > 0 && status != 255) {
		pr_debug("host %s: no usable agent (%s)", h->m->name, why);
		ret = 1;
		goto out;
	}
	if (ret) {
		errmsg__set(err, ret, "host %s: cannot reach %s over ssh: %s",
			    h->m->name, h->m->address, why);
		goto out;
	}
	proto = json_integer_value(json_object_get(hello, "protocol"));
	their = json_string_value(json_object_get(hello, "exe_sha256"));
	ret = 1;
	if (!their || strcmp(their, sha))
		goto out;
	free(why);
	why = NULL;
	/* The binary is right; a library may not be (a disk, a hand). */
	if (ssh__verify(h, p->dir, &why)) {
		pr_info("host %s: the agent's files at %s fail their sha256 "
			"check (%s): copying them again",
			h->m->name, p->dir, why);
		goto out;
	}
	ret = 0;
	if (proto != AGENT_PROTOCOL)
		ret = errmsg__set(err, -EPROTO,
				  "host %s: its agent speaks protocol %lld, "
				  "this controller %d",
				  h->m->name, proto, AGENT_PROTOCOL);
out:
	json_decref(hello);
	free(why);
	return ret;
}

/* What `uname -m` says there, as the tool names arches. */
static int ssh__arch(struct host *h, const struct arch **arch, char **err)
{
	char *out = NULL, *why = NULL;
	int ret;

	ret = ssh__remote(h, (const char *const[]){ "uname", "-m", NULL },
			  HELLO_TIMEOUT_MS, &out, &why, NULL);
	if (ret) {
		errmsg__set(err, ret, "host %s: cannot reach %s over ssh: %s",
			    h->m->name, h->m->address, why);
		goto out;
	}
	out[strcspn(out, "\r\n")] = '\0';
	*arch = arch__by_machine(out);
	if (!*arch)
		ret = errmsg__set(err, -EOPNOTSUPP,
				  "host %s is a '%.40s' machine (uname -m): "
				  "the tool has agents for x86_64 and arm64 "
				  "(aarch64)",
				  h->m->name, out);
out:
	free_all(out, why);
	return ret;
}

static int ssh_host__open(struct host *h, char **err)
{
	const char *env = getenv("IOMMU_BENCH_SSH_REMOTE_DIR");
	struct agent_bundle b = { 0 };
	const struct arch *arch;
	struct ssh_priv *p;
	int ret;

	p = h->priv = xcalloc(1, sizeof(*p));
	if (!h->m->address)
		return errmsg__set(err, -EHOSTDOWN,
				   "host %s: lab machine '%s' is not running: "
				   "`iommu-bench labvm start %s`",
				   h->m->name, h->m->labvm, h->m->labvm);
	p->base = xstrdup(env && *env ? env : REMOTE_DIR);
	if (!remote_path_is_safe(p->base))
		return errmsg__set(err, -EINVAL,
				   "IOMMU_BENCH_SSH_REMOTE_DIR '%s' is not a "
				   "safe remote path (expected "
				   "[A-Za-z0-9._/-], no '..')",
				   env);
	ret = host__state_dir(h, "ssh", &p->ctl_dir, err);
	if (!ret)
		ret = ssh__arch(h, &arch, err);
	if (!ret)
		ret = agent_bundle__make(arch, &b, err);
	if (ret)
		goto out;
	p->dir = xasprintf("%s/agent-%s", p->base, b.id);
	p->remote = xasprintf("%s/iommu-bench", p->dir);
	p->libdir = xstrdup(p->dir);
	pr_debug("host %s: %s, agent bundle %s (%zu libraries)", h->m->name,
		 arch->name, b.id, b.libs.nr);
	ret = ssh__check(h, b.exe_sha, err);
	if (ret <= 0)
		goto out;
	ret = ssh__copy(h, &b, err);
	if (ret)
		goto out;
	ret = ssh__check(h, b.exe_sha, err);
	if (ret > 0)
		ret = errmsg__set(err, -ENOEXEC,
				  "host %s: the agent copied to %s does not "
				  "run (its C library older than this "
				  "machine's?)",
				  h->m->name, p->dir);
	if (!ret)
		ssh__tidy(h);
out:
	agent_bundle__release(&b);
	return ret;
}

static int ssh_host__agent(struct host *h, struct agent_conn **out, char **err)
{
	struct strvec a = { 0 };
	int ret;

	ssh__argv(h, &a, 10, true);
	ssh__agent_words(h, &a, "serve");
	ret = agent_conn__spawn(strvec__argv(&a), NULL, h->m->name, out);
	strvec__release(&a);
	if (ret)
		errmsg__set(err, ret, "host %s: cannot start its agent: %s",
			    h->m->name, strerror(-ret));
	return ret;
}

static void ssh_host__close(struct host *h)
{
	struct ssh_priv *p = h->priv;

	if (!p)
		return;
	if (p->ctl_dir)
		ssh__exit_master(h);
	free_all(p->ctl_dir, p->base, p->dir, p->remote, p->libdir, p);
	h->priv = NULL;
}

const struct host_ops host_ssh_ops = {
	.name = "ssh",
	.open = ssh_host__open,
	.agent = ssh_host__agent,
	.wait_boot = ssh_host__wait_boot,
	.close = ssh_host__close,
};
