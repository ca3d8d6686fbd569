// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench export: one row per trial metric, as CSV (RFC 4180) or a
 * JSON array, for whoever wants the numbers in their own tools. The
 * columns are a public interface (schemas/README.md): add, never rename.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic-file.h"
#include "builtin.h"
#include "csv.h"
#include "errmsg.h"
#include "kcidb/kcidb.h"
#include "log.h"
#include "parse-options.h"
#include "store/store.h"
#include "strvec.h"
#include "util.h"

static const char *const export_usage[] = {
	"iommu-bench export [--run <ID>] [--format csv|json] [--all] [-o <FILE>]",
	"iommu-bench export --kcidb --origin <NAME> [--run <ID>]... [-o <FILE>]\n"
	"		[--submit <URL> --token-file <FILE>]",
	NULL,
};

static const char *const columns[] = {
	"run",	    "run_name",	      "cell",		"host",
	"kernel",   "kernel_release", "requested_mode", "effective_mode",
	"workload", "trial",	      "repetition",	"warmup",
	"status",   "metric",	      "value",		"unit",
	"better",   "started_at",     "profile",	NULL,
};

/*
 * The shortest "%.*g" precision that reads back as the same double, so
 * that 39.8 prints as 39.8 and not 39.799999999999997; but never so
 * short that an integer turns into an exponent (1.49e+10).
 */
