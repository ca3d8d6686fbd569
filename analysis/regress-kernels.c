// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which Debian package version each side's kernels were. A nightly over
 * a kernel that follows its suite measures a different build each time
 * it moves, under the same matrix name: the gate must say so beside its
 * verdict ("kernel debian-sid: 7.3.4-1 -> 7.3.5-1"), or a change of the
 * kernel reads as a change of the code under test.
 */
#include <jansson.h>

#include "rdb.h"
#include "regress.h"
#include "util.h"

int regress__kernels(struct rdb *r, struct regress_result *res)
{
	struct store_rows *s;
	int rc;

	rc = rdb__query(r, &store_q_kernel_packages,
			STORE_ARGS(STORE_INT(res->base.run),
				   STORE_INT(res->cand.run),
				   STORE_TEXT(res->base.kernel),
				   STORE_TEXT(res->cand.kernel)),
			&s);
	if (rc)
		return rc;
	res->kernels = json_array();
	while ((rc = store_rows__next(s)) > 0) {
		const char *b = store_rows__text(s, 1);
		const char *c = store_rows__text(s, 2);

		if (b || c)
			json_array_append_new(
				res->kernels,
				json_pack("{s:s, s:s?, s:s?}", "name",
					  store_rows__text(s, 0), "baseline", b,
					  "candidate", c));
	}
	store_rows__close(s);
	return rc;
}
