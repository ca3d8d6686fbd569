#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The command skeleton: help, version, unknown commands and options.
set -eu
. "$(dirname "$0")/lib.sh"

t_run 0 "$IOMMU_BENCH" --help && t_grep "$T_OUT" "commands:" &&
	t_grep "$T_OUT" "plan"
t_ok $? "--help lists the commands"

t_run 2 "$IOMMU_BENCH"
t_ok $? "no command is a usage error (exit 2)"

t_run 0 "$IOMMU_BENCH" --version && t_grep "$T_OUT" "iommu-bench "
t_ok $? "--version prints the version"

t_run 0 "$IOMMU_BENCH" version --json &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] and d["schema"] >= 1' "$T_OUT"
t_ok $? "version --json is JSON with version and schema"

t_run 2 "$IOMMU_BENCH" pln && t_grep "$T_ERR" "did you mean 'plan'?"
t_ok $? "a misspelt command suggests the right one"

t_run 2 "$IOMMU_BENCH" frobnicate && t_grep "$T_ERR" "'frobnicate' is not a command"
t_ok $? "an unknown command without a near match is an error"

t_run 2 "$IOMMU_BENCH" version --jsn && t_grep "$T_ERR" "did you mean '--json'?"
t_ok $? "a misspelt option suggests the right one"

t_run 2 "$IOMMU_BENCH" --verbsoe version && t_grep "$T_ERR" "did you mean '--verbose'?"
t_ok $? "a misspelt global option suggests the right one"

t_run 0 "$IOMMU_BENCH" help plan && t_grep "$T_OUT" "usage: iommu-bench plan"
t_ok $? "help CMD shows that command's usage"

t_run 0 "$IOMMU_BENCH" plan --help && t_grep "$T_OUT" "usage: iommu-bench plan"
t_ok $? "CMD --help shows that command's usage"

t_run 2 "$IOMMU_BENCH" help exprot && t_grep "$T_ERR" "did you mean 'export'?"
t_ok $? "help of a misspelt command suggests the right one"

t_run 2 "$IOMMU_BENCH" version -Q && t_grep "$T_ERR" "unknown switch '-Q'"
t_ok $? "an unknown short option is an error"

t_run 2 "$IOMMU_BENCH" --db
t_ok $? "an option missing its value is a usage error"

t_done
