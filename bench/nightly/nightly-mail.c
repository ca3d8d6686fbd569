// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each confirmed regression's mail, and the folder it points to: the
 * matrix as the night ran it, the kernel's .config, the bisection's log
 * and state, reproduce.sh, the exact commands that measure both ends
 * again, and report.html, the report page of the night's run (which the
 * history page links to). The mail is written (an mbox file in that folder) before it is
 * handed to sendmail, and its row says so, so that a night killed here
 * writes it once; nothing is sent without --send.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic-file.h"
#include "bench/bisect/bisect.h"
#include "bench/nightly/nightly-priv.h"
#include "bench/nightly/robot.h"
#include "cache.h"
#include "log.h"
#include "analysis/regress.h"
#include "report/report.h"
#include "strvec.h"
#include "subprocess.h"
#include "util.h"

static int put(const char *dir, const char *name, const char *text, size_t len,
	       mode_t mode)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct iovec iov = { .iov_base = (void *)text, .iov_len = len };
	int ret = atomic_file__write(path, &iov, 1);

	if (!ret && chmod(path, mode))
		ret = -errno;
	if (ret)
		pr_err("nightly: cannot write %s: %s", path, strerror(-ret));
	free(path);
	return ret;
}

/* The .config beside the kernel's image, as the build cache keeps it. */
static void copy_config(struct night *nt, const char *dir)
{
	char *image = NULL, *cfg, *slash, *text = NULL;
	size_t len;

	if (store__kernel_image(nt->st, nt->n.run_id, nt->k->name, &image))
		return;
	slash = strrchr(image, '/');
	if (slash)
		*slash = '\0';
	cfg = xasprintf("%s/config", image);
	if (read_file(cfg, &text, &len) == 0)
		put(dir, "config", text, len, 0644);
	free_all(image, cfg, text);
}

static void bisect_log(const char *dir)
{
	char *path = xasprintf("%s/bisect.json", dir), *err = NULL, *buf = NULL;
	struct bisect_state s = { 0 };
	size_t len = 0;
	FILE *fp;

	if (!access(path, R_OK) && !bisect_state__load(path, &s, &err)) {
		fp = open_memstream(&buf, &len);
		if (fp) {
			bisect__log_lines(&s, fp);
			fclose(fp);
		}
		if (buf)
			put(dir, "bisect.log", buf, len, 0644);
		bisect_state__release(&s);
	}
	free_all(path, err, buf);
}

static void reproduce(struct night *nt, const struct store_regression *r,
		      const char *dir)
{
	char *head, *sh;

	head = xasprintf("#!/bin/sh\n"
			 "# Regression %lld of %s, found by night %lld: %s.%s "
			 "in %s on %s, %+.1f%%",
			 (long long)r->id, nt->series, (long long)r->night_id,
			 r->workload, r->metric, r->mode, r->host,
			 r->change_pct);
	if (nt->k->kind == KERNEL_BUILD)
		sh = xasprintf(
			"%s.\n"
			"# Both ends measured again and bisected between "
			"them, as the robot did,\n"
			"# into repro.db beside this script.\n"
			"set -eu\ncd \"$(dirname \"$0\")\"\n"
			"iommu-bench --db repro.db bisect matrix.toml "
			"--kernel %s --good %s --bad %s --metric %s --mode %s "
			"--workload %s\n"
			"iommu-bench --db repro.db bisect log\n",
			head, nt->k->name, r->base, r->head, r->metric, r->mode,
			r->workload);
	else
		sh = xasprintf(
			"%s,\n"
			"# %s %s against %s. Set kernel '%s' of matrix.toml "
			"to each version's\n"
			"# package in turn and run both into repro.db:\n"
			"set -eu\ncd \"$(dirname \"$0\")\"\n"
			"iommu-bench --db repro.db run matrix.toml --only "
			"kernel=%s,mode=%s,workload=%s\n"
			"iommu-bench --db repro.db compare --by kernel\n",
			head, nt->k->package, r->head, r->base, nt->k->name,
			nt->k->name, r->mode, r->workload);
	put(dir, "reproduce.sh", sh, strlen(sh), 0755);
	free_all(head, sh);
}

