// SPDX-License-Identifier: GPL-2.0-only
/*
 * The testbed VM's threads on the host's CPUs: QEMU starts on the io
 * CPU (every thread it makes inherits it), then each vCPU's thread goes
 * to its own. On a two-CPU controller a vCPU that shares a CPU with the
 * peer's iperf3 and QEMU's I/O stalls while holding guest locks, and
 * throughput then varies by a third between trials of one cell while
 * QEMU's CPU time stays the same (docs/testbed-noise.md).
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/qemu/qemu.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

static bool allowed(const cpu_set_t *set, size_t size, int cpu)
{
	return cpu >= 0 && (size_t)cpu < size * 8 &&
	       CPU_ISSET_S(cpu, size, set);
}

static int check_cpu(const struct matrix_host *m, const cpu_set_t *set,
		     size_t size, int cpu, char **err)
{
	if (allowed(set, size, cpu))
		return 0;
	return errmsg__set(err, -EINVAL,
			   "host %s: affinity: CPU %d is not one this "
			   "controller may run on (it has %d)",
			   m->name, cpu, CPU_COUNT_S(size, set));
}

int qemu__check_affinity(const struct matrix_host *m, char **err)
{
	size_t size = CPU_ALLOC_SIZE(MATRIX_MAX_CPU + 1), i;
	cpu_set_t *set = CPU_ALLOC(MATRIX_MAX_CPU + 1);
	int ret = 0;

	if (!set)
		return -ENOMEM;
	if (sched_getaffinity(0, size, set)) {
		ret = -errno;
		errmsg__set(err, ret,
			    "host %s: affinity: cannot read this controller's "
			    "CPUs: %s",
			    m->name, strerror(-ret));
	}
	for (i = 0; !ret && i < qemu_conf(m)->nr_vcpu_cpus; i++)
		ret = check_cpu(m, set, size, qemu_conf(m)->vcpu_cpus[i], err);
	/* QEMU itself is pinned by the process runner's fixed-size set. */
	if (!ret && qemu_conf(m)->io_cpu >= 0)
		ret = qemu_conf(m)->io_cpu < CPU_SETSIZE ?
			      check_cpu(m, set, size, qemu_conf(m)->io_cpu,
					err) :
			      check_cpu(m, set, 0, qemu_conf(m)->io_cpu, err);
	CPU_FREE(set);
	return ret;
}

/* "CPU 3/TCG" or "CPU 3/KVM", with -name debug-threads=on: vCPU 3. */
static int vcpu_of(int pid, const char *tid)
{
	char path[320], comm[32] = "";
	unsigned int n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, tid);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	if (!fgets(comm, sizeof(comm), fp))
		comm[0] = '\0';
	fclose(fp);
	if (sscanf(comm, "CPU %u/", &n) != 1)
		return -1;
	return (int)n;
}

int qemu__pin_vcpus(const struct matrix_host *m, int pid)
{
	size_t size = CPU_ALLOC_SIZE(MATRIX_MAX_CPU + 1), pinned = 0;
	cpu_set_t *set;
	struct dirent *de;
	char path[64];
	DIR *d;
	int n, ret = 0;

	if (!qemu_conf(m)->nr_vcpu_cpus)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	set = CPU_ALLOC(MATRIX_MAX_CPU + 1);
	while (set && (de = readdir(d))) {
		n = vcpu_of(pid, de->d_name);
		if (n < 0 || (size_t)n >= qemu_conf(m)->nr_vcpu_cpus)
			continue;
		CPU_ZERO_S(size, set);
		CPU_SET_S(qemu_conf(m)->vcpu_cpus[n], size, set);
		if (sched_setaffinity(atoi(de->d_name), size, set)) {
			ret = -errno;
			break;
		}
		pr_debug("host %s: vCPU %d (thread %s) on CPU %d", m->name, n,
			 de->d_name, qemu_conf(m)->vcpu_cpus[n]);
		pinned++;
	}
	closedir(d);
	if (!set)
		return -ENOMEM;
	CPU_FREE(set);
	if (!ret && pinned != qemu_conf(m)->nr_vcpu_cpus)
		ret = -ESRCH;
	return ret;
}