static int value_precision(double v)
{
	char buf[40];
	int p, digits;

	for (p = 1; p < 17; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (fabs(v) >= 1 && fabs(v) < 1e17) {
		digits = snprintf(buf, sizeof(buf), "%.0f", fabs(v));
		if (p < digits)
			p = digits;
	}
	return p;
}

static void csv_row(FILE *fp, const struct store_export_row *r)
{
	char run[24], trial[24], rep[16], value[40];

	snprintf(run, sizeof(run), "%lld", (long long)r->run);
	snprintf(trial, sizeof(trial), "%lld", (long long)r->trial);
	snprintf(rep, sizeof(rep), "%u", r->repetition);
	snprintf(value, sizeof(value), "%.*g", value_precision(r->value),
		 r->value);
	csv__field(fp, run, false);
	csv__field(fp, r->run_name, false);
	csv__field(fp, r->cell, false);
	csv__field(fp, r->host, false);
	csv__field(fp, r->kernel, false);
	csv__field(fp, r->kernel_release, false);
	csv__field(fp, r->requested_mode, false);
	csv__field(fp, r->effective_mode, false);
	csv__field(fp, r->workload, false);
	csv__field(fp, trial, false);
	csv__field(fp, rep, false);
	csv__field(fp, r->warmup ? "1" : "0", false);
	csv__field(fp, r->status, false);
	csv__field(fp, r->metric, false);
	csv__field(fp, value, false);
	csv__field(fp, r->unit, false);
	csv__field(fp, r->better, false);
	csv__field(fp, r->started_at, false);
	csv__field(fp, r->profile ? "1" : "0", true);
}

/*
 * A JSON string, or null for "not known" where CSV can only leave a
 * field empty. Text that is not UTF-8 has no JSON form: flag it.
 */
static json_t *jstr(const char *s, bool empty_is_null, bool *bad)
{
	json_t *j;

	if (empty_is_null && !*s)
		return json_null();
	j = json_string(s);
	if (!j) {
		*bad = true;
		j = json_null();
	}
	return j;
}

/*
 * One object per line, written as it is read: an export of a long
 * history never has to fit in memory at once.
 */
static int json_row(FILE *fp, const struct store_export_row *r, bool first)
{
	bool bad = false;
	json_t *o;
	int err;

	o = json_object();
	json_object_set_new(o, "run", json_integer(r->run));
	json_object_set_new(o, "run_name", jstr(r->run_name, false, &bad));
	json_object_set_new(o, "cell", jstr(r->cell, false, &bad));
	json_object_set_new(o, "host", jstr(r->host, false, &bad));
	json_object_set_new(o, "kernel", jstr(r->kernel, false, &bad));
	json_object_set_new(o, "kernel_release",
			    jstr(r->kernel_release, true, &bad));
	json_object_set_new(o, "requested_mode",
			    jstr(r->requested_mode, false, &bad));
	json_object_set_new(o, "effective_mode",
			    jstr(r->effective_mode, true, &bad));
	json_object_set_new(o, "workload", jstr(r->workload, false, &bad));
	json_object_set_new(o, "trial", json_integer(r->trial));
	json_object_set_new(o, "repetition", json_integer(r->repetition));
	json_object_set_new(o, "warmup", json_boolean(r->warmup));
	json_object_set_new(o, "status", jstr(r->status, false, &bad));
	json_object_set_new(o, "metric", jstr(r->metric, false, &bad));
	json_object_set_new(o, "value", json_real(r->value));
	json_object_set_new(o, "unit", jstr(r->unit, false, &bad));
	json_object_set_new(o, "better", jstr(r->better, false, &bad));
	json_object_set_new(o, "started_at", jstr(r->started_at, true, &bad));
	json_object_set_new(o, "profile", json_boolean(r->profile));
	err = bad ? -EILSEQ : 0;
	if (!err) {
		fputs(first ? "\n" : ",\n", fp);
		if (json_dumpf(o, fp,
			       JSON_PRESERVE_ORDER |
				       JSON_REAL_PRECISION(
					       value_precision(r->value))))
			err = -EIO;
	}
	json_decref(o);
	return err;
}

/*
 * -o FILE is written beside itself and renamed over at the end, so that
 * a failed export never leaves a truncated file where a good one was.
 */

static const char *out_name(const char *output)
{
	return output && strcmp(output, "-") ? output : "standard output";
}

/* An unknown run is the caller's mistake (exit 2), told with what there is. */
static int check_run(struct store *st, int64_t run_id)
{
	struct store_run run;
	int64_t latest;
	int err;

	err = store__run_get(st, run_id, &run);
	if (!err) {
		store__run_release(&run);
		return EXIT_OK;
	}
	if (err != -ENOENT || store__run_latest(st, &latest))
		return EXIT_WORK_FAILED;
	if (latest)
		pr_err("%s: no run with id %lld (the newest is %lld)",
		       store__path(st), (long long)run_id, (long long)latest);
	else
		pr_err("%s: no run with id %lld (it has no runs yet)",
		       store__path(st), (long long)run_id);
	return EXIT_USAGE;
}

/* Each of @ids the database has, or the first it lacks told (exit 2). */
static int check_runs(struct store *st, const int64_t *ids, size_t nr)
{
	int status = EXIT_OK;
	size_t i;

	for (i = 0; i < nr && status == EXIT_OK; i++)
		status = check_run(st, ids[i]);
	return status;
}

static int export(struct store *st, int64_t run_id, unsigned int flags,
		  bool json, FILE *fp)
{
	struct store_export_row row;
	struct store_export *it;
	bool first = true;
	int i, n;

	if (store__export_open(st, run_id, flags, &it))
		return -EIO;
	if (json) {
		fputc('[', fp);
	} else {
		for (i = 0; columns[i]; i++)
			csv__field(fp, columns[i], !columns[i + 1]);
	}
	while ((n = store__export_next(it, &row)) > 0) {
		if (!json) {
			csv_row(fp, &row);
			continue;
		}
		n = json_row(fp, &row, first);
		if (n == -EILSEQ)
			pr_err("%s: trial %lld: text that is not UTF-8 has no "
			       "JSON form",
			       store__path(st), (long long)row.trial);
		if (n < 0)
			break;
		first = false;
	}
	if (json && n == 0)
		fputs(first ? "]\n" : "\n]\n", fp);
	store__export_close(it);
	return n;
}

/* The CSV or JSON table of @run_id (0: every run). */
static int export_table(struct store *st, int64_t run_id, bool all, bool json,
			const char *output)
{
	struct atomic_file out;
	int err;

	err = atomic_file__open(&out, output, 0644);
	if (err) {
		pr_err("%s: %s", out_name(output), strerror(-err));
		return EXIT_WORK_FAILED;
	}
	err = export(st, run_id, all ? STORE_EXPORT_ALL : 0, json, out.fp);
	if (err < 0) {
		atomic_file__abort(&out);
		return EXIT_WORK_FAILED;
	}
	err = atomic_file__commit(&out);
	if (err) {
		pr_err("%s: %s", out_name(output), strerror(-err));
		return EXIT_WORK_FAILED;
	}
	return EXIT_OK;
}

/* --run ID: a positive integer, or the usage error (exit 2). */
static int64_t run_id_parse(const char *arg)
{
	int64_t id;
	char *end;

	errno = 0;
	id = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || id <= 0)
		usage_error(
			NULL, NULL,
			"--run wants a run id (a positive integer), got '%s'",
			arg);
	return id;
}

/* --submit's: where it goes, the token's file, a kept report to send. */
struct export_submit {
	const char *url, *token_file, *from;
};

static void submit_progress(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "kcidb: %s\n", line);
}

/*
 * Where a report the service did not take is kept: -o's file, or one
 * named for the origin and the time in the working folder.
 */
static char *keep_path(const char *output, const char *origin)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (output && strcmp(output, "-"))
		return xstrdup(output);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
	return xasprintf("iommu-bench-kcidb-%s-%s.json", origin, stamp);
}

