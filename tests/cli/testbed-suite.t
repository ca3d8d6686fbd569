#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Kernels from a Debian suite through the testbed cache's own apt
# configuration, for real: Debian 7.x's split kernel (linux-image-VER
# empty, the image in linux-binary-VER) fetched from trixie-backports
# into the DEFAULT cache, which is kept so that later runs and the boot
# tests reuse it (about 120 MB, once per machine); its meta-package
# resolved; and the bad inputs refused, in a scratch cache whose
# kernels/ must stay empty: nothing large was downloaded for them.
# Skipped, with the reason, as non-root or where the mirror cannot be
# reached.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
SUITE=trixie-backports
# Backports move on: the kernel the issue was filed about, overridable.
PKG=${IOMMU_BENCH_TEST_SUITE_KERNEL:-linux-image-7.3.4+deb13-amd64}
REL=${PKG#linux-image-}

t_skip() {
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP $1"
}

t_require_root "the testbed's cache and apt-get download run as root"
t_require apt-get apt-cache dpkg-deb depmod

# Usage errors need no network.
t_run 2 "$B" testbed build --kernel "$PKG" --suite 'sid main' &&
	t_grep "$T_ERR" "--suite 'sid main' is not a Debian suite name"
t_ok $? "a suite that is not a name is exit 2"
t_run 2 "$B" testbed build --kernel "$PKG" --suite '../etc'
t_ok $? "so is one that would climb out of the cache"
t_run 2 "$B" testbed path --suite sid
t_ok $? "path takes no --suite"
t_run 2 "$B" testbed resolve --kernel linux-image-amd64
t_ok $? "resolve needs --suite"

SC=$T_TMP/c
scratch() {
	env IOMMU_BENCH_CACHE="$SC" "$@"
}
no_kernels() {
	[ -z "$(ls -A "$SC/testbed/kernels" 2>/dev/null)" ] && return 0
	t_diag "kernels/ holds: $(ls "$SC/testbed/kernels")"
	return 1
}

# A package the suite lacks: apt-get update, then apt-cache, nothing more.
# Its failing to reach the mirror is the SKIP of the network part.
scratch "$B" testbed build --kernel linux-image-7.3.4+deb13-amd46 \
	--suite "$SUITE" >"$T_TMP/out" 2>"$T_TMP/err"
st=$?
if grep -qE 'Failed to fetch|Could not resolve|Temporary failure|Unable to connect|Could not connect|Connection failed|Network is unreachable|did not finish' "$T_TMP/err"; then
	t_skip "the Debian mirror cannot be reached: $(grep -m1 'error' "$T_TMP/err")"
	t_done
	exit
fi
[ $st -eq 1 ] && t_grep "$T_TMP/err" \
	"$SUITE has no package linux-image-7.3.4+deb13-amd46 for amd64 (did you mean 'linux-image-"
t_ok $? "a package the suite lacks fails, naming the nearest linux-image-* it has"
no_kernels
t_ok $? "and downloads no kernel"
t_grep "$T_TMP/err" "apt-get update of $SUITE (amd64)" &&
	[ -f "$SC/testbed/apt/$SUITE-amd64/sources.list" ] &&
	t_grep "$SC/testbed/apt/$SUITE-amd64/sources.list" \
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] " &&
	t_grep "$SC/testbed/apt/$SUITE-amd64/sources.list" " $SUITE main"
t_ok $? "through its own sources.list in the cache, signed-by Debian's keyring"

t_run 1 scratch "$B" testbed build --kernel linux-image-amd64 \
	--suite trixie-backportz &&
	t_grep "$T_ERR" "unknown suite 'trixie-backportz' (did you mean 'trixie-backports'?)"
t_ok $? "an unknown suite fails, with a did-you-mean"
t_run 1 scratch "$B" testbed build --kernel linux-image-amd64-dbg \
	--suite "$SUITE" &&
	t_grep "$T_ERR" "linux-image-amd64-dbg in $SUITE depends on no versioned kernel for amd64"
t_ok $? "a meta-package with no versioned kernel (debug symbols only) fails"
t_run 1 scratch env \
	IOMMU_BENCH_TEST_KEYRING=/usr/share/keyrings/debian-archive-removed-keys.gpg \
	"$B" testbed build --kernel linux-image-amd64 --suite sid &&
	t_grep "$T_ERR" "the Release file of sid failed its signature check: " &&
	t_grep "$T_ERR" "NO_PUBKEY"
t_ok $? "a Release file that the keyring does not sign fails, naming the suite"
no_kernels
t_ok $? "none of them downloaded a kernel"

t_run 0 scratch "$B" testbed resolve --json --kernel linux-image-amd64 \
	--suite "$SUITE" && python3 - "$T_OUT" "$SUITE" <<'EOF'
import json, re, sys
v = json.load(open(sys.argv[1]))
assert len(v) == 1, v
k = v[0]
assert k["asked"] == "linux-image-amd64" and k["suite"] == sys.argv[2], k
assert re.fullmatch(r"linux-image-7\.[0-9.]+\+deb[0-9]+-amd64", k["package"]), k
assert re.match(r"7\.", k["version"]), k
EOF
t_ok $? "linux-image-amd64 in $SUITE resolves to a linux-image-7.* kernel"
no_kernels
t_ok $? "without downloading it"
META=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["package"])' "$T_OUT")

