// SPDX-License-Identifier: GPL-2.0-only
/*
 * procstat's interval series: a thread that snapshots /proc every
 * interval, on an absolute CLOCK_MONOTONIC schedule so that the series
 * does not drift, and that a stop wakes at once.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "collectors/procstat/procstat-priv.h"
#include "log.h"

/* A last interval shorter than this share of the period is noise. */
#define PROCSTAT_MIN_TAIL 0.2

static struct timespec ts_of(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static int sample(struct procstat_sampler *s, bool last)
{
	struct procstat_snap cur = { 0 };
	struct procstat_delta d;
	int err;

	err = procstat__snap_read(&cur, s->nic);
	if (err)
		goto out;
	if (last && cur.t - s->prev.t < PROCSTAT_MIN_TAIL * s->interval_s)
		goto out;
	err = procstat__delta(&s->prev, &cur, &d);
	if (err)
		goto out;
	json_array_append_new(s->series,
			      procstat__interval_json(&d, s->prev.t - s->t0,
						      cur.t - s->t0, s->nic));
	procstat__delta_release(&d);
	procstat__snap_release(&s->prev);
	s->prev = cur;
	return 0;
out:
	procstat__snap_release(&cur);
	return err;
}

static void *sampler_main(void *arg)
{
	struct procstat_sampler *s = arg;
	unsigned long k = 1;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	while (!s->stop && !err) {
		struct timespec when = ts_of(s->t0 + k * s->interval_s);
		int rc = pthread_cond_timedwait(&s->cond, &s->lock, &when);

		if (s->stop)
			break;
		if (rc != ETIMEDOUT)
			continue;
		pthread_mutex_unlock(&s->lock);
		err = sample(s, false);
		pthread_mutex_lock(&s->lock);
		/* A late wake-up skips the ticks it missed, not samples. */
		while (s->t0 + k * s->interval_s <= s->prev.t)
			k++;
	}
	pthread_mutex_unlock(&s->lock);
	if (!err)
		err = sample(s, true);
	s->err = err;
	return NULL;
}

int procstat__sampler_start(struct procstat_sampler *s, double interval_s,
			    double t0, const struct procstat_nic *nic)
{
	pthread_condattr_t ca;
	int err;

	memset(s, 0, sizeof(*s));
	s->interval_s = interval_s;
	s->nic = nic;
	s->series = json_array();
	err = procstat__snap_read(&s->prev, nic);
	if (err)
		goto fail;
	s->t0 = isnan(t0) ? s->prev.t : t0;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	err = -pthread_create(&s->thread, NULL, sampler_main, s);
	if (err) {
		pr_err("procstat: cannot start the sampling thread: %s",
		       strerror(-err));
		pthread_cond_destroy(&s->cond);
		pthread_mutex_destroy(&s->lock);
		goto fail;
	}
	s->running = true;
	return 0;
fail:
	procstat__snap_release(&s->prev);
	json_decref(s->series);
	s->series = NULL;
	return err;
}

int procstat__sampler_stop(struct procstat_sampler *s, json_t **series)
{
	*series = NULL;
	if (!s->running)
		return 0;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	s->running = false;
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	procstat__snap_release(&s->prev);
	*series = s->series;
	s->series = NULL;
	return s->err;
}
