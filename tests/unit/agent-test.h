/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the agent's unit tests share: a verb run through the dispatcher
 * as a request line would reach it, and the binary under test, for the
 * tests that speak to a real `agent serve`.
 */
#ifndef IOMMU_BENCH_TESTS_AGENT_TEST_H
#define IOMMU_BENCH_TESTS_AGENT_TEST_H

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent/agent.h"
#include "util.h"

/* One verb (@args taken): 0 or -errno, its result and its error. */
static inline int agent_test__call(const char *verb, json_t *args, json_t **res,
				   char **err)
{
	struct agent a = { 0 };
	json_t *o = agent__dispatch(&a, 1, verb, args);
	int ret = 0;

	json_decref(args);
	if (res)
		*res = NULL;
	if (err)
		*err = NULL;
	if (json_is_true(json_object_get(o, "ok"))) {
		if (res)
			*res = json_incref(json_object_get(o, "result"));
	} else {
		ret = -(int)json_integer_value(json_object_get(o, "errno"));
		if (err)
			*err = xstrdup(
				json_string_value(json_object_get(o, "error")));
	}
	json_decref(o);
	agent__release(&a);
	return ret;
}

/* $IOMMU_BENCH, else ./iommu-bench beside this test's .output/: 0 or -1. */
static inline int agent_test__find_bin(char *bin, size_t size)
{
	const char *env = getenv("IOMMU_BENCH");
	char self[PATH_MAX - 16], *p;
	ssize_t n;

	if (env) {
		snprintf(bin, size, "%s", env);
		return access(bin, X_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -1;
	self[n] = '\0';
	p = strstr(self, "/.output/");
	if (!p)
		return -1;
	*p = '\0';
	snprintf(bin, size, "%s/iommu-bench", self);
	return access(bin, X_OK);
}

#endif /* IOMMU_BENCH_TESTS_AGENT_TEST_H */
