#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Debian packages (debian/, docs/install.md): make deb builds them
# from a copy of the working tree and lintian finds no error and no
# warning; apt resolves their Depends and Recommends from Debian 12's
# archive on a system with nothing installed; iommu-bench installs with
# dpkg into a scratch root whose database is a copy of this machine's
# (its Depends checked for real against what is installed here, nothing
# forced), its binary, an example matrix and its man page work there,
# and its purge leaves nothing of it behind. make deb builds under
# .output/deb-check, beside the checkout's own build, which it leaves
# alone: make check runs beside it.
set -eu
. "$(dirname "$0")/lib.sh"
t_require_root "dpkg --root installs into a scratch root as root"
t_require dpkg-buildpackage dh lintian dpkg apt-get git man
cd "$SRCDIR"
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "1..0 # SKIP not a git checkout (make deb packages git's files)"
	exit 0
fi

D=.output/deb-check
V=$(dpkg-parsechangelog -S Version)
A=$(dpkg --print-architecture)
DEB=$SRCDIR/$D/iommu-bench_${V}_$A.deb
AGENT=$SRCDIR/$D/iommu-bench-agent_${V}_$A.deb
cleanup() {
	[ -n "${T_KEEP:-}" ] || rm -rf "${SRCDIR:?}/$D"
	t_cleanup
}
trap cleanup EXIT INT TERM

t_run 0 make -s DEB_DIR="$D" deb
st=$?
t_ok $st "make deb builds iommu-bench and iommu-bench-agent"
[ $st -eq 0 ] || t_diag "$(tail -30 "$T_ERR")"
# make deb runs lintian --fail-on error,warning: its tags, if any, are
# on stdout (overridden ones are not shown).
grep -E '^[EWIPXO]: ' "$T_OUT" >"$T_TMP/lintian" || true
[ $st -eq 0 ] && ! grep -qE '^[EW]: ' "$T_TMP/lintian"
t_ok $? "lintian: no error and no warning"
[ -s "$T_TMP/lintian" ] && t_diag "lintian:" "$(cat "$T_TMP/lintian")"
if [ ! -f "$DEB" ] || [ ! -f "$AGENT" ]; then
	t_diag "no $DEB or $AGENT: nothing more to check"
	t_done
	exit 1
fi

# Depends and Recommends resolved by apt from the archive as for a
# system with nothing installed, every Recommends one among what apt
# would install (a name Debian lacks is dropped silently otherwise);
# every Suggests one known to apt (the first of each alternative).
rel() {
	dpkg-deb -f "$DEB" "$1" | tr ',' '\n' | sed 's/|.*//; s/(.*//; s/ //g' |
		grep .
}
if ! apt-cache show iproute2 >/dev/null 2>&1; then
	t_ok 0 "apt resolves the packages' relations # SKIP no apt lists (apt-get update)"
	t_ok 0 "apt knows every Suggests # SKIP no apt lists (apt-get update)"
else
	: >"$T_TMP/status"
	nothing="-o Dir::State::status=$T_TMP/status"
	t_run 0 apt-get install -s $nothing "$DEB" "$AGENT"
	st=$?
	for p in $(rel Recommends); do
		grep -q "^Inst $p " "$T_OUT" ||
			{ t_diag "Recommends $p: apt would not install it"; st=1; }
	done
	t_ok $st "apt resolves Depends and Recommends from Debian 12's archive, nothing installed"
	t_run 0 apt-get install -s $nothing --no-install-recommends \
		$(rel Suggests | grep -vx iommu-bench-agent)
	t_ok $? "apt knows every Suggests"
fi

# The scratch root: this machine's dpkg database and nothing else. No
# maintainer script runs (the packages have none, and dpkg would run one
# chrooted into R, which has no shell); --no-triggers: man-db's trigger
# on the man page is recorded there, not run.
R=$T_TMP/root
mkdir -p "$R/var/lib"
cp -a /var/lib/dpkg "$R/var/lib/"
rm -f "$R"/var/lib/dpkg/lock*
listing() {
	(cd "$R" && find . -path ./var/lib/dpkg -prune -o -print | sort)
}
listing >"$T_TMP/before"
dpkg_r() {
	dpkg --root="$R" --no-triggers "$@"
}
for f in "$DEB" "$AGENT"; do
	dpkg-deb --ctrl-tarfile "$f" | tar -t
