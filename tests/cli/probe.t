#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# probe on this real host, checked against what the kernel says through
# other doors (uname, /proc, the ELF notes parsed in Python), in a network
# namespace of our own, and on a fake Intel tree under --root.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/netns.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is needed to read the JSON"
	exit 0
fi

# py FILE SCRIPT: run SCRIPT with the parsed JSON of FILE as `d`.
py() {
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$2" "$1"
}

t_run 0 "$IOMMU_BENCH" probe
t_ok $? "probe exits 0"
cp "$T_OUT" "$T_TMP/text"

# Whether this host has an IOMMU, asked of sysfs directly.
units=$(ls /sys/class/iommu 2>/dev/null | wc -l)
groups=$(ls /sys/kernel/iommu_groups 2>/dev/null | wc -l)
if [ "$units" -eq 0 ] && [ "$groups" -eq 0 ]; then
	t_grep "$T_TMP/text" "no IOMMU: DMA is not translated" &&
		t_grep "$T_TMP/text" "/sys/class/iommu lists no IOMMU unit"
	t_ok $? "no IOMMU here, and the text says so with its evidence"
else
	grep -Eq "Mode: +(strict|lazy|passthrough|mixed)" "$T_TMP/text"
	t_ok $? "an IOMMU here ($units units, $groups groups), and a mode"
fi

t_run 0 "$IOMMU_BENCH" probe --json && cp "$T_OUT" "$T_TMP/a.json" &&
	py "$T_TMP/a.json" 'assert d["format"] == 2'
t_ok $? "--json parses and is format 2"

# The top-level keys of docs/probe.md are exactly those of the JSON.
sed -n '/^## Top level/,/^## identity/p' "$SRCDIR/docs/probe.md" |
	sed -n 's/^| `\([a-z_]*\)` |.*/\1/p' >"$T_TMP/keys"
[ "$(wc -l <"$T_TMP/keys")" -ge 10 ] &&
	py "$T_TMP/a.json" "
doc = open('$T_TMP/keys').read().split()
assert sorted(doc) == sorted(d), (sorted(doc), sorted(d))"
t_ok $? "every documented top-level key is there, and no other"

t_run 0 "$IOMMU_BENCH" probe --json && cp "$T_OUT" "$T_TMP/b.json" &&
	py "$T_TMP/a.json" "
b = json.load(open('$T_TMP/b.json'))
assert d['identity']['key'] and d['identity'] == b['identity']"
t_ok $? "the identity is stable across two calls"

# The store's host key, computed here from the same files.
py "$T_TMP/a.json" '
import re
def read(p):
    try:
        return open(p).read().strip()
    except OSError:
        return None
parts = []
mid = (read("/etc/machine-id") or read("/var/lib/dbus/machine-id") or "").lower()
if re.fullmatch("[0-9a-f]{32}", mid):
    parts.append("machine-id=" + mid)
uuid = (read("/sys/class/dmi/id/product_uuid") or "").lower()
junk = {"03000200-0400-0500-0006-000700080009"}
if re.fullmatch("[0-9a-f-]{36}", uuid) and uuid not in junk and \
        set(uuid) - set("0-") and set(uuid) - set("f-"):
    parts.append("product-uuid=" + uuid)
want = ";".join(parts)
assert want and d["identity"]["key"] == want, (d["identity"]["key"], want)'
t_ok $? "the identity is machine-id (+ DMI uuid), what the store keys on"

py "$T_TMP/a.json" "assert d['kernel']['release'] == '$(uname -r)'"
t_ok $? "kernel.release is uname -r"

# The real machine's boot facts, against the files they come from.
py "$T_TMP/a.json" '
import os, shlex
assert d["systemd"]["running"] == os.path.isdir("/run/systemd/system")
assert (d["firmware"]["kind"] == "uefi") == os.path.isdir("/sys/firmware/efi")
assert (d["dmi"] is None) == (not os.path.isdir("/sys/class/dmi/id"))
rel = [p for p in ("/etc/os-release", "/usr/lib/os-release") if os.path.exists(p)]
if rel:
    kv = dict(l.split("=", 1) for l in open(rel[0]).read().splitlines() if "=" in l)
    assert d["distro"]["id"] == shlex.split(kv["ID"])[0], d["distro"]
else:
    assert d["distro"] is None
cmd = open("/proc/cmdline").read().split()
img = [w[11:] for w in cmd if w.startswith("BOOT_IMAGE=")]
assert d["boot_loader"]["boot_image"] == (img[0] if img else None)'
t_ok $? "systemd, firmware, dmi, distro and BOOT_IMAGE are this machine's"

py "$T_TMP/a.json" '
assert d["kernel"]["boot_id"] == open("/proc/sys/kernel/random/boot_id").read().strip()
assert d["kernel"]["cmdline"] == open("/proc/cmdline").read().rstrip("\n")'
t_ok $? "boot_id and cmdline are the kernel's"

py "$T_TMP/a.json" '
import struct
data = open("/sys/kernel/notes", "rb").read()
off, want = 0, None
while off + 12 <= len(data):
    n, dsz, typ = struct.unpack_from("=III", data, off)
    off += 12
    name = data[off:off + n]
    off += (n + 3) & ~3
    desc = data[off:off + dsz]
    off += (dsz + 3) & ~3
    if typ == 3 and name == b"GNU\0":
        want = desc.hex()
        break
