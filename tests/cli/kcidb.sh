# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the KCIDB tests after lib.sh: a stand-in of kcidb-ng's REST
# service (tests/kcidb/kcidb-standin.py) on 127.0.0.1, killed by PID when
# the test ends (kcidb_stop: in the test's own cleanup, where it has
# one; else the trap set here). Needs $PY, a python3 that imports
# jsonschema (t_python_with jsonschema). The token is in $KCIDB_D/token.
#
# kcidb_standin NAME ARGS...: one stand-in, its port in $KCIDB_D/NAME.port
# once it listens, its log (a line per request) in $KCIDB_D/NAME.log, its
# stderr in $KCIDB_D/NAME.err; its URL in $URL, empty when it did not
# come up.

KCIDB_D=$T_TMP/kcidb
mkdir -p "$KCIDB_D"
KCIDB_PIDS=
kcidb_stop() {
	for pid in $KCIDB_PIDS; do
		kill "$pid" 2>/dev/null || :
	done
	KCIDB_PIDS=
}
[ -n "${KCIDB_OWN_TRAP:-}" ] || trap 'kcidb_stop; t_cleanup' EXIT INT TERM

# The token lives in a file, for the stand-in as for the tool.
printf 'tok3n-%s\n' "$$" >"$KCIDB_D/token"

kcidb_standin() {
	name=$1
	shift
	"$PY" "$SRCDIR/tests/kcidb/kcidb-standin.py" \
		--port-file "$KCIDB_D/$name.port" \
		--token-file "$KCIDB_D/token" --log "$KCIDB_D/$name.log" "$@" \
		2>"$KCIDB_D/$name.err" &
	KCIDB_PIDS="$KCIDB_PIDS $!"
	t_poll 50 0.1 $! test -s "$KCIDB_D/$name.port"
	: >>"$KCIDB_D/$name.log"
	URL=
	[ -s "$KCIDB_D/$name.port" ] &&
		URL="http://127.0.0.1:$(cat "$KCIDB_D/$name.port")"
}