/* The most symbols the table lists: lkp's mails list a screenful. */
#define PROFILE_ROWS 10

/*
 * The profile's symbols whose share moved in the regressed cell, where
 * both nights profiled it: after the metrics, as lkp lists its
 * perf-profile rows. Into @v and @names (room for PROFILE_ROWS); how
 * many.
 */
static size_t profile_rows(struct night *nt, const struct store_regression *r,
			   struct robot_row *v, char **names)
{
	struct store_share *b = NULL, *h = NULL;
	struct robot_symbol *s = NULL;
	size_t nb = 0, nh = 0, n = 0, i, j, k = 0;
	int ret;

	ret = store__profile_shares(nt->st, nt->base.run_id, r->host,
				    nt->k->name, r->mode, r->workload, &b, &nb);
	if (!ret)
		ret = store__profile_shares(nt->st, nt->n.run_id, r->host,
					    nt->k->name, r->mode, r->workload,
					    &h, &nh);
	if (ret) {
		pr_warn("nightly: the profile's rows are left out of the "
			"table: %s",
			strerror(-ret));
		goto out;
	}
	if (!nb || !nh)
		goto out;
	s = xcalloc(nb + nh, sizeof(*s));
	for (i = 0; i < nb; i++)
		s[n++] = (struct robot_symbol){ b[i].event, b[i].symbol,
						b[i].share, 0 };
	for (j = 0; j < nh; j++) {
		for (i = 0; i < nb; i++)
			if (!strcmp(h[j].event, s[i].event) &&
			    !strcmp(h[j].symbol, s[i].symbol))
				break;
		if (i < nb)
			s[i].head = h[j].share;
		else
			s[n++] = (struct robot_symbol){ h[j].event, h[j].symbol,
							0, h[j].share };
	}
	n = robot_symbols__moved(s, n);
	for (k = 0; k < n && k < PROFILE_ROWS; k++) {
		names[k] = *s[k].event ? xasprintf("perf-profile.self.%s.%s",
						   s[k].event, s[k].symbol) :
					 xasprintf("perf-profile.self.%s",
						   s[k].symbol);
		v[k] = (struct robot_row){ .name = names[k],
					   .base = s[k].base,
					   .head = s[k].head,
					   .base_rsd = NAN,
					   .head_rsd = NAN,
					   .absolute = true };
	}
out:
	free(s);
	store_shares__free(b, nb);
	store_shares__free(h, nh);
	return k;
}

/*
 * The table: the regressed metric first, then what else moved, then
 * the profile's symbols.
 */
static int rows(struct night *nt, const struct store_regression *r,
		struct robot_row **out, size_t *nr, char ***names)
{
	struct regress_opts o = { NIGHT_REGRESS_OPTS };
	struct regress_result res = { 0 };
	struct ds_filter f = { 0 };
	struct robot_row *v;
	size_t i, n = 0;
	struct rdb db;
	int ret;

