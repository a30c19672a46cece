#!/bin/sh
# The vendor's unsupported-API lists are per PyTorch version (2.1.0, 2.6.0, 2.7.1, 2.8.0):
# the project's torch pin chooses the list that judges its calls, and the finding says
# which list and why. torch.nn.utils.clip_grad_norm_ is in the 2.1 and 2.6 lists only,
# torch.nn.Transformer in the 2.8 list only.
. "$(dirname "$0")/lib.sh"

# survey PIN: a project pinned to torch==PIN ("none": no pin, "range": torch>=2.1,
# "example": torch>=2.6 in setup.py and torch==2.1.0 in an example's requirements),
# surveyed; its assess.unsupported_ops findings in $work/PIN.json
survey() {
	d="$work/p$1"
	mkdir -p "$d"
	cat >"$d/train.py" <<'PY'
import torch
from torch import nn


def step(model, opt, x):
    loss = model(x).sum()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()


def build():
    return nn.Transformer(d_model=64, nhead=4)
PY
	case $1 in
	none) ;;
	range) echo "torch>=2.1" >"$d/requirements.txt" ;;
	compatible) echo "torch~=2.6.0" >"$d/requirements.txt" ;;
	minor) echo "torch>=2.1,<2.2" >"$d/requirements.txt" ;;
	example)
		printf 'from setuptools import setup\n\nsetup(name="p", install_requires=["torch>=2.6"])\n' >"$d/setup.py"
		mkdir -p "$d/examples/server"
		echo "torch==2.1.0" >"$d/examples/server/requirements.txt"
		;;
	*) printf 'numpy\ntorch==%s\n' "$1" >"$d/requirements.txt" ;;
	esac
	"$FERRY" init "$d" >/dev/null 2>&1
	"$FERRY" -C "$d" check --plugin assess.unsupported_ops --format json >"$work/$1.json" 2>"$work/err"
}

# expect PIN DESC LINE:LIST:WORDS... : the findings are exactly those lines, each judged by
# that list and its message holding WORDS
expect() {
	pin=$1
	desc=$2
	shift 2
	survey "$pin"
	if python3 - "$work/$pin.json" "$@" <<'PY'; then ok "$desc"; else fail "$desc"; fi
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "assess.unsupported_ops"]
want = {}
for w in sys.argv[2:]:
    line, lst, words = w.split(":", 2)
    want[int(line)] = (lst, words)
got = {f["line"]: f for f in fs}
if sorted(got) != sorted(want):
    sys.exit("lines %s, wanted %s: %s" % (sorted(got), sorted(want), [f["message"] for f in fs]))
for line, (lst, words) in want.items():
    f = got[line]
    assert f["severity"] == "error", f
    assert "vendor list for PyTorch %s" % lst in f["message"], f["message"]
    assert words in f["message"], (words, f["message"])
PY
}

expect 2.1.0 "torch==2.1.0: judged by the 2.1 list (clip_grad_norm_ unsupported, Transformer not listed)" \
	"8:2.1.0:The project pins torch 2.1.0 (requirements.txt line 2)."
expect 2.4.0 "torch==2.4.0: the nearest list at or below, 2.1, judged it, and the finding says so" \
	"8:2.1.0:pins torch 2.4.0 (requirements.txt line 2); the vendor has lists for PyTorch 2.1.0, 2.6.0, 2.7.1, 2.8.0, and 2.1.0 is the nearest"
expect 2.7.1 "torch==2.7.1: judged by the 2.7 list, which names neither API" 
expect none "no torch pin: the version is unknown and the newest list (2.8) judged it" \
	"13:2.8.0:version is unknown (no torch pin"
expect range "torch>=2.1: a range is an unknown version, judged by the newest list" \
	"13:2.8.0:version is unknown (\`torch>=2.1\` in requirements.txt is a range)"
expect compatible "torch~=2.6.0: a compatible release fixes the minor version, judged by the 2.6 list" \
	"8:2.6.0:The project pins torch 2.6.* (requirements.txt line 1)."
expect minor "torch>=2.1,<2.2: a range within one minor version is judged by the 2.1 list" \
	"8:2.1.0:The project pins torch 2.1.* (requirements.txt line 1)."
expect example "an example's torch==2.1.0 does not pin the project: setup.py's range makes it unknown" \
	"13:2.8.0:version is unknown (\`torch>=2.6\` in setup.py is a range)"
expect 1.13.1 "torch==1.13.1: the lists start at 2.1, and the oldest judged it" \
	"8:2.1.0:the vendor's lists start at PyTorch 2.1.0"
expect 2.9.0 "torch==2.9.0: after the newest list, the 2.8 list judged it" \
	"13:2.8.0:and 2.8.0 is the nearest at or below it"

finish
