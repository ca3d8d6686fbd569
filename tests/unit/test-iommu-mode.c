// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IOMMU mode table and every place that reads it: a mode goes from
 * its name to its group type and back, in the matrix, the agent's sysfs
 * switch, the host's facts and the run's verification alike.
 */
#include <errno.h>
#include <stdlib.h>

#include "bench/matrix/matrix-priv.h"
#include "bench/matrix/matrix.h"
#include "bench/run/run.h"
#include "collectors/hostfacts/hostfacts.h"
#include "iommu-mode.h"
#include "tap.h"
#include "util.h"

static void test_round_trip(const struct matrix *m, enum iommu_mode i)
{
	const struct iommu_mode_info *info = iommu_mode__info(i);
	struct hostfacts_group g = { .type = (char *)info->group_type };
	const struct matrix_mode *md;
	long idx;

	is_int(iommu_mode__by_name(info->name), i, "%s: by name", info->name);
	is_int(iommu_mode__by_group_type(info->group_type), i,
	       "%s: by group type %s", info->name, info->group_type);
	ok(iommu_group_type__writable(info->group_type),
	   "%s: %s may be written to sysfs", info->name, info->group_type);
	is_str(iommu_group_types()[i], info->group_type,
	       "%s: in the list of group types", info->name);

	is_str(group_type__name(GROUP_TYPE_DMA + i), info->group_type,
	       "%s: the matrix's group type spelt", info->name);
	is_int(group_type__mode(GROUP_TYPE_DMA + i), i,
	       "%s: the matrix's group type is the mode", info->name);

	is_str(hostfacts__dma_mode_name(HOSTFACTS_DMA_STRICT + i), info->name,
	       "%s: the host's facts name it", info->name);
	is_int(hostfacts__group_mode(&g), HOSTFACTS_DMA_STRICT + i,
	       "%s: a group of type %s is in it", info->name, info->group_type);

	idx = matrix__find_mode(m, info->name);
	if (!ok(idx >= 0, "%s: a built-in mode of the matrix", info->name))
		return;
	md = &m->modes[idx];
	is_int(md->group_type, GROUP_TYPE_DMA + i, "%s: its group type",
	       info->name);
	if (ok(md->nr_cmdline == 1, "%s: one kernel argument", info->name))
		is_str(md->cmdline[0], info->cmdline, "%s: boots with %s",
		       info->name, info->cmdline);
	is_str(run_state__expected_mode(md), info->name,
	       "%s: the run expects the host to report it", info->name);
}

static void test_not_modes(void)
{
	struct hostfacts_group g = { .type = "blocked" };
	char *words;

	ok(iommu_mode__info(NR_IOMMU_MODES) == NULL, "no mode past the last");
	is_int(iommu_mode__by_name("auto"), -ENOENT, "auto is no mode");
	is_int(iommu_mode__by_name(NULL), -ENOENT, "nor is no name");
	is_int(iommu_mode__by_group_type("blocked"), -ENOENT,
	       "blocked is no mode's group type");
	ok(iommu_group_type__writable(IOMMU_GROUP_TYPE_AUTO),
	   "auto may be written to sysfs");
	ok(!iommu_group_type__writable("blocked"), "blocked may not");
	ok(!iommu_group_type__writable(NULL), "nor may nothing");
	ok(iommu_group_types()[NR_IOMMU_MODES + 1] == NULL,
	   "the group types end after auto");
	words = iommu_group_types__words();
	is_str(words, "DMA, DMA-FQ, identity or auto", "the types in words");
	free(words);
	is_str(group_type__name(GROUP_TYPE_AUTO), "auto", "matrix: auto");
	is_str(group_type__name(GROUP_TYPE_UNSET), "", "matrix: unset");
	is_int(group_type__mode(GROUP_TYPE_AUTO), -ENOENT,
	       "matrix: auto is no mode");
	is_int(group_type__mode(GROUP_TYPE_UNSET), -ENOENT,
	       "matrix: unset is no mode");
	is_int(hostfacts__group_mode(&g), HOSTFACTS_DMA_UNKNOWN,
	       "hostfacts: a blocked group has no DMA-API mode");
	g.type = NULL;
	is_int(hostfacts__group_mode(&g), HOSTFACTS_DMA_UNKNOWN,
	       "hostfacts: nor has an unread one");
	is_str(hostfacts__dma_mode_name(HOSTFACTS_DMA_NONE), "none",
	       "hostfacts: none");
	is_str(hostfacts__dma_mode_name(HOSTFACTS_DMA_MIXED), "mixed",
	       "hostfacts: mixed");
	is_str(hostfacts__dma_mode_name(HOSTFACTS_DMA_MIXED + 1), "unknown",
	       "hostfacts: past the end");
}

int main(void)
{
	struct matrix m = { 0 };
	size_t i;

	matrix__init_modes(&m);
	for (i = 0; i < NR_IOMMU_MODES; i++)
		test_round_trip(&m, i);
	for (i = 0; i < m.nr_modes; i++)
		matrix_mode__release(&m.modes[i]);
	free(m.modes);
	test_not_modes();
	return tap_done();
}