	night__filter(&f, "host", r->host);
	night__filter(&f, "mode", r->mode);
	night__filter(&f, "workload", r->workload);
	ret = rdb__open(nt->o->db_path, &db);
	if (ret)
		goto out;
	res.base = (struct regress_sel){ .arg = "base",
					 .run = nt->base.run_id,
					 .kernel = nt->k->name };
	res.cand = (struct regress_sel){ .arg = "head",
					 .run = nt->n.run_id,
					 .kernel = nt->k->name };
	ret = regress__pairwise(&db, &o, &f, &res);
	v = xcalloc(res.nr_items + 1 + PROFILE_ROWS, sizeof(*v));
	*names = xcalloc(res.nr_items + 1 + PROFILE_ROWS, sizeof(char *));
	for (i = 0; !ret && i < res.nr_items; i++) {
		const struct regress_item *it = &res.items[i];
		const char *metric = ds__str(&res.cds, it->key[DS_NR_DIMS]);
		bool mine = !strcmp(metric, r->metric);
		size_t at = mine ? 0 : ++n;

		if (!mine && it->status != REG_REGRESSION &&
		    it->status != REG_IMPROVEMENT) {
			n--;
			continue;
		}
		(*names)[at] = xasprintf("%s.%s", r->workload, metric);
		v[at] = (struct robot_row){
			.name = (*names)[at],
			.base = it->base.s.mean,
			.head = it->cand.s.mean,
			.base_rsd = 100 * it->base.s.cv,
			.head_rsd = 100 * it->cand.s.cv,
		};
	}
	if (!v[0].name) {
		/* Not in tonight's comparison any more: the stored figures. */
		(*names)[0] = xasprintf("%s.%s", r->workload, r->metric);
		v[0] = (struct robot_row){ .name = (*names)[0],
					   .base = r->base_median,
					   .head = r->head_median,
					   .base_rsd = NAN,
					   .head_rsd = NAN };
	}
	if (!ret)
		n += profile_rows(nt, r, v + n + 1, *names + n + 1);
	*out = v;
	*nr = n + 1;
	regress__release(&res);
	rdb__close(&db);
out:
	ds_filter__release(&f);
	return ret;
}

static char *hostname(void)
{
	char h[256] = "localhost";

	gethostname(h, sizeof(h) - 1);
	return xstrdup(h);
}

/* Hand the message (the mbox entry less its "From " line) to sendmail. */
static int send_mail(const struct night *nt, const char *mbox, size_t len)
{
	const char *msg = strchr(mbox, '\n');
	const struct matrix_nightly_mail *m = &nt->cfg->mail;
	struct spawn_opts so = { 0 };
	struct spawn sp = { 0 };
	const char **argv = xcalloc(m->nr_sendmail + 1, sizeof(*argv));
	size_t i;
	int ret;

	for (i = 0; i < m->nr_sendmail; i++)
		argv[i] = m->sendmail[i];
	msg = msg ? msg + 1 : mbox;
	so.flags = SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR;
	so.in = msg;
	so.in_len = len - (msg - mbox);
	ret = spawn__argv(&sp, argv, &so);
	if (!ret)
		ret = spawn__wait(&sp, 60 * 1000);
	if (!ret && !(WIFEXITED(sp.status) && !WEXITSTATUS(sp.status))) {
		pr_err("nightly: %s refused the mail: %s", argv[0],
		       sp.err && *sp.err ? sp.err : "(it said nothing)");
		ret = -EIO;
	}
	spawn__release(&sp);
	free(argv);
	return ret;
}

/* What one mail says, gathered before it is written. */
struct mail_words {
	const char *culprit;
	char *host, *from, *subj_b, *auth_b, *subj_h, *auth_h, *machine;
	char *mid, *closes, *materials, *reproduced, *bisect, *axis;
	char *params[2];
	struct strvec to;
	struct robot_row *v;
	char **names;
	size_t nr;
};

/* The night's run as the report's page, beside the mail: best effort. */
static void night_report(struct night *nt, const char *dir)
{
	struct report_opts o = { .cmp = CMP_OPTS_DEFAULT,
				 .series_per_cell = 3,
				 .top_symbols = 15,
				 .plots = true };
	struct rdb_runs runs = { 0 };
	struct ds_filter f = { 0 };
	struct rdb db;
	char *title;

	if (rdb__open(nt->o->db_path, &db))
		return;
	o.output = xasprintf("%s/report.html", dir);
	o.title = title = xasprintf("iommu-bench nightly: %s, night %lld (%s)",
				    nt->series, (long long)nt->n.id,
				    nt->n.head ? nt->n.head : "?");
	if (rdb__runs(&db, &runs) ||
	    report__write(&db, &runs, &nt->n.run_id, 1, &f, &o))
		pr_warn("nightly: night %lld: %s not written",
			(long long)nt->n.id, o.output);
	rdb__runs_release(&runs);
	rdb__close(&db);
	free_all((char *)o.output, title);
}

