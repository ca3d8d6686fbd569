// SPDX-License-Identifier: GPL-2.0-only
/*
 * What this kernel offers the probes: its symbols, its BTF, tracefs and
 * kprobes; and what an attach failure on it means, in words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "collectors/bpf/bpf-probes.h"
#include "log.h"
#include "util.h"

/* The kernel's own "not supported" (include/linux/errno.h), not ENOTSUP. */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* The verifier's reason for the last load it refused; "" if none. */
static char verifier_said[BPF_VERIFIER_SAID];

/* Lines of a verifier log that are its statistics, not its reason. */
static bool log_is_summary(const char *line, size_t len)
{
	static const char *const noise[] = { "processed ", "verification time",
					     "stack depth", "-- END",
					     "mark_precise" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(noise); i++)
		if (len >= strlen(noise[i]) &&
		    !strncmp(line, noise[i], strlen(noise[i])))
			return true;
	return !len;
}

/* The last line of a refused load's log that says something. */
static void keep_reason(const char *msg)
{
	const char *log = strstr(msg, "-- BEGIN PROG LOAD LOG --"), *p, *nl;
	const char *best = NULL;
	size_t best_len = 0;

	if (!log)
		return;
	for (p = strchr(log, '\n'); p && *++p; p = nl) {
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (!strncmp(p, "-- END", 6))
			break;
		if (!log_is_summary(p, len)) {
			best = p;
			best_len = len;
		}
		if (!nl)
			break;
	}
	if (best)
		snprintf(verifier_said, sizeof(verifier_said), "%.*s",
			 (int)best_len, best);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	char *buf;
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	/* Whole: a verifier log's last lines say why it refused. */
	buf = xvasprintf(fmt, ap);
	if (level == LIBBPF_WARN)
		keep_reason(buf);
	/* Verifier logs are for -vv; failures are reported as errnos. */
	if (log_verbosity >= LOG_DEBUG) {
		n = strlen(buf);
		while (n && buf[n - 1] == '\n')
			buf[--n] = '\0';
		pr_debug("%s", buf);
	}
	free(buf);
	return 0;
}

void bpf_env__verifier_take(char *out, size_t size)
{
	snprintf(out, size, "%s", verifier_said);
	verifier_said[0] = '\0';
}

void bpf_env__quiet_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

static bool is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

/*
 * libbpf finds tracepoint ids in tracefs, so the tracepoint rung needs
 * it mounted. Mount it where nothing is, as perf does: it changes no
 * tracing state, only makes the interface visible.
 */
static void env__find_tracefs(struct bpf_env *env)
{
	static const char *const roots[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(roots); i++) {
		char *ev = xasprintf("%s/events", roots[i]);
		bool ok = is_dir(ev);

		free(ev);
		if (ok) {
			env->tracefs = xstrdup(roots[i]);
			env->tracefs_note = xstrdup("found");
			return;
		}
	}
	if (mount("nodev", roots[0], "tracefs", 0, NULL)) {
		env->tracefs_note = xasprintf("not mounted, and mounting it at "
					      "%s failed: %s",
					      roots[0], strerror(errno));
		return;
	}
	pr_info("mounted tracefs at %s", roots[0]);
	env->tracefs = xstrdup(roots[0]);
	env->tracefs_note = xasprintf("mounted by iommu-bench");
}

int bpf_env__open(struct bpf_env *env)
{
	struct utsname u;
	char *path;
	int err;

	memset(env, 0, sizeof(*env));
	bpf_env__quiet_libbpf();
	if (!uname(&u))
		snprintf(env->release, sizeof(env->release), "%s", u.release);
	err = ksyms__load("/proc/kallsyms", &env->ksyms);
	if (err)
		pr_warn("bpf: cannot read /proc/kallsyms: %s", strerror(-err));
	env->btf = btf__load_vmlinux_btf();
	if (!env->btf) {
		pr_warn("bpf: no kernel BTF (%s): fentry cannot attach",
			strerror(errno));
		env->btf = NULL;
	}
	env__find_tracefs(env);
	env->kprobes =
		!access("/sys/bus/event_source/devices/kprobe/type", F_OK);
	if (!env->kprobes && env->tracefs) {
		path = xasprintf("%s/kprobe_events", env->tracefs);
		env->kprobes = !access(path, F_OK);
		free(path);
	}
	return 0;
}

void bpf_env__close(struct bpf_env *env)
{
	ksyms__free(env->ksyms);
	btf__free(env->btf);
	free(env->tracefs);
	free(env->tracefs_note);
	memset(env, 0, sizeof(*env));
}

bool bpf_env__has_tp(const struct bpf_env *env, const char *cat,
		     const char *name)
{
	char *path;
	bool ok;

	if (!env->tracefs)
		return false;
	path = xasprintf("%s/events/%s/%s", env->tracefs, cat, name);
	ok = is_dir(path);
	free(path);
	return ok;
}

