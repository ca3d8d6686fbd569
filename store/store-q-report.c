// SPDX-License-Identifier: GPL-2.0-only
/* The report page's queries: cells, boots, probes, profiles, series. */
#include "store-priv.h"

STORE_QUERY(
	report_cells, "reading cells",
	"SELECT c.id, c.run_id, h.name, k.name, c.mode, c.workload,"
	" total(t.warmup = 0 AND t.profile = 0 AND t.status = 'ok'),"
	" total(t.warmup = 0 AND t.status = 'failed'),"
	" total(t.warmup = 0 AND t.status NOT IN ('ok', 'failed')),"
	" total(t.warmup = 0 AND t.profile = 0 AND t.status = 'ok' AND"
	" " STORE_SQL_MODE_MISMATCH(
		"t") "),"
		     " group_concat(DISTINCT t.effective_mode),"
		     " group_concat(DISTINCT b.kernel_release ||"
		     "  CASE WHEN k.version <> '' THEN"
		     "  ' (' || k.version || ')' ELSE '' END)"
		     " FROM cells c JOIN hosts h ON h.id = c.host_id"
		     " JOIN kernels k ON k.id = c.kernel_id"
		     " LEFT JOIN trials t ON t.cell_id = c.id"
		     " LEFT JOIN boots b ON b.id = t.boot_id"
		     " WHERE c.run_id BETWEEN ?1 AND ?2 GROUP BY c.id ORDER BY c.id");

STORE_QUERY(report_boots, "reading boots",
	    "SELECT b.id, h.name, b.kernel_release, b.kernel_build_id,"
	    " b.cmdline, b.facts, count(t.id),"
	    " group_concat(DISTINCT t.requested_mode), max(c.run_id)"
	    " FROM boots b JOIN hosts h ON h.id = b.host_id"
	    " JOIN trials t ON t.boot_id = b.id"
	    " JOIN cells c ON c.id = t.cell_id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 GROUP BY b.id ORDER BY b.id");

STORE_QUERY(report_configs, "reading runs",
	    "SELECT id, config_sha256, config FROM runs"
	    " WHERE id BETWEEN ?1 AND ?2 ORDER BY id");

STORE_QUERY(report_failures, "reading failed trials",
	    "SELECT t.id, t.cell_id, c.run_id, t.status,"
	    " coalesce(t.error, '') FROM trials t"
	    " JOIN cells c ON c.id = t.cell_id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
	    " AND t.status <> 'ok' ORDER BY t.id");

STORE_QUERY(report_collectors, "reading which collectors ran",
	    "SELECT t.cell_id, t.profile, coalesce(t.collectors, ''),"
	    " count(*) FROM cells c JOIN trials t ON t.cell_id = c.id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
	    " AND t.status = 'ok' GROUP BY t.cell_id, t.profile,"
	    " t.collectors ORDER BY t.profile, t.cell_id");

STORE_QUERY(report_throughput, "reading throughput",
	    "SELECT t.cell_id, t.profile, m.value, m.unit FROM cells c"
	    " JOIN trials t ON t.cell_id = c.id"
	    " JOIN metrics m ON m.trial_id = t.id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
	    " AND t.status = 'ok' AND m.name = 'throughput'");

STORE_QUERY(report_bytes, "reading interval series",
	    "SELECT t.id, coalesce("
	    " (SELECT m.value FROM metrics m WHERE m.trial_id = t.id"
	    "  AND m.name = 'bytes' AND m.unit = 'bytes'),"
	    " (SELECT total(i.value * (i.t_end - i.t_start)) / 8"
	    "  FROM intervals i WHERE i.trial_id = t.id"
	    "  AND i.metric = 'throughput' AND i.unit = 'bit/s'"
	    "  HAVING count(*) > 0))"
	    " FROM cells c JOIN trials t ON t.cell_id = c.id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
	    " AND t.profile = 0 AND t.status = 'ok' ORDER BY t.id");

STORE_QUERY(report_probes, "reading probes",
	    "SELECT t.cell_id, t.id, p.name, p.attach, p.target, p.calls,"
	    " p.total_ns, p.hist FROM cells c"
	    " JOIN trials t ON t.cell_id = c.id"
	    " JOIN probes p ON p.trial_id = t.id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
	    " AND t.profile = 0 AND t.status = 'ok'");

STORE_QUERY(report_profiled, "reading profiles",
	    "SELECT t.cell_id, count(DISTINCT pr.trial_id),"
	    " group_concat(DISTINCT pr.event) FROM cells c"
	    " JOIN trials t ON t.cell_id = c.id"
	    " JOIN profile pr ON pr.trial_id = t.id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
	    " AND t.status = 'ok' GROUP BY t.cell_id");

STORE_QUERY(report_symbols, "reading profile symbols",
	    "SELECT t.cell_id, pr.symbol, pr.dso, total(pr.overhead)"
	    " FROM cells c JOIN trials t ON t.cell_id = c.id"
	    " JOIN profile pr ON pr.trial_id = t.id"
	    " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0"
	    " AND t.status = 'ok' GROUP BY t.cell_id, pr.symbol, pr.dso");

STORE_QUERY(report_series, "reading an interval series",
	    "SELECT t_start, t_end, value FROM intervals"
	    " WHERE trial_id = ?1 AND metric = 'throughput'"
	    " AND unit = 'bit/s' ORDER BY t_start");

STORE_QUERY(report_series_trials, "choosing trials to plot",
	    "SELECT t.id, t.cell_id FROM cells c"
	    " JOIN trials t ON t.cell_id = c.id"
	    " WHERE c.run_id = ?1 AND t.warmup = 0 AND t.profile = 0"
	    " AND t.status = 'ok' AND EXISTS (SELECT 1 FROM intervals i WHERE"
	    "  i.trial_id = t.id AND i.metric = 'throughput')"
	    " ORDER BY t.id");
