#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make install puts the binary and the man page where PREFIX and DESTDIR say.
set -eu
. "$(dirname "$0")/lib.sh"

if ! command -v make >/dev/null 2>&1; then
	echo "1..0 # SKIP make is not installed"
	exit 0
fi

root="$T_TMP/root"
# BIN= so that a sanitizer build installs the binary under test.
t_run 0 make -s -C "$SRCDIR" install DESTDIR="$root" PREFIX=/opt/ib \
	BIN="$IOMMU_BENCH"
t_ok $? "make install succeeds"

test -x "$root/opt/ib/bin/iommu-bench"
t_ok $? "the binary is installed under PREFIX/bin"

test -f "$root/opt/ib/share/man/man1/iommu-bench.1"
t_ok $? "the man page is installed under PREFIX/share/man/man1"

test -f "$root/opt/ib/share/bash-completion/completions/iommu-bench"
t_ok $? "the bash completion is installed under PREFIX/share/bash-completion"

U=$root/opt/ib/lib/systemd/system
grep -qx 'ExecStart=/opt/ib/bin/iommu-bench --db ${STATE_DIRECTORY}/%i.db nightly --send /etc/iommu-bench/%i.toml' \
	"$U/iommu-bench-nightly@.service" &&
	cmp -s "$U/iommu-bench-nightly@.timer" "$SRCDIR/configs/systemd/iommu-bench-nightly@.timer"
t_ok $? "the nightly's units are installed under PREFIX/lib/systemd/system, ExecStart the installed binary"

t_run 0 "$root/opt/ib/bin/iommu-bench" --version &&
	t_grep "$T_OUT" "iommu-bench"
t_ok $? "the installed binary runs"

t_run 0 make -s -C "$SRCDIR" uninstall DESTDIR="$root" PREFIX=/opt/ib
t_ok $? "make uninstall succeeds"
test ! -e "$root/opt/ib/bin/iommu-bench" &&
	test ! -e "$root/opt/ib/share/bash-completion/completions/iommu-bench" &&
	test ! -e "$U/iommu-bench-nightly@.service" &&
	test ! -e "$U/iommu-bench-nightly@.timer"
t_ok $? "uninstall removes the binary, the completion and the units"

t_done