done | grep -vxE '\./|\./(control|md5sums)'
[ $? -ne 0 ]
t_ok $? "neither package has a maintainer script"

# make all cross-builds an arm64 agent where the toolchain is (here,
# often): the package builds the iommu-bench target only.
! dpkg-deb -c "$DEB" | grep -q 'usr/lib/iommu-bench/' &&
	[ "$(dpkg-deb -c "$AGENT" | grep -c 'usr/lib/iommu-bench/.*/iommu-bench$')" -eq 1 ]
t_ok $? "iommu-bench has no agent in it, iommu-bench-agent one, of its own arch"

t_run 0 dpkg_r -i "$DEB" "$AGENT"
t_ok $? "dpkg installs both into the scratch root, their Depends met by this machine's packages"

B=$R/usr/bin/iommu-bench
t_run 0 "$B" --version && t_grep "$T_OUT" "iommu-bench $V"
t_ok $? "the installed binary says the package's version"

t_run 0 "$R/usr/lib/iommu-bench/$(uname -m | sed 's/aarch64/arm64/')/iommu-bench" --version &&
	t_grep "$T_OUT" "iommu-bench $V"
t_ok $? "iommu-bench-agent's binary is where the controller looks, and runs"

EX=$R/usr/share/doc/iommu-bench/examples
t_run 0 "$B" plan "$EX/demo-netns.toml" && t_grep "$T_OUT" "estimated"
t_ok $? "plan reads the installed example demo-netns.toml"

# kernel-ab.toml names its fragment and patch relative to itself.
t_run 0 "$B" plan "$EX/kernel-ab.toml" && ! grep -q 'No such file' "$T_ERR"
st=$?
t_ok $st "the examples' relative paths (kbuild/) hold where they are installed"
[ $st -eq 0 ] || t_diag "$(head -5 "$T_ERR")"

t_run 0 env MANPAGER=cat MANWIDTH=80 LC_ALL=C.UTF-8 \
	man -l "$R/usr/share/man/man1/iommu-bench.1.gz" &&
	t_grep "$T_OUT" "NAME" && t_grep "$T_OUT" "iommu-bench - "
t_ok $? "man -l reads the installed man page (its NAME line)"

# The unit's Documentation= and ExecStart= name what the package installs.
S=$R/lib/systemd/system/iommu-bench-nightly@.service
doc=$(sed -n 's|^Documentation=file://||p' "$S")
exe=$(sed -n 's|^ExecStart=\([^ ]*\).*|\1|p' "$S")
[ -n "$doc" ] && [ -f "$R$doc" ] && [ "$exe" = /usr/bin/iommu-bench ] &&
	[ -f "$R/lib/systemd/system/iommu-bench-nightly@.timer" ]
t_ok $? "the nightly's units: ExecStart the installed binary, Documentation= $doc there"

t_run 0 dpkg_r --purge iommu-bench iommu-bench-agent
t_ok $? "dpkg purges both"

# Nothing of them left: dpkg removes each file they listed and each
# folder it leaves empty (other packages' folders too, in a root where
# none of their files are), so the root is as it was before, but for
# dpkg's own database.
listing >"$T_TMP/after"
left=$(comm -13 "$T_TMP/before" "$T_TMP/after"
	for f in "$DEB" "$AGENT"; do
		dpkg-deb --fsys-tarfile "$f" | tar -t
	done | grep -vx '\./' | while read -r p; do
		[ ! -e "$R/$p" ] && [ ! -L "$R/$p" ] || echo "$p"
	done)
[ -z "$left" ] && ! ls "$R"/var/lib/dpkg/info/iommu-bench* >/dev/null 2>&1
st=$?
t_ok $st "the purge leaves no file and no folder of theirs behind"
[ $st -eq 0 ] || t_diag "left behind:" "$left"

for f in "$DEB" "$AGENT"; do
	t_diag "$(basename "$f"): $(stat -c %s "$f") bytes, Installed-Size $(dpkg-deb -f "$f" Installed-Size) KiB"
done
t_diag "Depends: $(dpkg-deb -f "$DEB" Depends)"
t_done
