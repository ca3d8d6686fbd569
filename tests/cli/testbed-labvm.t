#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A lab machine for real: a whole Debian 12 system in a VM (SeaBIOS,
# grub, systemd, sshd, its own kernel and initramfs-tools), built from
# Debian's mirror by `labvm build` and started by `labvm start`, driven
# only as a real machine is: over ssh with the stanza start prints, the
# agent deployed to it with its libraries, modes booted through its own
# grub and kexec, a hung boot recovered by its power cycle.
#
#   A. strict by a one-shot grub entry, a command line that hangs the
#      boot (failed with the reason, the machine back on its default
#      entry by the power cycle), lazy by sysfs, passthrough by kexec;
#      each verified inside, the probes' relations held, the image
#      untouched (the VM ran on an overlay);
#   B. bad input answered clearly: an unreachable machine, a wrong key,
#      host keys that are not the machine's, a key file that is not
#      there, a machine without grub-reboot;
#   E. a night of configs/demo-netns.toml run by systemd itself
#      (systemctl start of the shipped unit): found in the store under
#      /var/lib/iommu-bench and in the journal; a matrix with a mistake
#      a failed unit;
#   D. Debian's kernel package installed by the machine's own dpkg: one
#      for another arch refused, a full /boot refused before installing,
#      the controller killed during the install and the run resumed (the
#      install finished, the kernel booted by grub, then removed);
#   C. stop: QEMU, its dnsmasq and its tap gone.
#
# Needs root, QEMU, debootstrap, dnsmasq and Debian's mirror the first
# time (the image is cached); skipped with the reason otherwise. 18
# minutes with the image cached beside an arm64 image build (D is 8 of
# them: the install, two grub boots, the purge), 4-9 more to build it.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
LAB=tl$$
DB=$T_TMP/lab.db

cleanup() {
	"$B" labvm stop "$LAB" >/dev/null 2>&1
	t_cleanup
}
trap cleanup EXIT INT TERM

t_require_root "a lab machine needs root (a loop device, a tap, dnsmasq)"
t_require qemu-system-x86_64 qemu-img debootstrap dnsmasq sfdisk losetup \
	mkfs.ext4 ssh ssh-keygen sqlite3 iperf3 python3
if [ ! -e /dev/loop-control ]; then
	echo "1..0 # SKIP no loop devices here (/dev/loop-control)"
	exit 0
fi

# json FILE KEY: a top-level string of a JSON object.
json() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

t_run 0 timeout 2400 "$B" labvm build --json
t_ok $? "labvm build makes (or finds) the Debian 12 image"
cp "$T_OUT" "$T_TMP/image.json"
DISK=$(json "$T_TMP/image.json" disk)
BEFORE=$(stat -c %Y:%s "$DISK")
[ -s "$DISK" ] && [ -s "$(json "$T_TMP/image.json" known_hosts)" ]
t_ok $? "... its disk at $DISK, the machine's host keys beside it"
t_run 0 "$B" labvm path && case "$DISK" in "$(cat "$T_OUT")"/images/*) ;; *) false ;; esac
t_ok $? "labvm path names the folder the image is under"

t_run 0 timeout 900 "$B" labvm start "$LAB" --json
st=$?
t_ok $st "labvm start boots it through firmware and grub until ssh answers"
if [ $st -ne 0 ]; then
	t_diag "$(tail -20 "$T_ERR")"
	t_done
	exit 1
fi
cp "$T_OUT" "$T_TMP/vm.json"
ADDR=$(json "$T_TMP/vm.json" address)
PEER=$(json "$T_TMP/vm.json" host_address)
KEY=$(json "$T_TMP/vm.json" key)
KH=$(json "$T_TMP/vm.json" known_hosts)
TAP=$(json "$T_TMP/vm.json" tap)
QPID=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["qemu_pid"])' "$T_TMP/vm.json")
json "$T_TMP/vm.json" stanza >"$T_TMP/stanza.toml"
t_grep "$T_ERR" "answers over ssh at $ADDR"
t_ok $? "... at $ADDR, leased by its own DHCP on $TAP"

# lab CMD: what the machine says, reached as a matrix reaches it. ssh
# joins its words into one line for the remote shell: quote CMD whole.
lab() {
	ssh -F /dev/null -o BatchMode=yes -o ConnectTimeout=10 \
		-o IdentitiesOnly=yes -i "$KEY" -o UserKnownHostsFile="$KH" \
		-o StrictHostKeyChecking=yes "root@$ADDR" "$@"
}

[ "$(lab cat /sys/class/iommu/dmar0/devices/*/uevent 2>/dev/null | grep -c PCI_ID)" -gt 0 ] &&
	lab systemctl is-system-running --wait >/dev/null 2>&1
