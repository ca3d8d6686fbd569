#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The README's first screen, as a newcomer reads it: at most 40 lines to
# the first table, the two commands, the picture the Makefile draws, no
# docs page named that is not there, and a table of configs whose "time
# here" is what `iommu-bench plan` estimates for each (plan touches no
# host and no network for the configs the table lists). Each check is
# also run on a scratch copy with a fault planted, to show it can fail.
set -eu
. "$(dirname "$0")/lib.sh"

B=$IOMMU_BENCH
cd "$SRCDIR"

cat >"$T_TMP/check.py" <<'PY'
import os, re, subprocess, sys

aspect, readme, binary = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(readme, encoding="utf-8").read().split("\n")
HEADER = "| I want to know... | config | what it measures | time here |"
problems = []

def first_table():
    for i, l in enumerate(lines):
        if l.startswith("|"):
            return i
    return None

if aspect == "lines":
    i = first_table()
    if i is None:
        problems.append("no table at all")
    elif i > 40:
        problems.append("%d lines before the first table, at most 40" % i)
    elif lines[i] != HEADER:
        problems.append("the first table is not the config table: %s" % lines[i])
elif aspect == "commands":
    i = first_table() or len(lines)
    top = "\n".join(lines[:i])
    for cmd in ("scripts/install-deps.sh && make demo",
                "scripts/install-deps.sh && make check"):
        # The whole command, as a code line: "make demo-netns" is not it.
        if not re.search(r"(?m)^    " + re.escape(cmd) + r"(\s|$)", top):
            problems.append("'%s' is not on the first screen" % cmd)
elif aspect == "picture":
    want = sys.argv[4]
    pics = re.findall(r"!\[[^]]*\]\(([^)]+)\)", "\n".join(lines))
    if pics != [want]:
        problems.append("pictures %s, want the one make demo-screenshot writes: %s"
                        % (pics, want))
elif aspect == "docs":
    for p in sorted(set(re.findall(r"\b(?:docs|schemas)/[\w.-]+\.md\b",
                                   "\n".join(lines)))):
        if not os.path.isfile(p):
            problems.append("names %s, which does not exist" % p)
elif aspect == "table":
    try:
        start = lines.index(HEADER)
    except ValueError:
        start = None
        problems.append("no table headed: " + HEADER)
    rows = []
    if start is not None:
        for l in lines[start + 2:]:
            if not l.startswith("|"):
                break
            rows.append([c.strip() for c in l.strip("|").split(" | ")])
    if start is not None and len(rows) < 5:
        problems.append("only %d rows in the config table" % len(rows))
    for r in rows:
        if len(r) != 4:
            problems.append("a row of %d cells: %s" % (len(r), r))
            continue
        m = re.fullmatch(r"`(configs/[\w./-]+\.toml)`", r[1])
        if not m:
            problems.append("config cell is not `configs/NAME.toml`: " + r[1])
            continue
        cfg = m.group(1)
        if not os.path.isfile(cfg):
            problems.append(cfg + " does not exist")
            continue
        builds = any(re.match(r"\s*build\s*=", l) for l in open(cfg))
        time = r[3]
        if time.endswith(" + builds") != builds:
            problems.append("%s: '%s', but it %s kernels: say '+ builds' %s"
                            % (cfg, time, "builds" if builds else "builds no",
                               "after plan's time" if builds else "only where a config builds"))
        time = time.removesuffix(" + builds")
        p = subprocess.run([binary, "plan", cfg], capture_output=True,
                           text=True, timeout=30)
        est = re.search(r"^  estimated (.+?):", p.stdout, re.M)
        if p.returncode != 0 or not est:
            problems.append("%s: plan exits %d with no estimate: %s"
                            % (cfg, p.returncode, p.stderr.strip()[:300]))
        elif est.group(1) != time:
            problems.append("%s: the README says %s, plan estimates %s"
                            % (cfg, time, est.group(1)))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY

check() {
	python3 "$T_TMP/check.py" "$@" >"$T_TMP/problems" 2>&1
	_st=$?
	[ "$_st" -eq 0 ] || t_diag "$(cat "$T_TMP/problems")"
	return $_st
}

