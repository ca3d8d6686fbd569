#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench report: one self-contained HTML page from a database
# written through the store API, hostile strings in it escaped, plots
# inline with ids that do not collide, rendered in headless Chromium
# with no console errors.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gendb.sh"
. "$(dirname "$0")/page.sh"

B=$IOMMU_BENCH
cd "$T_TMP"

t_gendb --out r.db --runs 2 --reps 10 --trouble
t_ok $? "generated a database with a failed trial, a mode mismatch and hostile strings"
export IOMMU_BENCH_DB="$T_TMP/r.db"

t_run 0 "$B" report -o report.html && [ -s report.html ]

# A custom mode of group type DMA-FQ expects lazy: its trials in lazy are
# in effect, and only the planted one (strict in effect) is flagged, as
# in the same database with the mode named lazy.
cp r.db custom.db
sqlite3 custom.db "UPDATE cells SET mode = 'lazyboot' WHERE mode = 'lazy';
	UPDATE trials SET requested_mode = 'lazyboot'
	WHERE requested_mode = 'lazy'"
"$B" --db r.db report -o named.html 2>/dev/null &&
	"$B" --db custom.db report -o custom.html 2>/dev/null &&
	python3 - named.html custom.html <<'PY'
import re, sys
def flags(path):
    html = open(path, encoding="utf-8").read()
    cells = re.findall(r"(\d+) trials? ran in another mode than asked", html)
    left = re.findall(r"(\d+) trials? left out because the mode", html)
    return sorted(cells), left
named, custom = flags(sys.argv[1]), flags(sys.argv[2])
assert named[0] and set(named[0]) == {"1"}, named
assert custom == named, (custom, named)
PY
t_ok $? "a custom mode of group type DMA-FQ in lazy is not flagged as a mismatch"
t_ok $? "report -o report.html writes the page"

python3 - report.html <<'PY' && t_page_ids report.html
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
# Hostile strings from the store arrive escaped.
assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;" in html
assert "unable to connect to &lt;server&gt; &amp; &quot;10.0.0.2&quot;" in html
assert "Xeon &lt;Gold&gt; &amp; 6430" in html
# The seed's story, with its interval and p-value.
assert re.search(r"lazy is 2\.[5-8][0-9]x strict on tcp-rx, 95% CI \[2\.[0-9]+, 2\.[0-9]+\], p &lt; 0\.001, n = 10\+9", html), "headline"
for section in ("headline", "warnings", "plots", "probes", "cost", "profile", "stats", "noise", "verification", "environment"):
    assert f'id="{section}"' in html, section
# The generator stores no busy CPU: the Cost section says so, not "0".
assert "No trial has both busy CPU (procstat) and a throughput" in html
assert html.count("<svg") >= 7, html.count("<svg")
assert "vanished" in html and "appeared" in html, "profile diff marks"
assert "MISMATCH" in html and ">verified<" in html
assert "iommu.strict=0" in html and "lazy: all 12 groups are DMA-FQ" in html
PY
t_ok $? "the page: no script, escaped strings, headline, sections, unique SVG ids"

