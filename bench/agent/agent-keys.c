// SPDX-License-Identifier: GPL-2.0-only
/*
 * The static keys perf turns on, held on for the agent's life.
 *
 * The first perf event of a kind turns on a static key (perf_sched_events
 * for any task-bound event, perf_swevent_enabled[] for a software event)
 * and the last one's close turns it off a second later. On x86 each turn
 * is a text_poke_bp() of every site of the key: __schedule(),
 * finish_task_switch(), the page fault handler, set_task_cpu(). On
 * hardware that patch is safe. Under QEMU's multi-threaded TCG it is not:
 * a vCPU thread that translates the site while another vCPU patches it
 * can keep the int3 of the patch's first step and trap on it forever
 * (docs/testbed-noise.md has the console that showed it). Each profile
 * trial turned perf_sched_events on at collect.start and off after
 * collect.stop, with __schedule() running on the other CPU all the time,
 * and about one run in ten lost its trial.
 *
 * Holding one disabled event of each kind on the agent's own task keeps
 * the keys' counts above zero, so no collector's open or close patches
 * those sites, on any host: every trial runs the same kernel text. The
 * keys are taken once, while every other CPU spins in user space under
 * SCHED_FIFO: no other CPU can be in, or translating, the sites then.
 * Held, the keys cost each context switch and page fault a call that
 * finds no event, in bare and profiled trials alike.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench/agent/agent.h"
#include "log.h"
#include "util.h"

/* What the collectors can open that has a site in a hot path. */
static const unsigned long long held_sw_events[AGENT_MAX_KEY_FDS] = {
	PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS,
	PERF_COUNT_SW_PAGE_FAULTS,	PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	PERF_COUNT_SW_PAGE_FAULTS_MIN,
};

/* How long the other CPUs may take to start spinning: a TCG guest's. */
#define QUIESCE_WAIT_MS 2000

struct spinner {
	pthread_t thread;
	int cpu;
	atomic_int *stop;
	atomic_int ready;
	bool started;
};

static void *spin_main(void *arg)
{
	struct spinner *s = arg;

	atomic_store(&s->ready, 1);
	while (!atomic_load_explicit(s->stop, memory_order_relaxed))
		;
	return NULL;
}

static int spinner__start(struct spinner *s, int cpu, atomic_int *stop)
{
	struct sched_param sp = { .sched_priority =
					  sched_get_priority_max(SCHED_FIFO) };
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	s->cpu = cpu;
	s->stop = stop;
	atomic_init(&s->ready, 0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	ret = pthread_create(&s->thread, &attr, spin_main, s);
	if (ret == EPERM) {
		/* Not allowed real time: spinning still keeps most of it. */
		pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
		ret = pthread_create(&s->thread, &attr, spin_main, s);
	}
	pthread_attr_destroy(&attr);
	s->started = !ret;
	return -ret;
}

static bool spinners__ready(struct spinner *sp, size_t nr)
{
	struct timespec ts = { 0, 1000000 };
	int waited;
	size_t i;

	for (waited = 0; waited < QUIESCE_WAIT_MS; waited++) {
		for (i = 0; i < nr; i++)
			if (sp[i].started && !atomic_load(&sp[i].ready))
				break;
		if (i == nr)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

static int open_held(unsigned long long config)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = config,
		.disabled = 1,
	};

	/* This task, any CPU: task-bound, so perf_sched_events too. */
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Open the events; the count held, or a negative errno of the first. */
static int open_all(struct agent *a)
{
	size_t i;
	int fd, first_err = 0;

	for (i = 0; i < ARRAY_SIZE(held_sw_events); i++) {
		fd = open_held(held_sw_events[i]);
		if (fd < 0) {
			if (!first_err)
				first_err = -errno;
			continue;
		}
		a->key_fds[a->nr_key_fds++] = fd;
	}
	return a->nr_key_fds ? (int)a->nr_key_fds : first_err;
}

int agent_keys__hold(struct agent *a)
{
	cpu_set_t old, self;
	struct spinner *sp = NULL;
	atomic_int stop;
	size_t nr = 0, i;
	int me, cpu, ret;

	if (a->nr_key_fds)
		return (int)a->nr_key_fds;
	atomic_init(&stop, 0);
	me = sched_getcpu();
	if (me < 0 || sched_getaffinity(0, sizeof(old), &old))
		return open_all(a); /* cannot place spinners: take them bare */
	CPU_ZERO(&self);
	CPU_SET(me, &self);
	if (sched_setaffinity(0, sizeof(self), &self))
		return open_all(a);
	sp = xcalloc(CPU_COUNT(&old), sizeof(*sp));
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (cpu == me || !CPU_ISSET(cpu, &old))
			continue;
		if (!spinner__start(&sp[nr], cpu, &stop))
			nr++;
	}
	if (!spinners__ready(sp, nr))
		pr_warn("agent: not every CPU spun up within %d ms; the perf "
			"keys are taken anyway",
			QUIESCE_WAIT_MS);
	ret = open_all(a);
	atomic_store(&stop, 1);
	for (i = 0; i < nr; i++)
		pthread_join(sp[i].thread, NULL);
	free(sp);
	sched_setaffinity(0, sizeof(old), &old);
	return ret;
}

void agent_keys__release(struct agent *a)
{
	while (a->nr_key_fds)
		close(a->key_fds[--a->nr_key_fds]);
}
