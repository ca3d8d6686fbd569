// SPDX-License-Identifier: GPL-2.0-only
/* iommu-bench version: the git revision it was built from and its parts. */
#include <jansson.h>
#include <stdio.h>

#include "builtin.h"
#include "output.h"
#include "parse-options.h"
#include "store/store-schema.h"
#include "store/store.h"
#include "util.h"

static const char *const version_usage[] = {
	"iommu-bench version [--json]",
	NULL,
};

int cmd_version(int argc, const char **argv)
{
	const struct option opts[] = {
		OPT_GLOBALS(),
		OPT_JSON(),
		OPT_END(),
	};
	unsigned int schema =
		store_migrations[store_migrations_count - 1].version;
	json_t *o;

	argc = parse_options(argc, argv, opts, version_usage, 0);
	if (argc)
		usage_error(version_usage, opts, "unexpected argument '%s'",
			    argv[0]);
	if (!global.json) {
		printf("iommu-bench %s\n", iommu_bench_version);
		printf("schema %u, sqlite %s, jansson %s\n", schema,
		       store__sqlite_version(), JANSSON_VERSION);
		return EXIT_OK;
	}
	o = json_pack("{s:s, s:i, s:s, s:s}", "version", iommu_bench_version,
		      "schema", (int)schema, "sqlite", store__sqlite_version(),
		      "jansson", JANSSON_VERSION);
	output__json(o);
	return EXIT_OK;
}
