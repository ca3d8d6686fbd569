#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The report's first screen, as a newcomer reads the demo's (three modes,
# 6 trials a cell, an emulated IOMMU's noise, the exposure window):
# the headline, then the plots, then the warnings; only what the reader
# can act on is a warning line of its own, the rest one folded line per
# kind; passthrough's exposure metrics are absent by design, not "too
# few trials"; and every table fits a 1300-pixel window in Chromium.
set -eu
T_DIR=$(dirname "$0")
. "$T_DIR/lib.sh"
. "$T_DIR/gendb.sh"
. "$T_DIR/page.sh"
B=$IOMMU_BENCH

cd "$T_TMP" && t_gendb --out demo.db --runs 1 --reps 6 --noise 12 --trouble --exposure
t_ok $? "generated the demo's shape: a failed trial, a mode mismatch, noise, the exposure window"

t_run 0 "$B" --db demo.db report -o demo.html && t_page_ids demo.html &&
	python3 - demo.html <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
at = {s: h.index('id="%s"' % s) for s in ("headline", "plots", "warnings", "exposure")}
assert at["headline"] < at["plots"] < at["warnings"] < at["exposure"], at
nav = h[h.index("<nav>"):h.index("</nav>")]
assert nav.index("#plots") < nav.index("#warnings"), nav
PY
t_ok $? "the headline, then the plots, then the warnings (and in the nav)"

# The warnings section, for the checks below.
python3 - demo.html >warnings.html <<'PY'
import sys
h = open(sys.argv[1], encoding="utf-8").read()
i = h.index('id="warnings"')
print(h[i:h.index("<h2", i)])
PY

python3 - warnings.html <<'PY'
import re, sys
w = open(sys.argv[1], encoding="utf-8").read()
folds = re.findall(r"<details><summary>(\d+) cells? with ([^<]*)</summary><ul>(.*?)</ul></details>", w, re.S)
assert len(folds) == 1 and w.count("<details") == 1, folds
n, kind, items = folds[0]
assert kind == "high variation (CV over 5%)", kind
listed = re.findall(r"<li>([^<]*)</li>", items)
assert int(n) == len(listed) > 12, (n, len(listed))
assert all(re.search(r", CV [0-9.]+%$", x) for x in listed), listed[:3]
PY
t_ok $? "high variation: one folded line with its count, every cell inside"

python3 - warnings.html <<'PY'
import re, sys
w = open(sys.argv[1], encoding="utf-8").read()
assert "n=0" not in w, re.findall(r"<li>[^<]*n=0[^<]*</li>", w)[:3]
assert not re.search(r"exposure_\w+, [^<]*passthrough", w), "passthrough's window warned"
notes = re.findall(r"<p class=\"small\">passthrough: unprotected, no IOMMU translation[^<]*", w)
assert len(notes) == 1, notes
PY
t_ok $? "passthrough's exposure metrics: no 'too few trials (n=0)', said once as unprotected"

python3 - warnings.html <<'PY'
import re, sys
w = open(sys.argv[1], encoding="utf-8").read()
fold = w[w.index("<details"):w.index("</details>")]
lines = [l for l in re.findall(r"<li[^>]*>.*?(?=<li|</ul>)", w.replace(fold, ""), re.S)]
failed = [l for l in lines if "did not finish 'ok'" in l]
assert len(failed) == 1 and "unable to connect to &lt;server&gt;" in failed[0], failed
mode = [l for l in lines if "ran in another mode than asked" in l]
assert len(mode) == 2 and all('class="warn"' in l for l in mode), mode
few = [l for l in lines if l.startswith('<li class="warn">Too few trials for a 95%')]
assert len(few) == 1, few
PY
t_ok $? "the failed trial, the mode mismatch and too few trials stay lines of their own, in the open"

# A protected column that lost its window is not by design: it warns.
cp demo.db lost.db
sqlite3 lost.db "DELETE FROM metrics WHERE name LIKE 'exposure_%' AND
	trial_id IN (SELECT t.id FROM trials t JOIN cells c ON c.id = t.cell_id
	WHERE c.mode = 'strict' AND c.workload = 'tcp-rx')" &&
	t_run 0 "$B" --db lost.db report --no-plots -o lost.html &&
	grep -q 'exposure_p99_us, tcp-rx[^<]*, strict: n=0' lost.html
t_ok $? "a protected column's missing window still warns (n=0)"

if t_chrome_page "$T_TMP/demo.html" 1300 900 30000; then
	t_page_widths "$T_TMP/demo.html" 1300
	t_ok $? "every table fits a 1300-pixel window (right edges inside the page)"
fi

# The measure can fail: a table wider than the window.
cp demo.html wide.html
sed -i 's|<h2 id="headline">|<table><tr><td><div style="width:1500px">x</div></td></tr></table>&|' wide.html
! t_page_widths "$T_TMP/wide.html" 1300 >wide.out && grep -q "^table 0: .*> 12" wide.out
t_ok $? "a planted 1500-pixel table is found too wide"

t_done
