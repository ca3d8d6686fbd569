#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Run every test given (C unit tests, shell tests, the toml-test suite);
# each speaks TAP and prove aggregates them, skips and reasons included.
set -eu
exec prove --exec '' "$@"
