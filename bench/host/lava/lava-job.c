// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LAVA job one boot of a lab's device is, and LAVA's answers about
 * jobs read into structs. No I/O here: what the job says and how an
 * answer is read are checked by tests/unit/test-lava.c and fuzzed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host/lava/lava.h"
#include "bench/host/qemu/qemu.h"
#include "bench/testbed/testbed.h"
#include "util.h"

static const struct {
	const char *word;
	enum lava_state state;
} states[] = {
	{ "Submitted", LAVA_SUBMITTED }, { "Scheduling", LAVA_SUBMITTED },
	{ "Scheduled", LAVA_SUBMITTED }, { "Running", LAVA_RUNNING },
	{ "Canceling", LAVA_ENDING },	 { "Finished", LAVA_FINISHED },
};

static char *opt_string(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s ? xstrdup(s) : NULL;
}

int lava_job__parse(const json_t *j, struct lava_job *out, char **err)
{
	const char *state = json_string_value(json_object_get(j, "state"));
	json_t *id = json_object_get(j, "id");
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_integer(id) || json_integer_value(id) <= 0 || !state) {
		*err = xstrdup("LAVA's answer about a job has no id or state");
		return -EPROTO;
	}
	for (i = 0; i < ARRAY_SIZE(states); i++)
		if (!strcmp(states[i].word, state))
			break;
	if (i == ARRAY_SIZE(states)) {
		*err = xasprintf("LAVA says job %lld is in a state this tool "
				 "does not know: '%.40s'",
				 (long long)json_integer_value(id), state);
		return -EPROTO;
	}
	out->id = json_integer_value(id);
	out->state = states[i].state;
	out->health = opt_string(j, "health");
	out->device = opt_string(j, "actual_device");
	out->submit_time = opt_string(j, "submit_time");
	out->start_time = opt_string(j, "start_time");
	out->end_time = opt_string(j, "end_time");
	return 0;
}

void lava_job__release(struct lava_job *j)
{
	free_all(j->health, j->device, j->submit_time, j->start_time,
		 j->end_time);
	memset(j, 0, sizeof(*j));
}

/* "key: value" in a case's metadata (YAML LAVA wrote), one line. */
static char *meta_line(const char *meta, const char *key)
{
	size_t n = strlen(key);
	const char *p, *e;

	for (p = meta; p && *p;
	     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, n) || p[n] != ':' || p[n + 1] != ' ')
			continue;
		p += n + 2;
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		if (e - p > 500)
			e = p + 500;
		/* LAVA quotes a value with ': ' in it. */
		if (e - p >= 2 && (*p == '\'' || *p == '"') && e[-1] == *p) {
			p++;
			e--;
		}
		return xstrndup(p, (size_t)(e - p));
	}
	return NULL;
}

char *lava_job__error(const json_t *tests)
{
	json_t *results = json_object_get(tests, "results"), *t;
	char *failed = NULL, *s;
	size_t i;

	json_array_foreach(results, i, t) {
		const char *name =
			json_string_value(json_object_get(t, "name"));
		const char *res =
			json_string_value(json_object_get(t, "result"));
		const char *meta =
			json_string_value(json_object_get(t, "metadata"));

		if (!name || !res || strcmp(res, "fail"))
			continue;
		if (!strcmp(name, "job") && meta) {
			char *type = meta_line(meta, "error_type");
			char *msg = meta_line(meta, "error_msg");

			if (msg || type) {
				s = xasprintf("%s%s%s", type ? type : "",
					      type && msg ? ": " : "",
					      msg ? msg : "");
				free_all(type, msg, failed);
				return s;
			}
		}
		s = failed ? xasprintf("%s, %.64s", failed, name) :
			     xasprintf("failed: %.64s", name);
		free(failed);
		failed = s;
	}
	return failed;
}

int lava_job__submitted(const json_t *j, int64_t *id)
{
	json_t *v = json_object_get(j, "job_ids");

	if (json_is_array(v))
		v = json_array_get(v, 0);
	else
		v = json_object_get(j, "job_id");
	if (!json_is_integer(v) || json_integer_value(v) <= 0)
		return -EPROTO;
	*id = json_integer_value(v);
	return 0;
}

char **lava__names(const json_t *j, size_t *nr)
{
	json_t *results = json_object_get(j, "results"), *t;
	char **v = xcalloc(json_array_size(results) + 1, sizeof(*v));
	size_t i;

	*nr = 0;
	json_array_foreach(results, i, t) {
		const char *name =
			json_string_value(json_object_get(t, "name"));

		if (name)
			v[(*nr)++] = xstrdup(name);
	}
	return v;
}

/* A YAML single-quoted scalar: quotes doubled, nothing else special. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static void put_option(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put_option(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	fputs("  - ", f);
	put_quoted(f, s);
	fputc('\n', f);
	free(s);
}

/* LAVA's schema takes 200 characters at most. */
#define JOB_NAME_MAX 200

char *lava__job_name(const struct matrix_host *m, const char *kernel,
		     const char *const *args, size_t nr_args)
{
	char *s = xasprintf("iommu-bench: host %s, kernel %s", m->name, kernel);
	size_t i;

	for (i = 0; i < nr_args; i++) {
		char *t = xasprintf("%s%s %s", s, i ? "" : ",", args[i]);

		free(s);
		s = t;
	}
	if (strlen(s) > JOB_NAME_MAX)
		strcpy(s + JOB_NAME_MAX - 3, "...");
	return s;
}

/* ADDRESS:PORT as a URL or the agent writes it: IPv6 in brackets. */
char *lava__hostport(const char *addr, unsigned int port)
{
	return strchr(addr, ':') ? xasprintf("[%s]:%u", addr, port) :
				   xasprintf("%s:%u", addr, port);
}

