/* SPDX-License-Identifier: GPL-2.0-only */
/* The migrations in schemas/, embedded at build time. */
#ifndef IOMMU_BENCH_STORE_SCHEMA_H
#define IOMMU_BENCH_STORE_SCHEMA_H

struct store_migration {
	unsigned int version; /* the schema version after applying it */
	const char *name;     /* "0001-initial" */
	const char *sql;
};

extern const struct store_migration store_migrations[];
extern const unsigned int store_migrations_count;

#endif /* IOMMU_BENCH_STORE_SCHEMA_H */
