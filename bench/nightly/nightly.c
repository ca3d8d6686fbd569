// SPDX-License-Identifier: GPL-2.0-only
/*
 * A night from its start to its verdict. Its stages (run, judge,
 * confirm, bisect, mail) each end by storing how far the night got, so
 * that a night killed in any of them is found again by the next start
 * and goes on from there: the same run resumed, the same bisection, the
 * same single mail. Two nights of one database at once would judge
 * each other's half-written runs: a lock beside the database refuses
 * the second, naming the first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "bench/bisect/bisect.h"
#include "bench/nightly/nightly-priv.h"
#include "bench/run/run.h"
#include "config-error.h"
#include "log.h"
#include "util.h"

void night__say(struct night *nt, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		return;
	if (!nt->o->quiet && !nt->o->json)
		printf("night %lld: %s\n", (long long)nt->n.id, line);
	if (nt->n.id)
		store__night_say(nt->st, nt->n.id, line);
	free(line);
}

/*
 * The lock: flock on a file beside the database, which says who holds
 * it, so that the refused night can name the running one.
 */
static int night__lock(struct night *nt)
{
	char *path = xasprintf("%s.nightly.lock", nt->o->db_path), buf[256];
	ssize_t got;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		pr_err("nightly: cannot open %s: %s", path, strerror(errno));
		free(path);
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		got = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[got > 0 ? got : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		pr_err("nightly: another night of %s is running (%s); this one "
		       "is refused: wait for it, or stop it and start again "
		       "(it resumes)",
		       nt->o->db_path, *buf ? buf : "its lock is held");
		close(fd);
		free(path);
		return -EBUSY;
	}
	if (ftruncate(fd, 0) == 0) {
		time_t now = time(NULL);
		char when[32];

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ",
			 gmtime(&now));
		dprintf(fd, "pid %d, series %s, since %s\n", (int)getpid(),
			nt->series, when);
	}
	free(path);
	nt->lock_fd = fd;
	return 0;
}

/* Where the mails and materials go: [nightly] output, else beside the db. */
static char *out_dir(const struct night *nt)
{
	char *db = xstrdup(nt->o->db_path), *slash = strrchr(db, '/'), *d;

	if (nt->cfg->output) {
		free(db);
		return xstrdup(nt->cfg->output);
	}
	if (slash)
		*slash = '\0';
	d = xasprintf("%s/nightly/%s", slash ? db : ".", nt->series);
	free(db);
	return d;
}

static int night__load(struct night *nt)
{
	struct config_errors errs;
	int ret;

	config_errors__init(&errs, nt->o->matrix);
	ret = matrix__load(nt->o->matrix, &nt->m, &errs);
	config_errors__print(&errs, stderr);
	config_errors__release(&errs);
	if (ret)
		return -EINVAL;
	nt->cfg = &nt->m->nightly;
	if (!nt->m->run.name) {
		pr_err("nightly: %s has no [run] name: a robot's nights are a "
		       "series by that name",
		       nt->o->matrix);
		return -EINVAL;
	}
	nt->series = nt->m->run.name;
	if (!nt->cfg->present)
		ret = night__watch(nt);
	else
		nt->k = &nt->m->kernels[matrix__find_kernel(nt->m,
							    nt->cfg->kernel)];
	if (ret)
		return ret;
	ret = read_file(nt->o->matrix, &nt->text, &nt->len);
	if (ret)
		pr_err("nightly: cannot read %s: %s", nt->o->matrix,
		       strerror(-ret));
	return ret;
}

/* Tonight's row: the unfinished one resumed, else a new one. */
static int night__begin(struct night *nt)
{
	struct night_head h = { 0 };
	int ret;

	ret = store__night_open(nt->st, nt->series, &nt->n);
	if (!ret) {
		if (!nt->o->quiet)
			printf("night %lld of %s: resuming at its %s stage "
			       "(%.*s)\n",
			       (long long)nt->n.id, nt->series, nt->n.stage,
			       night__abbrev(nt->n.head), nt->n.head);
		goto base;
	}
	if (ret != -ENOENT)
		return ret;
	ret = night__follow(nt, &h);
	if (ret)
		return ret;
	nt->n.series = xstrdup(nt->series);
	nt->n.kernel = xstrdup(nt->k->name);
	nt->n.head = h.head;
	nt->n.head_subject = h.subject;
	nt->n.package = h.package;
	h = (struct night_head){ 0 };
	if (!store__night_last_good(nt->st, nt->series, INT64_MAX, &nt->base))
		nt->n.base_night_id = nt->base.id;
	ret = store__night_add(nt->st, &nt->n, &nt->n.id);
	if (ret)
		return ret;
	nt->n.stage = xstrdup("run");
	night__say(nt, "%s %s%s%s%s", nt->k->name, nt->n.head,
		   nt->n.head_subject ? " (\"" : "",
		   nt->n.head_subject ? nt->n.head_subject : "",
		   nt->n.head_subject ? "\")" : "");
	return 0;
base:
	if (nt->n.base_night_id)
		return store__night_get(nt->st, nt->n.base_night_id, &nt->base);
	return 0;
}

/* Move the night to @stage, stored before the stage's work begins. */
static int night__stage(struct night *nt, const char *stage)
{
	struct store_night set = { .id = nt->n.id, .stage = (char *)stage };
	int ret = store__night_set(nt->st, &set);

	if (!ret) {
		free(nt->n.stage);
		nt->n.stage = xstrdup(stage);
	}
	return ret;
}