char *lava__boot_cmdline(const struct matrix_host *m, const char *const *args,
			 size_t nr_args)
{
	char *base = qemu__cmdline(m, LAVA_ROOT_AGENT, args, nr_args);
	char *ctl = lava__hostport(m->lava.controller, m->lava.agent_port);
	char *s = xasprintf("%s iommu_bench.gw=%s iommu_bench.ctl=%s", base,
			    m->lava.gateway, ctl);

	free_all(base, ctl);
	return s;
}

char *lava__boot_definition(const struct matrix_host *m, const char *kernel,
			    const struct lava_files *files,
			    const char *const *args, size_t nr_args,
			    char **cmdline)
{
	struct lava_boot b = { 0 };
	char *name, *def;

	*cmdline = lava__boot_cmdline(m, args, nr_args);
	name = lava__job_name(m, kernel, args, nr_args);
	b.job_name = name;
	b.files = files;
	b.cmdline = *cmdline;
	b.timeout_ms = m->boot_timeout_ms + m->lava.job_timeout_ms;
	def = lava__definition(m, &b);
	free(name);
	if (!def) {
		free(*cmdline);
		*cmdline = NULL;
	}
	return def;
}

/* One of the job's files: where the worker fetches it, and its digest. */
static void put_image(FILE *f, const char *what, const char *image_arg,
		      const char *url, const char *sha)
{
	fprintf(f, "      %s:\n        image_arg: ", what);
	put_quoted(f, image_arg);
	fputs("\n        url: ", f);
	put_quoted(f, url);
	fprintf(f, "\n        sha256sum: '%s'\n", sha);
}

char *lava__definition(const struct matrix_host *m, const struct lava_boot *b)
{
	unsigned long long job_s = (b->timeout_ms + 999) / 1000;
	unsigned long long boot_s = (m->boot_timeout_ms + 999) / 1000;
	const struct qemu_machine *qm = qemu__machine(m);
	bool ours = m->lava.template == LAVA_TEMPLATE_IOMMU_BENCH;
	char *buf = NULL, *arg, *dev;
	size_t len = 0, i;
	FILE *f;

	/*
	 * LAVA puts image_arg into QEMU's command line in a shell's words:
	 * the command line goes in single quotes, so it must hold none
	 * (the matrix allows none in a kernel argument).
	 */
	if (strpbrk(b->cmdline, "'\\\n"))
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "# iommu-bench: one boot of host %s\n", m->name);
	fputs("device_type: ", f);
	put_quoted(f, m->lava.device_type);
	fputs("\njob_name: ", f);
	put_quoted(f, b->job_name);
	fprintf(f, "\npriority: %u\nvisibility: personal\n", m->lava.priority);
	if (m->lava.nr_tags) {
		fputs("tags:\n", f);
		for (i = 0; i < m->lava.nr_tags; i++) {
			fputs("- ", f);
			put_quoted(f, m->lava.tags[i]);
			fputc('\n', f);
		}
	}
	fprintf(f,
		"timeouts:\n  job: {seconds: %llu}\n"
		"  action: {seconds: %llu}\n"
		"  connection: {seconds: 120}\n",
		job_s, job_s);
	/* The testbed's machine, in what LAVA's qemu template leaves open. */
	fprintf(f, "context:\n  arch: %s\n",
		m->qemu.arch ? m->qemu.arch->deb : "amd64");
	if (!ours)
		fputs("  model: 'model=e1000e'\n", f);
	fputs("  extra_options:\n", f);
	if (ours) {
		/* The testbed's machine, as qemu-argv.c starts it. */
		arg = qemu__machine_arg(m, false);
		put_option(f, "-machine %s", arg);
		free(arg);
		put_option(f, "-cpu %s", qm ? qm->tcg_cpu : "max");
	} else {
		put_option(f, "-machine q35");
		put_option(f, "-cpu max");
	}
	put_option(f, "-smp %u", m->qemu.cpus);
	put_option(f, "-m %lluM", (unsigned long long)(m->qemu.memory >> 20));
	/* A panic ends the job at once, not at its timeout. */
	put_option(f, "-no-reboot");
	dev = qemu__iommu_device(m);
	if (dev)
		put_option(f, "-device %s", dev);
	free(dev);
	/* Our device type leaves the NIC to the job: behind the vIOMMU. */
	if (ours) {
		put_option(f, "-netdev user,id=n0");
		put_option(f, "-device %s", qemu__nic_device(m));
	}
	fprintf(f,
		"actions:\n- deploy:\n    timeout: {seconds: %llu}\n"
		"    to: tmpfs\n    os: oe\n    images:\n",
		boot_s);
	arg = xasprintf("-kernel {kernel} -append '%s'", b->cmdline);
	put_image(f, "kernel", arg, b->files->kernel_url, b->files->kernel_sha);
	free(arg);
	put_image(f, "initrd", "-initrd {initrd}", b->files->initrd_url,
		  b->files->initrd_sha);
	fprintf(f,
		"- boot:\n    method: qemu\n    media: tmpfs\n"
		"    timeout: {seconds: %llu}\n",
		boot_s);
	/*
	 * The job lasts from the guest's ready line until the agent powers
	 * it off (the run's last trial on this boot); the pattern is one
	 * the guest never prints: the results are the run's, not LAVA's.
	 */
	fprintf(f,
		"- test:\n    timeout: {seconds: %llu}\n    monitors:\n"
		"    - name: iommu-bench\n      start: '%s'\n"
		"      end: 'reboot: Power down'\n"
		"      pattern: 'iommu-bench-lava: (?P<test_case_id>\\S+) "
		"(?P<result>pass|fail)'\n",
		job_s, TESTBED_READY_LINE);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
