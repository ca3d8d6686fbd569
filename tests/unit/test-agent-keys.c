// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent-keys.c on this kernel: five events held, each a perf event of
 * the agent's own, hello saying so, all closed by agent__release().
 * That no collector then patches the scheduler is seen where the race
 * was, in a TCG guest: tests/bench/testbed-profile.sh checks the guest's
 * agent held them. (Watching the patches themselves, as text_poke
 * records, does not work here: this machine's kernel tells none, not
 * even for a tracepoint turned on.)
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/agent/agent.h"
#include "tap.h"
#include "util.h"

static bool is_perf_fd(int fd)
{
	char p[64], l[PATH_MAX];
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	n = readlink(p, l, sizeof(l) - 1);
	if (n < 0)
		return false;
	l[n] = '\0';
	return !strcmp(l, "anon_inode:[perf_event]");
}

static void test_hold_words(void)
{
	struct agent a = { 0 };
	json_t *o, *res;
	int fds[AGENT_MAX_KEY_FDS], held, i, all = 1;

	held = agent_keys__hold(&a);
	is_int(held, AGENT_MAX_KEY_FDS, "the agent holds one event per key");
	for (i = 0; i < (int)a.nr_key_fds; i++) {
		fds[i] = a.key_fds[i];
		all &= is_perf_fd(fds[i]);
	}
	ok(all && a.nr_key_fds == AGENT_MAX_KEY_FDS,
	   "... each a perf event of its own");
	is_int(agent_keys__hold(&a), AGENT_MAX_KEY_FDS,
	       "holding again takes nothing more");
	o = agent__dispatch(&a, 1, "hello", NULL);
	res = json_object_get(o, "result");
	is_int(json_integer_value(json_object_get(res, "perf_keys_held")),
	       AGENT_MAX_KEY_FDS, "hello says how many it holds");
	json_decref(o);
	agent__release(&a);
	all = a.nr_key_fds == 0;
	for (i = 0; i < AGENT_MAX_KEY_FDS; i++)
		all &= !is_perf_fd(fds[i]);
	ok(all, "agent__release() closes them");
}

int main(void)
{
	if (geteuid() != 0)
		tap_skip_all("perf events on a task's static keys need root");
	test_hold_words();
	return tap_done();
}
