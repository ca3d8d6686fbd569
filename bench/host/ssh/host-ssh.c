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
#include <stdlib.h>
#include <string.h>

#include "bench/agent/agent-proto.h"
#include "bench/agent-client/agent-conn.h"
#include "bench/host/host-priv.h"
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

int ssh__hello(struct host *h, int connect_s, bool mux, int timeout_ms,
	       json_t **hello, char **err, int *status)
{
	struct ssh_priv *p = h->priv;
	struct strvec a = { 0 };
	json_error_t jerr;
	char *out = NULL;
	int ret;

	ssh__argv(h, &a, connect_s, mux);
	strvec__push(&a, p->remote);
	strvec__push(&a, "agent");
	strvec__push(&a, "hello");
	ret = host__cmd(strvec__argv(&a), timeout_ms, &out, err, status);
	strvec__release(&a);
	if (ret)
		return ret;
	*hello = json_loads(out, 0, &jerr);
	if (!json_is_object(*hello)) {
		json_decref(*hello);
		*hello = NULL;
		*err = xasprintf("`%s agent hello` printed no JSON object: %s",
				 p->remote, jerr.text);
		ret = -EPROTO;
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

static int ssh__copy(struct host *h, const char *local, char **errp)
{
	struct ssh_priv *p = h->priv;
	char *dir = xstrdup(p->remote), *slash = strrchr(dir, '/');
	char *tmp = xasprintf("%s.tmp", p->remote), *err = NULL;
	const char *mkdir_w[] = { "mkdir", "-p", dir, NULL };
	const char *mv_w[] = { "mv", "-f", tmp, p->remote, NULL };
	bool v6 = strchr(h->m->address, ':');
	struct strvec a = { 0 };
	int ret = 0;

	pr_info("host %s: copying the agent to %s", h->m->name, p->remote);
	if (slash) {
		*slash = '\0';
		ret = ssh__remote(h, mkdir_w, HELLO_TIMEOUT_MS, NULL, &err,
				  NULL);
	}
	if (ret)
		goto out;
	strvec__push(&a, "scp");
	ssh__options(h, &a, 10, true);
	strvec__push(&a, "--");
	strvec__push(&a, local);
	strvec__pushf(&a, v6 ? "[%s]:%s" : "%s:%s", h->m->address, tmp);
	ret = host__cmd(strvec__argv(&a), COPY_TIMEOUT_MS, NULL, &err, NULL);
	if (!ret)
		ret = ssh__remote(h, mv_w, HELLO_TIMEOUT_MS, NULL, &err, NULL);
out:
	if (ret)
		errmsg__set(errp, ret,
			    "host %s: cannot copy the agent to %s: %s",
			    h->m->name, p->remote, err);
	strvec__release(&a);
	free_all(err, tmp, dir);
	return ret;
}

/* 0: the agent there is this binary; 1: missing or stale; < 0: error. */
static int ssh__check(struct host *h, const char *sha, char **errp)
{
	json_t *hello = NULL;
	char *err = NULL;
	const char *their;
	int ret, status;
	long long proto;

	ret = ssh__hello(h, 10, true, HELLO_TIMEOUT_MS, &hello, &err, &status);
	if (ret && status > 0 && status != 255) {
		pr_debug("host %s: no usable agent (%s)", h->m->name, err);
		ret = 1;
		goto out;
	}
	if (ret) {
		errmsg__set(errp, ret, "host %s: cannot reach %s over ssh: %s",
			    h->m->name, h->m->address, err);
		goto out;
	}
	proto = json_integer_value(json_object_get(hello, "protocol"));
	their = json_string_value(json_object_get(hello, "exe_sha256"));
	ret = 1;
	if (!their || strcmp(their, sha))
		goto out;
	ret = 0;
	if (proto != AGENT_PROTOCOL)
		ret = errmsg__set(errp, -EPROTO,
				  "host %s: its agent speaks protocol %lld, "
				  "this controller %d",
				  h->m->name, proto, AGENT_PROTOCOL);
out:
	json_decref(hello);
	free(err);
	return ret;
}

static int ssh_host__open(struct host *h, char **err)
{
	const char *env = getenv("IOMMU_BENCH_SSH_REMOTE_DIR");
	const char *self = host__self_exe();
	char sha[SHA256_HEX_SIZE];
	struct ssh_priv *p;
	int ret;

	p = h->priv = xcalloc(1, sizeof(*p));
	p->remote = xasprintf("%s/iommu-bench", env && *env ? env : REMOTE_DIR);
	if (!remote_path_is_safe(p->remote))
		return errmsg__set(err, -EINVAL,
				   "IOMMU_BENCH_SSH_REMOTE_DIR '%s' is not a "
				   "safe remote path (expected "
				   "[A-Za-z0-9._/-], no '..')",
				   env);
	ret = host__state_dir(h, "ssh", &p->ctl_dir, err);
	if (ret)
		return ret;
	ret = sha256__file(self, sha, NULL);
	if (ret)
		return errmsg__set(err, ret, "cannot hash %s: %s", self,
				   strerror(-ret));
	ret = ssh__check(h, sha, err);
	if (ret <= 0)
		return ret;
	ret = ssh__copy(h, self, err);
	if (ret)
		return ret;
	ret = ssh__check(h, sha, err);
	if (ret > 0)
		ret = errmsg__set(err, -ENOEXEC,
				  "host %s: the agent copied to %s does not "
				  "run or does not match this binary (a "
				  "different architecture or libraries?)",
				  h->m->name, p->remote);
	return ret;
}

static int ssh_host__agent(struct host *h, struct agent_conn **out, char **err)
{
	struct ssh_priv *p = h->priv;
	struct strvec a = { 0 };
	int ret;

	ssh__argv(h, &a, 10, true);
	strvec__push(&a, p->remote);
	strvec__push(&a, "agent");
	strvec__push(&a, "serve");
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
	free_all(p->ctl_dir, p->remote, p);
	h->priv = NULL;
}

const struct host_ops host_ssh_ops = {
	.name = "ssh",
	.open = ssh_host__open,
	.agent = ssh_host__agent,
	.wait_boot = ssh_host__wait_boot,
	.close = ssh_host__close,
};
