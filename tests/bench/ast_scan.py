#!/usr/bin/env python3
"""Baseline for the assessment benchmark: a CUDA scanner on Python's own `ast` module.

Usage: ast_scan.py [--prefilter] [--jobs N] DIR

Parses every .py file under DIR (with --prefilter, only files whose text contains "cuda"
or "nccl", as ferry's triggers do) and reports what the device plugins look for: attribute
access `.cuda` (calls like x.cuda()), `torch.cuda.*`, string constants naming a CUDA
device ('cuda', 'cuda:0') and the 'nccl' backend (strings or names). Prints one line per
site as "file:line:col: kind" and a summary on stderr. With --jobs N > 1 files are parsed
by N processes, the fair comparison with a multi-threaded scanner.
"""

import argparse
import ast
import os
import sys
from concurrent.futures import ProcessPoolExecutor


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def scan_file(path, prefilter):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return path, [], f"{path}: {e.strerror}"
    if prefilter and b"cuda" not in data and b"nccl" not in data:
        return path, None, None
    try:
        tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError) as e:
        return path, [], f"{path}: {e}"
    sites = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name = dotted(node)
            if node.attr == "cuda" and name != "torch.cuda":
                sites.append((node.lineno, node.col_offset + 1, "attribute .cuda"))
            elif name and name.startswith("torch.cuda.") and name.count(".") == 2:
                sites.append((node.lineno, node.col_offset + 1, f"{name}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            v = node.value
            if v == "cuda" or v.startswith("cuda:"):
                sites.append((node.lineno, node.col_offset + 1, f"device string {v!r}"))
            elif v == "nccl":
                sites.append((node.lineno, node.col_offset + 1, "nccl backend"))
        elif isinstance(node, ast.Name) and node.id.lower() == "nccl":
            sites.append((node.lineno, node.col_offset + 1, "nccl name"))
    return path, sites, None


def walk(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield os.path.join(dirpath, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--prefilter", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()

    paths = list(walk(args.dir))
    parsed = nsites = 0
    out = sys.stdout
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as ex:
            results = list(ex.map(scan_file, paths, [args.prefilter] * len(paths), chunksize=32))
    else:
        results = (scan_file(p, args.prefilter) for p in paths)
    for path, sites, err in results:
        if err:
            print(err, file=sys.stderr)
        if sites is None:
            continue
        parsed += 1
        rel = os.path.relpath(path, args.dir)
        for line, col, kind in sites:
            out.write(f"{rel}:{line}:{col}: {kind}\n")
            nsites += 1
    print(f"ast_scan: {len(paths)} files, {parsed} parsed, {nsites} sites", file=sys.stderr)


if __name__ == "__main__":
    main()
