// SPDX-License-Identifier: GPL-2.0-only
/*
 * A short helper command run to its end, its failure in words: the
 * transports' ip, ssh and scp, and the network namespaces' ip, which
 * sit in layers that return their words rather than log them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "errmsg.h"
#include "subprocess.h"
#include "util.h"

/* What the command wrote, taken from @sp: "" for nothing. */
static char *stdout_of(struct spawn *sp)
{
	char *text = sp->out ? sp->out : xstrdup("");

	sp->out = NULL;
	return text;
}

int spawn__cmd(const char *const *argv, int timeout_ms, char **out, char **err,
	       int *status)
{
	struct spawn_opts opts = { .flags = SPAWN_CAPTURE_OUT |
					    SPAWN_CAPTURE_ERR };
	char how[96], last[256];
	struct spawn sp;
	int ret;

	if (status)
		*status = -1;
	ret = spawn__run(&sp, argv, &opts, timeout_ms);
	if (ret == -ETIMEDOUT) {
		errmsg__set(err, ret, "%s did not finish within %d ms", argv[0],
			    timeout_ms);
		goto out;
	}
	if (ret) {
		errmsg__set(err, ret, "cannot run %s: %s", argv[0],
			    strerror(-ret));
		goto out;
	}
	if (status && WIFEXITED(sp.status))
		*status = WEXITSTATUS(sp.status);
	if (!spawn__succeeded(&sp))
		ret = errmsg__set(err, -EIO, "%s failed (%s): %s", argv[0],
				  spawn__describe(&sp, how, sizeof(how)),
				  spawn__last_line(sp.err, last, sizeof(last)));
	else if (out)
		*out = stdout_of(&sp);
out:
	spawn__release(&sp);
	return ret;
}
