#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run a TOML decoder against the toml-test 1.0.0 cases in this folder.

The decoder reads TOML on stdin. For valid input it prints the tagged JSON
described in README.md and exits 0; for invalid input it exits non-zero
(not by a signal) and says why on stderr.

usage: run.py DECODER [-v] [-k SUBSTRING]
Prints each failure (with -v also the decoder's stderr) and ends with
'toml-test: N passed, M failed'. Exit status 0 only when nothing failed.
"""
import datetime
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def norm_datetime(kind, s):
    s = s.replace(" ", "T").replace("t", "T").replace("z", "Z")
    try:
        if kind == "datetime":
            d = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
            return d.astimezone(datetime.timezone.utc).replace(tzinfo=None).isoformat(timespec="milliseconds")
        if kind == "datetime-local":
            return datetime.datetime.fromisoformat(s).isoformat(timespec="milliseconds")
        if kind == "date-local":
            return datetime.date.fromisoformat(s).isoformat()
        if kind == "time-local":
            return datetime.time.fromisoformat(s).isoformat(timespec="milliseconds")
    except ValueError:
        return None
    return s


def same(want, got, path="$"):
    """Return None when equal, else a description of the first difference."""
    if isinstance(want, dict) and set(want.keys()) == {"type", "value"} and isinstance(want.get("value"), str):
        if not isinstance(got, dict) or set(got.keys()) != {"type", "value"}:
            return f"{path}: want tagged {want['type']}, got {json.dumps(got)[:80]}"
        if got["type"] != want["type"]:
            return f"{path}: want type {want['type']}, got {got['type']}"
        t, w, g = want["type"], want["value"], got["value"]
        if not isinstance(g, str):
            return f"{path}: value must be a JSON string"
        if t == "float":
            try:
                fw, fg = float(w), float(g)
            except ValueError:
                return f"{path}: bad float {g!r}"
            if math.isnan(fw) and math.isnan(fg):
                return None
            return None if fw == fg else f"{path}: want {w}, got {g}"
        if t == "integer":
            try:
                return None if int(w) == int(g) else f"{path}: want {w}, got {g}"
            except ValueError:
                return f"{path}: bad integer {g!r}"
        if t in ("datetime", "datetime-local", "date-local", "time-local"):
            nw, ng = norm_datetime(t, w), norm_datetime(t, g)
            return None if ng is not None and nw == ng else f"{path}: want {w}, got {g}"
        return None if w == g else f"{path}: want {w!r}, got {g!r}"
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{path}: want table, got {type(got).__name__}"
        if set(want) != set(got):
            return f"{path}: keys differ: missing {sorted(set(want) - set(got))[:5]}, extra {sorted(set(got) - set(want))[:5]}"
        for k in want:
            d = same(want[k], got[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"{path}: want array of {len(want)}, got {json.dumps(got)[:80]}"
        for i, (a, b) in enumerate(zip(want, got)):
            d = same(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    return f"{path}: unexpected expectation {want!r}"


def run(decoder, data):
    try:
        p = subprocess.run([decoder], input=data, capture_output=True, timeout=10)
    except subprocess.TimeoutExpired:
        return None, b"", b"timeout"
    return p.returncode, p.stdout, p.stderr


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    only = None
    if "-k" in args:
        i = args.index("-k")
        only = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    decoder = os.path.abspath(args[0])
    passed = failed = 0
    for kind in ("valid", "invalid"):
        root = os.path.join(HERE, kind)
        for dirpath, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                if not f.endswith(".toml"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), HERE)
                if only and only not in rel:
                    continue
                with open(os.path.join(dirpath, f), "rb") as fh:
                    data = fh.read()
                rc, out, err = run(decoder, data)
                why = None
                if rc is None:
                    why = "timed out"
                elif rc < 0:
                    why = f"killed by signal {-rc}"
                elif kind == "invalid":
                    if rc == 0:
                        why = "accepted invalid TOML"
                else:
                    if rc != 0:
                        why = f"rejected valid TOML (exit {rc})"
                    else:
                        with open(os.path.join(dirpath, f[:-5] + ".json")) as fh:
                            want = json.load(fh)
                        try:
                            got = json.loads(out)
                        except ValueError as e:
                            why = f"output is not JSON: {e}"
                        else:
                            why = same(want, got)
                if why:
                    failed += 1
                    print(f"FAIL {rel}: {why}")
                    if verbose and err:
                        print("     stderr: " + err.decode(errors="replace").strip()[:300])
                else:
                    passed += 1
    print(f"toml-test: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
