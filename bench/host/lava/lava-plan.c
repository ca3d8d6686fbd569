// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a plan asks of a lab: the LAVA jobs a run would submit, one per
 * boot of each lava host, what each boots and runs, and the device time
 * they take; and, for review before anything is submitted, the jobs'
 * definitions as files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic-file.h"
#include "bench/host/host.h"
#include "bench/host/lava/lava-plan.h"
#include "bench/host/lava/lava.h"
#include "bench/host/qemu/qemu.h"
#include "chan-auth.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

/* The boot arguments of the job trial @t starts, as run-state.c boots. */
static const char **boot_args(const struct matrix *m,
			      const struct plan_trial *t, size_t *nr)
{
	const struct matrix_kernel *k = &m->kernels[t->kernel];
	const struct matrix_mode *md = &m->modes[t->mode];
	bool by_boot = t->apply == APPLY_RESTART;
	const char **args;
	size_t i;

	args = xcalloc(k->nr_cmdline + md->nr_cmdline + 1, sizeof(*args));
	*nr = 0;
	for (i = 0; i < k->nr_cmdline; i++)
		args[(*nr)++] = k->cmdline[i];
	for (i = 0; by_boot && i < md->nr_cmdline; i++)
		args[(*nr)++] = md->cmdline[i];
	return args;
}

/* A boot's files (with a blank secret) and its parts of the definition. */
static int boot_of(const struct matrix_host *h, const struct qemu_kernel *qk,
		   const struct matrix_kernel *k, const char *root,
		   const char *const *args, size_t nr, struct lava_files *files,
		   struct lava_boot *b, char **err)
{
	/* Each job's own secret is made at its submission: none here. */
	static const uint8_t blank[CHAN_SECRET_SIZE];
	int ret;

	ret = lava_files__make(h, qk, root, blank, sizeof(blank), NULL, files,
			       err);
	if (ret)
		return ret;
	lava_boot__init(b, h, k->name, files, args, nr);
	return 0;
}

static void boot_free(struct lava_files *files, struct lava_boot *b)
{
	lava_boot__release(b);
	lava_files__release(files);
}

/* The job (with a peer device, the multinode job) trial @t starts. */
static char *job_of(const struct matrix *m, const struct matrix_host *h,
		    const struct plan_trial *t, const struct qemu_kernel *qk,
		    const char *root, char **err)
{
	const struct matrix_kernel *k = &m->kernels[t->kernel];
	struct lava_files files = { 0 }, pfiles = { 0 };
	struct lava_boot b = { 0 }, pb = { 0 };
	struct qemu_kernel *pqk = NULL;
	char *def = NULL;
	const char **args;
	size_t nr;

	args = boot_args(m, t, &nr);
	if (boot_of(h, &qk[t->kernel], k, root, args, nr, &files, &b, err))
		goto out;
	if (h->has_mate) {
		const struct matrix_host *ph = &m->hosts[h->mate];
		struct host fake = { .m = ph, .matrix = m };

		if (qemu__kernels(&fake, &pqk, err) ||
		    boot_of(ph, &pqk[t->kernel], k, root, NULL, 0, &pfiles, &pb,
			    err)) {
			qemu__kernels_free(&fake, pqk);
			goto out;
		}
		qemu__kernels_free(&fake, pqk);
		def = lava__multinode_definition(h, &b, ph, &pb);
	} else {
		def = lava__definition(h, &b);
	}
	if (!def)
		errmsg__set(err, 0, "the command line holds a quote");
out:
	free(args);
	boot_free(&files, &b);
	boot_free(&pfiles, &pb);
	return def;
}

static int write_yaml(const char *dir, const struct matrix *m,
		      const struct matrix_host *h, const struct plan_trial *t,
		      const struct qemu_kernel *qk, const char *root,
		      unsigned int n, char **err)
{
	char *def, *path, *text, *why = NULL;
	struct iovec iov;
	int ret;

	def = job_of(m, h, t, qk, root, &why);
	if (!def) {
		ret = errmsg__set(err, -EINVAL,
				  "host %s: job %u cannot be written: %s",
				  h->name, n, why);
		free(why);
		return ret;
	}
	text = xasprintf("# The initrd's sha256 is with a blank secret: each "
			 "job's initramfs\n# carries a secret of its own, so "
			 "its sha256 differs.\n%s",
			 def);
	path = xasprintf("%s/%s-job%u.yaml", dir, h->name, n);
	iov.iov_base = text;
	iov.iov_len = strlen(text);
	ret = atomic_file__write(path, &iov, 1);
	if (ret)
		errmsg__set(err, ret, "cannot write %s: %s", path,
			    strerror(-ret));
	free_all(path, def, text);
	return ret;
}

