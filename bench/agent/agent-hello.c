// SPDX-License-Identifier: GPL-2.0-only
/* The agent's identity verbs: hello, facts, policy and bye. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/agent/agent-proto.h"
#include "bench/agent/agent.h"
#include "collectors/hostfacts/hostfacts.h"
#include "errmsg.h"
#include "sha256.h"
#include "util.h"
#include "version.h"

static json_t *str_or_null(char *s)
{
	json_t *j = s ? json_string(s) : json_null();

	free(s);
	return j ? j : json_null();
}

int agent_verb__hello(struct agent *a, json_t *args, json_t **res, char **err)
{
	/* The running image cannot change under us: hash it once. */
	static char sha[SHA256_HEX_SIZE];
	char *boot_id = NULL, *release = NULL, *build_id = NULL;
	int ret;

	(void)args;
	/* The controller compares this with its own binary to spot a stale
	 * copy, so it must hash the file that runs, not a path. */
	if (!*sha) {
		ret = sha256__file("/proc/self/exe", sha, NULL);
		if (ret < 0) {
			*sha = '\0';
			return errmsg__set(err, ret,
					   "cannot hash /proc/self/exe: %s",
					   strerror(-ret));
		}
	}
	hostfacts__boot_id(NULL, &boot_id);
	hostfacts__kernel_release(NULL, &release);
	hostfacts__build_id(NULL, &build_id);
	*res = json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:i}", "protocol",
			 AGENT_PROTOCOL, "version", iommu_bench_version,
			 "exe_sha256", sha, "boot_id", str_or_null(boot_id),
			 "kernel_release", str_or_null(release), "build_id",
			 str_or_null(build_id), "perf_keys_held",
			 (int)a->nr_key_fds);
	return 0;
}

int agent_verb__facts(struct agent *a, json_t *args, json_t **res, char **err)
{
	struct hostfacts_opts opts = { .root = "/", .collectors = true };
	json_t *c = json_object_get(args, "collectors");
	int ret;

	(void)a;
	/*
	 * What each collector could attach to is a trial loading them
	 * all: seconds on a lab host, 25 s in a TCG guest, every boot.
	 * The run leaves it out; each trial records what did attach.
	 */
	if (c && !json_is_boolean(c))
		return errmsg__set(err, -EINVAL,
				   "facts: \"collectors\" must be a boolean");
	if (c)
		opts.collectors = json_is_true(c);
	ret = hostfacts__gather_opts(&opts, res);
	if (ret < 0)
		return errmsg__set(err, ret, "cannot gather host facts: %s",
				   strerror(-ret));
	return 0;
}

static int nic_group(const char *nic, int *group, char **err)
{
	struct hostfacts_nic *nics = NULL;
	size_t nr = 0, i;
	int ret;

	ret = hostfacts__nics(NULL, &nics, &nr);
	if (ret < 0)
		return errmsg__set(err, ret, "cannot list interfaces: %s",
				   strerror(-ret));
	ret = errmsg__set(err, -ENODEV, "no interface '%s' on this host", nic);
	for (i = 0; i < nr; i++) {
		if (strcmp(nics[i].name, nic))
			continue;
		*group = nics[i].iommu_group;
		ret = 0;
		break;
	}
	if (!ret && err) {
		errmsg__clear(err);
	}
	hostfacts__nics_free(nics, nr);
	return ret;
}

/* The NIC's group: its type and the mode that type is, into @res. */
static void group_type(int group, json_t *res)
{
	struct hostfacts_group *groups = NULL;
	size_t nr = 0, i;
	json_t *type = json_null(), *mode = json_null();

	if (group >= 0 && hostfacts__iommu_groups(NULL, &groups, &nr) >= 0) {
		for (i = 0; i < nr; i++) {
			if ((int)groups[i].id != group || !groups[i].type)
				continue;
			json_decref(type);
			json_decref(mode);
			type = json_string(groups[i].type);
			mode = json_string(hostfacts__dma_mode_name(
				hostfacts__group_mode(&groups[i])));
		}
		hostfacts__iommu_groups_free(groups, nr);
	}
	json_object_set_new(res, "group_type", type);
	json_object_set_new(res, "nic_mode", mode);
}

int agent_verb__policy(struct agent *a, json_t *args, json_t **res, char **err)
{
	const char *nic = json_string_value(json_object_get(args, "nic"));
	struct hostfacts_dma_policy p;
	json_t *ev;
	int group = -1, ret;
	size_t i;

	(void)a;
	if (json_object_get(args, "nic") &&
	    !json_is_null(json_object_get(args, "nic")) &&
	    (!nic || !name_is_safe(nic)))
		return errmsg__set(err, -EINVAL,
				   "policy: \"nic\" must be an interface name "
				   "([A-Za-z0-9._-], not starting with '-')");
	if (nic) {
		ret = nic_group(nic, &group, err);
		if (ret < 0)
			return ret;
	}
	ret = hostfacts__dma_policy(NULL, &p);
	if (ret < 0) {
		hostfacts__dma_policy_release(&p);
		return errmsg__set(err, ret, "cannot read the DMA policy: %s",
				   strerror(-ret));
	}
	ev = json_array();
	for (i = 0; i < p.nr_evidence; i++)
		json_array_append_new(ev, json_string(p.evidence[i]));
	*res = json_pack("{s:s, s:s, s:s, s:o}", "mode",
			 hostfacts__dma_mode_name(p.mode), "source",
			 hostfacts__dma_source_name(p.source), "summary",
			 p.summary ? p.summary : "", "evidence", ev);
	if (nic) {
		json_object_set_new(*res, "nic", json_string(nic));
		json_object_set_new(*res, "group",
				    group < 0 ? json_null() :
						json_integer(group));
		group_type(group, *res);
	}
	hostfacts__dma_policy_release(&p);
	return 0;
}

int agent_verb__bye(struct agent *a, json_t *args, json_t **res, char **err)
{
	(void)args;
	(void)res;
	(void)err;
	a->quit = true;
	return 0;
}
