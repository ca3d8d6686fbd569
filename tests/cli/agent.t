#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The agent's one-shot form: hello as JSON, its hash that of the binary,
# bad verbs and bad --args as clear errors; serve ends on EOF; connect
# proves the job's secret to a controller written apart from ours.
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

# agent connect: what it refuses before it dials.
secret="$T_TMP/secret"
python3 -c 'import os; print(os.urandom(32).hex())' >"$secret"
chmod 600 "$secret"
t_run 2 "$IOMMU_BENCH" agent connect 10.0.0.1 --secret-file "$secret" &&
	t_grep "$T_ERR" "'10.0.0.1' is not ADDR:PORT"
t_ok $? "connect refuses an address without its port"
t_run 2 "$IOMMU_BENCH" agent connect ctl.example:4000 --secret-file "$secret" &&
	t_grep "$T_ERR" "names are not looked up"
t_ok $? "connect refuses a host name"
t_run 2 "$IOMMU_BENCH" agent connect 127.0.0.1:4000 &&
	t_grep "$T_ERR" "connect needs --secret-file FILE"
t_ok $? "connect needs the secret file"
cp "$secret" "$T_TMP/open-secret"
chmod 644 "$T_TMP/open-secret"
t_run 2 "$IOMMU_BENCH" agent connect 127.0.0.1:4000 --secret-file "$T_TMP/open-secret" &&
	t_grep "$T_ERR" "has mode 0644" && ! grep -qF "$(cat "$secret")" "$T_ERR"
t_ok $? "connect refuses a secret others may read, without quoting it"

# A controller with an HMAC of its own (Python's), to the letter of
# src/chan-auth.h: it takes the handshake, asks hello behind its OK in
# one segment, and hangs up; the agent exits 0.
st=0
python3 - "$secret" "$IOMMU_BENCH" "$T_TMP/connect.err" <<'PY' || st=$?
import hashlib, hmac, json, os, socket, subprocess, sys
key = bytes.fromhex(open(sys.argv[1]).read().strip())
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(1)
ls.settimeout(20)
port = ls.getsockname()[1]
agent = subprocess.Popen([sys.argv[2], "agent", "connect",
                          "127.0.0.1:%d" % port, "--secret-file", sys.argv[1]],
                         stderr=open(sys.argv[3], "w"))
c, _ = ls.accept()
c.settimeout(20)
f = c.makefile("rb", buffering=0)
def mac(label, a, b):
    return hmac.new(key, label + a + b, hashlib.sha256).hexdigest().encode()
w = f.readline().split()
assert w[:2] == [b"IOMMU-BENCH-AGENT", b"1"] and len(w) == 3, w
na, nc = bytes.fromhex(w[2].decode()), os.urandom(32)
c.sendall(b"IOMMU-BENCH-CONTROLLER 1 %s %s\n" % (nc.hex().encode(),
                                                  mac(b"controller", na, nc)))
w = f.readline().split()
assert w == [b"AUTH", mac(b"agent", nc, na)], w
c.sendall(b'OK\n{"id":1,"verb":"hello"}\n')
r = json.loads(f.readline())
assert r["id"] == 1 and r["ok"] and r["result"]["protocol"] >= 1, r
f.close()
c.close()
sys.exit(agent.wait(timeout=10))
PY
[ $st -eq 0 ] || t_diag "exit $st" "$(cat "$T_TMP/connect.err")"
t_ok $st "connect proves the secret to another implementation and serves it"
! grep -qF "$(cat "$secret")" "$T_TMP/connect.err"
t_ok $? "the agent's log does not hold the secret"

t_done