st=$?
[ $st -eq 0 ] || lab systemctl --failed --no-legend 2>&1 | t_diag "$(cat)"
t_ok $st "systemd is up and the Intel vIOMMU translates its devices"

"$B" labvm status "$LAB" --json >"$T_TMP/status.json" &&
	python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); assert s["running"] is True and s["name"] == sys.argv[2]' \
		"$T_TMP/status.json" "$LAB"
t_ok $? "labvm status says it runs"

# --- A. grub, a hang and its power cycle, sysfs, kexec ------------------
# The stanza as start printed it, and a boot_timeout that a boot under
# TCG on two loaded cores keeps well within (measured: 60-75 s, 90 s
# beside another emulated machine building).
M=$T_TMP/a.toml
{
	cat <<EOT
[run]
name = "labvm-t"
repetitions = 1
warmup = 0
order = "grouped"
modes = ["strict", "broken", "lazy", "passthrough"]

EOT
	sed '/^power_cycle = /a boot_timeout = "150s"\nboot_estimate = "75s"' \
		"$T_TMP/stanza.toml"
	cat <<EOT

[[kernels]]
name = "debian"

[modes.strict]
method = "grub"

# A command line that hangs the boot: no root device, and initramfs-tools
# halts on panic=0 rather than offering a shell. Only a power cycle ends
# it; the kernel's "reboot: System halted" on the console the stanza
# names tells the run so without waiting out the boot_timeout.
[modes.broken]
method = "grub"
cmdline = ["root=/dev/nonexistent", "rootdelay=1", "panic=0"]

[modes.passthrough]
method = "kexec"

[[workloads]]
name = "tcp"
server = "$LAB"
client = "$LAB-peer"
duration = "2s"

[collect.bpf]
probes = ["map", "unmap", "iotlb_sync", "fq_flush", "hw_flush"]
EOT
} >"$M"

t_run 0 "$B" --db "$DB" plan --json "$M" && python3 - "$T_OUT" <<'EOF'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
got = sorted((c["mode"], c["apply"]) for c in cells)
assert got == [("broken", "grub"), ("lazy", "sysfs"),
               ("passthrough", "kexec"), ("strict", "grub")], got
EOF
t_ok $? "(A) the stanza loads as a matrix: strict and broken by grub, lazy by sysfs, passthrough by kexec"

t_run_ok 1 1500 "4 trials, 1 failed" \
	"(A) the run goes through all four, one failed" \
	"$B" -v --db "$DB" run "$M"
cp "$T_ERR" "$T_TMP/a.err"
E=$T_TMP/a.err

t_modes_ok "(A)" strict lazy passthrough

err=$(t_trial broken error)
[ "$(t_trial broken status)" = failed ] &&
	case "$err" in
	*"the boot stopped (its console says 'reboot: System halted'); power-cycled ("*"labvm reset $LAB), the machine is back on its default boot"*) ;;
	*) false ;;
	esac
st=$?
t_ok $st "(A) the hung boot fails its trial, its console's words quoted, power-cycled"
[ $st -eq 0 ] || t_diag "error: $err"

t_grep "$E" "its boot stopped (its console says 'reboot: System halted'), power-cycling it:" &&
	t_grep "$E" "rebooting (grub) into debian, mode strict" &&
	t_grep "$E" "rebooting (kexec) into debian, mode passthrough"
t_ok $? "(A) the run said each boot and the power cycle as they came"

c=$(t_boot strict cmdline)
case "$c" in BOOT_IMAGE=*" iommu.strict=1"*) ;; *) false ;; esac
t_ok $? "(A) strict booted through grub, the one-shot entry's line ($c)"
c=$(t_boot passthrough cmdline)
case "$c" in BOOT_IMAGE=*) false ;; *" iommu.passthrough=1"*) ;; *) false ;; esac
t_ok $? "(A) passthrough by kexec: no BOOT_IMAGE, the mode's argument ($c)"
c=$(t_q "SELECT b.cmdline FROM boots b WHERE b.id = (SELECT max(id) FROM boots WHERE id < $(t_trial passthrough boot_id) AND kernel_release <> '$(uname -r)')")
case "$c" in *iommu.*|*nonexistent*) false ;; BOOT_IMAGE=*) ;; *) false ;; esac
t_ok $? "(A) after the power cycle, its default entry (no one-shot left): $c"
[ "$(t_q "SELECT count(*) FROM boots b JOIN hosts h ON h.id = b.host_id WHERE h.name = '$LAB'")" = 4 ]
t_ok $? "(A) four boots of the machine stored: the first, strict, the recovered one, passthrough"

