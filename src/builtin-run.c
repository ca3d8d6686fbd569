// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder while the command is written; replaced by its owner. */
#include "builtin.h"
#include "log.h"
#include "util.h"

int cmd_run(int argc, const char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("run: not built yet");
	return EXIT_WORK_FAILED;
}
