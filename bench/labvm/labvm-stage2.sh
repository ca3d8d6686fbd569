#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Stage 2 of a foreign arch's lab image (bench/labvm/labvm-stage2.c):
# PID 1 of the image's root, in the one boot of a VM of the image's own
# arch that the build makes. It is a shell script, the one in the
# build, because nothing else can run there yet: the packages are
# unpacked, not configured, and configuring them is its job. Done in
# that VM rather than under qemu-user in a chroot, it took half the
# time (docs/labvm.md), and the initramfs sees the machine it is for.
#
# It configures every package, puts the recipe's files in place (after
# the packages, which own some of them), makes the initramfs once,
# installs grub to the ESP's removable path, then prints
# "labvm-stage2: ok" on the console, which the build reads back, and
# powers off. On any failure it prints "labvm-stage2: FAILED: WHY".
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 HOME=/root \
	DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true
S=/labvm-stage2

poweroff_now() {
	sync
	mount -o remount,ro / 2>/dev/null
	sync
	echo o >/proc/sysrq-trigger
	sleep 60
}

step() {
	echo "labvm-stage2: $(cut -d' ' -f1 /proc/uptime) s: $*"
}

fail() {
	echo "labvm-stage2: FAILED: $*"
	poweroff_now
}

# Run "$@", or fail saying what failed.
run() {
	"$@" || fail "$* (exit $?)"
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -o remount,rw / || fail "cannot write the root"
[ -r "$S/env" ] || fail "no $S/env"
# shellcheck source=/dev/null # written by the build
. "$S/env"

step "configuring the packages"
run dpkg --configure -a --force-unsafe-io
step "configured"
[ -z "$(dpkg --audit)" ] || fail "dpkg --audit: $(dpkg --audit | head -5)"

rm -f /usr/sbin/update-initramfs
run dpkg-divert --local --rename --remove /usr/sbin/update-initramfs
# The recipe's files, over what the packages' scripts wrote.
run cp -a "$S/files/." /
# Only what this machine needs to find its root: 2-3 minutes less under
# TCG than "most", and the lab machine is this machine.
run sed -i 's/^MODULES=.*/MODULES=dep/' /etc/initramfs-tools/initramfs.conf
run update-initramfs -c -k all
step "initramfs made"

# shellcheck disable=SC2086 # the lists are words
run systemctl enable $LABVM_ENABLE
# A benchmark host runs nothing on a timer: apt's downloads and the file
# systems' scrubs would land in the middle of trials.
# shellcheck disable=SC2086
run systemctl mask $LABVM_MASK

# The host's kernel may have no vfat: the ESP is mounted here.
modprobe vfat 2>/dev/null
modprobe nls_cp437 2>/dev/null
modprobe nls_ascii 2>/dev/null
mkdir -p /boot/efi
run mount -t vfat /dev/vda1 /boot/efi
# grub-mkconfig writes root=UUID= only where udev's link exists; no
# udev runs here.
mkdir -p /dev/disk/by-uuid
ln -sf /dev/vda2 "/dev/disk/by-uuid/$LABVM_ROOT_UUID"
# The firmware keeps no boot entries: only EFI/BOOT/ is looked at.
run grub-install --target="$LABVM_GRUB_TARGET" --efi-directory=/boot/efi \
	--boot-directory=/boot --removable --no-nvram
run update-grub
grep -q "root=UUID=$LABVM_ROOT_UUID" /boot/grub/grub.cfg ||
	fail "grub.cfg boots no root=UUID=$LABVM_ROOT_UUID"
ls /boot/efi/EFI/BOOT/*.EFI >/dev/null 2>&1 || fail "no EFI/BOOT/*.EFI"
step "grub installed"
run umount /boot/efi

rm -f /usr/sbin/policy-rc.d
apt-get clean
rm -rf "$S"
sync
echo "labvm-stage2: ok"
poweroff_now
