#!/usr/bin/env python3
"""Regenerate onnx_op_since.json from the ONNX specification's operator index.

ONNX's docs/Operators.md opens with one table per domain; in the ai.onnx (default) domain
each row names an operator (or a function) and every opset at which its definition
changed, newest first. The last of them is the opset that introduced the operator: an
exporter targeting an older opset cannot emit it.

    python3 plugins/data/onnx_op_since.py OPERATORS_MD COMMIT > onnx_op_since.json.new

OPERATORS_MD is docs/Operators.md of the onnx/onnx commit COMMIT; each entry's source
links to the operator's section of that file at that commit.
"""
import json
import re
import sys

ROW = re.compile(r'^\|<a href="#([A-Za-z0-9_]+)">[^<]*</a>\|(.*)$')
VERSION = re.compile(r'>(\d+)</a>')


def since_versions(lines):
    """name -> the opset that introduced it, for the ai.onnx (default) domain."""
    out, inside = {}, False
    for line in lines:
        if line.startswith("### "):
            inside = line.strip() == "### ai.onnx (default)"
            continue
        m = ROW.match(line) if inside else None
        if m:
            versions = [int(v) for v in VERSION.findall(m.group(2).split("|")[0])]
            if versions:
                out[m.group(1)] = min(versions)
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: onnx_op_since.py OPERATORS_MD COMMIT\n")
        return 2
    path, commit = argv[1], argv[2]
    with open(path, encoding="utf-8") as fh:
        since = since_versions(fh)
    base = "https://github.com/onnx/onnx/blob/%s/docs/Operators.md" % commit
    doc = {
        "description": ("The ai.onnx opset that introduced each standard ONNX operator (and function), read from "
                        "the \"Since version\" column of the ONNX specification's operator index (docs/Operators.md "
                        "of onnx/onnx at commit %s): the oldest version listed for it. An exporter targeting an "
                        "older opset cannot emit the operator; PyTorch's exporter writes, for example, "
                        "LayerNormalization only from opset 17 and smaller operators before it." % commit),
        "entries": [{"name": n, "since": since[n], "source": "%s#%s" % (base, n)} for n in sorted(since)],
    }
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
