#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A stand-in of kcidb-ng's REST service, from its documented API.

    POST /submit            Authorization: Bearer TOKEN, the report as JSON
                            200 {"id", "status": "inprogress", "message"}
                            401 {"message"} for a missing or wrong token
                            400 {"message"} for a body that is not JSON
    GET  /status?id=ID      200 {"id", "status", "message"}: first "ready",
                            then "processed" (the report is valid) or
                            "failed" (it is not: its first errors)
                            404 notfound for an unknown id, 400 error for
                            an empty or non-alphanumeric one

The report is validated with kcidb_schema.validate (v5.3, Draft 7), as the
ingester does after the service accepted it. On 127.0.0.1, port 0: the
port is written to --port-file once bound. Each request is one line of
--log: METHOD PATH auth=ok|bad|none OUTCOME.

    --drop-first   close the first connection without an answer
    --fail N       answer 503 to the next N requests (after a drop)
    --stall        answer "ready" to every status request: no verdict
    --forget       answer "notfound" to every status request
"""
import argparse
import http.server
import json
import os
import secrets
import string
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kcidb_schema  # noqa: E402

ALNUM = string.ascii_letters + string.digits


class Service:
    def __init__(self, args):
        with open(args.token_file, encoding="utf-8") as f:
            self.token = f.readline().strip()
        self.drop = args.drop_first
        self.fail = args.fail
        self.stall = args.stall
        self.forget = args.forget
        self.log = open(args.log, "a", encoding="utf-8", buffering=1)
        self.schema = kcidb_schema.load_schema()
        self.subs = {}  # id -> {"errors": [...], "polls": n}

    def say(self, method, path, auth, outcome):
        self.log.write("%s %s auth=%s %s\n" % (method, path, auth, outcome))


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "kcidb-standin/1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def auth(self):
        got = self.headers.get("Authorization")
        if got is None:
            return "none"
        return "ok" if got == "Bearer " + self.server.svc.token else "bad"

    def handle_request(self, method):
        svc = self.server.svc
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        url = urllib.parse.urlsplit(self.path)
        auth = self.auth()
        if svc.drop:
            svc.drop = False
            svc.say(method, self.path, auth, "dropped")
            self.close_connection = True
            return
        if svc.fail > 0:
            svc.fail -= 1
            svc.say(method, self.path, auth, "503")
            self.answer(503, {"message": "the stand-in is unavailable"})
            return
        if auth != "ok":
            svc.say(method, self.path, auth, "401")
            self.answer(401, {"message": "Invalid or missing token"})
            return
        if method == "POST" and url.path == "/submit":
            self.submit(svc, body)
        elif method == "GET" and url.path == "/status":
            self.status(svc, urllib.parse.parse_qs(url.query))
        else:
            svc.say(method, self.path, auth, "404")
            self.answer(404, {"message": "no such endpoint"})

    def submit(self, svc, body):
        try:
            report = json.loads(body)
        except ValueError as e:
            svc.say("POST", self.path, "ok", "400 not JSON")
            self.answer(400, {"message": "the body is not JSON: %s" % e})
            return
        sid = "".join(secrets.choice(ALNUM) for _ in range(32))
        errors = kcidb_schema.validate(report, svc.schema)
        svc.subs[sid] = {"errors": errors, "polls": 0}
        svc.say("POST", self.path, "ok", "submitted %s %s" %
                (sid, "invalid" if errors else "valid"))
        self.answer(200, {"id": sid, "status": "inprogress",
                          "message": "the upload is received"})

    def status(self, svc, query):
        sid = (query.get("id") or [""])[0]
        if not sid or any(c not in ALNUM for c in sid):
            svc.say("GET", self.path, "ok", "error")
            self.answer(400, {"id": sid, "status": "error",
                              "message": "the id is empty or not "
                                         "alphanumeric"})
            return
        sub = None if svc.forget else svc.subs.get(sid)
        if sub is None:
            svc.say("GET", self.path, "ok", "notfound")
            self.answer(404, {"id": sid, "status": "notfound",
                              "message": "no submission with this id"})
            return
        sub["polls"] += 1
        if sub["polls"] == 1 or svc.stall:
            st, msg = "ready", "waiting for the ingester"
        elif sub["errors"]:
            st = "failed"
            msg = "schema validation failed: " + "; ".join(sub["errors"][:3])
        else:
            st, msg = "processed", "ingested and archived"
        svc.say("GET", self.path, "ok", st)
        self.answer(200, {"id": sid, "status": st, "message": msg})

    def do_GET(self):
        self.handle_request("GET")

    def do_POST(self):
        self.handle_request("POST")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--drop-first", action="store_true")
    ap.add_argument("--fail", type=int, default=0)
    ap.add_argument("--stall", action="store_true")
    ap.add_argument("--forget", action="store_true")
    args = ap.parse_args()
    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    srv.svc = Service(args)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
