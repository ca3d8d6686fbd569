// SPDX-License-Identifier: GPL-2.0-only
/*
 * A boot lost to the x86 kernel's own code patching under QEMU's
 * multi-threaded TCG (docs/testbed-noise.md). text_poke_bp() writes an
 * int3 over a static key's site, then the rest, then the first byte,
 * with an IPI between the steps: safe on hardware. Under TCG another
 * vCPU can go on running a translation made from the bytes before the
 * write, so the site hot on that vCPU still holds the int3 when the
 * patcher's handler has let go of it. What the guest's console shows
 * then is one of three things, all the emulator's loss: an oops at that
 * int3; a CPU found in the int3 handler when the silent guest was asked
 * for its backtraces (qemu-hang.c), where the kernel's kprobes code
 * takes the int3 for one just removed and runs the site again, forever;
 * or, when the patching CPU waits for the other one and sysrq-l could
 * not ask, nothing more after the line printed just before the patch.
 */
#include <stdlib.h>
#include <string.h>

#include "bench/host/qemu/qemu.h"
#include "util.h"

/*
 * Lines the kernel prints right before it patches a static key that the
 * other CPUs run at every tick, with every CPU up. Only the ones seen
 * ending a boot here are listed: a hang elsewhere is a guest's fault
 * until shown otherwise.
 */
static const struct {
	const char *line;
	const char *why;
} before_patch[] = {
	{ "sched_clock: Marking stable",
	  "went silent right after \"sched_clock: Marking stable\", where it "
	  "patches the static key sched_clock_cpu() tests at every tick" },
};

/* The last line of @buf that holds more than blanks. */
static const char *last_line(const char *buf, size_t len, size_t *n)
{
	const char *end = buf + len, *s;

	while (end > buf && strchr("\r\n \t", end[-1]))
		end--;
	for (s = end; s > buf && s[-1] != '\n'; s--)
		;
	*n = (size_t)(end - s);
	return s;
}

const char *qemu__patch_race(const char *buf, size_t len)
{
	static const char oops[] = "Oops: int3";
	const char *line, *asked;
	bool int3 = false;
	size_t i, n;
	char *cpus;

	if (memmem(buf, len, oops, sizeof(oops) - 1))
		return "trapped on a breakpoint of its own boot-time code "
		       "patching (\"Oops: int3\")";
	/*
	 * The CPUs' own answer outweighs the last line: the race leaves a
	 * CPU in the int3 handler, and a guest whose CPUs were elsewhere
	 * hung for another reason.
	 */
	cpus = qemu__cpus_said(buf, len, &int3);
	free(cpus);
	if (cpus)
		return int3 ? "went silent with a CPU that kept trapping on "
			      "a breakpoint of its own code patching (the "
			      "int3 handler in its backtrace, by sysrq-l)" :
			      NULL;
	/* What the kernel printed last, before it was asked in vain. */
	asked = memmem(buf, len, QEMU_SYSRQ_LINE, strlen(QEMU_SYSRQ_LINE));
	while (asked && asked > buf && asked[-1] != '\n')
		asked--;
	if (asked)
		len = (size_t)(asked - buf);
	line = last_line(buf, len, &n);
	for (i = 0; i < ARRAY_SIZE(before_patch); i++)
		if (memmem(line, n, before_patch[i].line,
			   strlen(before_patch[i].line)))
			return before_patch[i].why;
	return NULL;
}
