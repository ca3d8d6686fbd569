// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIGINT and SIGTERM during a run: the first lets the current trial
 * finish and stops after it; the second abandons it, by ending the
 * agents it waits on (their PIDs are ours), so the trial fails at once
 * and is stored as "interrupted".
 */
#include <signal.h>
#include <string.h>

#include "bench/run/run.h"

static volatile sig_atomic_t level;
static struct run_ctx *run;
static struct sigaction old_int, old_term;

static void on_signal(int sig)
{
	size_t i;

	(void)sig;
	if (level < 2)
		level++;
	if (level < 2 || !run || !run->hosts)
		return;
	for (i = 0; i < run->m->nr_hosts; i++)
		if (run->hosts[i].agent && run->hosts[i].agent->proc.pid > 0 &&
		    !run->hosts[i].agent->proc.reaped)
			kill(run->hosts[i].agent->proc.pid, SIGTERM);
}

void run_signal__install(struct run_ctx *ctx)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a poll() waiting on an agent should see EINTR. */
	run = ctx;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGPIPE, SIG_IGN);
}

int run_signal__level(void)
{
	return level;
}

void run_signal__restore(void)
{
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	run = NULL;
}