/* The folder the mail points to; its files are best effort. */
static int mail_folder(struct night *nt, const struct store_regression *r,
		       const char *dir)
{
	char *err = NULL;
	int ret;

	ret = cache__mkdirs(dir, &err);
	if (ret) {
		pr_err("nightly: %s", err);
		free(err);
		return ret;
	}
	put(dir, "matrix.toml", nt->text, nt->len, 0644);
	copy_config(nt, dir);
	bisect_log(dir);
	reproduce(nt, r, dir);
	night_report(nt, dir);
	return 0;
}

/* "author" in to = [...] stands for the culprit's author; none: only them. */
static void mail_to(const struct night *nt, struct mail_words *w)
{
	size_t i;

	for (i = 0; i < nt->cfg->mail.nr_to; i++)
		if (strcmp(nt->cfg->mail.to[i], "author"))
			strvec__push(&w->to, nt->cfg->mail.to[i]);
		else if (w->auth_h)
			strvec__push(&w->to, w->auth_h);
	if (!nt->cfg->mail.nr_to && w->auth_h)
		strvec__push(&w->to, w->auth_h);
}

static void mail_words__get(struct night *nt, const struct store_regression *r,
			    const char *dir, struct mail_words *w)
{
	w->culprit = r->first_bad ? r->first_bad : r->head;
	w->host = hostname();
	night__commit_words(nt, r->base, &w->subj_b, &w->auth_b);
	night__commit_words(nt, w->culprit, &w->subj_h, &w->auth_h);
	store__host_words(nt->st, nt->n.run_id, r->host, &w->machine);
	w->from = nt->cfg->mail.from ?
			  xstrdup(nt->cfg->mail.from) :
			  xasprintf("iommu-bench robot <root@%s>", w->host);
	mail_to(nt, w);
	w->mid = xasprintf("iommu-bench.%s.night-%lld.regression-%lld@%s",
			   nt->series, (long long)nt->n.id, (long long)r->id,
			   w->host);
	if (nt->cfg->url)
		w->closes = xasprintf("%s/night-%lld/regression-%lld/",
				      nt->cfg->url, (long long)nt->n.id,
				      (long long)r->id);
	w->materials = w->closes ? xstrdup(w->closes) : xstrdup(dir);
	w->reproduced = xasprintf("it moved the same way in %d of %d "
				  "interleaved pairs of both ends (run %lld)",
				  r->reproduced, r->pairs,
				  (long long)r->confirm_run_id);
	if (r->first_bad && strcmp(r->first_bad, r->head))
		w->bisect = xasprintf("between %.*s and %.*s, its steps in "
				      "bisect.log",
				      NIGHT_ABBREV, r->base, NIGHT_ABBREV,
				      r->head);
	w->params[0] = xasprintf("host: %s", r->host);
	w->params[1] = xasprintf("repetitions: %u", nt->m->run.repetitions);
	w->axis = xasprintf("%s/%s", r->mode, r->workload);
}

static void mail_words__release(struct mail_words *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		free(w->names[i]);
	free_all(w->names, w->v, w->params[0], w->params[1], w->axis);
	free_all(w->host, w->subj_b, w->auth_b, w->subj_h, w->auth_h,
		 w->machine, w->mid, w->closes, w->materials, w->reproduced,
		 w->bisect, w->from);
	strvec__release(&w->to);
}

