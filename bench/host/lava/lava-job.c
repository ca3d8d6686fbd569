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

#include "bench/host/host-console.h"
#include "bench/host/lava/lava.h"
#include "bench/host/qemu/qemu.h"
#include "bench/testbed/testbed.h"
#include "errmsg.h"
#include "sha256.h"
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

/* A multinode sub-job's "KEY: VALUE" in its definition (LAVA's YAML). */
static char *definition_word(const char *def, const char *key)
{
	size_t n = strlen(key), len;
	const char *p;

	for (p = def; p && *p;
	     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		p += strspn(p, " ");
		if (strncmp(p, key, n) || p[n] != ':' || p[n + 1] != ' ')
			continue;
		p += n + 2;
		len = strcspn(p, " \r\n'\"");
		return len && len <= 128 ? xstrndup(p, len) : NULL;
	}
	return NULL;
}

int lava_job__parse(const json_t *j, struct lava_job *out, char **err)
{
	const char *state = json_string_value(json_object_get(j, "state"));
	json_t *id = json_object_get(j, "id");
	const char *def;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_integer(id) || json_integer_value(id) <= 0 || !state)
		return errmsg__set(
			err, -EPROTO,
			"LAVA's answer about a job has no id or state");
	for (i = 0; i < ARRAY_SIZE(states); i++)
		if (!strcmp(states[i].word, state))
			break;
	if (i == ARRAY_SIZE(states))
		return errmsg__set(err, -EPROTO,
				   "LAVA says job %lld is in a state this tool "
				   "does not know: '%.40s'",
				   (long long)json_integer_value(id), state);
	out->id = json_integer_value(id);
	out->state = states[i].state;
	out->health = opt_string(j, "health");
	out->device = opt_string(j, "actual_device");
	out->submit_time = opt_string(j, "submit_time");
	out->start_time = opt_string(j, "start_time");
	out->end_time = opt_string(j, "end_time");
	def = json_string_value(json_object_get(j, "definition"));
	if (def && strstr(def, "lava-multinode")) {
		out->role = definition_word(def, "role");
		out->group = definition_word(def, "target_group");
	}
	return 0;
}

