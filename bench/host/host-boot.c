// SPDX-License-Identifier: GPL-2.0-only
/*
 * Waiting for an ssh host to come back from a reboot: poll `agent hello`
 * until it reports a boot_id other than the one before, within the
 * host's boot_timeout; then power-cycle it once (the matrix's
 * power_cycle argv, run here on the controller) and wait again. Back
 * after the power cycle, the machine runs what its firmware and boot
 * loader choose by default (grub's one-shot entry was used up by the
 * boot that hung): the boot asked for failed, and the caller is told.
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
#include "strvec.h"
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
/* The power_cycle command as a person would type it, for messages. */
static char *power_cycle_words(const struct matrix_host *m)
{
	struct strvec v = { 0 };
	char *s;
	size_t i;

	for (i = 0; i < m->nr_power_cycle; i++)
		strvec__push(&v, m->power_cycle[i]);
	s = strvec__join(&v, " ");
	strvec__release(&v);
	return s;
}

static int boot__power_cycle(struct host *h, char **last)
{
	const struct matrix_host *m = h->m;
	char *err = NULL, *words = power_cycle_words(m);
	int ret;

	host__say(h, "host %s: not back within %llu s, power-cycling it: %s",
		  m->name, (unsigned long long)m->boot_timeout_ms / 1000,
		  words);
	free(words);
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
	    !boot__power_cycle(h, &err)) {
		free(err);
		err = NULL;
		ret = boot__poll(h, old_boot_id, timeout_ms, &err);
		if (!ret) {
			char *words = power_cycle_words(m);

			*why = xasprintf(
				"host %s: the boot did not come back within "
				"%llu s; power-cycled (%s), the machine is back "
				"on its default boot",
				m->name, (unsigned long long)timeout_ms / 1000,
				words);
			free(words);
			return HOST_BOOT_RECOVERED;
		}
	}
	if (ret)
		*why = xasprintf("host %s: did not come back from its reboot "
				 "within %llu ms%s (last: %s)",
				 m->name, (unsigned long long)timeout_ms,
				 m->power_cycle ? ", power cycle included" : "",
				 err ? err : "no answer");
	free(err);
	return ret;
}
