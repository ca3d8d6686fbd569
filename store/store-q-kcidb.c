// SPDX-License-Identifier: GPL-2.0-only
/*
 * KCIDB's queries (kcidb/): a run's kernels with what the store knows of
 * their source, its cells' metrics, its failed trials, and the nights'
 * regressions found on it. Ordered by what a merge keeps (cell keys,
 * names), never by row ids, so that two exports are the same bytes.
 */
#include "store-priv.h"

/*
 * ?1 the run. A kernel's commit: the one its build resolved the base to,
 * in the recipe the run stored. Rows without one (databases older than
 * recipes) fall back to a guess: the night's head for the followed
 * kernel, else a commit the nights or regressions name whose first
 * characters are the kernel's name (confirmations and bisection steps
 * name a kernel by its commit's 12 hex). Then the arches its boots
 * reported and whether one of them measured a trial.
 */
STORE_QUERY(
	kcidb_kernels, "reading a run's kernels",
	"SELECT k.id, k.name, k.release, k.build_id, k.package, k.version,"
	" k.suite, coalesce(k.recipe, ''),"
	" coalesce(json_extract(k.recipe, '$.base_commit'),"
	" (SELECT n.head FROM nights n WHERE n.run_id = ?1"
	"  AND n.kernel = k.name ORDER BY n.id LIMIT 1),"
	" (SELECT x FROM (SELECT head AS x FROM nights UNION"
	"  SELECT base FROM regressions UNION SELECT head FROM regressions"
	"  UNION SELECT first_bad FROM regressions)"
	"  WHERE length(k.name) >= 7 AND length(x) = 40"
	"  AND substr(x, 1, length(k.name)) = k.name ORDER BY x LIMIT 1),"
	" ''),"
	" coalesce((SELECT group_concat(a) FROM (SELECT DISTINCT"
	"  json_extract(b.facts, '$.kernel.arch') AS a FROM cells c"
	"  JOIN trials t ON t.cell_id = c.id JOIN boots b ON b.id = t.boot_id"
	"  WHERE c.run_id = ?1 AND c.kernel_id = k.id AND a IS NOT NULL"
	"  ORDER BY a)), ''),"
	" (SELECT count(*) FROM cells c JOIN trials t ON t.cell_id = c.id"
	"  WHERE c.run_id = ?1 AND c.kernel_id = k.id"
	"  AND t.boot_id IS NOT NULL AND t.status = 'ok')"
	" FROM kernels k WHERE k.id IN"
	" (SELECT kernel_id FROM cells WHERE run_id = ?1)"
	" ORDER BY k.name, k.release, k.build_id, k.version");

/*
 * ?1 the run: each measured value of its trials that finished 'ok' in
 * the mode asked for, by cell and metric, the values in order.
 */
STORE_QUERY(kcidb_values, "reading a run's metrics",
	    "SELECT c.cell_key, h.name, c.mode, c.workload, c.kernel_id,"
	    " m.name, m.unit, m.value, coalesce(t.effective_mode, ''),"
	    " coalesce(t.started_at, ''), coalesce(t.finished_at, '')"
	    " FROM cells c JOIN hosts h ON h.id = c.host_id"
	    " JOIN trials t ON t.cell_id = c.id"
	    " JOIN metrics m ON m.trial_id = t.id"
	    " WHERE c.run_id = ?1 AND t.warmup = 0 AND t.profile = 0"
	    " AND t.status = 'ok' AND NOT " STORE_SQL_MODE_MISMATCH(
		    "t") " ORDER BY c.cell_key, m.name, m.value");

/*
 * ?1 the run: its measured trials that did not give a figure, failed
 * or skipped, or 'ok' in another mode than the one asked for; whether
 * a boot of the host ran them, and the mode found.
 */
STORE_QUERY(
	kcidb_trials, "reading a run's failed trials",
	"SELECT c.cell_key, h.name, c.mode, c.workload, c.kernel_id,"
	" t.repetition, t.status, coalesce(t.error, ''),"
	" t.boot_id IS NOT NULL, " STORE_SQL_MODE_MISMATCH(
		"t") ","
		     " coalesce(t.effective_mode, ''),"
		     " coalesce(t.expected_mode, ''),"
		     " coalesce(t.started_at, ''),"
		     " coalesce(t.finished_at, '')"
		     " FROM cells c JOIN hosts h ON h.id = c.host_id"
		     " JOIN trials t ON t.cell_id = c.id"
		     " WHERE c.run_id = ?1 AND t.warmup = 0"
		     " AND t.profile = 0 AND (t.status IN ('failed',"
		     " 'skipped') OR (t.status = 'ok' AND " STORE_SQL_MODE_MISMATCH(
			     "t") "))"
				  " ORDER BY c.cell_key, t.repetition");

/*
 * ?1 the run: the regressions (not improvements) that the night of that
 * run found and confirmed, one row per cell of the run they were found
 * in (host, mode, workload and the night's kernel), by their unique key.
 */
STORE_QUERY(kcidb_regressions, "reading the nights' regressions",
	    "SELECT g.series, g.culprit, g.host, g.workload, g.mode,"
	    " g.metric, g.base, g.head, g.base_median, g.head_median,"
	    " g.change_pct, coalesce(g.first_bad, ''),"
	    " coalesce(g.no_commit, ''), g.state, coalesce(g.pairs, 0),"
	    " coalesce(g.reproduced, 0), n.kernel, coalesce(c.cell_key, '')"
	    " FROM regressions g JOIN nights n ON n.id = g.night_id"
	    " LEFT JOIN (cells c JOIN hosts h ON h.id = c.host_id"
	    "  JOIN kernels k ON k.id = c.kernel_id)"
	    "  ON c.run_id = n.run_id AND h.name = g.host"
	    "  AND c.mode = g.mode AND c.workload = g.workload"
	    "  AND k.name = n.kernel"
	    " WHERE n.run_id = ?1 AND g.improvement = 0"
	    " AND g.state IN ('new', 'reported', 'fixed', 'ignored')"
	    " ORDER BY g.series, g.culprit, g.host, g.workload, g.mode,"
	    " g.metric, c.cell_key");
