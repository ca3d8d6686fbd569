// SPDX-License-Identifier: GPL-2.0-only
/*
 * A guest that went silent, asked where its CPUs are. The console shows
 * what the kernel printed last, never what it does now: a boot that
 * stops after a line may be waiting on a lock, on a CPU that spins, or
 * on a device. So before such a VM is stopped, its kernel is asked for
 * every CPU's backtrace by sysrq-l, typed on the PS/2 keyboard through
 * QEMU's monitor (x86 guests boot with sysrq_always_enabled). The
 * kernel answers through NMIs, which reach a CPU that spins with its
 * interrupts off; only the keyboard's own interrupt needs a CPU that
 * takes it. What the CPUs said goes into the boot's error, and it is
 * the evidence qemu-race.c reads for a boot lost to code patching.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/qemu/qemu.h"
#include "clock.h"
#include "errmsg.h"
#include "qmp.h"
#include "strvec.h"
#include "util.h"

#define QMP_TIMEOUT_MS 5000
/* From the key to the last CPU's trace: ms when idle, s under load. */
#define SYSRQ_ANSWER_MS 10000
/* The console still for this long: every CPU has answered. */
#define SYSRQ_QUIET_MS 700
/* Two samples: a CPU caught mid-loop shows its handler in either. */
#define SYSRQ_SAMPLES 2

/*
 * The frames of x86's breakpoint handling. A CPU that an NMI finds in
 * one, after the guest was silent for its whole boot timeout, keeps
 * trapping on the same int3 (docs/testbed-noise.md).
 */
static const char *const int3_frames[] = {
	"exc_int3+",	      "asm_exc_int3+",
	"poke_int3_handler+", "kprobe_int3_handler+",
	"do_int3+",
};

/* 0 for a console not there yet: its answer, when it comes, is all new. */
static long long console_size(const char *console)
{
	struct stat st;

	return stat(console, &st) ? 0 : (long long)st.st_size;
}

/* Past @from, the console holds the kernel's answer to sysrq-l. */
static bool sysrq_seen(const char *console, long long from)
{
	char *buf = NULL;
	size_t len = 0;
	bool seen;

	if (read_file(console, &buf, &len) < 0 || (long long)len <= from) {
		free(buf);
		return false;
	}
	seen = memmem(buf + from, len - (size_t)from, QEMU_SYSRQ_LINE,
		      strlen(QEMU_SYSRQ_LINE));
	free(buf);
	return seen;
}

/*
 * The answer began past @from and the console then stayed still for
 * SYSRQ_QUIET_MS: every CPU that answers has.
 */
static bool sysrq_answered(const char *console, long long from)
{
	long long t0 = mono_ms(), size = from, quiet_since = t0, now;
	bool seen = false;

	while ((now = mono_ms()) - t0 < SYSRQ_ANSWER_MS) {
		long long s = console_size(console);

		if (s != size) {
			size = s;
			quiet_since = now;
			seen = seen || sysrq_seen(console, from);
		} else if (seen && now - quiet_since >= SYSRQ_QUIET_MS) {
			return true;
		}
		usleep(100 * 1000);
	}
	return seen;
}

int qemu__ask_backtraces(const char *qmp, const char *console, char **err)
{
	int i, answers = 0, ret;

	for (i = 0; i < SYSRQ_SAMPLES; i++) {
		long long from = console_size(console);
		json_t *keys = json_pack("{s:[{s:s,s:s},{s:s,s:s},{s:s,s:s}]}",
					 "keys", "type", "qcode", "data", "alt",
					 "type", "qcode", "data", "sysrq",
					 "type", "qcode", "data", "l");

		ret = qmp__run(qmp, "send-key", keys, QMP_TIMEOUT_MS, NULL,
			       err);
		if (ret)
			return ret;
		answers += sysrq_answered(console, from);
	}
	if (!answers)
		return errmsg__set(err, -ETIMEDOUT,
				   "sysrq-l got no answer on the console "
				   "within %d ms",
				   SYSRQ_ANSWER_MS);
	return 0;
}

/* The line at @s: its length without the end into *@n; the next one. */
static const char *next_line(const char *s, const char *end, size_t *n)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	*n = (size_t)((nl ? nl : end) - s);
	while (*n && s[*n - 1] == '\r')
		(*n)--;
	return nl ? nl + 1 : end;
}

/* The symbol after @key in the line @s of @n bytes, up to a blank. */
static char *word_after(const char *s, size_t n, const char *key)
{
	const char *w = memmem(s, n, key, strlen(key)), *e;

	if (!w)
		return NULL;
	w += strlen(key);
	for (e = w; e < s + n && *e != ' '; e++)
		;
	return xstrndup(w, (size_t)(e - w));
}

static bool has_int3_frame(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(int3_frames); i++)
		if (memmem(s, n, int3_frames[i], strlen(int3_frames[i])))
			return true;
	return false;
}

/* One CPU's answer, from its "NMI backtrace for cpu N" line on. */
struct cpu_said {
	char *cpu, *where; /* "1", "native_safe_halt+0xb/0x10" */
	bool idle, int3;
};

static const char *cpu_block(const char *s, const char *end, struct cpu_said *c)
{
	static const char head[] = "NMI backtrace for cpu ";
	const char *line = s;
	size_t n;

	s = next_line(s, end, &n);
	c->cpu = word_after(line, n, head);
	c->where = word_after(line, n, "idling at ");
	c->idle = c->where != NULL;
	while (!c->idle && s < end) {
		const char *l = s;
		const char *nx = next_line(s, end, &n);

		if (memmem(l, n, head, sizeof(head) - 1) ||
		    memmem(l, n, "Sending NMI from", 16) ||
		    memmem(l, n, QEMU_SYSRQ_LINE, strlen(QEMU_SYSRQ_LINE)))
			break;
		/* The first RIP is where the NMI found the CPU. */
		if (!c->where)
			c->where = word_after(l, n, "RIP: 0010:");
		c->int3 |= has_int3_frame(l, n);
		s = nx;
	}
	return s;
}

char *qemu__cpus_said(const char *buf, size_t len, bool *int3)
{
	const char *end = buf + len, *s, *at;
	struct strvec seen = { 0 };
	char *out = NULL;

	*int3 = false;
	s = memmem(buf, len, QEMU_SYSRQ_LINE, strlen(QEMU_SYSRQ_LINE));
	if (!s)
		return NULL;
	while ((at = memmem(s, (size_t)(end - s), "NMI backtrace for cpu ",
			    22))) {
		struct cpu_said c = { 0 };
		char *one;

		s = cpu_block(at, end, &c);
		one = xasprintf("cpu %s %s%s%s", c.cpu ? c.cpu : "?",
				c.idle ? "idle at " : "at ",
				c.where ? c.where : "an unknown place",
				c.int3 ? ", in the int3 handler" : "");
		*int3 |= c.int3;
		strvec__push_distinct(&seen, one);
		free_all(c.cpu, c.where);
	}
	if (seen.nr)
		out = strvec__join(&seen, "; ");
	strvec__release(&seen);
	return out;
}
