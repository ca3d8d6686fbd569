// SPDX-License-Identifier: GPL-2.0-only
/*
 * Waiting for an ssh host to come back from a reboot: poll `agent hello`
 * until it reports a boot_id other than the one before, within the
 * host's boot_timeout; then power-cycle it once (the matrix's
 * power_cycle argv, run here on the controller) and wait again. Back
 * after the power cycle, the machine runs what its firmware and boot
 * loader choose by default (grub's one-shot entry was used up by the
 * boot that hung): the boot asked for failed, and the caller is told.
 * Where the host's serial console is logged (console = PATH), a kernel
 * that panicked or halted there ends the wait at once: such a boot
 * never answers, and the boot_timeout is only what is left to wait for
 * a machine that says nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/host/host-priv.h"
#include "bench/host/ssh/ssh.h"
#include "bench/host/host.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "strvec.h"
#include "util.h"

#define POLL_INTERVAL_MS 2000
#define POLL_CONNECT_S 5
#define POWER_CYCLE_TIMEOUT_MS 120000

/* The console's end now, where the boot about to be awaited begins. */
static bool boot__mark(struct host *h, off_t *at)
{
	const char *path = h->m->console;
	int ret;

	if (!path)
		return false;
	ret = console__mark(path, at);
	if (ret) {
		pr_warn("host %s: cannot read its console %s (%s): its boots "
			"are awaited for the whole boot_timeout",
			h->m->name, path, strerror(-ret));
		return false;
	}
	return true;
}

/* What the console said since *@at, if the kernel has stopped there. */
static char *boot__stopped(struct host *h, off_t *at)
{
	char *line = NULL;

	if (console__look(h->m->console, at, &line))
		return NULL;
	return line;
}

/*
 * 0 once a new boot answers; -ETIMEDOUT when @timeout_ms ran out;
 * -EHOSTDOWN when the console (@watch) says the kernel stopped, its
 * words in *@last_err.
 */
static int boot__poll(struct host *h, const char *old, uint64_t timeout_ms,
		      bool watch, off_t *at, char **last_err)
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
		if (watch) {
			char *line = boot__stopped(h, at);

			if (line) {
				free(*last_err);
				*last_err = xasprintf("its console says '%s'",
						      line);
				free(line);
				return -EHOSTDOWN;
			}
		}
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

static int boot__power_cycle(struct host *h, int why, char **last)
{
	const struct matrix_host *m = h->m;
	char *err = NULL, *words = power_cycle_words(m);
	int ret;

	if (why == -EHOSTDOWN)
		host__say(h,
			  "host %s: its boot stopped (%s), power-cycling "
			  "it: %s",
			  m->name, *last, words);
	else
		host__say(h,
			  "host %s: not back within %llu s, power-cycling "
			  "it: %s",
			  m->name,
			  (unsigned long long)m->boot_timeout_ms / 1000, words);
	free(words);
	ret = host__cmd((const char *const *)m->power_cycle,
			POWER_CYCLE_TIMEOUT_MS, NULL, &err, NULL);
	if (ret)
		errmsg__set(last, ret, "power_cycle: %s", err);
	free(err);
	return ret;
}

int ssh_host__wait_boot(struct host *h, const char *old_boot_id,
			uint64_t timeout_ms, char **err)
{
	const struct matrix_host *m = h->m;
	char *said = NULL, *stopped = NULL;
	off_t at = 0;
	bool watch;
	int ret;

	if (!h->priv)
		return errmsg__set(err, -EINVAL,
				   "host %s: wait_boot before open", m->name);
	if (!timeout_ms)
		timeout_ms = m->boot_timeout_ms;
	watch = boot__mark(h, &at);
	ssh__exit_master(h);
	ret = boot__poll(h, old_boot_id, timeout_ms, watch, &at, &said);
	if (ret && m->power_cycle && m->power_cycle[0] &&
	    !boot__power_cycle(h, ret, &said)) {
		if (ret == -EHOSTDOWN)
			stopped = said;
		else
			free(said);
		said = NULL;
		/* The stopped boot's words are behind us: only new ones. */
		watch = boot__mark(h, &at);
		ret = boot__poll(h, old_boot_id, timeout_ms, watch, &at, &said);
		if (!ret) {
			char *words = power_cycle_words(m);

			if (stopped)
				errmsg__set(err, 0,
					    "host %s: the boot stopped (%s); "
					    "power-cycled (%s), the machine is "
					    "back on its default boot",
					    m->name, stopped, words);
			else
				errmsg__set(
					err, 0,
					"host %s: the boot did not come back "
					"within %llu s; power-cycled (%s), the "
					"machine is back on its default boot",
					m->name,
					(unsigned long long)timeout_ms / 1000,
					words);
			free_all(words, stopped);
			return HOST_BOOT_RECOVERED;
		}
	}
	free(stopped);
	if (ret == -EHOSTDOWN)
		errmsg__set(err, 0, "host %s: its boot stopped (%s)%s", m->name,
			    said,
			    m->power_cycle ? ", after its power cycle" :
					     "; no power_cycle to end it");
	else if (ret)
		errmsg__set(err, 0,
			    "host %s: did not come back from its reboot "
			    "within %llu ms%s (last: %s)",
			    m->name, (unsigned long long)timeout_ms,
			    m->power_cycle ? ", power cycle included" : "",
			    said ? said : "no answer");
	free(said);
	return ret;
}
