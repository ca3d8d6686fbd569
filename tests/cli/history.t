#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench report --history N: the nightly history page from a
# database of 30 generated nights with a step planted at night 21 in one
# series (lazy tcp-rx throughput, 10% down) and the robot's regressions
# row for it. The page is self-contained, its hostile strings escaped;
# the step's change point is marked on its series and on no series that
# did not step; the regressed come first; the regressions table links
# to the night's mail and report; headless Chromium renders it with no
# console error. A history longer than the store's, a bad N and a store
# without nights are refused.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gendb.sh"
. "$(dirname "$0")/page.sh"
cd "$T_TMP"
B=$IOMMU_BENCH

t_gendb --out "$T_TMP/h.db" --runs 30 --reps 10 --nights --regress 10 \
	--from 20 --regress-workload 1 --reg-state reported --trouble
t_ok $? "generated 30 nights with a step at night 21 and its regression"
export IOMMU_BENCH_DB="$T_TMP/h.db"

t_run 0 "$B" report --history 30 -o page.html --title 'nights <&> "x"' &&
	[ -s page.html ]
t_ok $? "report --history 30 -o page.html writes the page"

python3 - page.html <<'PY' && t_page_ids page.html
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
# Hostile strings escaped: the title, and the step's commit subject.
assert "<title>nights &lt;&amp;&gt; &quot;x&quot;</title>" in html
assert "mm: &lt;b&gt;faster&lt;/b&gt; &amp; &quot;fewer&quot; &#39;flushes&#39;" in html
figs = re.findall(r"<figure class=\"sm[^\"]*\"[^>]*>.*?</figure>", html, re.S)
assert len(figs) >= 40, len(figs)
def attr(f, name):
    m = re.search(name + r'="([^"]*)"', f[:f.index(">")])
    return m.group(1) if m else None
series = [attr(f, "data-series") for f in figs]
changes = [attr(f, "data-change") for f in figs]
step = "sut/mainline/lazy/tcp-rx/throughput"
assert step in series, series
i = series.index(step)
assert changes[i] == "regression night 21", changes[i]
# The mark in words around the figure and drawn in the plot itself.
assert "regression -9." in figs[i] or "regression -10." in figs[i], figs[i][:600]
svg = figs[i][figs[i].index("<svg"):]
assert "regression" in svg and "stroke-dasharray" in svg, "no mark in the plot"
# Only there: every other marked series is the same cell's, and stepped
# with it (Gbit/s per core follows throughput); the rest carry no mark.
marked = [s for s, c in zip(series, changes) if c]
assert all(s.startswith("sut/mainline/lazy/tcp-rx/") for s in marked), marked
for f, c in zip(figs, changes):
    if not c:
        assert 'class="cp' not in f and "regression" not in f, f[:300]
# The regressed first.
assert changes[0] and all(changes[:len(marked)]), changes[:4]
# The table: its row, its state, links relative to the page's folder.
tab = html[html.index('id="regressions"'):]
assert '<td class="state reported">reported</td>' in tab
assert '<a href="night-21/regression-1/mail.mbox">mail</a>' in tab, tab[:2000]
assert '<a href="night-21/regression-1/report.html">report</a>' in tab
assert "6.12.89-1 \u2192 6.12.90-1" in tab and "-10.0%" in tab
PY
t_ok $? "self-contained, escaped; the step marked on its series only, first; the table links mail and report; no id twice"

# A blank page compresses to a few kB; plots and tables to far more.
if t_chrome_page "$T_TMP/page.html" 1400 900 100000 "${HISTORY_SCREENSHOT:-}"; then
	[ "$(grep -o '<figure class="sm' "$T_TMP/dom.html" | wc -l)" -ge 40 ] &&
		[ "$(grep -o '<svg' "$T_TMP/dom.html" | wc -l)" -ge 40 ] &&
		grep -q 'data-change="regression night 21"' "$T_TMP/dom.html"
	t_ok $? "Chromium's DOM has the small multiples and the mark"
fi

# A hostile head (a package's version is whatever the archive says):
# escaped on the axis, in the caption and in the table.
cp h.db evil.db
sqlite3 evil.db "UPDATE nights SET head = '<img src=x onerror=alert(1)>&' WHERE id IN (21, 30);
	UPDATE regressions SET head = '<img src=x onerror=alert(1)>&'" &&
	t_run 0 "$B" --db evil.db report --history 30 -o evil.html &&
	! grep -q '<img' evil.html &&
	[ "$(grep -c '&lt;img src=x onerror=alert(1)&gt;&amp;' evil.html)" -ge 2 ] &&
	grep -q '&lt;img src=x onerror=alert(1)>&amp;</text>' evil.html
t_ok $? "a hostile night's head is escaped on the axis, in the caption and the table"

t_run 2 "$B" report --history 31 -o long.html && [ ! -e long.html ] &&
	t_grep "$T_ERR" "the store holds 30 nights of series nightly; --history 31 wants more"
t_ok $? "--history 31 of 30 nights: exit 2, said, nothing written"

for n in 1 0 1001 many; do
	t_run 2 "$B" report --history "$n" -o bad.html && [ ! -e bad.html ] ||
		{ t_diag "--history $n"; false; } || break
done
t_ok $? "--history 1, 0, 1001 and 'many' are usage errors"

t_run 2 "$B" report --history 5 --run 3 -o bad.html && [ ! -e bad.html ] &&
	t_grep "$T_ERR" "--run, --by and --baseline do not apply"
t_ok $? "--history with --run: a usage error"

t_run 0 "$B" report --history 20 --only mode=lazy --no-plots -o lazy.html &&
	! grep -q '<svg' lazy.html && ! grep -q 'data-series="[^"]*/strict/' lazy.html &&
	grep -q 'data-series="sut/mainline/lazy/tcp-rx/throughput" data-change="regression night 21"' lazy.html
t_ok $? "--only and --no-plots: the last 20 nights of lazy, the step still marked"

t_gendb --out "$T_TMP/plain.db" --runs 3 --reps 3 --no-details
t_run 1 "$B" --db "$T_TMP/plain.db" report --history 2 -o none.html &&
	[ ! -e none.html ] && t_grep "$T_ERR" "iommu-bench nightly"
t_ok $? "a store without nights: exit 1, with advice"

t_done
