/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One option of a kernel's .config file: a build's, a package's
 * /boot/config-RELEASE or the running kernel's /proc/config.gz. Read
 * where the kernel is (the agent) and where it is only a file (the
 * controller, before it boots it).
 */
#ifndef IOMMU_BENCH_KCONFIG_FILE_H
#define IOMMU_BENCH_KCONFIG_FILE_H

/*
 * @name's ("CONFIG_X") value in the config at @path, gzip'ed or not:
 * 0 and *@val the value, "n" for "is not set", NULL where the config
 * does not name it (its dependencies were off); a negative errno when
 * @path cannot be read.
 */
int kconfig_file__value(const char *path, const char *name, char **val);

#endif /* IOMMU_BENCH_KCONFIG_FILE_H */
