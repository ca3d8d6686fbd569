// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iommu-mode.h"
#include "util.h"

/* Each mode once; both arrays below are drawn from this list. */
#define IOMMU_MODES(X)                                                   \
	X(STRICT, "strict", "DMA", "iommu.strict=1",                     \
	  "invalidate the IOTLB synchronously on every unmap")           \
	X(LAZY, "lazy", "DMA-FQ", "iommu.strict=0",                      \
	  "batch IOTLB invalidations in a flush queue")                  \
	X(PASSTHROUGH, "passthrough", "identity", "iommu.passthrough=1", \
	  "identity mapping: DMA bypasses translation")

#define MODE_INFO(id, name, type, cmdline, desc) \
	[IOMMU_MODE_##id] = { name, type, cmdline, desc },
#define MODE_TYPE(id, name, type, cmdline, desc) [IOMMU_MODE_##id] = type,

static const struct iommu_mode_info modes[NR_IOMMU_MODES] = { IOMMU_MODES(
	MODE_INFO) };

/* A static NULL-terminated list, as the matrix's enum parser takes. */
static const char *const group_types[NR_IOMMU_MODES + 2] = {
	IOMMU_MODES(MODE_TYPE)[NR_IOMMU_MODES] = IOMMU_GROUP_TYPE_AUTO,
};

const struct iommu_mode_info *iommu_mode__info(enum iommu_mode m)
{
	return (unsigned int)m < NR_IOMMU_MODES ? &modes[m] : NULL;
}

static int find(const char *word, bool by_type)
{
	int i;

	for (i = 0; word && i < NR_IOMMU_MODES; i++)
		if (!strcmp(by_type ? modes[i].group_type : modes[i].name,
			    word))
			return i;
	return -ENOENT;
}

int iommu_mode__by_name(const char *name)
{
	return find(name, false);
}

int iommu_mode__by_group_type(const char *type)
{
	return find(type, true);
}

const char *const *iommu_group_types(void)
{
	return group_types;
}

/* The first @n group types: "A, B or C". */
static char *types_words(size_t n)
{
	char *words = xstrdup(""), *more;
	size_t i;

	for (i = 0; i < n; i++) {
		more = xasprintf("%s%s%s", words,
				 !i	   ? "" :
				 i + 1 < n ? ", " :
					     " or ",
				 group_types[i]);
		free(words);
		words = more;
	}
	return words;
}

char *iommu_group_types__words(void)
{
	return types_words(NR_IOMMU_MODES + 1);
}

char *iommu_mode__types_words(void)
{
	return types_words(NR_IOMMU_MODES);
}

bool iommu_group_type__writable(const char *type)
{
	const char *const *t;

	for (t = group_types; type && *t; t++)
		if (!strcmp(*t, type))
			return true;
	return false;
}
