#!/usr/bin/env python3
"""Checks that every expected finding is present with its severity and key phrases.

Usage: contains.py EXPECTED.json ACTUAL.json

EXPECTED is a list of {plugin, file, line, severity, contains: [substrings]}; ACTUAL is the
output of `ferry check --format json`. A finding matches when plugin, file, line and
severity are equal and every substring occurs in its message or suggestion. Entries
without a severity are only counted by compare.py. Prints what is missing (and what that
plugin did report) and exits 1 when anything is.
"""
import json
import sys


def main():
    want = json.load(open(sys.argv[1], encoding="utf-8"))
    got = json.load(open(sys.argv[2], encoding="utf-8"))["findings"]
    okay = True
    for w in want:
        if "severity" not in w:
            continue
        cands = [f for f in got if f["plugin"] == w["plugin"] and (f.get("file") or "") == (w["file"] or "")
                 and int(f.get("line") or 0) == w["line"] and f["severity"] == w["severity"]
                 and all(s in f["message"] + " " + f["suggestion"] for s in w.get("contains", []))]
        if not cands:
            okay = False
            print("  no %s %s finding at %s:%d with %s" % (w["severity"], w["plugin"], w["file"] or "(project)",
                                                          w["line"], w.get("contains")))
            for f in got:
                if f["plugin"] == w["plugin"]:
                    print("    have: %s: %s | %s" % (f["severity"], f["message"], f["suggestion"]))
    sys.exit(0 if okay else 1)


if __name__ == "__main__":
    main()
