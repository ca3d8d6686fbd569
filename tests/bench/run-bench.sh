#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Run every benchmark given, one after another (they measure; running two
# at once would measure each other). Each prints its own figures.
set -u
status=0
for b in "$@"; do
	case "$b" in
	*/run-bench.sh) continue ;;
	esac
	echo "== $(basename "$b")"
	case "$b" in
	*.sh) sh "$b" ;;
	*) "$b" ;;
	esac || { echo "!! $(basename "$b") failed"; status=1; }
done
exit $status