t_relations "(A)"

[ "$(stat -c %Y:%s "$DISK")" = "$BEFORE" ]
t_ok $? "(A) the image is untouched: the VM wrote its overlay"
lab ls .cache/iommu-bench >"$T_TMP/remote" 2>&1 &&
	grep -q '^agent-' "$T_TMP/remote" &&
	lab 'ls .cache/iommu-bench/agent-*/libjansson.so.*' >/dev/null
t_ok $? "(A) the agent was deployed there with its libraries"

# --- E. a night run by systemd itself ------------------------------------
# The shipped units, installed as `make install` installs them (ExecStart
# at the binary's folder: here the agent bundle the run deployed, its
# libraries beside it, found through a drop-in's LD_LIBRARY_PATH, as
# ssh's agent words find them), and configs/demo-netns.toml unchanged as
# /etc/iommu-bench/demo.toml: `systemctl start` runs its night under the
# unit's hardening, into /var/lib/iommu-bench, its words to the journal.
AG=$(lab 'ls -d /root/.cache/iommu-bench/agent-*' | head -n 1)
U=/etc/systemd/system
st=0
for u in service timer; do
	sed "s|/usr/bin/iommu-bench|$AG/iommu-bench|" \
		"$SRCDIR/configs/systemd/iommu-bench-nightly@.$u" |
		lab "cat >$U/iommu-bench-nightly@.$u" || st=1
done
[ $st -eq 0 ] && [ -n "$AG" ] &&
	lab mkdir -p /etc/iommu-bench "$U/iommu-bench-nightly@.service.d" &&
	printf '[Service]\nEnvironment=LD_LIBRARY_PATH=%s\n' "$AG" |
	lab "cat >$U/iommu-bench-nightly@.service.d/agent-libraries.conf" &&
	lab 'cat >/etc/iommu-bench/demo.toml' <"$SRCDIR/configs/demo-netns.toml" &&
	sed 's/^repetitions = 6/repetitions = "six"/' "$SRCDIR/configs/demo-netns.toml" |
	lab 'cat >/etc/iommu-bench/bad.toml' &&
	lab systemctl daemon-reload &&
	lab systemctl enable --now iommu-bench-nightly@demo.timer >/dev/null 2>&1 &&
	lab systemctl show -p NextElapseUSecRealtime --value \
		iommu-bench-nightly@demo.timer | grep -q .
t_ok $? "(E) the units installed on the machine, the demo's timer enabled and due"

t_run 0 lab timeout 600 systemctl --wait start iommu-bench-nightly@demo.service
st=$?
R=$(lab uname -r)
lab journalctl -u iommu-bench-nightly@demo.service --no-pager -o cat >"$T_TMP/journal" 2>&1
[ $st -eq 0 ] &&
	[ "$(lab systemctl show -p Result --value iommu-bench-nightly@demo.service)" = success ] &&
	grep -q "night 1 of demo-netns (running $R): pass" "$T_TMP/journal" &&
	grep -q "14 trials, 0 failed" "$T_TMP/journal"
st=$?
t_ok $st "(E) systemctl start runs one night of configs/demo-netns.toml: the unit succeeded, the journal has its words"
[ $st -eq 0 ] || t_diag "$(tail -20 "$T_TMP/journal")"

lab cat /var/lib/iommu-bench/demo.db >"$T_TMP/demo.db" &&
	[ "$(sqlite3 "$T_TMP/demo.db" "SELECT series || '|' || kernel || '|' || head || '|' || verdict || '|' || stage FROM nights")" = \
		"demo-netns|running|$R|pass|done" ] &&
	[ "$(sqlite3 "$T_TMP/demo.db" "SELECT count(*) FROM trials WHERE status = 'ok'")" -ge 12 ]
t_ok $? "(E) the night is in /var/lib/iommu-bench/demo.db: demo-netns, the running kernel $R, pass, its trials"

lab systemctl start iommu-bench-nightly@bad.service >/dev/null 2>&1
sleep 2
[ "$(lab systemctl is-failed iommu-bench-nightly@bad.service)" = failed ] &&
	lab journalctl -u iommu-bench-nightly@bad.service --no-pager -o cat |
	grep -q "/etc/iommu-bench/bad.toml:20:15: error: repetitions: expected an integer"
t_ok $? "(E) a night that cannot start is a failed unit, its file:line:column in the journal"
lab systemctl disable --now iommu-bench-nightly@demo.timer >/dev/null 2>&1

