#!/usr/bin/env python3
"""Checks the fact tables in plugins/data/: every entry carries a non-empty "source".

usage: check_data.py DATA_DIR

A table is a JSON object with an "entries" list (or a top-level list); each entry is an
object. Prints one line per problem and exits 1 when there is any.
"""
import json
import os
import sys


def entry_lists(doc):
    if isinstance(doc, list):
        return [doc]
    if isinstance(doc, dict):
        if isinstance(doc.get("entries"), list):
            return [doc["entries"]]
        return [v for v in doc.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
    return []


def main(argv):
    data_dir = argv[1] if len(argv) > 1 else "plugins/data"
    problems = 0
    names = sorted(n for n in os.listdir(data_dir) if n.endswith(".json"))
    for name in names:
        path = os.path.join(data_dir, name)
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as e:
            print("%s: not valid JSON: %s" % (path, e))
            problems += 1
            continue
        lists = entry_lists(doc)
        if not lists:
            print("%s: no list of entries" % path)
            problems += 1
        for entries in lists:
            for i, e in enumerate(entries):
                if not isinstance(e, dict):
                    print("%s: entry %d is not an object" % (path, i))
                    problems += 1
                elif not isinstance(e.get("source"), str) or not e["source"].strip():
                    label = e.get("name") or e.get("original") or e.get("torch_npu") or i
                    print("%s: entry %s has no source" % (path, label))
                    problems += 1
    print("%d tables, %d problems" % (len(names), problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
