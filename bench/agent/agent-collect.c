// SPDX-License-Identifier: GPL-2.0-only
/*
 * collect.start / collect.stop: the collectors live in the serve process
 * between the two requests, so that what they measure is exactly the
 * workload the controller runs in between.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/agent/agent-file.h"
#include "bench/agent/agent.h"
#include "collectors/collector.h"
#include "errmsg.h"
#include "util.h"

void agent_collect__release(struct agent *a)
{
	size_t i;

	for (i = a->nr_collectors; i-- > 0;)
		a->collectors[i]->ops->destroy(a->collectors[i]);
	free(a->collectors);
	a->collectors = NULL;
	a->nr_collectors = 0;
	json_decref(a->collect_args);
	a->collect_args = NULL;
}

/* An absolute path without "..": collectors write artifacts there. */
static bool outdir_is_safe(const char *p)
{
	if (p[0] != '/' || strstr(p, "/../") || strstr(p, "/./"))
		return false;
	if (strlen(p) >= 3 && !strcmp(p + strlen(p) - 3, "/.."))
		return false;
	for (; *p; p++)
		if (*p == '\n' || *p == '\\')
			return false;
	return true;
}

/*
 * "outdir" as the collectors get it: an absolute path is the
 * controller's own folder (it shares this disk) and is used as is; a
 * single name is a folder of ours under the artifact root, made now,
 * that the controller fetches from with file.read afterwards. 0 and
 * *@out (NULL: none), or a negative errno and *@err.
 */
static int resolve_outdir(json_t *o, char **out, char **err)
{
	const char *s = json_string_value(o);

	*out = NULL;
	if (!o || json_is_null(o))
		return 0;
	if (s && s[0] == '/') {
		if (!outdir_is_safe(s))
			return errmsg__set(err, -EINVAL,
					   "collect.start: bad \"outdir\" '%s' "
					   "(an absolute path without '..')",
					   s);
		*out = xstrdup(s);
		return 0;
	}
	if (!s || !agent_file__name_is_safe(s))
		return errmsg__set(err, -EINVAL,
				   "collect.start: bad \"outdir\" '%s' "
				   "(expected an absolute path, or a folder "
				   "name of [A-Za-z0-9._-] without '..', not "
				   "starting with '.' or '-')",
				   s ? s : "(not a string)");
	return agent_file__outdir("collect.start", s, out, err);
}

static int check_args(json_t *args, const char **nic, char **outdir, char **err)
{
	json_t *n = json_object_get(args, "nic");

	if (!json_is_object(json_object_get(args, "collectors")))
		return errmsg__set(err, -EINVAL,
				   "collect.start: \"collectors\" must be an "
				   "object of collector name -> config");
	*nic = json_string_value(n);
	if (n && !json_is_null(n) && (!*nic || !name_is_safe(*nic)))
		return errmsg__set(err, -EINVAL,
				   "collect.start: bad \"nic\" (expected an "
				   "interface name)");
	return resolve_outdir(json_object_get(args, "outdir"), outdir, err);
}

static int create_one(struct agent *a, const char *name, json_t *cfg,
		      const struct collector_opts *base, char **err)
{
	const struct collector_ops *ops = collector__find(name);
	struct collector_opts opts = *base;
	struct collector *c;
	int ret;

	if (!ops)
		return errmsg__set(err, -EINVAL,
				   "collect.start: unknown collector '%s' "
				   "(expected bpf, perf or procstat)",
				   name);
	/* The plan's tables say enabled = false for a collector switched
	 * off: nothing to run. */
	if (json_is_false(json_object_get(cfg, "enabled")))
		return 0;
	opts.config = json_is_object(cfg) ? cfg : NULL;
	ret = ops->create(&opts, &c);
	if (ret < 0)
		return errmsg__set(err, ret,
				   "collect.start: %s: cannot set up: %s", name,
				   strerror(-ret));
	a->collectors = xrealloc(a->collectors, (a->nr_collectors + 1) *
							sizeof(*a->collectors));
	a->collectors[a->nr_collectors++] = c;
	return 0;
}

