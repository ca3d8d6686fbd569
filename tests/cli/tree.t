#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# House rules of the tree: licence lines, documentation that keeps up with
# the command table, and results/ holding nothing but its README.
set -eu
. "$(dirname "$0")/lib.sh"
cd "$SRCDIR"

if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "1..0 # SKIP not a git checkout"
	exit 0
fi

# A patch must start with its "From " line for git am; it carries the
# licence of the tree it patches. A fuzzer's seeds and the inputs that
# crashed it are bytes in a parser's own format, where a line more is
# another input.
missing=$(git ls-files -- ':!LICENSE' ':!*.json' ':!*.patch' \
	':!tests/fuzz/seeds/' ':!tests/fuzz/regress/' | while read -r f; do
	[ -f "$f" ] || continue
	head -3 "$f" | grep -q 'SPDX-License-Identifier' || echo "$f"
done)
[ -z "$missing" ]
st=$?
[ "$st" -eq 0 ] || t_diag "files without an SPDX line:" "$missing"
t_ok $st "every tracked file has an SPDX line"

extra=$(git ls-files results | grep -v '^results/README.md$' || true)
[ -z "$extra" ]
t_ok $? "results/ tracks only its README"

# prove runs each test file itself: one without its x bit ends the
# suite at that file, every test after it unrun.
noexec=$(git ls-files -s -- 'tests/cli/*.t' 'tests/*.t' |
	awk '$1 != "100755" { print $4 }')
[ -z "$noexec" ]
t_ok $? "every test script is committed executable${noexec:+: not $noexec}"

# Every command in the table has a section in the man page and a line in
# the README, so that neither can silently fall behind.
cmds=$("$IOMMU_BENCH" --help | sed -n '/^commands:/,/^$/p' | awk 'NF>1 {print $1}')
[ -n "$cmds" ]
t_ok $? "the command list can be read from --help"
for c in $cmds; do
	grep -q "^\.SS \"*$c\b" docs/iommu-bench.1
	t_ok $? "man page documents '$c'"
	grep -q "iommu-bench $c\b" README.md
	t_ok $? "README mentions '$c'"
done

# The layering of the folders, as docs/architecture.md's table states
# it: data flows one way, from the matrix to the report. Each include is
# resolved as the compiler does (the including file's folder, then the
# top, then src/) and judged by the row of the including file's folder;
# an include the tree does not hold (a system header, a generated
# skeleton) is not ours.
layering_py='
import os, re, sys
doc, root = sys.argv[1], sys.argv[2]
rows = {}
for line in open(doc, encoding="utf-8"):
    m = re.match(r"^\| `([a-z0-9/*-]+)/` \|.*\| ([^|]+) \|$", line.rstrip())
    if m:
        may = m.group(2).strip()
        rows[m.group(1)] = ["*"] if may == "everything" else \
            [] if may == "nothing" else re.findall(r"`([a-z0-9/*-]+)/`", may)
def row(d):
    parts = d.split("/")
    if d in rows:
        return d
    for i in range(len(parts) - 1, 0, -1):
        if "/".join(parts[:i]) + "/*" in rows:
            return "/".join(parts[:i]) + "/*"
    return None
def allowed(d, t):
    r = rows[row(d)]
    if t == d or "*" in r:
        return True
    return any(t == a or (a.endswith("/*") and t.startswith(a[:-1]) and
               "/" not in t[len(a) - 1:]) for a in r)
files = set()
for top in ("cmd", "src", "store", "stats", "report", "bench", "collectors", "bpf"):
    for dp, dn, fn in os.walk(os.path.join(root, top)):
        for f in fn:
            if f.endswith((".c", ".h")):
                files.add(os.path.relpath(os.path.join(dp, f), root))
for f in sorted(files):
    d = os.path.dirname(f)
    if row(d) is None:
        print("%s: its folder %s/ has no row in %s" % (f, d, doc))
        continue
    for n, line in enumerate(open(os.path.join(root, f), encoding="utf-8"), 1):
        m = re.match(r"\s*#\s*include\s*\"([^\"]+)\"", line)
        if not m:
            continue
        x = m.group(1)
        for t in (os.path.normpath(os.path.join(d, x)), x, "src/" + x):
            if t in files:
                break
        else:
            continue
        td = os.path.dirname(t)
        if not allowed(d, td):
            print("%s:%d: includes %s: %s/ may include %s" % (f, n, t, d,
                  ", ".join(a + "/" for a in rows[row(d)]) or "nothing of ours"))
'

