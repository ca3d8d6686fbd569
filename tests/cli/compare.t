#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# iommu-bench compare: CSV files from anywhere and databases written
# through the store API; text, JSON and CSV; errors that name the value.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gendb.sh"

B=$IOMMU_BENCH
cd "$T_TMP"

# The seed's numbers: strict ~14.9 Gbit/s, lazy ~39.8, seven trials each.
cat >tcp-rx.csv <<'CSV'
mode,throughput
strict,14.9
strict,14.7
strict,15.1
strict,14.8
strict,15.0
strict,14.6
strict,14.95
lazy,39.8
lazy,39.5
lazy,40.1
lazy,39.9
lazy,39.2
lazy,40.3
lazy,39.7
CSV
# Two samples from one distribution: must not be flagged.
printf 'a,10.0\na,10.5\na,9.8\na,10.2\na,10.1\na,10.3\nb,10.1\nb,10.4\nb,9.9\nb,10.0\nb,10.6\nb,10.2\n' >same.csv

t_run 0 "$B" compare --better higher --unit Gbit/s tcp-rx.csv &&
	t_grep "$T_OUT" "throughput [Gbit/s], higher is better" &&
	t_grep "$T_OUT" "14.90 ± 2%" && t_grep "$T_OUT" "39.80 ± 2%" &&
	t_grep "$T_OUT" "+167% [" && t_grep "$T_OUT" "(p<0.001 n=7+7) better"
t_ok $? "CSV: median ± CI per label, +167% better with p<0.001"

t_run 0 "$B" compare same.csv && grep -E '~ \[-[0-9.]+%, \+[0-9.]+%\] \(p=0.872 n=6\+6\)' "$T_OUT" >/dev/null
t_ok $? "CSV: two samples of one distribution are '~', p=0.872, an interval holding no change"

t_run 0 "$B" compare --json --better higher tcp-rx.csv &&
	python3 - "$T_OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["by"] == "label" and d["baseline"] == "strict", d
m = d["metrics"][0]
assert m["metric"] == "throughput" and m["better"] == "higher"
cells = m["rows"][0]["cells"]
assert cells[0]["n"] == 7 and cells[0]["median"] == 14.9
assert cells[0]["ci"] == [14.6, 15.1], cells[0]["ci"]
vs = cells[1]["vs_baseline"]
# Hodges-Lehmann: the median of the 49 ratios lazy / strict; the
# interval, exact at 7+7, from order statistics 9 and 41 of them
# (qwilcox(0.025, 7, 7) = 9: R's rule).
import math
x = [14.9, 14.7, 15.1, 14.8, 15.0, 14.6, 14.95]
y = [39.8, 39.5, 40.1, 39.9, 39.2, 40.3, 39.7]
r = sorted(math.log(b) - math.log(a) for a in x for b in y)
assert abs(vs["ratio"] - math.exp(r[24])) < 1e-9, vs
assert abs(vs["ratio_ci"][0] - math.exp(r[8])) < 1e-9, vs
assert abs(vs["ratio_ci"][1] - math.exp(r[40])) < 1e-9, vs
assert vs["verdict"] == "better" and vs["test"] == "exact"
assert vs["ci_method"] == "exact"
assert abs(vs["p"] - 2 / 3432) < 1e-12, vs["p"]
PY
t_ok $? "CSV --json: exact p = 2/C(14,7), the Hodges-Lehmann ratio and its interval"

t_run 0 "$B" compare --csv tcp-rx.csv &&
	head -1 "$T_OUT" | grep -q '^metric,unit,better,workload,host,kernel,mode,label,column,n,median,ci_lo,ci_hi' &&
	[ "$(wc -l <"$T_OUT")" -eq 3 ]
t_ok $? "CSV --csv: a header and a line per cell"

printf 'strict,14.9\nlazy,fast\n' >bad.csv
t_run 2 "$B" compare bad.csv && t_grep "$T_ERR" "bad.csv:2: expected 'label,value'" &&
	t_grep "$T_ERR" "got 'lazy,fast'"
t_ok $? "a CSV line without a number names file, line and text"

t_run 2 "$B" compare --baseline lazzy tcp-rx.csv &&
	t_grep "$T_ERR" "did you mean 'lazy'?"
t_ok $? "an unknown --baseline suggests the right one"

t_run 2 "$B" compare --by mode tcp-rx.csv
t_ok $? "--by with CSV input is a usage error"

t_run 2 "$B" compare --alpha 2 tcp-rx.csv && t_grep "$T_ERR" "--alpha wants a number between 0 and 0.5"
t_ok $? "--alpha out of range names the value and the range"

# A database written through the store API: three nightly runs.
t_gendb --out "$T_TMP/n.db" --runs 3 --reps 10 --trouble
t_ok $? "generated a 3-run database"
export IOMMU_BENCH_DB="$T_TMP/n.db"

t_run 0 "$B" compare && t_grep "$T_OUT" "by mode, baseline strict" &&
	t_grep "$T_OUT" "throughput [Gbit/s], higher is better" &&
	t_grep "$T_OUT" "cpu_util_pct [%], lower is better" &&
	grep -E '^tcp-rx +14\.[0-9]+ ± [0-9]+% +39\.[0-9]+ ± [0-9]+% +\+16[0-9]% .* better' "$T_OUT" >/dev/null &&
	t_grep "$T_ERR" "left out 2 trials whose verified mode was not the one requested"