static void stop_started(struct agent *a, size_t n)
{
	while (n-- > 0)
		a->collectors[n]->ops->stop(a->collectors[n]);
}

/* A folder of ours made for a start that failed: nothing to fetch. */
static void remove_outdir(struct agent *a, const char *dir)
{
	json_t *args = json_pack("{s:s}", "path", dir), *res = NULL;

	agent_verb__file_remove(a, args, &res, NULL);
	json_decref(res);
	json_decref(args);
}

int agent_verb__collect_start(struct agent *a, json_t *args, json_t **res,
			      char **err)
{
	struct collector_opts base = { 0 };
	char *outdir = NULL;
	const char *name;
	json_t *cfg;
	size_t i;
	int ret;

	if (a->nr_collectors)
		return errmsg__set(err, -EBUSY,
				   "collect.start: collectors are already "
				   "running; send collect.stop first");
	ret = check_args(args, &base.nic, &outdir, err);
	if (ret < 0)
		return ret;
	/* A copy of our own holds the resolved outdir for the collectors'
	 * lifetime; the configs inside are shared, not copied. */
	a->collect_args = json_copy(args);
	if (outdir) {
		json_object_set_new(a->collect_args, "outdir",
				    json_string(outdir));
		base.outdir = json_string_value(
			json_object_get(a->collect_args, "outdir"));
	}
	json_object_foreach(json_object_get(args, "collectors"), name, cfg) {
		ret = create_one(a, name, cfg, &base, err);
		if (ret < 0)
			goto fail;
	}
	for (i = 0; i < a->nr_collectors; i++) {
		ret = a->collectors[i]->ops->start(a->collectors[i]);
		if (ret < 0) {
			errmsg__set(err, ret,
				    "collect.start: %s: cannot start: %s",
				    a->collectors[i]->ops->name,
				    strerror(-ret));
			stop_started(a, i);
			goto fail;
		}
	}
	/* Where the artifacts are, as this host sees it: every path in
	 * collect.stop's results that the controller fetches is below. */
	if (outdir)
		*res = json_pack("{s:s}", "outdir", outdir);
	free(outdir);
	return 0;
fail:
	agent_collect__release(a);
	if (outdir && json_is_string(json_object_get(args, "outdir")) &&
	    json_string_value(json_object_get(args, "outdir"))[0] != '/')
		remove_outdir(a, outdir);
	free(outdir);
	return ret;
}

int agent_verb__collect_stop(struct agent *a, json_t *args, json_t **res,
			     char **err)
{
	json_t *out = json_object();
	size_t i;
	int ret = 0, r;

	(void)args;
	if (!a->nr_collectors && !a->collect_args) {
		json_decref(out);
		return errmsg__set(err, -EINVAL,
				   "collect.stop: no collect.start before it");
	}
	/* Stop them all before reading any, in the reverse order of start,
	 * so that none measures another's teardown. */
	for (i = a->nr_collectors; i-- > 0;) {
		r = a->collectors[i]->ops->stop(a->collectors[i]);
		if (r < 0 && !ret)
			ret = errmsg__set(err, r, "collect.stop: %s: %s",
					  a->collectors[i]->ops->name,
					  strerror(-r));
	}
	for (i = 0; !ret && i < a->nr_collectors; i++) {
		struct collector *c = a->collectors[i];
		json_t *j = NULL;

		r = c->ops->results(c, &j);
		if (r < 0) {
			ret = errmsg__set(err, r,
					  "collect.stop: %s results: %s",
					  c->ops->name, strerror(-r));
			break;
		}
		json_object_set_new(out, c->ops->name, j ? j : json_null());
	}
	agent_collect__release(a);
	if (ret < 0) {
		json_decref(out);
		return ret;
	}
	*res = out;
	return 0;
}
