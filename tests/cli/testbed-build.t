#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench testbed build, for real: the reference kernel downloaded
# with apt-get into the DEFAULT cache, which is kept (the end-to-end
# tests boot it, and a 70 MB download per run would be waste), so only
# the first run on a machine downloads. Skipped, with the reason, when
# apt cannot reach its mirror.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
PKG=linux-image-6.1.0-57-amd64

t_skip() {
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP $1"
}

# Usage errors need no network.
t_run 2 "$B" testbed build --kernel 'linux-image-6.1;reboot' &&
	t_grep "$T_ERR" "'linux-image-6.1;reboot' is not a Debian kernel package name"
t_ok $? "a bad package name is exit 2, saying what a name looks like"
t_run 2 "$B" testbed build --kernel linux-headers-6.1.0-57-amd64
t_ok $? "so is a package that is not a linux-image"
t_run 2 "$B" testbed biuld && t_grep "$T_ERR" "did you mean 'build'"
t_ok $? "a misspelt subcommand is exit 2 with a suggestion"
t_run 2 "$B" testbed path --kernel "$PKG"
t_ok $? "path takes no --kernel"

t_run 0 env IOMMU_BENCH_CACHE="$T_TMP/c" "$B" testbed path &&
	[ "$(cat "$T_OUT")" = "$T_TMP/c/testbed" ]
t_ok $? "testbed path follows IOMMU_BENCH_CACHE"
t_run 0 env -u IOMMU_BENCH_CACHE -u XDG_CACHE_HOME HOME=/nowhere "$B" \
	testbed path --json && python3 - "$T_OUT" <<'EOF'
import json, sys
assert json.load(open(sys.argv[1])) == {"path": "/nowhere/.cache/iommu-bench/testbed"}
EOF
t_ok $? "and defaults to ~/.cache/iommu-bench/testbed (--json too)"

# The real cache from here on: whatever the caller's environment says.
CACHE=$("$B" testbed path)
KDIR=$CACHE/kernels/$PKG
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
	t_skip "no apt-get or dpkg: not a Debian system"
	t_done
	exit
fi
if [ ! -f "$KDIR/testbed.json" ] &&
	! apt-cache show --no-all-versions "$PKG" >/dev/null 2>&1; then
	t_skip "apt does not know $PKG (run apt-get update)"
	t_done
	exit
fi

"$B" testbed build --json --kernel "$PKG" >"$T_TMP/first.json" \
	2>"$T_TMP/first.err"
st=$?
if [ $st -ne 0 ] && grep -qE 'Failed to fetch|Could not resolve|Temporary failure|Unable to connect|Could not connect|Connection failed|Network is unreachable' "$T_TMP/first.err"; then
	t_skip "apt-get cannot reach the mirror: $(grep -m1 'error' "$T_TMP/first.err")"
	t_done
	exit
fi
t_ok $st "testbed build --kernel $PKG --json"
[ $st -eq 0 ] || t_diag "$(cat "$T_TMP/first.err")"

python3 - "$T_TMP/first.json" "$PKG" "$T_TMP/vars" <<'EOF'
import json, os, sys
v = json.load(open(sys.argv[1]))
assert isinstance(v, list) and len(v) == 1, v
k = v[0]
assert k["package"] == sys.argv[2], k
assert k["release"] == "6.1.0-57-amd64", k
assert k["version"] and isinstance(k["cached"], bool), k
for f in ("image", "initrd", "config"):
    assert os.path.isfile(k[f]), (f, k[f])
assert k["image"].endswith("/boot/vmlinuz-6.1.0-57-amd64"), k
with open(sys.argv[3], "w") as out:
    out.write("IMAGE='%s'\nINITRD='%s'\n" % (k["image"], k["initrd"]))
EOF
t_ok $? "the JSON names the package, version, release, and files that exist"
IMAGE= INITRD=
[ -f "$T_TMP/vars" ] && . "$T_TMP/vars"
case $INITRD in
"$CACHE"/*) t_ok 0 "the initramfs is in the cache ($CACHE)" ;;
*) t_ok 1 "the initramfs is in the cache ($CACHE), not '$INITRD'" ;;
esac
[ -f "$KDIR/lib/modules/6.1.0-57-amd64/modules.dep" ]
t_ok $? "depmod made modules.dep"

# The initramfs is two archives back to back: cpio -i reads one a time.
(cpio -it --quiet && echo '--' && cpio -it --quiet) <"$INITRD" \
	>"$T_TMP/list" 2>"$T_TMP/cpio.err"
t_ok $? "cpio -it reads both parts of the initramfs"
ok=0
for f in init bin/busybox modules.load lib/modules/virtio_pci.ko \
	lib/modules/virtio_net.ko lib/modules/virtio_console.ko \
	lib/modules/9pnet_virtio.ko lib/modules/9p.ko \
	boot/config-6.1.0-57-amd64; do
	grep -qx "$f" "$T_TMP/list" || { t_diag "no $f in the initramfs"; ok=1; }
done
t_ok $ok "it holds /init, /bin/busybox, the modules, /modules.load and the config"
mkdir "$T_TMP/x"
(cd "$T_TMP/x" && (cpio -idm --quiet && cpio -idm --quiet) <"$INITRD") &&
	[ "$(head -2 "$T_TMP/x/modules.load")" = "$(printf 'virtio_ring.ko\nvirtio.ko')" ] &&
	[ "$(tail -1 "$T_TMP/x/modules.load")" = "9p.ko" ]
t_ok $? "modules.load starts with virtio_ring and virtio and ends with 9p"
busybox sh -n "$T_TMP/x/init"
t_ok $? "its /init is valid busybox sh"

t_run 0 "$B" testbed build --json && python3 - "$T_OUT" "$INITRD" <<'EOF'
import json, sys
k = json.load(open(sys.argv[1]))[0]
assert k["cached"] is True and k["initrd"] == sys.argv[2], k
EOF
t_ok $? "a second build (the default kernel) is a cache hit, same initramfs"
t_run 0 "$B" testbed build && t_grep "$T_OUT" "$PKG" &&
	t_grep "$T_OUT" "cached"
t_ok $? "and says so without --json"

t_run 1 "$B" testbed build --kernel linux-image-0.0.0-0-amd64 &&
	t_grep "$T_ERR" "apt-get download linux-image-0.0.0-0-amd64 failed" &&
	t_grep "$T_ERR" "Unable to locate package linux-image-0.0.0-0-amd64"
t_ok $? "a missing package is exit 1 with apt's own error"
[ ! -e "$CACHE/kernels/linux-image-0.0.0-0-amd64" ] &&
	! ls -d "$CACHE"/.tmp-* "$CACHE"/kernels/.tmp-* >/dev/null 2>&1
t_ok $? "and leaves nothing behind in the cache"

t_done