# check_fails ASPECT FILE WORDS...: the check refuses FILE, saying WORDS.
check_fails() {
	_a=$1 _f=$2
	shift 2
	if python3 "$T_TMP/check.py" "$_a" "$_f" "$B" "$@" >"$T_TMP/problems" 2>&1; then
		t_diag "the $_a check passed a planted fault"
		return 1
	fi
	return 0
}

# The picture's path, as the Makefile's target writes it.
png=$(make -s -n demo-screenshot 2>/dev/null | sed -n 's/.*--screenshot=\([^ ]*\).*/\1/p' | head -1)
[ -n "$png" ]
t_ok $? "make demo-screenshot names the PNG it writes ($png)"

check lines README.md "$B"
t_ok $? "the quick start is at most 40 lines to the config table"
check commands README.md "$B"
t_ok $? "both commands are on the first screen"
check picture README.md "$B" "$png"
t_ok $? "the README's one picture is the one make demo-screenshot writes"
check docs README.md "$B"
t_ok $? "every docs page the README names exists"
check table README.md "$B"
t_ok $? "every config in the table exists, and its time is plan's estimate"

# Faults planted in scratch copies, one per check.
sed 's/| 12m 00s |$/| 9m 00s |/' README.md >"$T_TMP/time.md"
check_fails table "$T_TMP/time.md" && grep -q "README says 9m 00s, plan estimates 12m 00s" "$T_TMP/problems"
t_ok $? "a wrong time in the table is named, with plan's"
sed 's/| 6m 12s + builds |$/| 6m 12s |/' README.md >"$T_TMP/builds.md"
check_fails table "$T_TMP/builds.md" && grep -q "configs/kernel-ab.toml: '6m 12s', but it builds kernels" "$T_TMP/problems"
t_ok $? "a config that builds kernels without '+ builds' is named"
sed 's|`configs/demo.toml`|`configs/no-such.toml`|' README.md >"$T_TMP/config.md"
check_fails table "$T_TMP/config.md" && grep -q "configs/no-such.toml does not exist" "$T_TMP/problems"
t_ok $? "a config that does not exist is named"
awk 'NR == 5 { for (i = 0; i < 11; i++) print "" } { print }' README.md >"$T_TMP/long.md"
check_fails lines "$T_TMP/long.md"
t_ok $? "a first screen over 40 lines fails"
sed 's/&& make demo /\&\& make demo-netns /' README.md >"$T_TMP/cmd.md"
check_fails commands "$T_TMP/cmd.md"
t_ok $? "a changed command fails"
sed 's|docs/demo-report.png|docs/demo.png|' README.md >"$T_TMP/pic.md"
check_fails picture "$T_TMP/pic.md" "$png"
t_ok $? "a picture the target does not write fails"
sed 's|`docs/seeds.md`|`docs/no-such.md`|' README.md >"$T_TMP/doc.md"
check_fails docs "$T_TMP/doc.md" && grep -q "docs/no-such.md" "$T_TMP/problems"
t_ok $? "a docs page that does not exist is named"

# The target itself: a clear refusal without the demo's report, and a
# 1300x900 PNG of a page with it (headless Chromium, where installed).
t_run 2 make -s demo-screenshot DEMO_HTML="$T_TMP/none.html" DEMO_PNG="$T_TMP/none.png" &&
	t_grep "$T_ERR" "run make demo first"
t_ok $? "make demo-screenshot without the report says to run make demo first"
if command -v chromium >/dev/null 2>&1; then
	printf '<!DOCTYPE html><title>t</title><h1>report</h1>\n' >"$T_TMP/page.html"
	t_run 0 make -s demo-screenshot DEMO_HTML="$T_TMP/page.html" DEMO_PNG="$T_TMP/page.png" &&
		python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); assert d[:8]==b"\x89PNG\r\n\x1a\n"; assert struct.unpack(">II", d[16:24]) == (1300, 900)' "$T_TMP/page.png"
	t_ok $? "make demo-screenshot draws a 1300x900 PNG of the page"
fi

t_done
