#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tap-tee.sh TEST: runs TEST for prove (run-tests.sh's --exec), keeping
# a copy of its TAP and its seconds in $TAP_TEE_DIR, so that the
# summary at the log's end can repeat what prove leaves out: a failed
# check's line and the diagnostics after it, and a failed file's time.
set -u
name=t$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_')
f=$TAP_TEE_DIR/$name
start=$(date +%s)
{
	"$1"
	echo $? >"$f.rc"
} | tee "$f.tap"
echo $(($(date +%s) - start)) "$1" >"$f.time"
exit "$(cat "$f.rc")"