int lava_plan__print(const struct plan *p, const char *yaml_dir, FILE *fp,
		     char **err)
{
	const struct matrix *m = p->m;
	bool header = false;
	size_t h, i;
	int ret = 0;

	if (yaml_dir && mkdir(yaml_dir, 0755) && errno != EEXIST) {
		ret = -errno;
		return errmsg__set(err, ret,
				   "--lava-yaml: cannot create %s: %s",
				   yaml_dir, strerror(-ret));
	}
	for (h = 0; h < m->nr_hosts && !ret; h++) {
		const struct matrix_host *mh = &m->hosts[h];
		struct host fake = { .m = mh, .matrix = m };
		struct qemu_kernel *qk = NULL;
		char *root = NULL, *why = NULL;
		unsigned int jobs = 0, trials = 0;
		uint64_t device_ms = 0;

		if (mh->transport != HOST_LAVA)
			continue;
		if (mh->has_mate && mh->role != ROLE_SUT) {
			if (!header)
				fprintf(fp,
					"\nlab jobs (LAVA), one per boot\n");
			header = true;
			fprintf(fp,
				"  %-12s booted with host %s, as its multinode "
				"jobs' role " LAVA_ROLE_PEER "\n",
				mh->name, m->hosts[mh->mate].name);
			continue;
		}
		if (yaml_dir) {
			/* The definitions name the kernels' files by their
			 * digests: they are made now, as the run would. */
			ret = lava_root__make(qemu_conf(mh)->arch, &root, &why);
			if (ret) {
				errmsg__set(err, ret, "host %s: %s", mh->name,
					    why);
				free(why);
				break;
			}
			ret = qemu__kernels(&fake, &qk, err);
			if (ret) {
				qemu__kernels_free(&fake, qk);
				free(root);
				break;
			}
		}
		if (!header)
			fprintf(fp, "\nlab jobs (LAVA), one per boot\n");
		header = true;
		for (i = 0; i < p->nr_trials; i++) {
			const struct plan_trial *t = &p->trials[i];
			const struct matrix_workload *w;

			if (t->host != h)
				continue;
			w = &m->workloads[t->workload];
			if (t->reboot_before || !jobs) {
				jobs++;
				device_ms += mh->boot_estimate_ms;
				fprintf(fp, "  %-12s job %u: kernel %s%s%s\n",
					mh->name, jobs,
					m->kernels[t->kernel].name,
					t->apply == APPLY_RESTART ? ", mode " :
								    "",
					t->apply == APPLY_RESTART ?
						m->modes[t->mode].name :
						"");
				if (yaml_dir && !ret)
					ret = write_yaml(yaml_dir, m, mh, t, qk,
							 root, jobs, err);
			}
			trials++;
			device_ms += matrix_workload__trial_ms(w) +
				     PLAN_TRIAL_OVERHEAD_MS;
		}
		fprintf(fp,
			"  %-12s %u job%s of device type %s at %s, %u "
			"trial%s: about %llu min of device time, queueing "
			"not included\n",
			mh->name, jobs, jobs == 1 ? "" : "s",
			lava_conf(mh)->device_type, lava_conf(mh)->server,
			trials, trials == 1 ? "" : "s",
			(unsigned long long)(device_ms + 59999) / 60000);
		if (yaml_dir && !ret)
			fprintf(fp, "  %-12s definitions in %s/%s-job*.yaml\n",
				mh->name, yaml_dir, mh->name);
		qemu__kernels_free(&fake, qk);
		free(root);
	}
	if (yaml_dir && !header)
		pr_warn("--lava-yaml: no host of the matrix is a lava host");
	return ret;
}
