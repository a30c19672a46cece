#!/usr/bin/env python3
"""Extracts the translatable prose of the fact tables (plugins/data/*.json) as a gettext
template on stdout: the values of the keys below, which plugins pass through _() into
findings. Sources, identifiers and patterns are facts, not prose, and are left alone."""
import json
import sys

# Keys whose string values a finding shows to the reader.
TEXT_KEYS = {"about", "fix", "purpose", "description", "cause", "what", "diagnosis", "why",
             "title", "notes", "exclusive_note", "where"}


def po_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def walk(node, found, path, top=False):
    if isinstance(node, dict):
        for k, v in node.items():
            if top and k == "description":
                continue  # a table's own description is for its maintainers, not shown
            # an entry named *_advice holds its prose in "value" (profile_rules.json)
            prose = k in TEXT_KEYS or (k == "value" and str(node.get("name", "")).endswith("_advice"))
            if prose and isinstance(v, str) and v.strip():
                found.setdefault(v, set()).add(path)
            else:
                walk(v, found, path)
    elif isinstance(node, list):
        for v in node:
            walk(v, found, path)


def main(paths):
    found = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            walk(json.load(f), found, path, top=True)
    out = ['msgid ""', 'msgstr ""', '"Content-Type: text/plain; charset=UTF-8\\n"', ""]
    for text in sorted(found):
        out.append("#: " + " ".join(sorted(found[text])))
        if "{" in text:
            out.append("#, no-c-format")
        out.append("msgid " + po_quote(text))
        out.append('msgstr ""')
        out.append("")
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