t_ok $? "database: the latest run by mode; lazy +16x% better; mismatches left out"

! grep -q 'cpu_util_pct.cpu0' "$T_OUT"
t_ok $? "per-CPU metrics are left out by default"

t_run 0 "$B" compare --only metric=cpu_util_pct.cpu0 && t_grep "$T_OUT" "cpu_util_pct.cpu0"
t_ok $? "... and shown when --only names one"

t_run 0 "$B" compare --run all --by run --only metric=throughput --only mode=lazy &&
	t_grep "$T_OUT" "workload \\ run" && t_grep "$T_OUT" "vs 1" &&
	! grep -q ') better\|) worse' "$T_OUT"
t_ok $? "--by run across runs of pure noise: no change flagged"

t_run 0 "$B" compare --run 1 --run 2 --json --only metric=throughput &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["metrics"][0]["rows"][0]["cells"]; assert c[0]["n"] == 20, c[0]["n"]' "$T_OUT"
t_ok $? "two runs pool: 20 trials per cell"

t_run 2 "$B" compare --only mode=lazzy && t_grep "$T_ERR" "--only mode=lazzy: no mode 'lazzy' here; did you mean 'lazy'?"
t_ok $? "a misspelt --only value suggests the right one"

t_run 2 "$B" compare --only colour=red && t_grep "$T_ERR" "unknown key 'colour'"
t_ok $? "an unknown --only key is named"

t_run 2 "$B" compare --run 9 && t_grep "$T_ERR" "--run 9: no such run (the newest is 3)"
t_ok $? "an unknown run names the newest there is"

t_run 2 "$B" compare --by flavour && t_grep "$T_ERR" "--by wants mode, kernel, host or run, got 'flavour'"
t_ok $? "an unknown axis is a usage error"

t_run 1 "$B" --db "$T_TMP/missing.db" compare && t_grep "$T_ERR" "missing.db"
t_ok $? "a missing database is exit 1, named"

# --- the noise floor: trials in boots of 4, 2% noise within a boot, a
# 10% level per boot; compare --aa must tell the two apart.
t_gendb --out boots.db --runs 1 --reps 40 --workloads 2 --per-boot 4 \
	--boot-noise 10 --noise 2
t_ok $? "generated 40 trials a cell in boots of 4"

t_run 0 "$B" --db boots.db compare --aa &&
	t_grep "$T_OUT" "throughput [bit/s]: noise, and each cell against itself" &&
	grep -E '^sut +mainline +strict +tcp-rx +40 +10 ' "$T_OUT" >/dev/null &&
	grep -E '^host sut, the median cell: CV [0-9.]+%, within a boot [12]\.[0-9]%, between boots ([7-9]|1[0-3])\.[0-9]%' "$T_OUT" >/dev/null
t_ok $? "--aa: within a boot ~2%, between boots ~10%, per cell and per host"

t_run 0 "$B" --db boots.db compare --aa --json --only metric=throughput --only mode=lazy &&
	python3 - "$T_OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d) == 1 and d[0]["metric"] == "throughput", d
cells = d[0]["cells"]
assert len(cells) == 2 and all(c["mode"] == "lazy" for c in cells), cells
for c in cells:
    assert c["n"] == 40 and c["boots"] == 10 and c["boots_multi"] == 10, c
    assert 0.01 < c["cv_within_boot"] < 0.03, c
    assert c["cv_between_boots"] > 2 * c["cv_within_boot"], c
    aa = c["aa"]
    assert aa["odd"]["n"] == 20 and aa["even"]["n"] == 20, aa
    lo, hi = aa["delta_ci_pct"]
    assert (lo > 0 or hi < 0) == (aa["verdict"] != "same"), aa
PY
t_ok $? "--aa --json: the cells --only keeps, CVs, the A/A halves and a consistent verdict"

t_run 2 "$B" compare --aa tcp-rx.csv && t_grep "$T_ERR" "--aa reads the trials' boots"
t_ok $? "--aa on CSV files is a usage error"

# --cost's arithmetic is tests/unit/test-cost.c's; here, its words.
t_run 1 "$B" compare --cost &&
	t_grep "$T_ERR" "none of the 56 measured trials has both a throughput and busy CPU"
t_ok $? "--cost on trials without procstat says what it needs"
t_run 2 "$B" compare --cost --at 10G,25X &&
	t_grep "$T_ERR" "--at: '25X' is not a line rate"
t_ok $? "--at with a bad rate names it"
t_run 2 "$B" compare --cost --at 0 && t_grep "$T_ERR" "--at: '0' is not a line rate (zero)"
t_ok $? "--at 0 is refused"
t_run 2 "$B" compare --at 10G && t_grep "$T_ERR" "--at is for --cost"
t_ok $? "--at without --cost is a usage error"
t_run 2 "$B" compare --cost --csv && t_grep "$T_ERR" "--cost reads trials and probes"
t_ok $? "--cost with --csv is a usage error"
t_run 2 "$B" compare --cost --only metric=throughput &&
	t_grep "$T_ERR" "--cost shows its own figures"
t_ok $? "--cost with --only metric= is a usage error"
t_run 2 "$B" compare --cost --only mode=lazzy &&
	t_grep "$T_ERR" "did you mean 'lazy'?"
t_ok $? "--cost checks --only values like compare"

t_done
