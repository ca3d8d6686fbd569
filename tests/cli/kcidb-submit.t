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
# Debian's python3 has python3-jsonschema; a pyenv one on the PATH may not.
PY=/usr/bin/python3
"$PY" -c 'import jsonschema' 2>/dev/null || PY=python3
if ! "$PY" -c 'import jsonschema' 2>/dev/null; then
	echo "1..0 # SKIP no python3 with jsonschema (python3-jsonschema)"
	exit 0
fi

STANDIN="$SRCDIR/tests/kcidb/kcidb-standin.py"
D=$T_TMP/kcidb
mkdir -p "$D"
PIDS=
cleanup() {
	for pid in $PIDS; do
		kill "$pid" 2>/dev/null || :
	done
	t_cleanup
}
trap cleanup EXIT INT TERM

# The token lives in a file, for the stand-in as for the tool.
printf 'tok3n-%s\n' "$$" >"$D/token"

# standin NAME ARGS...: one stand-in, its port in $D/NAME.port once it
# listens, its log in $D/NAME.log; its URL in $URL.
standin() {
	name=$1
	shift
	"$PY" "$STANDIN" --port-file "$D/$name.port" --token-file "$D/token" \
		--log "$D/$name.log" "$@" 2>"$D/$name.err" &
	PIDS="$PIDS $!"
	t_poll 50 0.1 $! test -s "$D/$name.port"
	: >>"$D/$name.log"
	URL=
	[ -s "$D/$name.port" ] && URL="http://127.0.0.1:$(cat "$D/$name.port")"
}

standin main --drop-first
MAIN=$URL
standin storm --fail 1000000
STORM=$URL
standin stall --stall
STALL=$URL
standin forget --forget
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
