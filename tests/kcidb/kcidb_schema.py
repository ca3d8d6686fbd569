# SPDX-License-Identifier: GPL-2.0-only
"""Validate KCIDB reports against the v5.3 schema kept beside this file.

As kcidb-io does: JSON Schema Draft 7 with its format checker. Used as a
module (validate(report) -> list of error strings) by the stand-in of
kcidb-ng's REST service, and as a command by the tests:

    python3 kcidb_schema.py REPORT.json   # exit 0 valid, 1 invalid
"""
import json
import os
import sys

import jsonschema

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "kcidb-io-v5.3.schema.json")


def load_schema():
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def validate(report, schema=None):
    """Every way report breaks the schema, as 'path: message' lines."""
    schema = schema or load_schema()
    v = jsonschema.Draft7Validator(schema,
                                   format_checker=jsonschema.FormatChecker())
    errors = []
    for e in sorted(v.iter_errors(report), key=lambda e: list(e.path)):
        where = "/".join(str(p) for p in e.path) or "(report)"
        errors.append("%s: %s" % (where, e.message))
    return errors


def main(argv):
    if len(argv) != 2:
        print("usage: kcidb_schema.py REPORT.json", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        report = json.load(f)
    errors = validate(report)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
