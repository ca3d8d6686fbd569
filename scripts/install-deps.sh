#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages iommu-bench needs to build and test.
# Idempotent: apt-get skips what is already there.
set -eu

PKGS="
build-essential
pkg-config
clang
llvm
libclang-rt-14-dev
libsqlite3-dev
sqlite3
libjansson-dev
python3
perl
git
man-db
groff-base
"

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: must run as root (apt-get)" >&2
	exit 2
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086 # word splitting of the list is intended
apt-get install -y -q --no-install-recommends $PKGS