/* The report handed to the service: 0 processed, 1 anything else. */
static int kcidb_submit(const char *text, const char *origin,
			const char *output, const struct export_submit *sub)
{
	struct kcidb_submit_opts o = { .url = sub->url,
				       .token_file = sub->token_file,
				       .progress = submit_progress };
	char *keep = keep_path(output, origin), *err = NULL;
	struct kcidb_sent sent;
	int ret;

	ret = kcidb__send(&o, text, keep, &sent, &err);
	if (ret) {
		pr_err("export --kcidb --submit: %s", err);
	} else {
		fprintf(stderr, "kcidb: %s, id %s: %s\n",
			kcidb_outcome__name(sent.outcome), sent.id,
			sent.message ? sent.message : "");
		if (sent.outcome != KCIDB_PROCESSED && sent.kept)
			fprintf(stderr, "kcidb: the report is kept at %s\n",
				keep);
		else if (sent.outcome != KCIDB_PROCESSED)
			pr_err("export --kcidb: %s", err);
		ret = sent.outcome == KCIDB_PROCESSED ? 0 : -EPROTO;
	}
	kcidb_sent__release(&sent);
	free(err);
	free(keep);
	return ret ? EXIT_WORK_FAILED : EXIT_OK;
}

/*
 * The report of @o written to @output (a file replaced only on success;
 * stdout unless submitted), then submitted where asked.
 */
static int kcidb_write(struct store *st, const struct kcidb_opts *o,
		       const char *output, const struct export_submit *sub)
{
	json_t *report = NULL;
	char *err = NULL, *text = NULL;
	int ret;

	ret = kcidb__report(st, o, &report, &err);
	if (ret) {
		pr_err("export --kcidb: %s", err ? err : strerror(-ret));
		free(err);
		return EXIT_WORK_FAILED;
	}
	text = kcidb__text(report);
	json_decref(report);
	if (!text) {
		pr_err("export --kcidb: %s", strerror(ENOMEM));
		return EXIT_WORK_FAILED;
	}
	if (!sub->url || (output && strcmp(output, "-")))
		ret = output && strcmp(output, "-") ?
			      kcidb__keep(output, text, &err) :
			      (fputs(text, stdout) == EOF ? -EIO : 0);
	if (ret)
		pr_err("%s", err ? err : strerror(-ret));
	else if (sub->url)
		ret = kcidb_submit(text, o->origin, output, sub);
	free(err);
	free(text);
	return ret ? EXIT_WORK_FAILED : EXIT_OK;
}

/*
 * --from FILE: a report kept by an earlier --submit, sent as it is; the
 * service judges it, but text that is not a KCIDB report at all is
 * refused here, before anything is sent.
 */
static int kcidb_resend(const char *origin, const struct export_submit *sub)
{
	json_error_t jerr;
	json_t *report;
	char *text = NULL;
	size_t len;
	int ret;

	ret = read_file(sub->from, &text, &len);
	if (ret) {
		pr_err("--from: %s: %s", sub->from, strerror(-ret));
		return EXIT_USAGE;
	}
	report = json_loadb(text, len, 0, &jerr);
	if (!report || !json_is_object(report) ||
	    json_integer_value(json_object_get(
		    json_object_get(report, "version"), "major")) !=
		    KCIDB_MAJOR) {
		pr_err("--from: %s:%d: not a KCIDB v%d report%s%s", sub->from,
		       report ? 1 : jerr.line, KCIDB_MAJOR, report ? "" : ": ",
		       report ? "" : jerr.text);
		json_decref(report);
		free(text);
		return EXIT_USAGE;
	}
	json_decref(report);
	ret = kcidb_submit(text, origin, sub->from, sub);
	free(text);
	return ret;
}

/*
 * --kcidb's own checks, before the database is opened or anything
 * written: the origin is KCIDB's or the command stops here (exit 2).
 */
static void kcidb_usage(bool kcidb, const char *origin, const char *format,
			bool all, size_t nr_runs,
			const struct export_submit *sub)
{
	char *err = NULL, *tok = NULL;

	if (!kcidb) {
		if (origin || sub->url || sub->token_file)
			usage_error(NULL, NULL,
				    "--origin, --submit and --token-file go "
				    "with --kcidb");
		if (nr_runs > 1)
			usage_error(NULL, NULL,
				    "--run once (several runs: --kcidb)");
		return;
	}
	if (format || global.json || all)
		usage_error(NULL, NULL,
			    "--kcidb writes KCIDB's JSON: no --format, --json "
			    "or --all with it");
	if (!origin)
		usage_error(NULL, NULL,
			    "--kcidb wants --origin NAME, the submitter's name "
			    "in KCIDB ([a-z0-9_]+)");
	if (kcidb__origin_check(origin, &err))
		usage_error(NULL, NULL, "--origin: %s", err);
	if (sub->from && !sub->url)
		usage_error(NULL, NULL, "--from FILE goes with --submit");
	if (!sub->url != !sub->token_file)
		usage_error(NULL, NULL,
			    "--submit URL and --token-file FILE go together: "
			    "the token is read from its file, never from the "
			    "command line");
	if (sub->url && kcidb__url_check(sub->url, &err))
		usage_error(NULL, NULL, "--submit: %s", err);
	if (sub->token_file && kcidb__token_read(sub->token_file, &tok, &err))
		usage_error(NULL, NULL, "--token-file: %s", err);
	if (tok)
		explicit_bzero(tok, strlen(tok));
	free(tok);
}

