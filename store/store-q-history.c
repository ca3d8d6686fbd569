// SPDX-License-Identifier: GPL-2.0-only
/* The history page's queries: the robot's finished nights and their runs. */
#include "store-priv.h"

/*
 * The nights a history is drawn over: finished, with a run, not failed
 * (a failed night measured nothing), oldest first per series.
 */
STORE_QUERY(history_nights, "reading nights",
	    "SELECT n.id, n.series, n.kernel, n.head, ifnull(n.package, ''),"
	    " n.run_id, ifnull(n.verdict, ''), ifnull(n.head_subject, '')"
	    " FROM nights n JOIN runs r ON r.id = n.run_id"
	    " WHERE n.stage = 'done' AND ifnull(n.verdict, '') <> 'failed'"
	    " ORDER BY n.series, n.id");
