// SPDX-License-Identifier: GPL-2.0-only
/*
 * Waiting for an ssh host to come back from a reboot: poll `agent hello`
 * until it reports a boot_id other than the one before, within the
 * host's boot_timeout; then power-cycle it once (the matrix's
 * power_cycle argv, run here on the controller) and wait again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/host/host-priv.h"
#include "bench/host/host.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

#define POLL_INTERVAL_MS 2000
#define POLL_CONNECT_S 5
#define POWER_CYCLE_TIMEOUT_MS 120000

/* 0 once a new boot answers; -ETIMEDOUT when @timeout_ms ran out. */
static int boot__poll(struct host *h, const char *old, uint64_t timeout_ms,
		      char **last_err)
{
	int64_t end = mono_ms() + timeout_ms;

	for (;;) {
		int64_t left = end - mono_ms();
		json_t *hello = NULL;
		char *err = NULL;
		const char *id;
		int status;

		/* Through no master: the old one died with the old boot,
		 * and a half-dead one could hang until TCP gives up. */
		if (!ssh__hello(h, POLL_CONNECT_S, false,
				left < 30000 ? (int)left + 1000 : 30000, &hello,
				&err, &status)) {
			id = json_string_value(
				json_object_get(hello, "boot_id"));
			if (id && (!old || strcmp(id, old))) {
				json_decref(hello);
				return 0;
			}
			free(err);
			err = xasprintf("still the old boot %s", old);
		}
		json_decref(hello);
		free(*last_err);
		*last_err = err;
		if (mono_ms() + POLL_INTERVAL_MS >= end)
			return -ETIMEDOUT;
		usleep(POLL_INTERVAL_MS * 1000);
	}
}

/* A failure replaces *@last: the reboot's error then says why. */
static int boot__power_cycle(struct host *h, char **last)
{
	const struct matrix_host *m = h->m;
	char *err = NULL;
	int ret;

	pr_warn("host %s: not back within %llu ms, running its power_cycle "
		"command (%s)",
		m->name, (unsigned long long)m->boot_timeout_ms,
		m->power_cycle[0]);
	ret = host__cmd((const char *const *)m->power_cycle,
			POWER_CYCLE_TIMEOUT_MS, NULL, &err, NULL);
	if (ret)
		errmsg__set(last, ret, "power_cycle: %s", err);
	free(err);
	return ret;
}

int ssh_host__wait_boot(struct host *h, const char *old_boot_id,
			uint64_t timeout_ms, char **why)
{
	const struct matrix_host *m = h->m;
	char *err = NULL;
	int ret;

	if (!h->priv) {
		*why = xasprintf("host %s: wait_boot before open", m->name);
		return -EINVAL;
	}
	if (!timeout_ms)
		timeout_ms = m->boot_timeout_ms;
	ssh__exit_master(h);
	ret = boot__poll(h, old_boot_id, timeout_ms, &err);
	if (ret && m->power_cycle && m->power_cycle[0] &&
	    !boot__power_cycle(h, &err))
		ret = boot__poll(h, old_boot_id, timeout_ms, &err);
	if (ret)
		*why = xasprintf("host %s: did not come back from its reboot "
				 "within %llu ms%s (last: %s)",
				 m->name, (unsigned long long)timeout_ms,
				 m->power_cycle ? ", power cycle included" : "",
				 err ? err : "no answer");
	free(err);
	return ret;
}
