// SPDX-License-Identifier: GPL-2.0-only
/* The analysis's queries: runs, kernels, datasets and the noise. */
#include "store-priv.h"

STORE_QUERY(runs, "reading runs",
	    "SELECT id, name, status, started_at, finished_at, tool_version"
	    " FROM runs ORDER BY id");

STORE_QUERY(kernel_names, "reading kernels",
	    "SELECT DISTINCT name FROM kernels ORDER BY name");

STORE_QUERY(kernel_last_run, "finding a kernel's runs",
	    "SELECT max(c.run_id) FROM cells c"
	    " JOIN kernels k ON k.id = c.kernel_id WHERE k.name = ?1");

STORE_QUERY(kernel_packages, "reading kernels",
	    "SELECT k.name,"
	    " max(CASE WHEN c.run_id = ?1 AND (?3 IS NULL OR k.name = ?3)"
	    "  THEN k.package || ' ' || k.version END),"
	    " max(CASE WHEN c.run_id = ?2 AND (?4 IS NULL OR k.name = ?4)"
	    "  THEN k.package || ' ' || k.version END)"
	    " FROM cells c JOIN kernels k ON k.id = c.kernel_id"
	    " WHERE c.run_id IN (?1, ?2) AND k.version <> ''"
	    " GROUP BY k.name ORDER BY k.name");

STORE_QUERY(run_config, "reading a run's matrix",
	    "SELECT config FROM runs WHERE id = ?1");

STORE_QUERY(noise, "reading the noise",
	    "SELECT h.name, k.name, c.mode, c.workload, t.repetition,"
	    " coalesce(t.boot_id, 0), m.value, m.unit, c.run_id"
	    " FROM cells c CROSS JOIN trials t CROSS JOIN metrics m"
	    " JOIN hosts h ON h.id = c.host_id"
	    " JOIN kernels k ON k.id = c.kernel_id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.cell_id = c.id"
	    " AND t.warmup = 0 AND t.profile = 0 AND t.status = 'ok'"
	    " AND m.trial_id = t.id AND m.name = ?3"
	    " ORDER BY c.id, t.repetition");

STORE_QUERY(ds_cells, "reading cells",
	    "SELECT c.id, c.run_id, h.name, k.name, c.mode, c.workload,"
	    /* What "current" and "default" turned out to be. */
	    " CASE WHEN c.mode IN ('current', 'default') THEN"
	    "  (SELECT group_concat(e, ', ') FROM (SELECT DISTINCT"
	    "   t.effective_mode AS e FROM trials t WHERE t.cell_id = c.id"
	    "   AND t.status = 'ok' AND t.warmup = 0 AND t.profile = 0"
	    "   AND ifnull(t.effective_mode, '') <> '' ORDER BY e))"
	    " END,"
	    /* The exposure window: none, by design (no translation). */
	    " EXISTS (SELECT 1 FROM trials t JOIN probes p"
	    "  ON p.trial_id = t.id WHERE t.cell_id = c.id"
	    "  AND t.status = 'ok' AND p.name = 'exposure'"
	    "  AND p.attach = 'unprotected')"
	    " FROM cells c JOIN hosts h ON h.id = c.host_id"
	    " JOIN kernels k ON k.id = c.kernel_id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 ORDER BY c.id");

STORE_QUERY(ds_trials, "reading trials",
	    "SELECT t.id, t.cell_id, " STORE_SQL_MODE_MISMATCH(
		    "t") " FROM cells c JOIN trials t ON t.cell_id = c.id"
			 " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
			 " AND t.profile = 0 AND t.status = 'ok' ORDER BY t.id");

STORE_QUERY(ds_metrics_scan, "reading trial metrics",
	    "SELECT trial_id, name, unit, better, value FROM metrics"
	    " NOT INDEXED WHERE trial_id BETWEEN ?1 AND ?2");

STORE_QUERY(ds_metrics_seek, "reading trial metrics",
	    "SELECT trial_id, name, unit, better, value FROM metrics"
	    " WHERE trial_id BETWEEN ?1 AND ?2");

STORE_QUERY(max_trial, "reading trial metrics",
	    "SELECT coalesce(max(id), 0) FROM trials");
