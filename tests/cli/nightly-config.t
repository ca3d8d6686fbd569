#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# [nightly] checked with the matrix, by plan, before any night: what the
# robot follows (a build kernel with its remote and branch, or a Debian
# package), the pinned kernel, the mail's addresses and sendmail, each
# bad one refused at its file:line:column with what was expected; and
# [kcidb], where the night's results go: its URL, token file and origin.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nightly-matrix.sh"

B=$IOMMU_BENCH
TREE=$T_TMP/linux
git init -q "$TREE"

# matrix FILE NIGHTLY: a testbed matrix with a build kernel, a package
# kernel and an image, and NIGHTLY as its [nightly] table.
KERNELS='[[kernels]]
name = "next"
build = { tree = "'"$TREE"'", config = "tinyconfig" }

[[kernels]]
name = "sid"
package = "linux-image-amd64"
suite = "sid"

[[kernels]]
name = "stock"
package = "linux-image-6.1.0-57-amd64"'
matrix() {
	nightly_matrix "$1" 0 nc 3 2s "$KERNELS" "$2"
}

matrix "$T_TMP/ok.toml" '[nightly]
follow = { kernel = "next", remote = "origin", branch = "master" }
pinned = "stock"
history = 12
[nightly.mail]
to = ["author"]
cc = ["iommu@lists.example.org"]
sendmail = ["/usr/bin/msmtp", "-t"]'
t_run 0 "$B" plan "$T_TMP/ok.toml"
t_ok $? "a build kernel followed on its remote's branch, a pinned one beside it: the matrix loads"

matrix "$T_TMP/pkg.toml" '[nightly]
follow = { kernel = "sid" }'
t_run 0 "$B" plan "$T_TMP/pkg.toml"
t_ok $? "a Debian meta-package followed: the matrix loads"

# bad CASE NIGHTLY WORDS: plan refuses, exit 2, saying WORDS.
bad() {
	matrix "$T_TMP/$1.toml" "$2"
	t_run 2 "$B" plan "$T_TMP/$1.toml" && t_grep "$T_ERR" "$3"
}

bad none '[nightly]
pinned = "stock"' "[nightly]: missing key 'follow'"
t_ok $? "no follow: what the robot follows is asked for"

bad typo '[nightly]
follow = { kernel = "nxet", remote = "origin", branch = "master" }' \
	"follow.kernel: no kernel named 'nxet' in [[kernels]]; did you mean 'next'?"
t_ok $? "a kernel name misspelt: did you mean"

bad nobranch '[nightly]
follow = { kernel = "next" }' "follow: kernel 'next' is built from $TREE: name the remote and the branch"
t_ok $? "a build kernel without its remote and branch: refused, with an example"

bad pkgbranch '[nightly]
follow = { kernel = "sid", branch = "master" }' "the Debian package linux-image-amd64, which has no remote or branch"
t_ok $? "a package with a branch: refused"

matrix "$T_TMP/img.toml" ''
sed -i 's|^package = "linux-image-6.1.0-57-amd64"|image = "/boot/vmlinuz"|' "$T_TMP/img.toml"
printf '[nightly]\nfollow = { kernel = "stock" }\n' >>"$T_TMP/img.toml"
t_run 2 "$B" plan "$T_TMP/img.toml" && t_grep "$T_ERR" "'stock' is an image file, which does not move"
t_ok $? "an image kernel does not move: refused"

bad same '[nightly]
follow = { kernel = "sid" }
pinned = "sid"' "pinned: 'sid' is the kernel the robot follows"
t_ok $? "the pinned kernel is the followed one: refused"

bad key '[nightly]
follow = { kernel = "sid" }
histroy = 3' "did you mean 'history'"
t_ok $? "a misspelt key: did you mean"

bad short '[nightly]
follow = { kernel = "sid" }
history = 1' "history"
t_ok $? "a history of one night: refused"

bad addr '[nightly]
follow = { kernel = "sid" }
[nightly.mail]
cc = ["iommu lists"]' "'iommu lists' is not an address"
t_ok $? "a Cc that is not an address: refused"

bad sendmail '[nightly]
follow = { kernel = "sid" }
[nightly.mail]
sendmail = ["msmtp", "-t"]' "sendmail: expected the command as a list whose first element is an absolute path"
t_ok $? "sendmail not an absolute path: refused"

# [kcidb]: the service the nightly submits to, checked as export's
# --submit checks it; the token file is read when a night submits.
KCIDB_OK='[nightly]
follow = { kernel = "sid" }
[kcidb]'
matrix "$T_TMP/kcidb.toml" "$KCIDB_OK
url = \"https://kcidb.example.org/\"
token_file = \"kcidb.token\"
origin = \"iommu_lab_1\""
t_run 0 "$B" plan "$T_TMP/kcidb.toml"
t_ok $? "[kcidb] with an https URL, a token file not there yet and an origin: the matrix loads"

# One plan each reports every mistake at its file:line:column (the
# [kcidb] line's number plus LINE): kcidb_bad FILE KCIDB, then
# kcidb_said LINE WORDS for each.
kcidb_bad() {
	matrix "$T_TMP/$1.toml" "$KCIDB_OK
$2"
	KFILE=$T_TMP/$1.toml
	KLINE=$(grep -n '^\[kcidb\]$' "$KFILE" | cut -d: -f1)
	t_run 2 "$B" plan "$KFILE"
}
kcidb_said() {
	grep -F -- "$KFILE:$((KLINE + $1)):" "$T_ERR" | grep -qF -- "$2" && return
	t_diag "not at line $((KLINE + $1)): '$2'" "$(cat "$T_ERR")"
	return 1
}

kcidb_bad kbad 'url = "ftp://kcidb.example.org"
token_file = "t"
origin = "iommu-bench"
orgin = "lab"'
t_ok $? "[kcidb] with three mistakes: plan refuses it"
kcidb_said 1 "url: expected an http(s) URL, got 'ftp://kcidb.example.org'"
t_ok $? "a url not http(s): refused at its file:line:column"
kcidb_said 3 "origin: 'iommu-bench' is not a KCIDB origin: use lowercase letters, digits and '_'"
t_ok $? "an origin with a dash: refused at its file:line:column"
kcidb_said 4 "unknown key 'orgin' in [kcidb]; did you mean 'origin'?"
t_ok $? "a misspelt key: refused at its file:line:column, did you mean"

kcidb_bad knotoken 'url = "http://"'
t_ok $? "[kcidb] without a host or a token file: plan refuses it"
kcidb_said 1 "url: expected an http(s) URL with a host, got 'http://'"
t_ok $? "a url without a host: refused"
kcidb_said 0 "[kcidb]: missing key 'token_file'"
t_ok $? "no token file: refused, the token never in the matrix"

matrix "$T_TMP/pos.toml" '[nightly]
follow = { kernel = "nxet", remote = "origin", branch = "master" }'
line=$(grep -n '^follow = ' "$T_TMP/pos.toml" | cut -d: -f1)
t_run 2 "$B" plan "$T_TMP/pos.toml" && t_grep "$T_ERR" "$T_TMP/pos.toml:$line:"
t_ok $? "each refusal at its file:line:column ($line)"

t_done
