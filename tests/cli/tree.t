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
# licence of the tree it patches; a picture is bytes. A fuzzer's seeds and the inputs that
# crashed it are bytes in a parser's own format, where a line more is
# another input; so are toml-test's cases, whose licence is their
# LICENSE beside them. debian/changelog must begin with its first entry
# and debian/source/format is one line that dpkg-source reads whole.
missing=$(git ls-files -- ':!LICENSE' ':!*.json' ':!*.patch' ':!*.png' \
	':!debian/changelog' ':!debian/source/format' \
	':!tests/fuzz/seeds/' ':!tests/fuzz/regress/' \
	':!tests/toml-test/valid/' ':!tests/toml-test/invalid/' \
	':!tests/toml-test/LICENSE' | while read -r f; do
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
# skeleton) is not ours. A whitelist alone lets two folders that may
# include each other do so, and one library hides it at link time, so
# the includes between folders, and the table itself, must also form no
# loop: "cycles" names the loops of the actual includes (at least one
# through each knot of folders) with a file:line per step, "table" those
# the table would allow.
layering_py='
import os, re, sys
mode, doc, root = sys.argv[1], sys.argv[2], sys.argv[3]
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
def cycles(edges):
    # Each loop once: a depth-first walk, a back edge closing the loop.
    state, path, found = {}, [], []
    def walk(n):
        state[n] = 1
        path.append(n)
        for t in sorted(edges.get(n, {})):
            if state.get(t) == 1:
                found.append(path[path.index(t):] + [t])
            elif t not in state:
                walk(t)
        path.pop()
        state[n] = 2
    for n in sorted(edges):
        if n not in state:
            walk(n)
    return found
def reach(edges, n):
    seen, todo = set(), list(edges.get(n, ()))
    while todo:
        t = todo.pop()
        if t not in seen:
            seen.add(t)
            todo.extend(edges.get(t, ()))
    return seen
if mode in ("table", "drawing"):
    edges = {}
    for r, may in rows.items():
        targets = rows if "*" in may else [row(a) or a for a in may]
        edges[r] = {t: None for t in targets if t != r}
if mode == "table":
    for c in cycles(edges):
        print("the table allows a loop: " + " -> ".join(n + "/" for n in c))
    sys.exit(0)
if mode == "drawing":
    # The mermaid block: every row but the one that may include
    # everything, each arrow one the table allows, reaching what the
    # table reaches.
    text = open(doc, encoding="utf-8").read()
    block = re.search(r"```mermaid\n(.*?)```", text, re.S)
    block = block.group(1) if block else ""
    names = dict(re.findall(r"^\s*(\w+)\[\"([a-z0-9/*-]+)/\"\]\s*$", block, re.M))
    drawn = {}
    for a, b in re.findall(r"^\s*(\w+) --> (\w+)\s*$", block, re.M):
        if a not in names or b not in names:
            print("an arrow between unnamed boxes: %s --> %s" % (a, b))
            continue
        a, b = names[a], names[b]
        drawn.setdefault(a, {})[b] = None
        if b not in edges.get(a, {}):
            print("drawn, not in the table: %s/ --> %s/" % (a, b))
    want = set(r for r in rows if "*" not in rows[r])
    for r in sorted(want ^ set(names.values())):
        print("%s/: %s" % (r, "no box" if r in want else "a box without a row"))
    for r in sorted(want & set(names.values())):
        lost = (reach(edges, r) & want) - reach(drawn, r)
        if lost:
            print("%s/ may include %s, out of reach of its arrows" %
                  (r, ", ".join(t + "/" for t in sorted(lost))))
    sys.exit(0)
files = set()
for top in ("cmd", "src", "store", "stats", "analysis", "report", "bench", "collectors", "bpf"):
    for dp, dn, fn in os.walk(os.path.join(root, top)):
        for f in fn:
            if f.endswith((".c", ".h")):
                files.add(os.path.relpath(os.path.join(dp, f), root))
edges = {}
for f in sorted(files):
    d = os.path.dirname(f)
    if row(d) is None:
        if mode == "layering":
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
        if td != d:
            edges.setdefault(d, {}).setdefault(td, "%s:%d: includes %s" %
                                               (f, n, t))
        if mode == "layering" and not allowed(d, td):
            print("%s:%d: includes %s: %s/ may include %s" % (f, n, t, d,
                  ", ".join(a + "/" for a in rows[row(d)]) or "nothing of ours"))
if mode == "cycles":
    for c in cycles(edges):
        print("include loop: " + " -> ".join(n + "/" for n in c))
        for a, b in zip(c, c[1:]):
            print("  " + edges[a][b])
'

# layering ROOT [DOC]: every include under ROOT that crosses the
# layering; include_cycles ROOT [DOC]: every loop of includes between
# folders; table_cycles DOC: every loop the table of DOC allows.
layering() {
	python3 -c "$layering_py" layering "${2:-$SRCDIR/docs/architecture.md}" "$1"
}
include_cycles() {
	python3 -c "$layering_py" cycles "${2:-$SRCDIR/docs/architecture.md}" "$1"
}
table_cycles() {
	python3 -c "$layering_py" table "$1" .
}
# drawing DOC: where the graph drawn in DOC is not true of its table.
drawing() {
	python3 -c "$layering_py" drawing "$1" .
}

n=$(grep -c '^| `[a-z0-9/*-]*/` |' docs/architecture.md)
[ "$n" -ge 10 ]
t_ok $? "docs/architecture.md has the layering table tree.t reads ($n rows)"

# none WHAT HEADER CHECK ARGS...: ok when CHECK prints nothing; what it
# printed, under HEADER, when it does.
none() {
	what=$1 header=$2
	shift 2
	bad=$("$@")
	[ -z "$bad" ]
	st=$?
	[ "$st" -eq 0 ] || t_diag "$header" "$bad"
	t_ok $st "$what"
}
none "no include crosses the layering" "includes that cross the layering:" \
	layering "$SRCDIR"
none "the includes between folders form no loop" \
	"includes between folders that loop:" include_cycles "$SRCDIR"
none "docs/architecture.md's table allows no loop" "loops of the table:" \
	table_cycles "$SRCDIR/docs/architecture.md"
none "docs/architecture.md draws the graph of its table" \
	"the graph in docs/architecture.md is not its table's:" \
	drawing "$SRCDIR/docs/architecture.md"

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
	"bis bench/bisect/x.c analysis/regress.h analysis/regress.h" \
	"ana analysis/x.c report/report.h report/report.h" \
	"hst bench/host/x.c report/report.h report/report.h" \
	"run bench/run/x.c analysis/compare.h analysis/compare.h" \
	"store store/x.c bench/run/run.h bench/run/run.h" \
	"store2 store/x.c analysis/rdb.h analysis/rdb.h" \
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
out=$(plant ok2 report/x.c analysis/compare.h analysis/compare.h)
[ -z "$out" ]
t_ok $? "nor report/ including the analysis"
out=$(plant new bench/new/x.c src/log.h log.h)
echo "$out" | grep -q "^bench/new/x.c: its folder bench/new/ has no row"
t_ok $? "a folder of code without a row in docs/architecture.md is refused"

# A loop, planted: two transports' rooms, which the table lets include
# each other, including each other; then two folders whose rows allow
# each other, in a table of their own.
root="$T_TMP/plant-loop"
mkdir -p "$root/bench/host/lava" "$root/bench/host/qemu"
printf '// x\n#include "bench/host/qemu/qemu.h"\n' >"$root/bench/host/lava/x.c"
printf '// x\n#include "bench/host/lava/lava.h"\n' >"$root/bench/host/qemu/y.c"
: >"$root/bench/host/lava/lava.h"
: >"$root/bench/host/qemu/qemu.h"
out=$(include_cycles "$root")
echo "$out" | grep -q '^include loop: bench/host/lava/ -> bench/host/qemu/ -> bench/host/lava/$' &&
	echo "$out" | grep -q '^  bench/host/lava/x.c:2: includes bench/host/qemu/qemu.h$' &&
	echo "$out" | grep -q '^  bench/host/qemu/y.c:2: includes bench/host/lava/lava.h$'
st=$?
[ "$st" -eq 0 ] || t_diag "got: $out"
t_ok $st "a planted loop of includes is named, with a file:line per step"
rm "$root/bench/host/qemu/y.c"
out=$(include_cycles "$root")
[ -z "$out" ]
t_ok $? "and one way alone is no loop"

doc="$T_TMP/loop.md"
printf '%s\n' '| folder | what it is | may include |' '| --- | --- | --- |' \
	'| `bench/x/` | x | `bench/y/` |' '| `bench/y/` | y | `src/`, `bench/x/` |' \
	'| `src/` | helpers | nothing |' >"$doc"
out=$(table_cycles "$doc")
echo "$out" | grep -q '^the table allows a loop: bench/x/ -> bench/y/ -> bench/x/$'
st=$?
[ "$st" -eq 0 ] || t_diag "got: $out"
t_ok $st "a table whose rows allow each other is refused"

# The drawing, planted wrong: an arrow lost, and one the table refuses.
sed -e '/^    matrix --> labvm$/d' -e 's/^    store --> src$/    store --> report/' \
	"$SRCDIR/docs/architecture.md" >"$doc"
out=$(drawing "$doc")
echo "$out" | grep -q '^bench/matrix/ may include bench/labvm/, out of reach' &&
	echo "$out" | grep -q '^drawn, not in the table: store/ --> report/$'
st=$?
[ "$st" -eq 0 ] || t_diag "got: $out"
t_ok $st "a drawing that is not true of the table is refused"

# Every SQL statement against the schema lives in store/ (the analysis's
# and the report's queries by name in store/store-q-*.c), and only
# store/ talks to SQLite: a change of the schema is a change of store/.
# A statement is a string that starts with its verb and goes on; a
# column header such as bpf-print's "ATTACH" is not one.
sql_outside() {
	(cd "$1" && grep -rnE \
		-e '"(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|PRAGMA|ATTACH|BEGIN|DROP|REPLACE) ' \
		-e 'sqlite3' --include='*.c' --include='*.h' -- \
		$(ls -d cmd src stats analysis report bench collectors bpf 2>/dev/null) ||
		:)
}
bad=$(sql_outside "$SRCDIR")
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "SQL or SQLite outside store/:" "$bad"
t_ok $st "SQL and SQLite are store/'s alone"
root="$T_TMP/plant-sql"
mkdir -p "$root/analysis"
printf '// x\nstatic const char q[] = "SELECT id FROM runs";\n' >"$root/analysis/x.c"
sql_outside "$root" | grep -q '^analysis/x.c:2:'
t_ok $? "a planted SQL statement in analysis/ is refused"
printf '// x\n#include <sqlite3.h>\n' >"$root/analysis/x.c"
sql_outside "$root" | grep -q '^analysis/x.c:2:'
t_ok $? "and so is SQLite itself"

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

bad=$(git grep -nw 'pr_err' -- bench/host bench/agent-client bench/kbuild bench/labvm \
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

# One error contract (src/errmsg.h): the words of a failure are set by
# errmsg__*() alone, which accept a NULL err, and the parameter that
# carries them is named err. A raw "*err = xasprintf(...)" crashed on
# the callers that pass NULL; three names for one parameter hid which
# functions followed the contract.
raw_err() {
	(cd "$1" && grep -rnE --include='*.c' --include='*.h' \
		'(^|[;{])[[:space:]]*\*(err|why|errp)[[:space:]]*=[^=]|(^|[(,])[[:space:]]*char \*\*(why|errp)\b' \
		cmd src store stats analysis report bench collectors 2>/dev/null |
		grep -v '^src/errmsg\.c:' |
		grep -vE '^[^:]+:[0-9]+:\s*(/\*|//|\*( |/|$))') || :
}
bad=$(raw_err "$SRCDIR")
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "words of a failure set outside errmsg__*(), or under another name than err:" "$bad"
t_ok $st "only src/errmsg.c assigns *err, and the parameter is named err"
mkdir -p "$T_TMP/plant-err/bench/kbuild" "$T_TMP/plant-err/src"
printf '// x\nstatic int f(char **err)\n{\n\t*err = xstrdup("x");\n\treturn -1;\n}\n' \
	>"$T_TMP/plant-err/bench/kbuild/x.c"
printf '// x\nint g(const char *s,\n      char **why);\n' >"$T_TMP/plant-err/src/x.h"
out=$(raw_err "$T_TMP/plant-err")
echo "$out" | grep -q '^bench/kbuild/x.c:4:'
t_ok $? "a planted raw *err = in bench/kbuild/ is refused, with its line"
echo "$out" | grep -q '^src/x.h:3:'
t_ok $? "and so is a planted char **why parameter"

# No function of the product over 100 lines, its signature and braces
# included: a longer one did several jobs that each wanted a name
# (lava_host__restart was 141 lines, state_new 132).
long_functions() {
	python3 - "$1" <<'PY'
import os, re, sys
root = sys.argv[1]
for top in ("cmd", "src", "store", "stats", "analysis", "report", "bench",
            "collectors"):
    for dp, dn, fn in sorted(os.walk(os.path.join(root, top))):
        for f in sorted(fn):
            if not f.endswith(".c"):
                continue
            p = os.path.join(dp, f)
            lines = open(p, encoding="utf-8").read().split("\n")
            for i, l in enumerate(lines):
                if l != "{" or not i:
                    continue
                j = i - 1
                while j > 0 and lines[j - 1] and \
                        not lines[j - 1].startswith(("}", "#", "/", " *")) \
                        and not lines[j - 1].endswith((";", "*/")):
                    j -= 1
                name = re.search(r"(\w+)\s*\(", " ".join(lines[j:i]))
                end = lines.index("}", i) if "}" in lines[i:] else i
                if name and end - j + 1 > 100:
                    print("%s:%d: %s is %d lines" % (os.path.relpath(p, root),
                          j + 1, name.group(1), end - j + 1))
PY
}
bad=$(long_functions "$SRCDIR")
[ -z "$bad" ]
st=$?
[ "$st" -eq 0 ] || t_diag "functions over 100 lines:" "$bad"
t_ok $st "no function of the product is over 100 lines"
mkdir -p "$T_TMP/plant-long/bench/run"
{
	printf '// x\nstatic int f(int a,\n\t     int b)\n{\n'
	i=0
	while [ $i -lt 97 ]; do
		printf '\ta += b;\n'
		i=$((i + 1))
	done
	printf '}\n'
} >"$T_TMP/plant-long/bench/run/x.c"
out=$(long_functions "$T_TMP/plant-long")
[ "$out" = "bench/run/x.c:2: f is 101 lines" ]
st=$?
[ "$st" -eq 0 ] || t_diag "got: $out"
t_ok $st "a planted function of 101 lines is refused, by name and line"
sed -i '5d' "$T_TMP/plant-long/bench/run/x.c"
out=$(long_functions "$T_TMP/plant-long")
[ -z "$out" ]
t_ok $? "and one of 100 lines is not"

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
for d in $(find cmd src store stats bench collectors analysis report bpf -name '*.[ch]' | sed 's|/[^/]*$||' | sort -u); do
	grep -q "^| \`$d/\` | " README.md || missing="$missing $d/"
done
[ -z "$missing" ]
st=$?
[ "$st" -eq 0 ] || t_diag "folders missing from the README's layout table:$missing"
t_ok $st "the README's layout table has a line for every folder of code"

# And says of each what docs/architecture.md says, in its order: the
# folders are described once (scripts/folder-table.py).
out=$(python3 scripts/folder-table.py --check "$SRCDIR")
st=$?
[ "$st" -eq 0 ] || t_diag "$out"
t_ok $st "the README's layout rows are docs/architecture.md's, word for word"
mkdir -p "$T_TMP/drift/docs"
cp docs/architecture.md "$T_TMP/drift/docs/"
sed 's/^| `bench\/run\/` | the orchestrator:/| `bench\/run\/` | the conductor:/' \
	README.md >"$T_TMP/drift/README.md"
out=$(python3 scripts/folder-table.py --check "$T_TMP/drift")
echo "$out" | grep -q '^README.md:[0-9]*: should read: | `bench/run/` | the orchestrator:'
t_ok $? "a README row that drifted from docs/architecture.md is named, with its words"

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