assert want and d["kernel"]["build_id"] == want, (d["kernel"]["build_id"], want)'
t_ok $? "build_id is the GNU note of /sys/kernel/notes"

py "$T_TMP/a.json" '
has = bool(d["iommu"]["units"] or d["iommu"]["groups"])
assert (d["dma_policy"]["mode"] == "none") == (not has)
assert d["dma_policy"]["evidence"]'
t_ok $? "dma_policy.mode is none exactly when there is no IOMMU"

py "$T_TMP/a.json" '
assert sorted(d["collectors"]) == ["bpf", "perf", "procstat"]
assert all(isinstance(v, dict) for v in d["collectors"].values())'
t_ok $? "each collector kind answers with an object"

py "$T_TMP/a.json" 'assert "lo" not in [n["name"] for n in d["nics"]]'
t_ok $? "loopback is not listed as a NIC"

# netns.sh prints a plan of its own when it cannot: here, mid-test, that
# would be a failure to report, not a skip.
if t_netns_pair >"$T_TMP/netns.out" 2>&1; then
	t_run 0 ip netns exec "$NS_A" "$IOMMU_BENCH" probe --json &&
		py "$T_OUT" "
nics = {n['name']: n for n in d['nics']}
v = nics['$IF_A']
assert list(nics) == ['$IF_A'], list(nics)
assert v['virtual'] and v['driver'] == 'veth' and v['iommu_group'] is None
assert v['operstate'] == 'up' and v['mtu'] > 0"
	t_ok $? "inside a namespace: its veth (driver veth, virtual), nothing else"
else
	t_diag "$(cat "$T_TMP/netns.out")"
	t_ok 1 "inside a namespace: could not make one"
fi

# A fake Intel host: dmar0, group 1 DMA-FQ holding a NIC's PCI function.
R="$T_TMP/root"
dev="$R/sys/devices/pci0000:00/0000:00:03.0"
mkdir -p "$R/proc/sys/kernel/random" "$R/etc" "$R/sys/class/iommu" \
	"$R/sys/devices/virtual/iommu/dmar0/intel-iommu" \
	"$R/sys/kernel/iommu_groups/1/devices" "$dev" "$R/dev"
echo 6.1.0-fake >"$R/proc/sys/kernel/osrelease"
echo 0123456789abcdef0123456789abcdef >"$R/etc/machine-id"
echo "root=/dev/vda iommu.strict=0" >"$R/proc/cmdline"
echo d2008c40660462 >"$R/sys/devices/virtual/iommu/dmar0/intel-iommu/cap"
ln -s "$R/sys/devices/virtual/iommu/dmar0" "$R/sys/class/iommu/dmar0"
echo DMA-FQ >"$R/sys/kernel/iommu_groups/1/type"
echo 0x020000 >"$dev/class"
ln -s "$R/sys/bus/pci/drivers/ixgbe" "$dev/driver"
ln -s "$dev" "$R/sys/kernel/iommu_groups/1/devices/0000:00:03.0"
printf '6,1,1,-;iommu: DMA domain TLB invalidation policy: lazy mode\n' \
	>"$R/dev/kmsg"

t_run 0 "$IOMMU_BENCH" probe --root "$R" &&
	t_grep "$T_OUT" "dmar0  Intel VT-d (DMAR)" &&
	grep -Eq "^ +1 +DMA-FQ +lazy +0000:00:03.0 +ixgbe +0x020000" "$T_OUT" &&
	grep -Eq "Mode: +lazy \(decided by: groups\)" "$T_OUT" &&
	t_grep "$T_OUT" "the command line asks for lazy (iommu.strict=0)"
t_ok $? "--root: a fake Intel tree shows its unit, group and mode"

t_run 0 "$IOMMU_BENCH" probe --root "$R" --json &&
	py "$T_OUT" "
assert d['dma_policy']['mode'] == 'lazy' and d['collectors'] is None
assert d['iommu']['groups'][0]['devices'][0]['driver'] == 'ixgbe'
assert d['identity']['key'] == 'machine-id=0123456789abcdef0123456789abcdef'
assert d['dmi'] is None and d['firmware']['kind'] is None
assert d['boot_loader']['name'] is None and d['boot_loader']['grub'] is None
assert d['systemd'] == {'running': False, 'boot_time': None}
assert d['distro'] is None and d['kernel_config'] is None
assert any(w.startswith('grub:') for w in d['warnings'])"
t_ok $? "--root --json: the same facts, no collectors asked, no boot facts in a bare tree"

t_run 2 "$IOMMU_BENCH" probe --root "$T_TMP/nonexistent" &&
	t_grep "$T_ERR" "--root '$T_TMP/nonexistent'" &&
	t_grep "$T_ERR" "expected a directory"
t_ok $? "--root that is not there is a usage error naming it"

t_run 2 "$IOMMU_BENCH" probe extra && t_grep "$T_ERR" "unexpected argument 'extra'"
t_ok $? "an extra argument is a usage error"

t_done
