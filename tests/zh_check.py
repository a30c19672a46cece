#!/usr/bin/env python3
"""Finds English sentences in text that should be Chinese.

usage: zh_check.py findings FILE.json...   every finding's message and suggestion
                                          (ferry findings/check --format json)
       zh_check.py lines FILE...          every line of FILE (CLI output, a pane)
       [--only PREFIX] limits `findings` to plugins whose id starts with PREFIX.

A text is English when, after code, paths, identifiers, numbers, URLs and ALL-CAPS names
are taken out, three or more plain words in a row remain ("the file is", "run the
checks"). Product and tool names that stay in Latin letters in Chinese text are listed
in KEEP. Prints one line per offending text and exits 1 when there is any."""
import json
import re
import sys

# Words that stay as written inside Chinese text (names, units, format words).
KEEP = {
    "ascend", "atlas", "cann", "pytorch", "torch", "torch_npu", "python", "numpy", "onnx",
    "loss", "dump", "msprobe", "megatron", "mindspeed", "deepspeed", "apex", "nccl", "hccl",
    "cuda", "cudnn", "triton", "transformers", "vllm", "mindie", "ferry", "git", "lua",
    "json", "csv", "html", "markdown", "sarif", "pdf", "ais_bench", "msit", "atc", "aipp",
    "npu", "gpu", "cpu", "ai", "core", "vector", "cube", "float", "bfloat", "int", "fp",
    "bf", "mb", "gb", "kb", "ms", "us", "s", "step", "epoch", "batch", "rank", "ddp", "fsdp",
    "amp", "autocast", "nan", "inf", "tensorboard", "wandb", "lightning", "detr", "hf",
    "docker", "ubuntu", "debian", "x86_64", "aarch64", "arm", "driver", "firmware",
    "toolkit", "kernels", "nnal", "opp", "om", "soc", "smi", "npu-smi", "profiler",
    "kernel_details", "trace_view", "op_summary", "and", "or",
    # the artifact kinds, as `ferry ingest` takes them
    "env-probe", "loss-log", "atc-log", "run-log",
}

CODE = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’|「[^」]*」")
URL = re.compile(r"\b(?:https?|file)://\S+")
TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*")
NOT_WORD = re.compile(r"[._/()=\\<>\[\]{}:@#$%*+0-9]")


def words_of(text):
    """The plain words of text, with None where something else breaks the run."""
    text = URL.sub(" | ", CODE.sub(" | ", text))
    for raw in re.split(r"\s+", text):
        if not raw:
            continue
        core = raw.strip(",;!?。，；：！？、（）()[]「」“”\"'")
        if not core or NOT_WORD.search(core) or not TOKEN.fullmatch(core):
            yield None
            continue
        if core.isupper() or core.lower() in KEEP or re.search(r"[A-Z].*[A-Z]", core):
            yield None
            continue
        yield core
        if raw != core and raw[-1:] in ",;!?。，；：！？、）)":
            yield None


def english_run(text, need=3):
    """The first run of `need` plain English words in text, or None."""
    run = []
    for w in words_of(text or ""):
        if w is None:
            run = []
            continue
        run.append(w)
        if len(run) >= need:
            return " ".join(run)
    return None


# A half-width parenthesis opened right after Chinese text or a quoted piece of code
# ("`nn.RNN` (torch.nn.RNN)", "厂商 (x)"): Chinese text takes the full-width （）. A call's
# parenthesis follows its name ("model.eval()") and is left alone.
HALF_PAREN = re.compile(r"(?:[\u4e00-\u9fff，。：；、）」]|`) ?\((?!\))")


def half_paren(text):
    """The text around the first half-width parenthesis that Chinese text opens, or None."""
    marked = CODE.sub("`", URL.sub(" ", text or ""))
    m = HALF_PAREN.search(marked)
    return marked[max(0, m.start() - 20):m.end() + 20] if m else None


def check_findings(paths, only):
    bad = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        found = doc["findings"] if isinstance(doc, dict) else doc
        for x in found:
            if only and not x.get("plugin", "").startswith(only):
                continue
            for field in ("message", "suggestion"):
                run = english_run(x.get(field))
                if run:
                    bad += 1
                    print(f"{path}: {x.get('plugin')} {field}: English \"{run}\" in: {x.get(field)[:200]}")
                paren = half_paren(x.get(field))
                if paren:
                    bad += 1
                    print(f"{path}: {x.get('plugin')} {field}: half-width parenthesis \"{paren}\" in: {x.get(field)[:200]}")
    return bad


DIFF_HEAD = ("diff --git ", "new file mode", "deleted file mode", "index ", "--- ", "+++ ", "@@ ")


def check_lines(paths):
    """Every line but the file contents a unified diff shows: those are the project's
    (or a generated script's) own text, not ferry's."""
    bad = 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            in_diff = False
            for n, line in enumerate(f, 1):
                if line.startswith(DIFF_HEAD):
                    in_diff = True
                    continue
                if in_diff and line[:1] in ("+", "-", " ", "\\"):
                    continue
                in_diff = False
                run = english_run(line)
                if run:
                    bad += 1
                    print(f"{path}:{n}: English \"{run}\" in: {line.rstrip()[:200]}")
    return bad


def main(argv):
    only = None
    if "--only" in argv:
        i = argv.index("--only")
        only = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 2 or argv[0] not in ("findings", "lines"):
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    bad = check_findings(argv[1:], only) if argv[0] == "findings" else check_lines(argv[1:])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
