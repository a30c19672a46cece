#!/usr/bin/env python3
"""Compares the findings of `ferry check --format json` with a fixture's golden list.

usage: compare.py EXPECTED.json ACTUAL.json [--phase assess]

EXPECTED is a list of {"plugin", "file", "line"} (file "" or null and line 0 for a
project-wide finding). The comparison is on the exact multiset of (plugin, file, line)
over every finding of the phase: anything missing or extra is printed and the exit
status is 1. Plugin errors reported by the run also fail the comparison.
"""
import collections
import json
import sys


def key(f):
    return (f["plugin"], f.get("file") or "", int(f.get("line") or 0))


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    phase = "assess"
    if "--phase" in argv:
        phase = argv[argv.index("--phase") + 1]
    with open(argv[1], encoding="utf-8") as fh:
        expected = json.load(fh)
    with open(argv[2], encoding="utf-8") as fh:
        actual = json.load(fh)
    if isinstance(expected, dict):
        expected = expected.get("findings", [])
    found = [f for f in actual.get("findings", []) if f.get("phase", phase) == phase]
    messages = {key(f): f.get("message", "") for f in found}
    want = collections.Counter(key(f) for f in expected)
    got = collections.Counter(key(f) for f in found)
    ok = True
    for err in actual.get("plugin_errors", []) or []:
        print("  plugin error: %s" % (err if isinstance(err, str) else json.dumps(err)))
        ok = False
    missing = want - got
    extra = got - want
    for k in sorted(missing):
        print("  missing  %-30s %s:%d" % (k[0], k[1] or "(project)", k[2]))
        ok = False
    for k in sorted(extra):
        print("  extra    %-30s %s:%d  %s" % (k[0], k[1] or "(project)", k[2], messages.get(k, "")[:90]))
        ok = False
    for f in found:
        for field in ("id", "plugin", "phase", "severity", "file", "line", "col", "end_line",
                      "end_col", "message", "suggestion", "fixable", "status"):
            if field not in f:
                print("  finding %s lacks the field %r" % (key(f), field))
                ok = False
        if not f.get("message") or not f.get("suggestion"):
            print("  finding %s has an empty message or suggestion" % (key(f),))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