static const char *const stages[] = { "run",	"judge", "confirm",
				      "bisect", "mail",	 "done" };

static int stage_index(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stages); i++)
		if (s && !strcmp(s, stages[i]))
			return i;
	return 0;
}

/* The verdict from tonight's regressions and what judge said. */
static int night__verdict(struct night *nt, const char **verdict)
{
	struct store_regression *v;
	size_t n, i;
	bool bad = false, better = false, unconfirmed = false;
	int ret;

	ret = store__regressions(nt->st, nt->series, nt->n.id, &v, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].state, "unconfirmed"))
			unconfirmed = true;
		else if (!strcmp(v[i].state, "ignored"))
			continue;
		else if (v[i].improvement)
			better = true;
		else
			bad = true;
	}
	store_regressions__free(v, n);
	/* judge's verdict stands where it said a known one is still there. */
	if (nt->n.verdict && !strcmp(nt->n.verdict, "regression"))
		bad = true;
	*verdict = bad	       ? "regression" :
		   better      ? "improvement" :
		   unconfirmed ? "unconfirmed" :
				 "pass";
	return 0;
}

int night__each(struct night *nt, const char *state,
		int (*fn)(struct night *nt, struct store_regression *r))
{
	struct store_regression *v;
	size_t n, i;
	int ret;

	ret = store__regressions(nt->st, nt->series, nt->n.id, &v, &n);
	for (i = 0; !ret && i < n; i++)
		if (!strcmp(v[i].state, state))
			ret = fn(nt, &v[i]);
	store_regressions__free(v, n);
	return ret;
}

/*
 * The mail stage tells everyone it tells: the mails, then KCIDB, so that
 * a night killed in between resumes telling, each step its own once.
 */
static int night__tell(struct night *nt)
{
	int ret = night__mail(nt);

	return ret ? ret : night__kcidb(nt);
}

/* Each stage's work, in the order of stages[]: done, it moves the night on. */
static int (*const stage_work[])(struct night *nt) = {
	night__run, night__judge, night__confirm, night__bisect, night__tell,
};
_Static_assert(ARRAY_SIZE(stage_work) + 1 == ARRAY_SIZE(stages),
	       "every stage but done has its work");

static int night__stages(struct night *nt)
{
	int at = stage_index(nt->n.stage), ret = 0;
	size_t i;

	for (i = at; !ret && i < ARRAY_SIZE(stage_work); i++) {
		ret = stage_work[i](nt);
		if (!ret)
			ret = night__stage(nt, stages[i + 1]);
	}
	return ret;
}

static int night__finish(struct night *nt)
{
	struct store_night set = { .id = nt->n.id };
	const char *verdict = nt->n.verdict;
	int ret = 0;

	if (!verdict || strcmp(verdict, "failed"))
		ret = night__verdict(nt, &verdict);
	if (ret)
		return ret;
	set.verdict = (char *)verdict;
	set.stage = (char *)"done";
	ret = store__night_set(nt->st, &set);
	if (ret)
		return ret;
	if (nt->o->json)
		printf("{\"night\": %lld, \"series\": \"%s\", \"head\": "
		       "\"%s\", \"verdict\": \"%s\"}\n",
		       (long long)nt->n.id, nt->series, nt->n.head, verdict);
	else
		printf("night %lld of %s (%s %.*s): %s\n", (long long)nt->n.id,
		       nt->series, nt->k->name, night__abbrev(nt->n.head),
		       nt->n.head, verdict);
	return !strcmp(verdict, "regression") || !strcmp(verdict, "failed") ||
			       nt->untold ?
		       EXIT_WORK_FAILED :
		       EXIT_OK;
}

int nightly__main(const struct nightly_opts *o)
{
	struct night nt = { .o = o, .lock_fd = -1 };
	int ret, status = EXIT_USAGE;

	ret = night__load(&nt);
	if (ret)
		goto out;
	ret = night__check(&nt);
	if (ret)
		goto out;
	/* The store first: it makes the database's folder the lock sits in. */
	status = EXIT_WORK_FAILED;
	if (store__open(o->db_path, STORE_CREATE | STORE_MIGRATE, &nt.st))
		goto out;
	ret = night__lock(&nt);
	if (ret) {
		status = ret == -EBUSY ? EXIT_REFUSED : EXIT_WORK_FAILED;
		goto out;
	}
	nt.out = out_dir(&nt);
	if (o->workdir)
		nt.workdir = xstrdup(o->workdir);
	else if (nt.k->kind == KERNEL_BUILD &&
		 bisect__default_workdir(&nt.k->build, &nt.workdir))
		goto out;
	ret = night__begin(&nt);
	if (ret)
		goto out;
	ret = night__stages(&nt);
	if (ret == -EINTR) {
		pr_err("nightly: interrupted at its %s stage; the next start "
		       "resumes it",
		       nt.n.stage);
		status = EXIT_INTERRUPTED;
		goto out;
	}
	if (ret == -ECANCELED) {
		/* The run failed as a whole: said, and a night like any. */
		free(nt.n.verdict);
		nt.n.verdict = xstrdup("failed");
		ret = 0;
	}
	if (ret)
		goto out;
	status = night__finish(&nt);
out:
	if (nt.st)
		store__close(nt.st);
	if (nt.lock_fd >= 0)
		close(nt.lock_fd);
	store_night__release(&nt.n);
	store_night__release(&nt.base);
	free_all(nt.text, nt.out, nt.workdir);
	if (nt.m)
		matrix__free(nt.m);
	return status;
}