# --- B. bad input, answered clearly -------------------------------------
# bad CASE SED: the one-trial matrix $T_TMP/CASE.toml, its SUT's stanza
# edited by SED.
bad() {
	{
		printf '[run]\nrepetitions = 1\nwarmup = 0\nmodes = ["strict"]\n\n'
		sed "$2" "$T_TMP/stanza.toml"
		printf '\n[[kernels]]\nname = "debian"\n\n[modes.strict]\nmethod = "grub"\n\n'
		printf '[[workloads]]\nname = "tcp"\nserver = "%s"\nclient = "%s-peer"\nduration = "1s"\n' \
			"$LAB" "$LAB"
	} >"$T_TMP/$1.toml"
}

NOBODY=${ADDR%.*}.3
bad unreachable "s/^address = \"$ADDR\"/address = \"$NOBODY\"/"
t0=$(date +%s)
t_run 1 timeout 120 "$B" --db "$T_TMP/b.db" run "$T_TMP/unreachable.toml" &&
	t_grep "$T_ERR" "cannot reach $NOBODY over ssh"
t_ok $? "(B) an unreachable machine: 'cannot reach $NOBODY over ssh', exit 1, in $(($(date +%s) - t0)) s"

ssh-keygen -q -t ed25519 -N '' -f "$T_TMP/other_key"
bad wrongkey "s|^ssh_key = .*|ssh_key = \"$T_TMP/other_key\"|"
t_run 1 timeout 120 "$B" --db "$T_TMP/b.db" run "$T_TMP/wrongkey.toml" &&
	t_grep "$T_ERR" "Permission denied (publickey)"
t_ok $? "(B) a key the machine does not take: ssh's 'Permission denied', exit 1"

printf '* %s\n' "$(cat "$T_TMP/other_key.pub")" >"$T_TMP/other_hosts"
bad wronghost "s|^known_hosts = .*|known_hosts = \"$T_TMP/other_hosts\"|"
t_run 1 timeout 120 "$B" --db "$T_TMP/b.db" run "$T_TMP/wronghost.toml" &&
	t_grep "$T_ERR" "Host key verification failed"
t_ok $? "(B) host keys that are not the machine's: refused by ssh, exit 1"

bad nokey "s|^ssh_key = .*|ssh_key = \"$T_TMP/no_such_key\"|"
t_run 2 "$B" plan "$T_TMP/nokey.toml" &&
	t_grep "$T_ERR" "ssh_key: cannot read '$T_TMP/no_such_key'"
t_ok $? "(B) a key file that is not there: plan says which, exit 2"

lab mv /usr/sbin/grub-reboot /usr/sbin/grub-reboot.off
bad nogrub ""
t_run 1 timeout 300 "$B" --db "$T_TMP/b.db" run "$T_TMP/nogrub.toml" &&
	t_grep "$T_ERR" "has no grub-reboot"
t_ok $? "(B) a machine without grub-reboot: the trial fails saying so, before any reboot"
lab mv /usr/sbin/grub-reboot.off /usr/sbin/grub-reboot

# --- D. Debian's kernel package, installed by the machine's own dpkg ------
# The bookworm kernel after the image's own (-57 where the image has an
# older one): the testbed cache holds it unpacked; the run sends its .deb
# and the machine's dpkg, initramfs-tools and grub install it.
PKG=linux-image-6.1.0-57-amd64
PKGA=linux-image-6.1.0-57-arm64
FOUND=$(lab uname -r)
# pkgm CASE PACKAGE: one trial of PACKAGE in strict, booted by grub.
pkgm() {
	{
		printf '[run]\nname = "labvm-%s"\nrepetitions = 1\nwarmup = 0\nmodes = ["strict"]\n\n' "$1"
		sed '/^power_cycle = /a boot_timeout = "200s"' "$T_TMP/stanza.toml"
		printf '\n[[kernels]]\nname = "pkg"\npackage = "%s"\n\n[modes.strict]\nmethod = "grub"\n\n' "$2"
		printf '[[workloads]]\nname = "tcp"\nserver = "%s"\nclient = "%s-peer"\nduration = "2s"\n' \
			"$LAB" "$LAB"
	} >"$T_TMP/$1.toml"
}
KDIR=/var/lib/iommu-bench/kernels

pkgm wrongarch "$PKGA"
t_run 1 timeout 600 "$B" --db "$T_TMP/d.db" run "$T_TMP/wrongarch.toml" &&
	t_grep "$T_ERR" "$PKGA is a kernel for arm64, but this machine's dpkg is for amd64; nothing was sent or installed" &&
	! lab test -e "$KDIR/$PKGA.staging"