# plan asks the suite too, and refuses there what a run would.
plan_matrix() {
	cat <<EOT
[run]
name = "plan-suite"
modes = ["strict"]
[hosts.vm]
transport = "qemu"
role = "sut"
address = "10.77.0.2/24"
link = "peer"
[hosts.peer]
transport = "netns"
role = "peer"
address = "10.77.0.1/24"
[[kernels]]
name = "newest"
package = "$1"
suite = "$SUITE"
[[workloads]]
name = "rx"
server = "vm"
client = "peer"
EOT
}
plan_matrix linux-image-amd64 >"$T_TMP/plan.toml"
scratch "$B" plan "$T_TMP/plan.toml" >"$T_TMP/plan.out" 2>"$T_TMP/plan.err" &&
	grep -q "Debian package linux-image-amd64 from $SUITE, now $META 7\." "$T_TMP/plan.out"
t_ok $? "plan says what the meta-package is now ($META)"
no_kernels
t_ok $? "without downloading it"
plan_matrix linux-image-7.3.4+deb13-amd46 >"$T_TMP/plan.toml"
scratch "$B" plan "$T_TMP/plan.toml" >"$T_TMP/plan.out" 2>"$T_TMP/plan.err"
[ $? -eq 2 ] && grep -q "did you mean 'linux-image-7.3.4+deb13-amd64'" "$T_TMP/plan.err"
t_ok $? "plan refuses a package the suite does not have, with the nearest name (exit 2)"

# The real fetch, into the default cache.
if ! scratch "$B" testbed resolve --kernel "$PKG" --suite "$SUITE" \
	>/dev/null 2>"$T_TMP/err"; then
	t_skip "$SUITE no longer has $PKG: $(grep -m1 error "$T_TMP/err") (set IOMMU_BENCH_TEST_SUITE_KERNEL)"
	t_done
	exit
fi
CACHE=$("$B" testbed path)
start=$(date +%s)
t_run 0 "$B" testbed build --json --kernel "$PKG" --suite "$SUITE"
st=$?
t_ok $st "testbed build --kernel $PKG --suite $SUITE"
t_diag "took $(($(date +%s) - start)) s ($(grep -c downloading "$T_ERR") downloads)"
cp "$T_OUT" "$T_TMP/build.json"
python3 - "$T_TMP/build.json" "$PKG" "$REL" "$SUITE" <<'EOF'
import json, os, sys
k = json.load(open(sys.argv[1]))[0]
pkg, rel, suite = sys.argv[2:5]
assert k["package"] == pkg and k["release"] == rel, k
assert k["suite"] == suite and k["asked"] is None, k
assert k["layout"] == "modules", k
assert k["image"].endswith("/usr/lib/modules/%s/vmlinuz" % rel), k
assert k["config"].endswith("/usr/lib/modules/%s/config" % rel), k
for f in ("image", "initrd", "config"):
    assert os.path.isfile(k[f]), (f, k[f])
with open(k["image"], "rb") as f:
    assert f.read(0x210)[0x202:0x206] == b"HdrS", "not an x86 bzImage"
meta = json.load(open(os.path.join(k["dir"], "testbed.json")))
assert meta["layout"] == "modules" and meta["suite"] == suite, meta
EOF
t_ok $? "the 7.x image and config are found under usr/lib/modules/$REL, and testbed.json says so"

MODS=$CACHE/kernels/$PKG/usr/lib/modules/$REL
[ -s "$MODS/modules.dep" ] && [ -f "$MODS/modules.builtin" ] &&
	find "$MODS/kernel" -name 'virtio_net.ko*' | grep -q .
t_ok $? "linux-modules and linux-base landed beside it, and depmod ran"
INITRD=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["initrd"])' "$T_TMP/build.json")
grep -aq "lib/modules/virtio_net.ko" "$INITRD" &&
	grep -aq "boot/config-$REL" "$INITRD"
t_ok $? "its initramfs holds the decompressed modules and the config"

t_run 0 "$B" testbed build --kernel "$PKG" --suite "$SUITE" &&
	t_grep "$T_OUT" "(release $REL, x86_64, from $SUITE): cached" &&
	! grep -q "apt-get update" "$T_ERR"
t_ok $? "a second build is cached and asks apt nothing"

if [ "$META" = "$PKG" ]; then
	t_run 0 "$B" testbed build --json --kernel linux-image-amd64 \
		--suite "$SUITE" && python3 - "$T_OUT" "$PKG" <<'EOF'
import json, sys
k = json.load(open(sys.argv[1]))[0]
assert k["asked"] == "linux-image-amd64" and k["package"] == sys.argv[2], k
assert k["cached"] is True, k
EOF
	st=$?
	[ $st -eq 0 ] && t_grep "$T_ERR" "linux-image-amd64 in $SUITE is $PKG "
	t_ok $? "the meta-package builds as the kernel it resolves to, and says so"
	t_run 0 "$B" testbed build --suite "$SUITE" &&
		t_grep "$T_OUT" "linux-image-amd64 in $SUITE: $PKG "
	t_ok $? "and is what --suite builds without --kernel"
else
	t_skip "linux-image-amd64 in $SUITE is $META now, not $PKG: not fetched"
fi

t_done
