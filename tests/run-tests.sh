#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Run every test given (C unit tests, shell tests, the toml-test suite);
# each speaks TAP and prove aggregates them, skips and reasons included.
# --comments: the tests' own diagnostics (a failed run's last lines,
# timings) reach the log, so that a failure in CI, where only the log
# comes back, says why. --timer: each test's time in that log, what
# keeps make check within CI's budget.
set -eu
exec prove --exec '' --comments --timer "$@"