static const char *explain_fentry(const char *stage, int err)
{
	if (!strcmp(stage, "resolve"))
		return err == ENOTUNIQ ? "several functions have this name: "
					 "a kprobe takes the one meant by "
					 "its address" :
					 "not in the kernel's BTF, which a "
					 "trampoline needs";
	switch (err) {
	case EPERM:
		return "the kernel refuses fentry/fexit programs (no BPF "
		       "trampolines here: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_"
		       "CALLS off, lockdown, or an LSM)";
	case ENOTSUPP:
	case EOPNOTSUPP:
		return "BPF trampolines are not supported on this kernel "
		       "or architecture (arm64 before 6.4)";
	case ESRCH:
	case ENOENT:
		return "the function is not in the kernel's BTF";
	case EINVAL:
		return "the function cannot be traced (notrace, or a "
		       "prototype trampolines cannot handle)";
	case EACCES:
		return "the verifier rejected the program (see -vv)";
	case EBUSY:
		return "the function's trampoline is busy (live-patched?)";
	}
	return "";
}

static const char *explain_kprobe(const struct bpf_env *env, const char *stage,
				  int err)
{
	if (!strcmp(stage, "resolve"))
		return "not in /proc/kallsyms, which a kprobe names";
	switch (err) {
	case ENOENT:
		if (env && !env->kprobes)
			return "this kernel has no kprobes (no kprobe PMU and "
			       "no kprobe_events: CONFIG_KPROBES is off)";
		return "the kprobe layer does not know the symbol";
	case EINVAL:
		return "the function cannot be kprobed (on the kprobe "
		       "blacklist, notrace, or no symbol boundary)";
	case EADDRNOTAVAIL:
		return "several functions have this name; kprobes refuse "
		       "an ambiguous one";
	case ENOTSUPP:
	case EOPNOTSUPP:
		return "kprobes are not supported here";
	case EEXIST:
		return "a kprobe event of that name exists already";
	case EACCES:
		return "the verifier rejected the program (see -vv)";
	}
	return "";
}

static const char *explain_rawtp(const char *stage, int err)
{
	if (!strcmp(stage, "resolve"))
		return "not a raw tracepoint (no btf_trace_ type in BTF; "
		       "syscalls:* events are made up by ftrace)";
	switch (err) {
	case ENOENT:
		return "no raw tracepoint of that name";
	case EINVAL:
		return "the program reads more arguments than the "
		       "tracepoint has";
	case EACCES:
		return "the verifier rejected the program (see -vv)";
	}
	return "";
}

static const char *explain_tp(const char *stage, int err)
{
	(void)stage;
	switch (err) {
	case ENOENT:
		return "no such tracepoint, or tracefs is not mounted";
	case EACCES:
		return "the verifier rejected the program (see -vv)";
	case EPERM:
		return "perf_event_open refused (not root, or lockdown)";
	}
	return "";
}

const char *bpf_errno__name(int err, char *buf, size_t size)
{
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, size, err == ENOTSUPP ? "ENOTSUPP" : "E%d", err);
	return buf;
}

const char *bpf_fail__explain(const struct bpf_env *env, enum bpf_rung rung,
			      const char *stage, int err)
{
	const char *s = "";

	switch (rung) {
	case BPF_RUNG_FENTRY:
		s = explain_fentry(stage, err);
		break;
	case BPF_RUNG_KPROBE:
		s = explain_kprobe(env, stage, err);
		break;
	case BPF_RUNG_RAW_TP:
		s = explain_rawtp(stage, err);
		break;
	case BPF_RUNG_TRACEPOINT:
		s = explain_tp(stage, err);
		break;
	case BPF_RUNG_NONE:
		break;
	}
	return *s ? s : strerror(err);
}

/* "\tfield:__data_loc char[] device;\toffset:8;\tsize:4;\tsigned:0;" */
static void format_line(const char *line, int *dev_loc_off, int *size_off,
			int *size_len)
{
	const char *decl = strstr(line, "field:"), *semi, *name;
	const char *off = strstr(line, "offset:"), *sz = strstr(line, "size:");
	size_t len;

	if (!decl || !off || !sz)
		return;
	decl += strlen("field:");
	semi = strchr(decl, ';');
	if (!semi)
		return;
	for (name = semi; name > decl && name[-1] != ' '; name--)
		;
	len = semi - name;
	if (len == strlen("device") && !strncmp(name, "device", len) &&
	    !strncmp(decl, "__data_loc char[]", strlen("__data_loc char[]")))
		*dev_loc_off = atoi(off + strlen("offset:"));
	if (len == strlen("size") && !strncmp(name, "size", len)) {
		int n = atoi(sz + strlen("size:"));

		if (n == 4 || n == 8) {
			*size_off = atoi(off + strlen("offset:"));
			*size_len = n;
		}
	}
}

void tracefs__parse_format(const char *text, int *dev_loc_off, int *size_off,
			   int *size_len)
{
	const char *line = text;

	*dev_loc_off = *size_off = -1;
	*size_len = 8;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char *one = nl ? xstrndup(line, nl - line) : xstrdup(line);

		format_line(one, dev_loc_off, size_off, size_len);
		free(one);
		line = nl ? nl + 1 : NULL;
	}
}

int tracefs__fields(const char *root, const char *cat, const char *name,
		    int *dev_loc_off, int *size_off, int *size_len)
{
	char *path = xasprintf("%s/events/%s/%s/format", root, cat, name);
	char *text;
	size_t len;
	int err;

	*dev_loc_off = *size_off = -1;
	*size_len = 8;
	err = read_file(path, &text, &len);
	free(path);
	if (err)
		return err;
	tracefs__parse_format(text, dev_loc_off, size_off, size_len);
	free(text);
	return 0;
}
