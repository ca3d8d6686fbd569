#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A KCIDB report submitted to a stand-in of kcidb-ng's REST service on
# 127.0.0.1 (tests/kcidb/kcidb-standin.py, from the documented API): the
# first connection dropped and retried, the status polled to processed,
# a schema-invalid report failed, a wrong token refused without a retry,
# a bad URL and an unreadable token file refused before anything is
# sent, a 5xx storm's tries spent, a verdict that never comes, a
# submission the service lost. The checks are
# tests/unit/test-kcidb-submit.c; this script is its stage.
set -eu
. "$(dirname "$0")/lib.sh"

# The sanitizer build keeps its tests next to its binary.
PROG="$(dirname "$IOMMU_BENCH")/tests/test-kcidb-submit"
[ -x "$PROG" ] || PROG="$SRCDIR/.output/obj/tests/test-kcidb-submit"
if [ ! -x "$PROG" ]; then
	echo "1..0 # SKIP $PROG is not built"
	exit 0
fi
# kcidb-io's validator, which the stand-in runs, is python3-jsonschema.
if ! PY=$(t_python_with jsonschema); then
	echo "1..0 # SKIP python3-jsonschema is not installed"
	exit 0
fi

. "$(dirname "$0")/kcidb.sh"
D=$KCIDB_D

kcidb_standin main --drop-first
MAIN=$URL
kcidb_standin storm --fail 1000000
STORM=$URL
kcidb_standin stall --stall
STALL=$URL
kcidb_standin forget --forget
FORGET=$URL
[ -n "$MAIN" ] && [ -n "$STORM" ] && [ -n "$STALL" ] && [ -n "$FORGET" ]
t_ok $? "the stand-ins listen on 127.0.0.1 ($MAIN, $STORM, $STALL, $FORGET)"
if [ -z "$MAIN" ] || [ -z "$STORM" ] || [ -z "$STALL" ] || [ -z "$FORGET" ]; then
	t_diag "$(cat "$D"/*.err)"
	t_done
	exit 1
fi

st=0
KCIDB_URL="$MAIN" KCIDB_STORM_URL="$STORM" KCIDB_STALL_URL="$STALL" \
	KCIDB_FORGET_URL="$FORGET" KCIDB_TOKEN_FILE="$D/token" \
	KCIDB_LOG="$D/main.log" KCIDB_FIXTURES="$SRCDIR/tests/kcidb" \
	timeout 60 "$PROG" >"$D/prog.out" 2>"$D/prog.err" || st=$?
t_relay "$D/prog.out"
[ "$st" -eq 0 ]
t_ok $? "test-kcidb-submit exits 0 (status $st)"
[ "$st" -eq 0 ] || t_diag "$(tail -20 "$D/prog.err")" "$(cat "$D/main.log")"

# The stand-in's own view: the token never in a request's path.
! grep -q "tok3n" "$D/main.log" "$D/storm.log"
t_ok $? "no request carried the token in its URL"
n=$(grep -c ' 503$' "$D/storm.log" || :)
[ "$n" -eq 3 ]
t_ok $? "the storm's stand-in answered 503 three times, the tries asked for ($n)"

t_done
