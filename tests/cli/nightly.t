#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench nightly's refusals, each before any fetch, build or boot,
# with nothing stored: a matrix without [nightly] whose host is not
# this machine (nightly-watch.t runs one that is), a remote the tree
# lacks, a branch its remote lacks, --send without a sendmail command or
# with one that is not there, and a night started while another of the
# same database runs (named); and a night whose build fails, stored as
# failed. What a night does end to end, testbed-nightly.t shows.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nightly-matrix.sh"

B=$IOMMU_BENCH
DB=$T_TMP/robot.db
TREE=$T_TMP/linux
git init -q "$TREE" && git -C "$TREE" -c user.name=x -c user.email=x@x \
	commit -q --allow-empty -m one && git -C "$TREE" remote add origin "$TREE"
t_ok $? "a scratch tree with a remote"

# matrix FILE [NIGHTLY]: a testbed matrix whose kernel builds from the
# scratch tree, with NIGHTLY as its [nightly] table.
matrix() {
	nightly_matrix "$1" 1 nt 4 1s '[[kernels]]
name = "next"
build = { tree = "'"$TREE"'", config = "tinyconfig" }' "${2-}"
}
FOLLOW='[nightly]
follow = { kernel = "next", remote = "origin", branch = "master" }'

matrix "$T_TMP/none.toml"
t_run 2 "$B" --db "$DB" nightly "$T_TMP/none.toml" &&
	t_grep "$T_ERR" "has no [nightly] table, and its host 'guest' is not this machine: a night without one follows this machine's running kernel"
t_ok $? "a matrix without [nightly] on a machine that is not this one: exit 2, said"

matrix "$T_TMP/remote.toml" '[nightly]
follow = { kernel = "next", remote = "upstream", branch = "master" }'
t_run 2 "$B" --db "$DB" nightly "$T_TMP/remote.toml" &&
	t_grep "$T_ERR" "the tree $TREE has no remote 'upstream' (it has: origin)"
t_ok $? "a remote the tree lacks: exit 2, naming those it has"

matrix "$T_TMP/nosend.toml" "$FOLLOW"
t_run 2 "$B" --db "$DB" nightly --send "$T_TMP/nosend.toml" &&
	t_grep "$T_ERR" "--send: [nightly.mail] names no sendmail command"
t_ok $? "--send without a sendmail command: exit 2"

matrix "$T_TMP/gone.toml" "$FOLLOW
[nightly.mail]
sendmail = [\"$T_TMP/no-msmtp\", \"-t\"]"
t_run 2 "$B" --db "$DB" nightly --send "$T_TMP/gone.toml" &&
	t_grep "$T_ERR" "the sendmail command $T_TMP/no-msmtp is not there"
t_ok $? "a sendmail command that is not there: exit 2, named"

t_run 2 "$B" --db "$DB" nightly --workdir rel/dir "$T_TMP/nosend.toml" &&
	t_grep "$T_ERR" "--workdir rel/dir: an absolute path"
t_ok $? "a relative --workdir: exit 2"

[ ! -e "$DB" ]
t_ok $? "none of them created the database"

# Another night running: its lock held, its words in the lock file.
printf 'pid 4242, series robot, since 2026-12-06T02:00:00Z\n' >"$DB.nightly.lock"
(
	exec 9>>"$DB.nightly.lock"
	flock 9
	exec sleep 30
) &
HOLDER=$!
sleep 0.3
t_run 3 "$B" --db "$DB" nightly "$T_TMP/nosend.toml" &&
	t_grep "$T_ERR" "another night of $DB is running (pid 4242, series robot, since 2026-12-06T02:00:00Z)"
t_ok $? "a second night of the same database: exit 3, naming the running one"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null

# The branch its remote lacks: fetched, refused in git's words, no night.
matrix "$T_TMP/branch.toml" '[nightly]
follow = { kernel = "next", remote = "origin", branch = "no-such-branch" }'
t_run 1 "$B" --db "$DB" nightly "$T_TMP/branch.toml" &&
	t_grep "$T_ERR" "fetching no-such-branch of origin into $TREE failed" &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM nights")" = 0 ]
t_ok $? "a branch its remote lacks: git's words, no night stored"

# A night whose build fails (the scratch tree is no kernel): stored,
# failed, exit 1; its worktree where --workdir says.
t_run 1 "$B" --db "$DB" nightly --workdir "$T_TMP/wd" "$T_TMP/nosend.toml" &&
	t_grep "$T_ERR" "make tinyconfig failed" &&
	[ "$(sqlite3 "$DB" "SELECT stage || ' ' || verdict FROM nights")" = "done failed" ] &&
	t_grep "$T_OUT" "night 1 of robot (next "
t_ok $? "a night whose build fails: said, stored done and failed, exit 1"
t_run 1 "$B" --db "$DB" nightly --workdir "$T_TMP/wd" "$T_TMP/nosend.toml" &&
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM nights")" = 2 ]
t_ok $? "the next night is a night of its own, not the failed one resumed"

t_done
