#!/usr/bin/env python3
"""Generates a synthetic Python repository for the assessment benchmark.

Usage: gen_repo.py [--mb N] [--seed S] [--cuda-files K] DIR

Writes about N megabytes (default 50) of varied, syntactically valid Python under DIR in
packages of modules, deterministically from the seed. Only K files (default 6) use CUDA:
`.cuda()` calls, `torch.cuda.*`, 'cuda' device strings and the 'nccl' backend; the rest
are plain numerical and data-handling code, with comments and docstrings that never say
"cuda" so that a text prefilter has to skip them. A manifest of the CUDA files and the
expected number of CUDA sites goes to DIR/.bench-manifest.json.
"""

import argparse
import json
import os
import random
import sys

WORDS = (
    "alpha beta gamma delta epsilon zeta theta kappa iota sigma omega batch layer "
    "weight bias scale shift window stride kernel channel feature token vocab embed "
    "hidden output input buffer cache index offset count total mean variance norm "
    "score loss grad step epoch sample record field column table reader writer parser "
    "config option value result state model block stage head tail node edge graph"
).split()

COMMENTS = (
    "keep the ordering stable for reproducible runs",
    "this mirrors the reference implementation",
    "values are clipped to avoid overflow in half precision",
    "see the design notes for why this is eager",
    "the fast path only applies to contiguous inputs",
    "guard against empty batches",
)


def ident(rng, parts=2):
    return "_".join(rng.choice(WORDS) for _ in range(parts))


def expr(rng, depth=0):
    r = rng.random()
    if depth > 2 or r < 0.3:
        return rng.choice([ident(rng, 1), str(rng.randint(0, 999)), repr(rng.random())[:6]])
    if r < 0.5:
        op = rng.choice(["+", "-", "*", "/", "//", "%"])
        return f"({expr(rng, depth + 1)} {op} {expr(rng, depth + 1)})"
    if r < 0.7:
        args = ", ".join(expr(rng, depth + 1) for _ in range(rng.randint(0, 3)))
        return f"{ident(rng, 1)}.{ident(rng)}({args})"
    if r < 0.85:
        return f"[{expr(rng, depth + 1)} for {ident(rng, 1)}_i in range({rng.randint(1, 64)})]"
    return f"{{{repr(ident(rng, 1))}: {expr(rng, depth + 1)}}}"


def function(rng, name, indent, cuda_sites):
    pad = " " * indent
    args = ", ".join(ident(rng, 1) + f"_{i}" for i in range(rng.randint(0, 4)))
    lines = [f"{pad}def {name}({'self, ' if indent else ''}{args}):"]
    lines.append(f'{pad}    """{rng.choice(COMMENTS).capitalize()}."""')
    for _ in range(rng.randint(3, 14)):
        r = rng.random()
        var = ident(rng)
        if r < 0.15:
            lines.append(f"{pad}    # {rng.choice(COMMENTS)}")
        elif r < 0.3:
            lines.append(f"{pad}    if {expr(rng, 1)} > {expr(rng, 2)}:")
            lines.append(f"{pad}        {var} = {expr(rng)}")
            lines.append(f"{pad}    else:")
            lines.append(f"{pad}        {var} = {expr(rng)}")
        elif r < 0.4:
            lines.append(f"{pad}    for {var} in {expr(rng, 1)}:")
            lines.append(f"{pad}        {ident(rng)}.append({var})")
        elif r < 0.48:
            lines.append(f"{pad}    {var} = f'{{{ident(rng, 1)}}} {rng.choice(WORDS)} {{{ident(rng, 1)}!r}}'")
        else:
            lines.append(f"{pad}    {var} = {expr(rng)}")
    if cuda_sites is not None:
        kind = rng.randrange(5)
        if kind == 0:
            lines.append(f"{pad}    {ident(rng)} = {ident(rng, 1)}.cuda()")
        elif kind == 1:
            lines.append(f"{pad}    torch.cuda.synchronize()")
        elif kind == 2:
            lines.append(f"{pad}    {ident(rng)} = torch.device('cuda:{rng.randrange(8)}')")
        elif kind == 3:
            lines.append(f"{pad}    dist.init_process_group(backend='nccl')")
        else:
            lines.append(f"{pad}    {ident(rng)} = {ident(rng, 1)}.to('cuda')")
        cuda_sites.append(kind)
    lines.append(f"{pad}    return {expr(rng)}")
    return lines


def module(rng, target_bytes, cuda):
    sites = [] if cuda else None
    lines = ['"""' + rng.choice(COMMENTS).capitalize() + '."""', "", "import math", "import os"]
    if cuda:
        lines += ["import torch", "import torch.distributed as dist"]
    lines += ["from collections import defaultdict", "", f"{ident(rng).upper()} = {rng.randint(1, 4096)}", ""]
    size = sum(len(l) + 1 for l in lines)
    while size < target_bytes:
        if rng.random() < 0.4:
            block = [f"class {ident(rng).title().replace('_', '')}:"]
            block.append(f'    """{rng.choice(COMMENTS).capitalize()}."""')
            block.append("")
            for i in range(rng.randint(1, 5)):
                use = sites if cuda and rng.random() < 0.3 else None
                block += function(rng, f"{ident(rng)}_{i}", 4, use)
                block.append("")
        else:
            use = sites if cuda and rng.random() < 0.3 else None
            block = function(rng, ident(rng, 3), 0, use)
        block += ["", ""]
        lines += block
        size += sum(len(l) + 1 for l in block)
    return "\n".join(lines) + "\n", sites


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cuda-files", type=int, default=6)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    total = int(args.mb * 1024 * 1024)
    written = 0
    files = []
    while written < total:
        pkg = f"pkg_{len(files) // 40:03d}"
        name = f"{pkg}/{ident(rng)}_{len(files)}.py"
        files.append(name)
        written += rng.randint(8, 40) * 1024
    cuda_files = set(rng.sample(range(len(files)), min(args.cuda_files, len(files))))

    written = 0
    manifest = {"files": len(files), "cuda_files": [], "cuda_sites": 0}
    made = set()
    for i, name in enumerate(files):
        path = os.path.join(args.dir, name)
        pkgdir = os.path.dirname(path)
        if pkgdir not in made:
            os.makedirs(pkgdir, exist_ok=True)
            with open(os.path.join(pkgdir, "__init__.py"), "w") as f:
                f.write("")
            made.add(pkgdir)
        text, sites = module(rng, rng.randint(8, 40) * 1024, i in cuda_files)
        if i in cuda_files and not sites:
            text += "\n\ndef to_device(x):\n    return x.cuda()\n"
            sites = [0]
        with open(path, "w") as f:
            f.write(text)
        written += len(text)
        if sites:
            manifest["cuda_files"].append(name)
            manifest["cuda_sites"] += len(sites)
    manifest["bytes"] = written
    with open(os.path.join(args.dir, ".bench-manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"gen_repo: {len(files)} files, {written / 1048576:.1f} MiB, "
          f"{len(manifest['cuda_files'])} files with {manifest['cuda_sites']} CUDA sites", file=sys.stderr)


if __name__ == "__main__":
    main()
