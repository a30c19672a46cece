#!/usr/bin/env python3
"""Finds English sentences in saved workbench screens that should be all Chinese.

usage: zh_screens.py [--record FILE]... [--word W]... [--text T]... SCREEN...

Every line of every SCREEN (a <Save:PATH> of the workbench run with FERRY_LANG=zh) is
checked with tests/zh_check.py's rule: three or more plain English words in a row,
after code, paths, identifiers and ALL-CAPS names are taken out.

What the record holds rather than the workbench's own text is taken out first, because
others own its language: every finding's message and suggestion and every checkpoint's
message (--record: JSON of `ferry findings --format json` or `ferry log --format json`,
in either language), and free text such as the actor's name (--text). A record text is
removed wherever a piece of it of 8 or more characters shows on a line, so a message cut
at the column's edge or wrapped over rows goes too. --word names identifiers that are
typed as they are (the palette's command names) and are removed as whole words. The
project's own code is taken out where the screen marks it: when SCREEN.attr exists
(FERRY_SAVE_ATTRS=1), the cells drawn as diff lines, hunk headers or a finding's matched
source, and in the detail the numbered source lines.
Prints one line per offending screen line and exits 1 when there is any."""
import difflib
import json
import os
import re
import sys
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from zh_check import english_run  # noqa: E402

MIN_PIECE = 8


def record_texts(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    texts = []
    for key in ("findings", "checkpoints"):
        for x in doc.get(key, []) if isinstance(doc, dict) else []:
            for field in ("message", "suggestion"):
                if isinstance(x.get(field), str):
                    texts.extend(t for t in x[field].split("\n") if t.strip())
    return texts


def strip_record(line, texts):
    """line with every piece of a record text (MIN_PIECE characters or more) blanked."""
    changed = True
    while changed:
        changed = False
        for t in texts:
            m = difflib.SequenceMatcher(None, line, t, autojunk=False).find_longest_match(0, len(line), 0, len(t))
            if m.size >= MIN_PIECE:
                line = line[:m.a] + " | " + line[m.a + m.size:]
                changed = True
    return line


CODE_ATTRS = set("+-HM")  # ui.c's letters for UI_ADD, UI_DEL, UI_HUNK, UI_MATCH
SOURCE_LINE = re.compile(r"(?<=\s)\d{1,6} [▶ ] .*$")  # detail.c: "%5d ▶ code"


def strip_code(line, attrs):
    """line without the characters drawn in a code attribute (attrs: a letter per cell)."""
    out, cell = [], 0
    for ch in line:
        code = cell < len(attrs) and attrs[cell] in CODE_ATTRS
        out.append(" " if code else ch)
        cell += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return SOURCE_LINE.sub(" ", "".join(out))


def main(argv):
    texts, words, screens = [], set(), []
    i = 0
    while i < len(argv):
        if argv[i] in ("--record", "--word", "--text") and i + 1 < len(argv):
            if argv[i] == "--record":
                texts.extend(record_texts(argv[i + 1]))
            elif argv[i] == "--word":
                words.add(argv[i + 1])
            else:
                texts.append(argv[i + 1])
            i += 2
            continue
        screens.append(argv[i])
        i += 1
    if not screens:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    texts = sorted(set(texts), key=len, reverse=True)
    word_re = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, sorted(words, key=len, reverse=True))) + r")(?![\w-])") \
        if words else None
    bad = 0
    for path in screens:
        attrs = []
        if os.path.exists(path + ".attr"):
            with open(path + ".attr", encoding="ascii") as f:
                attrs = f.read().split("\n")
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, raw in enumerate(f, 1):
                line = strip_code(raw.rstrip("\n"), attrs[n - 1] if n <= len(attrs) else "")
                line = strip_record(line, texts)
                if word_re:
                    line = word_re.sub(" | ", line)
                run = english_run(line)
                if run:
                    bad += 1
                    print(f"{path}:{n}: English \"{run}\" in: {raw.rstrip()[:200]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