static const char export_help[] =
	"columns (CSV header, JSON keys), one row per trial metric:\n"
	"  run run_name cell host kernel kernel_release requested_mode\n"
	"  effective_mode workload trial repetition warmup status metric\n"
	"  value unit better started_at profile\n"
	"Without --all only measured trials (not warmup, not profile)\n"
	"whose status is 'ok'. CSV is RFC 4180 (CRLF line ends); JSON is an array of\n"
	"objects, null for an unknown kernel_release, effective_mode or\n"
	"started_at. See schemas/README.md. --kcidb writes one KCIDB\n"
	"report instead: checkouts, builds, a test per cell and metric\n"
	"and per failed trial, the nights' regressions as issues (see\n"
	"docs/kcidb.md); --submit sends it and says the service's verdict.\n"
	"Exit status: 0 ok (submitted: processed); 1 the database could not\n"
	"be read or the output written, or the service failed, refused or\n"
	"never took the report (kept on disk); 2 bad usage, including a\n"
	"--run id the database does not have.";

int cmd_export(int argc, const char **argv)
{
	const char *format = NULL, *output = NULL, *origin = NULL;
	struct strvec run_args = { 0 };
	struct export_submit sub = { 0 };
	bool all = false, kcidb = false, json;
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_CALLBACK(0, "run", &run_args, "ID",
			     "only this run (default: all runs; --kcidb: the "
			     "latest); with --kcidb, again for more",
			     parse_opt_strvec),
		OPT_STRING(0, "format", &format, "FMT",
			   "csv (default) or json; --json is --format json"),
		OPT_STRING(
			'o', "output", &output, "FILE",
			"write FILE, replaced only on success (default: stdout)"),
		OPT_BOOLEAN(0, "all", &all,
			    "also warmup and profile trials, and trials not "
			    "'ok'"),
		OPT_BOOLEAN(0, "kcidb", &kcidb,
			    "one KCIDB v5.3 report of the runs (docs/kcidb.md)"),
		OPT_STRING(0, "origin", &origin, "NAME",
			   "with --kcidb: the submitter's name, [a-z0-9_]+"),
		OPT_STRING(0, "submit", &sub.url, "URL",
			   "with --kcidb: send it to a kcidb-ng REST service "
			   "and await its verdict"),
		OPT_STRING(0, "token-file", &sub.token_file, "FILE",
			   "with --submit: the file whose first line is the "
			   "bearer token"),
		OPT_STRING(0, "from", &sub.from, "FILE",
			   "with --submit: send this kept report instead of "
			   "exporting the database"),
		OPT_GROUP(export_help),
		OPT_END(),
	};
	int64_t *run_ids;
	struct store *st;
	size_t i;
	int status, err;

	argc = parse_options(argc, argv, opts, export_usage, 0);
	if (argc)
		usage_error(export_usage, opts, "unexpected argument '%s'",
			    argv[0]);
	kcidb_usage(kcidb, origin, format, all, run_args.nr, &sub);
	if (format && strcmp(format, "csv") && strcmp(format, "json"))
		usage_error(NULL, NULL, "unknown format '%s' (csv or json)",
			    format);
	if (format && global.json && strcmp(format, "json"))
		usage_error(NULL, NULL, "--json contradicts --format %s",
			    format);
	json = global.json || (format && !strcmp(format, "json"));
	run_ids = xcalloc(run_args.nr + 1, sizeof(*run_ids));
	for (i = 0; i < run_args.nr; i++)
		run_ids[i] = run_id_parse(run_args.v[i]);
	if (sub.from) {
		status = kcidb_resend(origin, &sub);
		goto out_free;
	}
	err = store__open(global__db_path(), STORE_READONLY, &st);
	if (err) {
		global__db_advice(global__db_path(), err);
		status = EXIT_WORK_FAILED;
		goto out_free;
	}
	status = check_runs(st, run_ids, run_args.nr);
	if (status == EXIT_OK && kcidb)
		status = kcidb_write(
			st,
			&(const struct kcidb_opts){ .origin = origin,
						    .runs = run_ids,
						    .nr_runs = run_args.nr },
			output, &sub);
	else if (status == EXIT_OK)
		status = export_table(st, run_ids[0], all, json, output);
	store__close(st);
out_free:
	free(run_ids);
	strvec__release(&run_args);
	return status;
}