t_ok $? "(D) a package for another arch: refused by the machine's dpkg arch before anything is sent"

# /boot (the root file system here) filled to 100 MB short of the kernel.
pkgm full "$PKG"
AVAIL=$(lab df --output=avail -B1 /boot | tail -1)
lab fallocate -l $((AVAIL - 100000000)) /var/tmp/filler
t_run 1 timeout 900 "$B" --db "$T_TMP/d.db" run "$T_TMP/full.toml" &&
	grep -q "/boot has [0-9]* MB free, $PKG needs [0-9]* MB there" "$T_ERR" &&
	t_grep "$T_ERR" "nothing was installed" &&
	! lab dpkg-query -W "$PKG" >/dev/null 2>&1 && ! lab test -e "/boot/vmlinuz-${PKG#linux-image-}"
st=$?
t_ok $st "(D) a full /boot: refused before installing, nothing half-installed"
[ $st -eq 0 ] || t_diag "$(tail -5 "$T_ERR")"
lab rm -f /var/tmp/filler

# Killed while the machine's dpkg installs it: the resumed run finishes
# the install (dpkg --configure -a), boots it, and removes it at the end.
pkgm pkg "$PKG"
"$B" -v --db "$T_TMP/p.db" run "$T_TMP/pkg.toml" >"$T_TMP/p1.out" 2>&1 &
RUNPID=$!
dpkg_runs() { lab pgrep -x dpkg >/dev/null 2>&1; }
t_poll 600 1 $RUNPID dpkg_runs
sleep 5
kill -9 $RUNPID 2>/dev/null
wait $RUNPID 2>/dev/null
S=$(lab dpkg-query -W -f='${db:Status-Abbrev}' "$PKG" 2>/dev/null)
t_grep "$T_TMP/p1.out" "installing $PKG with its dpkg" && [ "$S" != "ii " ]
st=$?
t_ok $st "(D) the controller SIGKILLed while dpkg installs ($PKG: '$S')"
[ $st -eq 0 ] || t_diag "$(tail -5 "$T_TMP/p1.out")"

t_run_ok 0 2400 "1 trials, 0 failed" \
	"(D) the run again: resumed, the install finished, the trial ok" \
	"$B" -v --db "$T_TMP/p.db" run "$T_TMP/pkg.toml"
cp "$T_ERR" "$T_TMP/p2.err"
DB=$T_TMP/p.db
# The killed run's dpkg goes on without its controller: the resumed run
# finds it running (waits, then dpkg --configure -a) or done.
[ "$(t_q "SELECT count(*) FROM runs")" = 1 ] &&
	grep -q -e "installed in .* s (an install a killed run began, finished)" \
		-e "$PKG .* is installed there$" "$T_TMP/p2.err"
t_ok $? "(D) one run, resumed; the killed install finished rather than begun again"
c=$(t_boot strict cmdline)
[ "$(t_boot strict kernel_release)" = "${PKG#linux-image-}" ] &&
	case "$c" in BOOT_IMAGE=/boot/vmlinuz-${PKG#linux-image-}*" iommu.strict=1"*) ;; *) false ;; esac
t_ok $? "(D) booted through grub from the package's /boot files, in strict ($c)"
t_grep "$T_TMP/p2.err" "rebooting (grub) back into $FOUND" &&
	t_grep "$T_TMP/p2.err" "$PKG removed again" &&
	[ "$(lab uname -r)" = "$FOUND" ] &&
	! lab dpkg-query -W "$PKG" >/dev/null 2>&1 &&
	! lab test -e "/boot/vmlinuz-${PKG#linux-image-}" &&
	! lab test -e "$KDIR/$PKG" && ! lab grep -q "${PKG#linux-image-}" /boot/grub/grub.cfg
st=$?
t_ok $st "(D) at the end: back on $FOUND, the package purged, grub's menu without it"
[ $st -eq 0 ] || t_diag "$(tail -8 "$T_TMP/p2.err")"

# --- C. stop -------------------------------------------------------------
t_run 0 timeout 120 "$B" labvm stop "$LAB"
t_ok $? "(C) labvm stop"
! kill -0 "$QPID" 2>/dev/null && ! ip link show "$TAP" >/dev/null 2>&1 &&
	[ ! -e "/run/iommu-bench/labvm/$LAB" ] &&
	! pgrep -f "dnsmasq.*--interface=$TAP" >/dev/null
t_ok $? "(C) its QEMU, dnsmasq, tap and state are gone"
t_run 1 "$B" labvm reset "$LAB" && t_grep "$T_ERR" "no lab machine '$LAB'"
t_ok $? "(C) a power cycle of a machine that is not there says so"

t_done
