#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# completions/iommu-bench: sourced in bash and called as bash calls it
# (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT), as bash-completion's
# own tests do, with the binary under test first in PATH: the commands,
# a command's options, a real database's runs, a folder's matrices and a
# matrix's kernels; and nothing, silently, without a database.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gendb.sh"

mkdir -p "$T_TMP/bin" "$T_TMP/m/sub"
ln -s "$IOMMU_BENCH" "$T_TMP/bin/iommu-bench"
DB=$T_TMP/c.db
t_gendb --out "$DB" --runs 3 --reps 2
t_ok $? "a database with three runs"
# Two names, so that name:NAME is listed once a name.
sqlite3 "$DB" "UPDATE runs SET name = 'ab-test' WHERE id = 2"
export IOMMU_BENCH_DB=$DB

cat >"$T_TMP/comp.sh" <<'SH'
[ -n "${BASH_COMPLETION:-}" ] && . "$BASH_COMPLETION"
. "$SRCDIR/completions/iommu-bench"
COMP_LINE=$1
COMP_POINT=${#COMP_LINE}
# Split as bash splits, at COMP_WORDBREAKS' ':' and '=' too.
read -ra COMP_WORDS <<<"$(sed 's/[:=]/ & /g' <<<"$COMP_LINE")"
[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_iommu_bench iommu-bench "${COMP_WORDS[COMP_CWORD]}" \
	"${COMP_WORDS[COMP_CWORD - 1]}"
((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | sort
exit 0
SH
# comp LINE: the words offered at the end of LINE, sorted, in $T_OUT.
comp() {
	(cd "$T_TMP/m" && PATH="$T_TMP/bin:$PATH" SRCDIR=$SRCDIR \
		t_run 0 bash --norc --noprofile "$T_TMP/comp.sh" "$1")
	T_OUT=$T_TMP/out
}
# same GOT WANT-TEXT
same() {
	[ "$(cat "$1")" = "$2" ] && return 0
	t_diag "got:" "$(cat "$1")" "want:" "$2"
	return 1
}

comp "iommu-bench " && t_grep "$T_OUT" compare && t_grep "$T_OUT" report &&
	t_grep "$T_OUT" nightly && ! grep -q __complete "$T_OUT"
t_ok $? "iommu-bench <TAB> lists the commands, not the hidden one"
comp "iommu-bench co" && same "$T_OUT" compare
t_ok $? "iommu-bench co<TAB> is compare"
comp "iommu-bench compare --r" && same "$T_OUT" "--run="
t_ok $? "compare --r<TAB> is --run="
comp "iommu-bench report --" && t_grep "$T_OUT" "--by=" &&
	t_grep "$T_OUT" "--db=" && t_grep "$T_OUT" "--help"
t_ok $? "report --<TAB> lists report's options"

runs=$({
	printf 'latest\nprevious\nall\n'
	sqlite3 "$DB" "SELECT id FROM runs"
	sqlite3 "$DB" "SELECT DISTINCT 'name:' || name FROM runs"
} | sort)
comp "iommu-bench compare --run " && same "$T_OUT" "$runs"
t_ok $? "compare --run <TAB> lists the database's run ids and names"
# bash replaces what follows the last ':' only.
comp "iommu-bench regress --run=name:a" && same "$T_OUT" "ab-test"
t_ok $? "regress --run=name:a<TAB> completes the name"
comp "iommu-bench --db $T_TMP/none.db report --run " &&
	same "$T_OUT" "" && same "$T_TMP/err" ""
t_ok $? "a missing database completes nothing and says nothing"
comp "iommu-bench compare --by k" && same "$T_OUT" kernel
t_ok $? "compare --by k<TAB> is kernel"

cp "$SRCDIR/configs/kernel-ab.toml" "$T_TMP/m/ab.toml"
: >"$T_TMP/m/notes.txt"
comp "iommu-bench run " && same "$T_OUT" "$(printf 'ab.toml\nsub')"
t_ok $? "run <TAB> offers the folder's matrices and folders"
comp "iommu-bench bisect ab.toml --kernel " &&
	same "$T_OUT" "$("$IOMMU_BENCH" plan --json "$T_TMP/m/ab.toml" 2>/dev/null |
		python3 -c 'import json,sys
print("\n".join(sorted(k["name"] for k in json.load(sys.stdin)["kernels"])))')"
t_ok $? "bisect ab.toml --kernel <TAB> offers the matrix's kernels"
comp "iommu-bench db " && same "$T_OUT" "$(printf 'info\nmerge\nmigrate')"
t_ok $? "db <TAB> lists db's subcommands"
comp "iommu-bench triage --json s" && same "$T_OUT" show
t_ok $? "triage --json s<TAB> is show, past an option"
comp "iommu-bench --db $DB kernel build " && same "$T_OUT" ""
t_ok $? "no subcommand after the subcommand"
comp "iommu-bench bisect " && same "$T_OUT" "$(printf 'ab.toml\nlog\nsub')"
t_ok $? "bisect <TAB> offers matrices and its subcommand"

if [ -r /usr/share/bash-completion/bash_completion ]; then
	BASH_COMPLETION=/usr/share/bash-completion/bash_completion
	export BASH_COMPLETION
	comp "iommu-bench compare --run " && same "$T_OUT" "$runs"
	t_ok $? "with bash-completion's helpers too"
else
	t_ok 0 "# SKIP bash-completion is not installed"
fi
t_done