static void mail__compose(const struct night *nt,
			  const struct store_regression *r,
			  const struct mail_words *w, struct robot_mail *m)
{
	bool built = nt->k->kind == KERNEL_BUILD;

	*m = (struct robot_mail){
		.from = w->from,
		.to = (const char *const *)w->to.v,
		.nr_to = w->to.nr,
		.cc = (const char *const *)nt->cfg->mail.cc,
		.nr_cc = nt->cfg->mail.nr_cc,
		.message_id = w->mid,
		.date = time(NULL),
		.improvement = r->improvement,
		.workload = r->workload,
		.metric = r->metric,
		.change_pct = r->change_pct,
		.tree = built ? nt->k->build.tree : NULL,
		.branch = nt->cfg->branch,
		.base = { .commit = built ? r->base : NULL,
			  .subject = w->subj_b,
			  .package = nt->base.package,
			  .version = r->base },
		.head = { .commit = built ? w->culprit : NULL,
			  .subject = w->subj_h,
			  .author = w->auth_h,
			  .package = nt->n.package,
			  .version = r->head },
		.no_commit = r->no_commit,
		.machine = w->machine,
		.config = built ? nt->k->build.config : nt->k->package,
		.params = (const char *const *)w->params,
		.nr_params = 2,
		.reproduced = w->reproduced,
		.bisect = w->bisect,
		.reported_by = nt->cfg->mail.reported_by ?
				       nt->cfg->mail.reported_by :
				       w->from,
		.closes = w->closes,
		.materials = w->materials,
		.axes = "mode/workload",
		.axis_values = w->axis,
		.rows = w->v,
		.nr_rows = w->nr,
	};
}

/*
 * The mbox written and its row told before sendmail sees it, so that a
 * night killed in between does not mail twice.
 */
static int mail__file(struct night *nt, const struct store_regression *r,
		      const char *dir, const struct mail_words *w)
{
	char *buf = NULL, *path = xasprintf("%s/mail.mbox", dir);
	struct robot_mail m;
	size_t len = 0;
	FILE *fp;
	int ret;

	mail__compose(nt, r, w, &m);
	fp = open_memstream(&buf, &len);
	ret = fp ? robot_mail__write(&m, fp) : -ENOMEM;
	if (fp)
		fclose(fp);
	if (!ret)
		ret = put(dir, "mail.mbox", buf, len, 0644);
	if (!ret) {
		struct store_regression set = { .id = r->id,
						.mail = path,
						.message_id = w->mid };

		ret = store__regression_set(nt->st, &set);
	}
	if (!ret && nt->o->send)
		ret = send_mail(nt, buf, len);
	if (!ret) {
		struct store_regression set = { .id = r->id,
						.state = (char *)"reported" };

		ret = store__regression_set(nt->st, &set);
		night__say(nt, "regression %lld: mail %s%s", (long long)r->id,
			   path, nt->o->send ? ", sent" : " (not sent)");
	}
	free_all(path, buf);
	return ret;
}

static int mail_one(struct night *nt, struct store_regression *r)
{
	char *dir;
	struct mail_words w = { 0 };
	int ret;

	if (r->improvement && !nt->cfg->improvements)
		return 0;
	dir = night__reg_dir(nt, r->id);
	ret = mail_folder(nt, r, dir);
	if (ret)
		goto out;
	mail_words__get(nt, r, dir, &w);
	ret = rows(nt, r, &w.v, &w.nr, &w.names);
	if (!ret)
		ret = mail__file(nt, r, dir, &w);
	mail_words__release(&w);
out:
	free(dir);
	return ret;
}

/* A night of a matrix without [nightly] names nobody to tell. */
static int mail_none(struct night *nt, struct store_regression *r)
{
	night__say(nt,
		   "regression %lld: not mailed, the matrix has no [nightly] "
		   "table to name anyone",
		   (long long)r->id);
	return 0;
}

int night__mail(struct night *nt)
{
	return night__each(nt, "new", nt->cfg->present ? mail_one : mail_none);
}