void lava_job__release(struct lava_job *j)
{
	free_all(j->health, j->device, j->submit_time, j->start_time,
		 j->end_time, j->role, j->group);
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

int lava_job__submitted_group(const json_t *j, int64_t *first, size_t *nr)
{
	json_t *v = json_object_get(j, "job_ids"), *e;
	long long n, sub;
	size_t i;
	int len;

	if (!json_is_array(v) || !json_array_size(v))
		return -EPROTO;
	json_array_foreach(v, i, e) {
		const char *s = json_string_value(e);

		if (!s || sscanf(s, "%lld.%lld%n", &n, &sub, &len) != 2 ||
		    s[len] || n <= 0 || sub < 0)
			return -EPROTO;
		if (!i)
			*first = n;
		else if (n != *first)
			return -EPROTO;
	}
	*nr = json_array_size(v);
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

static void put_option(FILE *f, const char *ind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_option(FILE *f, const char *ind, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(f, "%s  - ", ind);
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
	char *ctl = lava__hostport(lava_conf(m)->controller,
				   lava_conf(m)->agent_port);
	char *s = xasprintf("%s iommu_bench.gw=%s iommu_bench.ctl=%s%s", base,
			    lava_conf(m)->gateway, ctl,
			    m->has_mate ? " iommu_bench.ctlnic=" LAVA_CTL_NIC
					  " iommu_bench.ctlip=" LAVA_CTL_IP :
					  "");

	free_all(base, ctl);
	return s;
}

void lava_boot__init(struct lava_boot *b, const struct matrix_host *m,
		     const char *kernel, const struct lava_files *files,
		     const char *const *args, size_t nr_args)
{
	b->job_name = lava__job_name(m, kernel, args, nr_args);
	b->files = files;
	b->cmdline = lava__boot_cmdline(m, args, nr_args);
	b->timeout_ms = m->boot_timeout_ms + lava_conf(m)->job_timeout_ms;
}

void lava_boot__release(struct lava_boot *b)
{
	free_all((char *)b->job_name, (char *)b->cmdline);
	memset(b, 0, sizeof(*b));
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

/*
 * LAVA puts image_arg into QEMU's command line in a shell's words: the
 * command line goes in single quotes, so it must hold none (the matrix
 * allows none in a kernel argument).
 */
static bool quotable(const struct lava_boot *b)
{
	return !strpbrk(b->cmdline, "'\\\n");
}

/* A device's address on the lab's network: its own, from its name. */
static void lab_mac(const struct matrix_host *m, char out[18])
{
	char h[SHA256_HEX_SIZE];

	sha256__hex(m->name, strlen(m->name), h);
	/* 02: locally administered, unicast. */
	snprintf(out, 18, "02:%.2s:%.2s:%.2s:%.2s:%.2s", h, h + 2, h + 4, h + 6,
		 h + 8);
}

/* What the job sets of the device's VM (@ind: the context's indent). */
static void put_context(FILE *f, const struct matrix_host *m, const char *ind)
{
	const struct qemu_machine *qm = qemu__machine(m);
	bool ours = lava_conf(m)->template == LAVA_TEMPLATE_IOMMU_BENCH;
	char *arg, *dev, mac[18];

	/* The testbed's machine, in what LAVA's qemu template leaves open. */
	fprintf(f, "%scontext:\n%s  arch: %s\n", ind, ind,
		qemu_conf(m)->arch ? qemu_conf(m)->arch->deb : "amd64");
	if (!ours)
		fprintf(f, "%s  model: 'model=e1000e'\n", ind);
	fprintf(f, "%s  extra_options:\n", ind);
	if (ours) {
		/* The testbed's machine, as qemu-argv.c starts it. */
		arg = qemu__machine_arg(m, false);
		put_option(f, ind, "-machine %s", arg);
		free(arg);
		put_option(f, ind, "-cpu %s", qm ? qm->tcg_cpu : "max");
	} else {
		put_option(f, ind, "-machine q35");
		put_option(f, ind, "-cpu max");
	}
	put_option(f, ind, "-smp %u", qemu_conf(m)->cpus);
	put_option(f, ind, "-m %lluM",
		   (unsigned long long)(qemu_conf(m)->memory >> 20));
	/* A panic ends the job at once, not at its timeout. */
	put_option(f, ind, "-no-reboot");
	dev = qemu__iommu_device(m);
	if (dev)
		put_option(f, ind, "-device %s", dev);
	free(dev);
	if (!ours)
		return;
	/*
	 * Our device type leaves the NICs to the job, behind the vIOMMU. A
	 * multinode job's device has two: first (eth0, under test) on the
	 * lab's network, the netdev lab0 the device type joins; then the
	 * one the agent dials the controller through.
	 */
	if (m->has_mate) {
		lab_mac(m, mac);
		dev = qemu__nic_device_on(m, "lab0");
		put_option(f, ind, "-device %s,mac=%s", dev, mac);
		free(dev);
	}
	put_option(f, ind, "-netdev user,id=n0");
	put_option(f, ind, "-device %s", qemu__nic_device(m));
}

/* @role: "" for a job of one device, else "    role: [ROLE]\n". */
static void put_deploy(FILE *f, const struct lava_boot *b,
		       unsigned long long boot_s, const char *role)
{
	char *arg;

	fprintf(f,
		"- deploy:\n%s    timeout: {seconds: %llu}\n"
		"    to: tmpfs\n    os: oe\n    images:\n",
		role, boot_s);
	arg = xasprintf("-kernel {kernel} -append '%s'", b->cmdline);
	put_image(f, "kernel", arg, b->files->kernel_url, b->files->kernel_sha);
	free(arg);
	put_image(f, "initrd", "-initrd {initrd}", b->files->initrd_url,
		  b->files->initrd_sha);
}

static void put_boot_test(FILE *f, unsigned long long boot_s,
			  unsigned long long job_s, const char *role)
{
	fprintf(f,
		"- boot:\n%s    method: qemu\n    media: tmpfs\n"
		"    timeout: {seconds: %llu}\n",
		role, boot_s);
	/*
	 * The job lasts from the guest's ready line until the agent powers
	 * it off (the run's last trial on this boot); the pattern is one
	 * the guest never prints: the results are the run's, not LAVA's.
	 */
	fprintf(f,
		"- test:\n%s    timeout: {seconds: %llu}\n    monitors:\n"
		"    - name: iommu-bench\n      start: '%s'\n"
		"      end: '%s'\n"
		"      pattern: 'iommu-bench-lava: (?P<test_case_id>\\S+) "
		"(?P<result>pass|fail)'\n",
		role, job_s, TESTBED_READY_LINE, CONSOLE_POWER_DOWN);
}

static void put_head(FILE *f, const struct matrix_host *m,
		     const struct lava_boot *b, unsigned long long job_s)
{
	fputs("job_name: ", f);
	put_quoted(f, b->job_name);
	fprintf(f, "\npriority: %u\nvisibility: personal\n",
		lava_conf(m)->priority);
	fprintf(f,
		"timeouts:\n  job: {seconds: %llu}\n"
		"  action: {seconds: %llu}\n"
		"  connection: {seconds: 120}\n",
		job_s, job_s);
}

static void put_tags(FILE *f, const struct matrix_host *m, const char *ind)
{
	size_t i;

	if (!lava_conf(m)->nr_tags)
		return;
	fprintf(f, "%stags:\n", ind);
	for (i = 0; i < lava_conf(m)->nr_tags; i++) {
		fprintf(f, "%s- ", ind);
		put_quoted(f, lava_conf(m)->tags[i]);
		fputc('\n', f);
	}
}

/* The memstream's text, once closed (not before: it sets *@buf then). */
static char *finish(FILE *f, char **buf)
{
	if (fclose(f)) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

char *lava__definition(const struct matrix_host *m, const struct lava_boot *b)
{
	unsigned long long job_s = (b->timeout_ms + 999) / 1000;
	unsigned long long boot_s = (m->boot_timeout_ms + 999) / 1000;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!quotable(b))
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "# iommu-bench: one boot of host %s\n", m->name);
	fputs("device_type: ", f);
	put_quoted(f, lava_conf(m)->device_type);
	fputc('\n', f);
	put_head(f, m, b, job_s);
	put_tags(f, m, "");
	put_context(f, m, "");
	fputs("actions:\n", f);
	put_deploy(f, b, boot_s, "");
	put_boot_test(f, boot_s, job_s, "");
	return finish(f, &buf);
}

/* One role of a multinode job: its device type, tags and VM. */
static void put_role(FILE *f, const char *role, const struct matrix_host *m)
{
	fprintf(f, "      %s:\n        device_type: ", role);
	put_quoted(f, lava_conf(m)->device_type);
	/*
	 * Essential: either device's job ending early (a panic, a device
	 * that never comes up) makes LAVA cancel the other's, which would
	 * otherwise hold its device until the job's timeout.
	 */
	fputs("\n        count: 1\n        essential: true\n", f);
	put_tags(f, m, "        ");
	put_context(f, m, "        ");
}

char *lava__multinode_definition(const struct matrix_host *m,
				 const struct lava_boot *b,
				 const struct matrix_host *pm,
				 const struct lava_boot *pb)
{
	unsigned long long job_s = (b->timeout_ms + 999) / 1000;
	unsigned long long boot_s = (m->boot_timeout_ms + 999) / 1000;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!quotable(b) || !quotable(pb))
		return NULL;
	if ((pm->boot_timeout_ms + 999) / 1000 > boot_s)
		boot_s = (pm->boot_timeout_ms + 999) / 1000;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f,
		"# iommu-bench: one boot of host %s, with its peer device %s "
		"(LAVA multinode: roles " LAVA_ROLE_SUT " and " LAVA_ROLE_PEER
		")\n",
		m->name, pm->name);
	put_head(f, m, b, job_s);
	fputs("protocols:\n  lava-multinode:\n    roles:\n", f);
	put_role(f, LAVA_ROLE_SUT, m);
	put_role(f, LAVA_ROLE_PEER, pm);
	fputs("actions:\n", f);
	put_deploy(f, b, boot_s, "    role: [" LAVA_ROLE_SUT "]\n");
	put_deploy(f, pb, boot_s, "    role: [" LAVA_ROLE_PEER "]\n");
	put_boot_test(f, boot_s, job_s,
		      "    role: [" LAVA_ROLE_SUT ", " LAVA_ROLE_PEER "]\n");
	return finish(f, &buf);
}
