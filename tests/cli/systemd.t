#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The nightly's systemd units (configs/systemd/): systemd-analyze verify
# passes on an instance of each, in a scratch root holding the system's
# own units and the binary under test where ExecStart names it, with no
# warning; and it can fail: a key systemd does not know, a binary that
# is not there and a calendar it cannot read are each named.
set -eu
. "$(dirname "$0")/lib.sh"
t_require systemd-analyze

U=$SRCDIR/configs/systemd
R=$T_TMP/root
mkdir -p "$R/etc/systemd/system" "$R/usr/bin" "$R/etc/iommu-bench" "$R/lib/systemd"
# The targets the units order against (timers.target, network-online.target).
cp -a /lib/systemd/system "$R/lib/systemd/"
cp "$U/iommu-bench-nightly@.service" "$U/iommu-bench-nightly@.timer" "$R/etc/systemd/system/"
cp "$IOMMU_BENCH" "$R/usr/bin/iommu-bench"
cp "$SRCDIR/configs/demo-netns.toml" "$R/etc/iommu-bench/lab.toml"

V_ERR=$T_TMP/verify.err
verify() {
	systemd-analyze --root="$R" --man=no verify "$@" >/dev/null 2>"$V_ERR"
}

verify iommu-bench-nightly@lab.service iommu-bench-nightly@lab.timer &&
	[ ! -s "$V_ERR" ]
st=$?
t_ok $st "systemd-analyze verify: iommu-bench-nightly@lab.service and .timer, no warning"
[ $st -eq 0 ] || t_diag "$(cat "$V_ERR")"

# Each fact the units rely on, read from them.
S=$R/etc/systemd/system/iommu-bench-nightly@.service
grep -q '^ExecStart=/usr/bin/iommu-bench --db ${STATE_DIRECTORY}/%i.db nightly --send /etc/iommu-bench/%i.toml$' "$S" &&
	grep -q '^StateDirectory=iommu-bench$' "$S" &&
	grep -q '^PrivateTmp=yes$' "$S" &&
	! grep -q '^SuccessExitStatus' "$S" &&
	grep -q '^Persistent=true$' "$R/etc/systemd/system/iommu-bench-nightly@.timer"
t_ok $? "the night's state in /var/lib/iommu-bench, its own /tmp, any exit but 0 a failed unit, a missed night run late"

# The options ExecStart gives are the binary's: its usage says so.
t_run 0 "$R/usr/bin/iommu-bench" nightly --help &&
	t_grep "$T_OUT" "--send" && t_grep "$T_OUT" "--db"
t_ok $? "ExecStart's options are the binary's (nightly --help names --send and --db)"

# It can fail.
cp "$S" "$T_TMP/service.good"
sed -i 's/^PrivateTmp=yes$/PrivateTemp=yes/' "$S"
verify iommu-bench-nightly@lab.service
t_grep "$V_ERR" "Unknown key 'PrivateTemp' in section [Service]"
t_ok $? "a key systemd does not know is named"
cp "$T_TMP/service.good" "$S"
rm "$R/usr/bin/iommu-bench"
! verify iommu-bench-nightly@lab.service &&
	t_grep "$V_ERR" "/usr/bin/iommu-bench is not executable"
t_ok $? "a binary that is not where ExecStart says: refused"
cp "$IOMMU_BENCH" "$R/usr/bin/iommu-bench"
TM=$R/etc/systemd/system/iommu-bench-nightly@.timer
sed -i 's/^OnCalendar=.*/OnCalendar=each night/' "$TM"
verify iommu-bench-nightly@lab.timer
t_grep "$V_ERR" "Failed to parse calendar specification"
t_ok $? "a timer's calendar systemd cannot read is named"
t_done
