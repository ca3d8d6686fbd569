// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare, report and regress against histories of 1k, 10k and 100k
 * trials, built by tests/gendb.h through the store API (strict / lazy /
 * passthrough x 4 workloads x 10 repetitions per nightly run, with
 * intervals, probes and profiles). Prints wall time and peak memory of
 * each command, the median of three runs, and the growth per tenfold:
 * linear growth reads as about 10x. Each run is one of the robot's
 * nights too, so that the history page (report --history, over the last
 * 100 nights, or all of them where there are fewer) is measured beside
 * the report on the same database. The targets (100k trials compared in
 * under 2 s, reported in under 10 s) are printed beside the figures;
 * nothing here fails on them.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "gendb.h"

extern char **environ;

#define REPEAT 3

struct figure {
	double secs;
	long rss_kib;
};

/* Run @argv with stdout and stderr to /dev/null; its time and peak RSS. */
static int measure(char *const *argv, struct figure *f)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	double t0;
	pid_t pid;
	int status, e;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t0 = mono_ns() / 1e9;
	e = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e)
		return -e;
	if (wait4(pid, &status, 0, &ru) < 0)
		return -errno;
	f->secs = mono_ns() / 1e9 - t0;
	f->rss_kib = ru.ru_maxrss;
	/* regress exits 1 when it finds something: still a measurement. */
	return WIFEXITED(status) && WEXITSTATUS(status) <= 1 ? 0 : -EIO;
}

static int cmp_fig(const void *a, const void *b)
{
	double x = ((const struct figure *)a)->secs;
	double y = ((const struct figure *)b)->secs;

	return (x > y) - (x < y);
}

static int median_of(char *const *argv, struct figure *out)
{
	struct figure f[REPEAT];
	int i, err;

	for (i = 0; i < REPEAT; i++) {
		err = measure(argv, &f[i]);
		if (err)
			return err;
	}
	qsort(f, REPEAT, sizeof(*f), cmp_fig);
	*out = f[REPEAT / 2];
	return 0;
}

enum { CMD_COMPARE, CMD_REPORT, CMD_PAGE, CMD_HISTORY, NR_CMDS };

static const char *const cmd_names[NR_CMDS] = {
	"compare --run all",
	"report --run all",
	"report --history 100",
	"regress --history 100",
};

/* The history page's N: 100 nights, or all there are. */
#define PAGE_NIGHTS 100

int main(void)
{
	static const unsigned int runs[] = { 9, 84, 834 };
	const char *bin = getenv("IOMMU_BENCH");
	char dir[] = "/tmp/iommu-bench-bench-report.XXXXXX";
	struct figure fig[3][NR_CMDS];
	double gen[3];
	size_t trials[3];
	char *db, *html, *page, *dbarg, nights[16];
	struct stat sb;
	int s, c, err;

	if (!bin) {
		fprintf(stderr,
			"bench-report: set IOMMU_BENCH (make bench does)\n");
		return 2;
	}
	if (!mkdtemp(dir))
		return 1;
	html = xasprintf("%s/report.html", dir);
	page = xasprintf("%s/history.html", dir);
	for (s = 0; s < 3; s++) {
		struct gendb_opts o = GENDB_OPTS_DEFAULT;
		double t0 = mono_ns() / 1e9;

		db = xasprintf("%s/h%d.db", dir, s);
		o.path = db;
		o.runs = runs[s];
		o.nr_workloads = 4;
		o.nights = true;
		err = gendb__write(&o);
		gen[s] = mono_ns() / 1e9 - t0;
		trials[s] = (size_t)runs[s] * 3 * 4 * o.reps;
		if (err) {
			fprintf(stderr, "bench-report: generating %s failed\n",
				db);
			return 1;
		}
		stat(db, &sb);
		printf("# %zu trials: database %.0f MB, generated in %.1f s\n",
		       trials[s], sb.st_size / 1e6, gen[s]);
		fflush(stdout);
		dbarg = xasprintf("--db=%s", db);
		snprintf(nights, sizeof(nights), "%u",
			 runs[s] < PAGE_NIGHTS ? runs[s] : PAGE_NIGHTS);
		{
			char *const argv[NR_CMDS][8] = {
				{ (char *)bin, dbarg, "compare", "--run", "all",
				  NULL },
				{ (char *)bin, dbarg, "report", "--run", "all",
				  "-o", html, NULL },
				{ (char *)bin, dbarg, "report", "--history",
				  nights, "-o", page, NULL },
				{ (char *)bin, dbarg, "regress", "--history",
				  "100", NULL },
			};

			for (c = 0; c < NR_CMDS; c++) {
				err = median_of(argv[c], &fig[s][c]);
				if (err) {
					fprintf(stderr,
						"bench-report: %s failed on "
						"%s (%d)\n",
						cmd_names[c], db, err);
					return 1;
				}
			}
		}
		unlink(db);
		free(db);
		db = xasprintf("%s/h%d.db-wal", dir, s);
		unlink(db);
		free(db);
		db = xasprintf("%s/h%d.db-shm", dir, s);
		unlink(db);
		free(db);
		free(dbarg);
	}
	unlink(html);
	free(html);
	unlink(page);
	free(page);
	rmdir(dir);

	printf("%-24s %10s %10s %10s   %s\n", "median of 3", "1k", "10k",
	       "100k", "per 10x");
	for (c = 0; c < NR_CMDS; c++) {
		printf("%-24s %9.2fs %9.2fs %9.2fs   %.1fx %.1fx\n",
		       cmd_names[c], fig[0][c].secs, fig[1][c].secs,
		       fig[2][c].secs, fig[1][c].secs / fig[0][c].secs,
		       fig[2][c].secs / fig[1][c].secs);
		printf("%-24s %8ldMB %8ldMB %8ldMB   %.1fx %.1fx\n",
		       "  peak RSS", fig[0][c].rss_kib / 1024,
		       fig[1][c].rss_kib / 1024, fig[2][c].rss_kib / 1024,
		       (double)fig[1][c].rss_kib / fig[0][c].rss_kib,
		       (double)fig[2][c].rss_kib / fig[1][c].rss_kib);
	}
	printf("targets at 100k trials: compare < 2 s (%.2f s), report < "
	       "10 s (%.2f s)\n",
	       fig[2][CMD_COMPARE].secs, fig[2][CMD_REPORT].secs);
	printf("at 100k trials: the report %.2f s, the history page (last %d "
	       "nights) %.2f s\n",
	       fig[2][CMD_REPORT].secs, PAGE_NIGHTS, fig[2][CMD_PAGE].secs);
	return 0;
}