# layering ROOT: every include under ROOT that crosses the layering.
layering() {
	python3 -c "$layering_py" "$SRCDIR/docs/architecture.md" "$1"
}

n=$(grep -c '^| `[a-z0-9/*-]*/` |' docs/architecture.md)
[ "$n" -ge 10 ]
t_ok $? "docs/architecture.md has the layering table tree.t reads ($n rows)"

bad=$(layering "$SRCDIR")
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "includes that cross the layering:" "$bad"
t_ok $st "no include crosses the layering"

# Each rule, tried on a planted include in a scratch tree: the check
# must name the file, the line and the include it refuses.
plant() {
	root="$T_TMP/plant-$1"
	mkdir -p "$root/$(dirname "$2")" "$root/$(dirname "$3")"
	printf '// x\n#include "%s"\n' "$4" >"$root/$2"
	: >"$root/$3"
	layering "$root"
}
for p in \
	"coll collectors/bpf/x.c bench/run/run.h bench/run/run.h" \
	"rep report/x.c collectors/collector.h collectors/collector.h" \
	"mx bench/matrix/x.c bench/run/run.h bench/run/run.h" \
	"agent bench/agent/x.c bench/run/run.h bench/run/run.h" \
	"kb bench/kbuild/x.c bench/host/host.h bench/host/host.h" \
	"tr bench/host/qemu/x.c bench/run/run.h bench/run/run.h" \
	"trst bench/host/lava/x.c store/store.h store/store.h" \
	"bis bench/bisect/x.c report/regress.h report/regress.h" \
	"hst bench/host/x.c report/report.h report/report.h" \
	"run bench/run/x.c report/compare.h report/compare.h" \
	"store store/x.c bench/run/run.h bench/run/run.h" \
	"store2 store/x.c report/rdb.h report/rdb.h" \
	"stats stats/x.c store/store.h store/store.h" \
	"helper src/x.c bench/matrix/matrix.h bench/matrix/matrix.h" \
	"cmd collectors/x.c cmd/builtin.h cmd/builtin.h" \
	"bpf bpf/x.bpf.c collectors/bpf/bpf-defs.h collectors/bpf/bpf-defs.h"; do
	# shellcheck disable=SC2086 # the fields are words
	set -- $p
	out=$(plant "$1" "$2" "$3" "$4")
	echo "$out" | grep -q "^$2:2: includes $3: "
	st=$?
	[ "$st" -eq 0 ] || t_diag "got: $out"
	t_ok $st "a planted include of $3 in $2 is refused"
done
out=$(plant ok report/x.c store/store.h store/store.h)
[ -z "$out" ]
t_ok $? "and report/ including the store is not"
out=$(plant new bench/new/x.c src/log.h log.h)
echo "$out" | grep -q "^bench/new/x.c: its folder bench/new/ has no row"
t_ok $? "a folder of code without a row in docs/architecture.md is refused"

# One error convention per layer (docs/hacking.md): a message is said
# once, by the layer that knows who listens. The pure layers say
# nothing; the library layers of bench/ hand their words to the caller
# in char **err; only the layers that print name the standard streams.
bad=$(git grep -nE '#include "(src/)?log\.h"|\b(f?printf|puts|fputs|perror)\(' \
	-- stats bpf || :)
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "stats/ and bpf/ say nothing:" "$bad"
t_ok $st "stats/ and bpf/ neither log nor print"

bad=$(git grep -nw 'pr_err' -- bench/host bench/agent-client bench/kbuild \
	bench/testbed bench/workload bench/matrix bench/agent \
	':!bench/agent/agent-serve.c' ':!bench/agent/agent-reboot.c' |
	grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)' || :)
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "pr_err in a layer that returns its words in char **err:" "$bad"
t_ok $st "the library layers of bench/ return their errors, never print them"

bad=$(git grep -nwE 'stdout|stderr' -- '*.c' ':!cmd/' ':!tests/' \
	':!bench/run/' ':!bench/bisect/' ':!bench/nightly/' ':!src/log.c' ':!src/output.c' \
	':!src/parse-options.c' ':!src/atomic-file.c' \
	':!bench/workload/iperf3-child.c' |
	grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)' || :)
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "the standard streams named outside the layers that print:" "$bad"
t_ok $st "only the layers that print name stdout and stderr"

# One clock: the monotonic one read in src/clock.c alone (a second one
# in a collector had drifted from it in units and type).
bad=$(git grep -n 'clock_gettime *(' -- '*.c' '*.h' ':!src/clock.c' || :)
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "clocks beside src/clock.c:" "$bad"
t_ok $st "the monotonic clock is read in src/clock.c only"