# One boot with a lab machine's facts (format 2: DMI, firmware, grub,
# systemd, os-release, the kernel config), hostile strings among them;
# the other boots keep format 1 facts, which lack all of these.
cp r.db lab.db
sqlite3 lab.db <<'SQL'
UPDATE boots SET facts = json_patch(facts, json('{
 "format": 2,
 "dmi": {"sys_vendor": "Evil <script>alert(1)</script>",
	 "product_name": "Lab & Box", "bios_vendor": "SeaBIOS",
	 "bios_version": "1.16.2-debian-1.16.2-1", "bios_date": "04/01/2014",
	 "chassis_type": 1, "chassis": "other"},
 "firmware": {"kind": "bios"},
 "boot_loader": {"name": "grub", "evidence": [],
	 "boot_image": "/vmlinuz-6.12.71",
	 "booted_entry": {"index": 3, "title": "iommu-bench <strict>",
		 "id": "iommu-bench-strict", "exact": true},
	 "grub": {"config": "/boot/grub/grub.cfg", "entries": [],
		 "entries_truncated": false,
		 "next_entry": "iommu-bench-lazy\"><b>x"}},
 "systemd": {"running": true, "boot_time": {"kernel_ms": 1232,
	 "initrd_ms": 2135, "userspace_ms": 8297, "total_ms": 11664}},
 "distro": {"id": "debian", "version_id": "12",
	 "pretty_name": "Debian GNU/Linux 12 (bookworm)"},
 "kernel_config": {"source": "/boot/config-6.12.71", "compressed": false,
	 "options": {"CONFIG_IOMMU_DEFAULT_DMA_STRICT": "n",
		 "CONFIG_IOMMU_DEFAULT_DMA_LAZY": "y",
		 "CONFIG_KPROBES": "y"}}}'))
WHERE id = (SELECT max(id) FROM boots);
SQL
"$B" --db lab.db report --no-plots -o lab.html 2>/dev/null &&
	python3 - lab.html <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
assert not re.search(r"<script", html, re.I), "a <script> element"
env = html[html.index('id="environment"'):]
head = env.index("<th>machine</th>")
table = env[env.rindex("<table", 0, head):env.index("</table>", head)]
rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
lab = [r for r in rows if "SeaBIOS" in r]
assert len(lab) == 1, rows
lab = lab[0]
for want in ("Evil &lt;script&gt;alert(1)&lt;/script&gt; Lab &amp; Box (other)",
             "BIOS SeaBIOS 1.16.2-debian-1.16.2-1 04/01/2014",
             ">bios<",
             "Debian GNU/Linux 12 (bookworm)",
             "entry: iommu-bench &lt;strict&gt;",
             "next_entry: <b>iommu-bench-lazy&quot;&gt;&lt;b&gt;x</b>",
             "kernel 1.2 s + initrd 2.1 s + userspace 8.3 s = <b>11.7 s</b>",
             "IOMMU default: <b>lazy</b>",
             "KPROBES=y"):
    assert want in lab, (want, lab)
old = [r for r in rows[1:] if "SeaBIOS" not in r]
assert old and all("not recorded: these host facts predate format 2" in r
                   for r in old), old
PY
t_ok $? "Environment: a lab machine's DMI, firmware, grub entry, boot time and config, escaped; format 1 facts still render"

# A blank page compresses to a few kB; plots and tables to far more.
if t_chrome_page "$T_TMP/report.html" 1400 3000 100000 "${REPORT_SCREENSHOT:-}"; then
	[ "$(grep -o '<svg' "$T_TMP/dom.html" | wc -l)" -ge 7 ] &&
		grep -q 'lazy is 2\.' "$T_TMP/dom.html"
	t_ok $? "Chromium's DOM has the plots and the headline"
fi

cp report.html keep.html
t_run 2 "$B" report -o keep.html --baseline nosuch && cmp -s report.html keep.html &&
	t_grep "$T_ERR" "--baseline nosuch: no mode 'nosuch' here"
t_ok $? "a bad --baseline is exit 2 and leaves the old file in place"

t_run 0 "$B" report -o noplots.html --no-plots && ! grep -q '<svg' noplots.html &&
	t_grep noplots.html "plots were turned off"
t_ok $? "--no-plots: tables only"

t_run 0 env PATH=/nonexistent "$B" report -o nognuplot.html &&
	t_grep "$T_ERR" "gnuplot not found" && t_grep nognuplot.html "Every metric"
t_ok $? "without gnuplot the page is still written, and the missing plots said"

t_run 0 "$B" report -o bykernel.html --run all --by run --only mode=lazy --title 'two <nights>' &&
	t_grep bykernel.html "<title>two &lt;nights&gt;</title>" &&
	t_grep bykernel.html "Columns by run, baseline 1"
t_ok $? "--by run over both runs, with an escaped --title"

# A mode whose every trial failed: in the verification tables, not in
# the statistics, and no table may reach past the columns it has.
cp r.db failed.db
sqlite3 failed.db "UPDATE trials SET status = 'failed', error = 'boom'
	WHERE requested_mode = 'passthrough'" &&
	t_run 0 "$B" --db failed.db report -o failed.html &&
	t_grep failed.html "<td>boom</td>" &&
	t_grep failed.html "<th colspan=\"2\">passthrough</th>" &&
	! grep -q "passthrough is" failed.html
t_ok $? "a mode with only failed trials is reported, not compared"

# A profile trial whose throughput is within half a percent of its
# cell's measured trials: what profiling cost there reads 1.00x, a
# ratio like every other ("1x" once, which run.t's check did not take
# for one and so counted a cell short).
cp r.db prof.db
sqlite3 prof.db "UPDATE trials SET profile = 1
	WHERE id = (SELECT max(id) FROM trials WHERE status = 'ok');
	UPDATE metrics SET value = CASE WHEN (SELECT profile FROM trials t
		WHERE t.id = trial_id) THEN 1.003e10 ELSE 1e10 END
	WHERE name = 'throughput' AND trial_id IN (SELECT id FROM trials
		WHERE cell_id = (SELECT cell_id FROM trials WHERE profile = 1))" &&
	t_run 0 "$B" --db prof.db report --no-plots -o prof.html &&
	python3 - prof.html <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
sec = h[h.index('id="collectors"'):]
sec = sec[:sec.index("<h2")]
rows = re.findall(r"<tr>(.*?)</tr>", sec)
cost = [re.sub(r"<[^>]+>", " ", r).split() for r in rows if "Gbit/s" in r]
assert len(cost) == 1, cost
assert cost[0][-1] == "1.00x", cost
PY
t_ok $? "a profile trial's cost within half a percent of none reads 1.00x"

t_run 1 "$B" report -o "$T_TMP/no/such/dir/r.html" && t_grep "$T_ERR" "no/such/dir"
t_ok $? "an unwritable -o is exit 1, named"

t_run 2 "$B" report --series 99 && t_grep "$T_ERR" "--series wants 0 to 50"
t_ok $? "a bad --series is a usage error"

# Under heavy throughput noise (30% a trial) a steadier metric tells the
# modes apart: the headline names it, with its own sentences.
t_gendb --out noisy.db --runs 1 --reps 6 --noise 30 --no-details
t_run 0 "$B" --db noisy.db report --no-plots -o noisy.html &&
	python3 - noisy.html <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
head = h[h.index('id="headline"'):h.index("<table", h.index('id="headline"'))]
m = re.search(r"The metric that separates the columns most sharply here is (\w+): its effects stand ([0-9.]+) half-intervals from no change on average, throughput&#39;s ([0-9.]+)\.", head)
assert m, head
assert m.group(1).startswith("cpu_"), m.group(1)
assert float(m.group(2)) > float(m.group(3)), m.groups()
assert re.search(r"is [0-9.]+x strict in %s on tcp-rx, 95%% CI \[" % m.group(1), head), head
PY
t_ok $? "a noisy throughput: the headline names the metric that separates the modes most sharply"

t_done
