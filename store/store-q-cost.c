// SPDX-License-Identifier: GPL-2.0-only
/* compare --cost's queries: a trial's CPU, probes and profile. */
#include "store-priv.h"

STORE_QUERY(
	cost_trials, "reading trials",
	"SELECT t.id, c.run_id, h.name, k.name, c.mode, c.workload, " STORE_SQL_MODE_MISMATCH(
		"t") " FROM cells c JOIN trials t ON t.cell_id = c.id"
		     " JOIN hosts h ON h.id = c.host_id JOIN kernels k ON k.id = c.kernel_id"
		     " WHERE c.run_id BETWEEN ?1 AND ?2 AND t.warmup = 0 AND t.profile = ?3"
		     " AND t.status = 'ok' ORDER BY t.id");

STORE_QUERY(
	cost_metrics, "reading metrics",
	"SELECT name, value FROM metrics WHERE trial_id = ?1 AND (name IN"
	" ('throughput', 'busy_cores', 'bytes', 'probe_window_s',"
	" 'probe_floor_ns', 'probe_floor_spread_ns', 'cpu_util_pct', 'map_ns',"
	" 'unmap_ns')"
	" OR name GLOB '*" STORE_BPF_NS_SUFFIX "')");

/*
 * Timed calls are the histogram's: a call whose start was not seen has
 * no duration, and the mean is over the calls that have one.
 */
STORE_QUERY(
	cost_probes, "reading probes",
	"SELECT name, calls, total_ns, (SELECT coalesce(sum(value), 0) FROM"
	" json_each(hist)), self_ns FROM probes WHERE trial_id = ?1"
	" AND attach NOT IN ('', 'none', 'unprotected') AND name <> 'exposure'"
	" ORDER BY id");

/* A profile trial's samples in a path's functions (its target list). */
STORE_QUERY(cost_profile, "reading a profile",
	    "SELECT count(*), coalesce(sum(samples), 0) FROM profile"
	    " WHERE trial_id = ?1 AND (?2 = '' OR ',' || ?2 || ',' LIKE"
	    " '%,' || symbol || ',%')");

STORE_QUERY(
	cost_targets, "reading probes",
	"SELECT name, total_ns, replace(target, ' ', ''), calls,"
	" (SELECT coalesce(sum(value), 0) FROM json_each(hist)) FROM probes"
	" WHERE trial_id = ?1 AND calls > 0"
	" AND attach NOT IN ('', 'none', 'unprotected') AND name <> 'exposure'"
	" AND target NOT LIKE '%>%' ORDER BY id");