# A newcomer finds each subsystem from the folder names alone: every
# folder of code has its line in the README's layout table.
missing=""
for d in $(find cmd src store stats bench collectors report bpf -name '*.[ch]' | sed 's|/[^/]*$||' | sort -u); do
	grep -q "^| \`$d/\` | " README.md || missing="$missing $d/"
done
[ -z "$missing" ]
st=$?
[ "$st" -eq 0 ] || t_diag "folders missing from the README's layout table:$missing"
t_ok $st "the README's layout table has a line for every folder of code"

if command -v clang-format >/dev/null 2>&1; then
	out=$(git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror 2>&1)
	st=$?
	[ "$st" -eq 0 ] || t_diag "$(echo "$out" | head -20)" "(make format fixes it)"
	t_ok $st "every C file is formatted by .clang-format"
fi

# Every key that docs/matrix.md documents in a table is in the man page too.
keys=$(grep -E '^\| `[a-z_]+` \|' docs/matrix.md | sed -E 's/^\| `([a-z_]+)`.*/\1/' | sort -u)
[ "$(echo "$keys" | wc -w)" -gt 40 ]
t_ok $? "docs/matrix.md documents the matrix keys in tables"
missing=""
for k in $keys; do
	grep -qE "(^|[^a-z_])$k([^a-z_]|\$)" docs/iommu-bench.1 || missing="$missing $k"
done
[ -z "$missing" ]
st=$?
[ "$st" -eq 0 ] || t_diag "missing from the man page:$missing"
t_ok $st "the man page names every matrix key"

# And the other way: every key the parser takes (its key tables in
# bench/matrix/matrix-*.c, and each transport's in its folder,
# bench/host/NAME/NAME-keys.c) is documented in docs/matrix.md, so a lost
# section of the documentation shows here.
code_keys=$(awk '/keys(\[\])+ = \{|keys\[\]\[[0-9]+\] = \{/ { on = 1 }
	on { print } on && /\};/ { on = 0 }' "$SRCDIR"/bench/matrix/matrix-*.c \
	"$SRCDIR"/bench/host/*/*-keys.c |
	grep -o '"[a-z_]*"' | tr -d '"' | sort -u)
[ "$(echo "$code_keys" | wc -w)" -gt 40 ]
t_ok $? "the parser's key tables are found in bench/matrix/matrix-*.c and bench/host/*/*-keys.c"
lost=""
for k in memory token_file device_type ssh_key netns; do
	echo "$code_keys" | grep -qx "$k" || lost="$lost $k"
done
[ -z "$lost" ]
t_ok $? "the transports' own keys are found in their folders${lost:+: not$lost}"
missing=""
for k in $code_keys; do
	grep -qE "\`$k\`|\[collect\.$k\]" docs/matrix.md || missing="$missing $k"
done
[ -z "$missing" ]
st=$?
[ "$st" -eq 0 ] || t_diag "keys the parser takes, missing from docs/matrix.md:$missing"
t_ok $st "docs/matrix.md documents every key the parser takes"

# Debian's /bin/sh is dash: every sh script of ours (tests, benchmarks,
# the files they source) parses there, and none passes arguments to
# ".", whose dash form takes none ("parameter not set": the testbed
# benchmarks stopped at once on a fresh machine).
sh_files=$(git ls-files -- '*.sh' '*.t' '*.lib' | while read -r f; do
	head -1 "$f" | grep -q bash || echo "$f"
done)
bad=$(for f in $sh_files; do dash -n "$f" 2>&1; done)
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "$bad"
t_ok $st "every sh script parses under dash"
bad=$(python3 - $sh_files <<'PY'
import shlex, sys
for path in sys.argv[1:]:
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        words = line.split(None, 1)
        if not words or words[0] != ".":
            continue
        try:
            argv = shlex.split(line, comments=True)
        except ValueError:
            continue
        if len(argv) > 2:
            print("%s:%d: %s" % (path, n, line.strip()))
PY
)
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "'.' with arguments:" "$bad"
t_ok $st "no script passes arguments to '.'"

if command -v man >/dev/null 2>&1; then
	warn=$(MANWIDTH=80 man --warnings -l docs/iommu-bench.1 2>&1 >/dev/null || true)
	[ -z "$warn" ]
	st=$?
	[ "$st" -eq 0 ] || t_diag "$warn"
	t_ok $st "the man page renders without warnings"
fi

t_done
