#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox's ash
#
# The init of stage 2's throw-away initramfs (bench/labvm/labvm-stage2.c):
# busybox and the few modules that mount an ext4 root on virtio-blk,
# then the root's stage 2 as PID 1. A script because it runs in the
# image's arch, where only busybox is there to run it.
/bin/busybox --install -s /bin
mount -t devtmpfs devtmpfs /dev
mount -t proc proc /proc
# Named NN-NAME.ko: the order they depend on each other in.
for m in /mod/*.ko; do
	[ -e "$m" ] || continue
	insmod "$m" || echo "labvm-stage2: insmod $m failed"
done
i=0
while [ ! -b /dev/vda2 ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
if ! mount -t ext4 -o rw /dev/vda2 /newroot; then
	echo "labvm-stage2: FAILED: cannot mount /dev/vda2"
	poweroff -f
fi
umount /proc
umount /dev
exec switch_root /newroot /labvm-stage2/stage2.sh
