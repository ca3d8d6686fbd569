#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The agent's one-shot form: hello as JSON, its hash that of the binary,
# bad verbs and bad --args as clear errors; serve ends on EOF.
set -eu
. "$(dirname "$0")/lib.sh"

t_run 0 "$IOMMU_BENCH" agent hello &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["protocol"] >= 1 and len(d["boot_id"]) == 36' "$T_OUT"
t_ok $? "agent hello prints JSON with protocol and boot_id"

want=$(sha256sum "$IOMMU_BENCH" | cut -d' ' -f1)
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exe_sha256"])' "$T_OUT")
[ "$want" = "$got" ]
t_ok $? "exe_sha256 is sha256sum of the binary"

t_run 2 "$IOMMU_BENCH" agent helo && t_grep "$T_ERR" "did you mean 'hello'?"
t_ok $? "a misspelt verb suggests the right one"

t_run 2 "$IOMMU_BENCH" agent policy --args '[1' &&
	t_grep "$T_ERR" "--args '[1' is not a JSON object"
t_ok $? "bad --args names the value"

t_run 1 "$IOMMU_BENCH" agent mode.sysfs --args '{"nic":"eth0","type":"lazy"}' &&
	t_grep "$T_ERR" "'lazy' is not a group type"
t_ok $? "mode.sysfs refuses a type that is not a group type"

printf '{"id":1,"verb":"hello"}\n' | "$IOMMU_BENCH" agent serve >"$T_TMP/serve.out" 2>"$T_TMP/serve.err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$T_TMP/serve.out")" -eq 1 ] &&
	python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); assert d["id"] == 1 and d["ok"]' "$T_TMP/serve.out"
t_ok $? "serve answers one line per request and exits 0 on EOF"

# A bad escape before a UTF-8 character: jansson's error text quotes the
# line cut inside the character, and a reply must still go out.
printf '{"id":1,"verb":"hell\\\303\251o"}\n{"id":2,"verb":"bye"}\n' |
	"$IOMMU_BENCH" agent serve >"$T_TMP/serve.out" 2>"$T_TMP/serve.err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$T_TMP/serve.out")" -eq 2 ] &&
	grep -q '"error":"request is not a JSON object' "$T_TMP/serve.out" &&
	grep -q '^{"id":2,"ok":true' "$T_TMP/serve.out"
st=$?
[ $st -eq 0 ] || t_diag "exit $rc" "$(cat "$T_TMP/serve.out")"
t_ok $st "serve answers a request whose error would quote half a UTF-8 character"

t_done
