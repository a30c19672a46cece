#!/usr/bin/env python3
"""Finds Lua code that uses `_` as a variable name, which hides the host's `_()` (the
translation function every plugin and plugins/lib module gets) for the rest of the block.

usage: underscore.py FILE.lua...   prints FILE:LINE: what, one line each; exits 1 on any

Looked for, after strings and comments are blanked out: `for _, x in`, `for _ = 1, n`,
`local _`, `local _, x =`, `function f(_, x)` and an assignment to `_` (`_, x = f()`)."""
import re
import sys

LONG = re.compile(r"\[(=*)\[.*?\]\1\]", re.S)


def blank(text):
    """text with comments and string contents replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("--", i):
            m = LONG.match(text, i + 2)
            end = m.end() if m else (text.find("\n", i) if text.find("\n", i) >= 0 else n)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "[" and LONG.match(text, i):
            end = LONG.match(text, i).end()
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


NAMES = r"[A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_][\w]*)*"
RULES = [
    (re.compile(r"\bfor\s+(" + NAMES + r")\s*(?:=|\bin\b)"), "a loop variable"),
    (re.compile(r"\blocal\s+(?!function\b)(" + NAMES + r")"), "a local"),
    (re.compile(r"\bfunction\b[\w.:\s]*\(([^)]*)\)"), "a parameter"),
    (re.compile(r"(?:^|[;\n]|\bdo\b|\bthen\b|\belse\b)\s*((?:[A-Za-z_][\w.]*\s*,\s*)*[A-Za-z_][\w.]*)\s*=(?!=)"), "the target of an assignment"),
]


def problems(path):
    text = blank(open(path, encoding="utf-8").read())
    found = []
    for rule, what in RULES:
        for m in rule.finditer(text):
            if "_" in [x.strip() for x in m.group(1).split(",")]:
                found.append((text.count("\n", 0, m.start(1)) + 1, what))
    return sorted(set(found))


def main(paths):
    bad = 0
    for path in paths:
        for line, what in problems(path):
            bad += 1
            print(f"{path}:{line}: `_` used as {what}; it hides the translation function _() (write _i)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
