# Shared helpers for the CLI tests (sourced). Each test runs the real ./ferry on
# throw-away copies of projects and reports "ok"/"FAIL" lines; the script's exit
# status is the number of failures (capped), so tests/run-all.sh counts it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
FERRY="${FERRY:-$top/ferry}"
export FERRY_ACTOR="Test Runner <test@example.org>"
export NO_COLOR=1
unset FERRY_PLUGIN_PATH
fails=0
[ -x "$FERRY" ] || { echo "FAIL $FERRY is not built"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-cli-XXXXXX")
trap 'rm -rf "$work"' EXIT

ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# expect_exit CODE DESC -- command...   (stdout/stderr kept in $work/out, $work/err)
expect_exit() {
	want=$1
	desc=$2
	shift 3
	"$@" >"$work/out" 2>"$work/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$desc"; else
		fail "$desc: exit $got, wanted $want"
		sed 's/^/     | /' "$work/err" | head -5
	fi
}

# expect_grep PATTERN FILE DESC
expect_grep() {
	if grep -q -- "$1" "$2"; then ok "$3"; else
		fail "$3: no '$1' in $(basename "$2")"
		sed 's/^/     | /' "$2" | head -8
	fi
}

# one_line FILE DESC: stderr is exactly one line
one_line() {
	n=$(wc -l <"$1")
	if [ "$n" -eq 1 ]; then ok "$2"; else fail "$2: $n lines on stderr"; sed 's/^/     | /' "$1" | head -5; fi
}

# A small project: a training script, a helper, a .gitignore'd folder.
make_project() {
	d=$1
	mkdir -p "$d/models" "$d/checkpoints"
	printf 'import torch\n\nmodel = torch.nn.Linear(4, 2).cuda()\nx = torch.randn(8, 4).cuda()\nprint(model(x).sum().item())\n' >"$d/train.py"
	printf 'def build():\r\n\treturn 1\r\n' >"$d/models/net.py"
	printf 'checkpoints/\n*.pt\n' >"$d/.gitignore"
	printf 'weights' >"$d/checkpoints/epoch1.pt"
}

# make_training_project DIR: make_project whose train.py trains: a loss, backward and an
# optimizer step in a loop, on the CPU (what the tune checks take for a training project).
make_training_project() {
	make_project "$1"
	cat >"$1/train.py" <<'PY'
import torch

model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
}

# tree_hash DIR: a hash of every file's path and bytes below DIR (excluding .ferry)
tree_hash() {
	(cd "$1" && find . -path ./.ferry -prune -o -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)
}

finish() {
	echo "$(basename "$0"): $fails failure(s)"
	[ "$fails" -eq 0 ]
}

# has SEVERITY TEXT: $work/f.json (a `findings --format json` output) holds a finding of
# that severity whose message or suggestion contains TEXT
has() {
	python3 - "$work/f.json" "$1" "$2" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
sys.exit(0 if any(x["severity"] == sys.argv[2] and sys.argv[3] in x["message"] + " " + (x.get("suggestion") or "") for x in f) else 1)
PY
}
# check_has SEVERITY TEXT DESCRIPTION: has, as a test result (the findings shown on failure)
check_has() {
	if has "$1" "$2"; then ok "$3"; else
		fail "$3"
		sed 's/^/     | /' "$work/f.json" | head -20
	fi
}

# need_torch: $py becomes a Python with torch (FERRY_TORCH_PYTHON, else the distribution's
# python3-torch); without one the test is skipped, saying why.
need_torch() {
	py=${FERRY_TORCH_PYTHON:-/usr/bin/python3}
	if ! "$py" -c 'import torch' 2>/dev/null; then
		echo "skip $(basename "$0"): no torch in $py (python3-torch)"
		exit 0
	fi
}

# open_errors DIR PHASE: ids of the open error findings of PHASE, space-separated
open_errors() {
	"$FERRY" -C "$1" findings --phase "$2" --status open --format json | python3 -c '
import json, sys
print(" ".join(str(f["id"]) for f in json.load(sys.stdin)["findings"] if f["severity"] == "error"))'
}
# sign_through DIR PHASE...: checks each phase, waives its open errors and signs it off
sign_through() {
	sd=$1
	shift
	for ph in "$@"; do
		"$FERRY" -C "$sd" check --phase "$ph" >/dev/null 2>&1
		ids=$(open_errors "$sd" "$ph")
		[ -z "$ids" ] || "$FERRY" -C "$sd" waive $ids --reason "accepted for the test" >/dev/null
		"$FERRY" -C "$sd" signoff "$ph" >/dev/null 2>&1 || echo "     | signoff $ph failed"
	done
}
