// SPDX-License-Identifier: GPL-2.0-only
/*
 * The results-database generator (tests/gendb.h). Run bare, it is a
 * unit test: it writes a small database and reads it back through the
 * store. Run with --out, it is the helper the command-line tests of
 * compare, report and regress build their databases with:
 *
 *   test-gendb --out DB [--runs N] [--reps N] [--workloads N]
 *              [--kernels 1|2] [--seed N] [--noise PCT] [--no-details]
 *              [--regress PCT --from RUN [--until RUN]] [--trouble]
 *              [--regress-workload N] [--nights [--reg-state STATE]]
 *              [--exposure]
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gendb.h"
#include "scratch-files.h"
#include "tap.h"

static int usage(const char *arg)
{
	fprintf(stderr, "test-gendb: bad argument '%s' (see the source)\n",
		arg);
	return 2;
}

/* The options that take a value: unsigned, or a percentage or fraction. */
static const struct {
	const char *flag;
	size_t off;
	double scale; /* 0: an unsigned int; else a double, times this */
} flags[] = {
	{ "--runs", offsetof(struct gendb_opts, runs), 0 },
	{ "--reps", offsetof(struct gendb_opts, reps), 0 },
	{ "--workloads", offsetof(struct gendb_opts, nr_workloads), 0 },
	{ "--kernels", offsetof(struct gendb_opts, nr_kernels), 0 },
	{ "--noise", offsetof(struct gendb_opts, noise), 0.01 },
	{ "--per-boot", offsetof(struct gendb_opts, per_boot), 0 },
	{ "--boot-noise", offsetof(struct gendb_opts, boot_noise), 0.01 },
	{ "--regress", offsetof(struct gendb_opts, regress_pct), 1 },
	{ "--from", offsetof(struct gendb_opts, regress_from), 0 },
	{ "--until", offsetof(struct gendb_opts, regress_until), 0 },
	{ "--regress-workload", offsetof(struct gendb_opts, regress_workload),
	  0 },
};

static int set_flag(struct gendb_opts *o, const char *a, const char *v)
{
	char *at = (char *)o;
	size_t i;

	if (!strcmp(a, "--out")) {
		o->path = v;
		return 0;
	}
	if (!strcmp(a, "--seed")) {
		o->seed = strtoul(v, NULL, 10);
		return 0;
	}
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (strcmp(a, flags[i].flag))
			continue;
		if (flags[i].scale)
			*(double *)(at + flags[i].off) =
				atof(v) * flags[i].scale;
		else
			*(unsigned int *)(at + flags[i].off) = atoi(v);
		return 0;
	}
	return -1;
}

static int parse(int argc, char **argv, struct gendb_opts *o)
{
	int i;

	o->regress_until = ~0u;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--no-details")) {
			o->details = false;
			continue;
		}
		if (!strcmp(a, "--trouble")) {
			o->plant_trouble = true;
			continue;
		}
		if (!strcmp(a, "--exposure")) {
			o->exposure = true;
			continue;
		}
		if (!strcmp(a, "--nights")) {
			o->nights = true;
			continue;
		}
		if (!strcmp(a, "--reg-state") && v) {
			o->reg_state = v;
			i++;
			continue;
		}
		if (!v || set_flag(o, a, v))
			return usage(a);
		i++;
	}
	return o->path ? 0 : usage("--out is required");
}

static void self_test(void)
{
	char dir[] = "/tmp/iommu-bench-test-gendb.XXXXXX";
	struct gendb_opts o = GENDB_OPTS_DEFAULT;
	struct store_export_row row;
	struct store_export *it;
	struct store *st;
	int64_t n = -1;
	int rows = 0;
	char *path;

	if (!mkdtemp(dir))
		tap_skip_all("no scratch directory");
	path = xasprintf("%s/g.db", dir);
	o.path = path;
	o.runs = 2;
	o.reps = 3;
	o.plant_trouble = true;
	ok(!gendb__write(&o), "two runs written through the store API");
	ok(!store__open(path, STORE_READONLY, &st), "and open read-only");
	store__count(st, "runs", &n);
	is_int(n, 2, "2 runs");
	store__count(st, "trials", &n);
	is_int(n, 2 * 3 * 2 * 3, "36 trials: 3 modes x 2 workloads x 3 reps");
	store__count(st, "metrics", &n);
	/* Per run one failed trial per workload holds no metrics. */
	is_int(n, (36 - 4) * 10, "10 metrics per measured trial");
	store__count(st, "probes", &n);
	is_int(n, (36 - 4) * 6, "6 probes per measured trial");
	store__count(st, "intervals", &n);
	is_int(n, (36 - 4) * 10, "10 intervals per measured trial");
	if (!store__export_open(st, 1, 0, &it)) {
		while (store__export_next(it, &row) > 0)
			rows += !strcmp(row.metric, "throughput");
		store__export_close(it);
	}
	is_int(rows, 3 * 2 * 3 - 2, "export sees run 1's 'ok' trials");
	store__close(st);
	free(path);
	scratch__remove(dir);
}

int main(int argc, char **argv)
{
	struct gendb_opts o = GENDB_OPTS_DEFAULT;
	int err;

	if (argc == 1) {
		self_test();
		return tap_done();
	}
	err = parse(argc, argv, &o);
	if (err)
		return err;
	err = gendb__write(&o);
	if (err) {
		fprintf(stderr, "test-gendb: writing %s failed (%d)\n", o.path,
			err);
		return 1;
	}
	return 0;
}
