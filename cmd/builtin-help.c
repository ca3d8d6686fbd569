// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-bench help [CMD]: the overview, or a command's own --help, which
 * comes from that command's option table and so cannot go stale.
 */
#include <stdio.h>

#include "builtin.h"
#include "log.h"
#include "util.h"

int cmd_help(int argc, const char **argv)
{
	const struct cmd_struct *cmd;

	if (argc < 2) {
		main__usage(stdout);
		return EXIT_OK;
	}
	if (argc > 2) {
		pr_err("usage: iommu-bench help [<command>]");
		return EXIT_USAGE;
	}
	cmd = command__find(argv[1]);
	/* Same error and suggestion as running it would give. */
	if (!cmd)
		return main__unknown_command(argv[1]);
	return cmd->fn(2, (const char *[]){ cmd->name, "--help", NULL });
}
