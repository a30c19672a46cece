#!/bin/sh
# A change ferry made stays on the change list for as long as the code holds the text it
# wrote, whatever a person did to the line since: a hand edit that builds on ferry's
# rewrite (an argument added, a comment appended) leaves it in effect, and so does a hand
# deletion that was later reverted or typed back. Only a hand edit that takes ferry's text
# out (the line back to `.cuda()`, the import replaced) undoes it, and the report names
# that edit, not an earlier one that touched the file elsewhere.
. "$(dirname "$0")/lib.sh"

# fixed_project DIR: the small project, its adapt findings fixed. train.py then reads
#   1 import torch / 2 import torch_npu / 3 / 4 model = ….npu() / 5 x = ….npu() / 6 print(…)
# from two checkpoints: the import (an INSERT at 2) and the device calls (a MODIFY of 4-5).
fixed_project() {
	make_project "$1"
	"$FERRY" init "$1" >/dev/null 2>&1 || fail "init $1"
	"$FERRY" -C "$1" check --phase adapt >/dev/null 2>&1
	"$FERRY" -C "$1" fix --all --phase adapt --yes >/dev/null 2>&1 || fail "fix $1"
	grep -q '^x = torch.randn(8, 4).npu()$' "$1/train.py" || fail "the fix did not write .npu() in $1"
}

# changes DIR OUT: the change list of DIR as JSON in OUT (recording any hand edit first)
changes() {
	"$FERRY" -C "$1" report --format json --section changes --output "$2" >/dev/null 2>&1 ||
		fail "report --section changes in $1"
}

# listed OUT LINE...: each line of train.py is on the change list, and nothing was undone
listed() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = {int(a) for a in sys.argv[2:]}
have = {r["start_line"] for r in d["changes"] if r["file"] == "train.py"}
gone = [(r["start_line"], r["after"].strip(), r["undone_by"]) for r in d["undone_by_hand"]]
assert want <= have, "rows %s missing from %s; shown as undone: %s" % (sorted(want - have), sorted(have), gone)
assert not gone, "shown as undone by a hand edit: %s" % gone
PY
}

# undone OUT LINE BY: the row at LINE of train.py is off the list, undone by checkpoint BY
undone() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
line, by = int(sys.argv[2]), int(sys.argv[3])
rows = [r for r in d["undone_by_hand"] if r["file"] == "train.py" and r["start_line"] == line]
assert rows, "row %d not undone: %s" % (line, [(r["start_line"], r["after"]) for r in d["changes"]])
assert rows[0]["undone_by"] == by, "undone by checkpoint %s, wanted %d" % (rows[0]["undone_by"], by)
assert line not in {r["start_line"] for r in d["changes"] if r["file"] == "train.py"}
PY
}

# --- a hand edit that builds on ferry's rewrite -------------------------------------------
p="$work/extend"
fixed_project "$p"
sed -i 's/^x = torch.randn(8, 4).npu()$/x = torch.randn(8, 4).npu(non_blocking=True)/' "$p/train.py"
sed -i 's/^\(model = .*\)$/\1  # the model, on the NPU/' "$p/train.py"
sed -i 's/^import torch_npu$/import torch_npu  # noqa: F401/' "$p/train.py"
changes "$p" "$work/extend.json"
listed "$work/extend.json" 2 4 && ok "lines the client extended by hand still hold ferry's changes" ||
	fail "an extended line is shown as undone by a hand edit"
"$FERRY" -C "$p" report --format md --section changes --output "$work/extend.md" >/dev/null 2>&1
if grep -q "undone by a hand edit" "$work/extend.md"; then
	fail "the markdown report says an extended change was undone"
	grep "undone by a hand edit" "$work/extend.md" | sed 's/^/     | /'
else ok "the markdown report lists the extended changes as in effect"; fi

# --- a hand deletion reverted with ferry revert ------------------------------------------
p="$work/deleted"
fixed_project "$p"
sed -i '/^model = /d; /^x = /d' "$p/train.py"
changes "$p" "$work/deleted.json"
undone "$work/deleted.json" 4 4 && ok "lines deleted by hand undo the change (checkpoint 4)" ||
	fail "deleted lines still listed"
expect_exit 0 "revert the hand deletion" -- "$FERRY" -C "$p" revert 4
changes "$p" "$work/restored.json"
listed "$work/restored.json" 2 4 && ok "after the hand deletion is reverted, the change is in effect again" ||
	fail "a change restored by reverting the hand deletion is still shown as undone"

# --- a hand deletion typed back by hand ---------------------------------------------------
p="$work/retyped"
fixed_project "$p"
cp "$p/train.py" "$work/retyped.py"
sed -i '/^model = /d; /^x = /d' "$p/train.py"
"$FERRY" -C "$p" status >/dev/null 2>&1
cp "$work/retyped.py" "$p/train.py"
changes "$p" "$work/retyped.json"
listed "$work/retyped.json" 2 4 && ok "lines deleted and typed back by hand hold the change again" ||
	fail "a change typed back by hand is still shown as undone"

# --- a hand edit that takes ferry's text out ----------------------------------------------
# checkpoint 4 edits the file elsewhere; 5 puts .cuda() back (with an argument of its own)
# and replaces the import: those rows are undone by 5, the edit that removed their text
p="$work/putback"
fixed_project "$p"
printf '# trained on 8 samples\n' >>"$p/train.py"
"$FERRY" -C "$p" status >/dev/null 2>&1
sed -i 's/\.npu()/.cuda(non_blocking=True)/; s/^import torch_npu$/import torch/' "$p/train.py"
changes "$p" "$work/putback.json"
undone "$work/putback.json" 4 5 && ok "lines back on .cuda() undo the device change, by the edit that did it" ||
	fail "the device change put back to .cuda() by checkpoint 5"
undone "$work/putback.json" 2 5 && ok "an import replaced by hand undoes the import insertion" ||
	fail "the replaced import"

# --- a change that deleted whole lines ----------------------------------------------------
# an engagement's own check deletes `torch.backends.cudnn.benchmark = True` (a DELETE row at
# line 3 of the file as it was); typing the line back by hand undoes it, a hand edit
# elsewhere in the file does not
drop_project() {
	make_project "$1"
	printf 'import torch\n\ntorch.backends.cudnn.benchmark = True\nmodel = torch.nn.Linear(4, 2)\nprint(model)\n' >"$1/train.py"
	"$FERRY" init "$1" >/dev/null 2>&1 || fail "init $1"
	mkdir -p "$1/.ferry/plugins"
	cat >"$1/.ferry/plugins/drop.lua" <<'LUA'
return {
	id = "adapt.local_drop_cudnn",
	phase = "adapt",
	title = "cuDNN benchmark switch",
	severity = "warning",
	category = "device",
	description = "cuDNN's autotuner switch does nothing on the NPU: the line goes.",
	triggers = { "cudnn" },
	query = [[(expression_statement (assignment left: (attribute) @lhs)) @stmt]],
	run = function(ctx)
		for _, file in ipairs(ctx.python_files()) do
			for _, m in ipairs(ctx.query(file)) do
				if ctx.node_text(file, m.lhs.start_byte, m.lhs.end_byte) == "torch.backends.cudnn.benchmark" then
					ctx.report{ file = file, node = m.stmt, message = "cuDNN's benchmark switch",
					            suggestion = "Delete it.",
					            edits = { { start_byte = m.stmt.start_byte, end_byte = m.stmt.end_byte + 1, text = "" } } }
				end
			end
		end
	end,
}
LUA
	"$FERRY" -C "$1" check --plugin adapt.local_drop_cudnn >/dev/null 2>&1
	"$FERRY" -C "$1" fix --plugin adapt.local_drop_cudnn --yes >/dev/null 2>&1 || fail "fix $1"
	grep -q cudnn "$1/train.py" && fail "the engagement's fix did not delete the line in $1"
}
# deleted_row OUT STATE [BY]: the DELETE row of train.py is listed (STATE "listed") or undone by BY
deleted_row() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
row = lambda rs: [r for r in rs if r["file"] == "train.py" and r["operation"] == "DELETE"]
if sys.argv[2] == "listed":
    assert row(d["changes"]) and not row(d["undone_by_hand"]), (row(d["changes"]), row(d["undone_by_hand"]))
else:
    u = row(d["undone_by_hand"])
    assert u and not row(d["changes"]), ("not undone", row(d["changes"]))
    assert u[0]["undone_by"] == int(sys.argv[3]), "undone by %s" % u[0]["undone_by"]
PY
}
p="$work/drop"
drop_project "$p"
printf '# trained on nothing\n' >>"$p/train.py"
changes "$p" "$work/drop.json"
deleted_row "$work/drop.json" listed && ok "a hand edit elsewhere leaves a deletion in effect" ||
	fail "a deletion shown as undone by an unrelated hand edit"
sed -i 's/^model = /torch.backends.cudnn.benchmark = True\nmodel = /' "$p/train.py"
"$FERRY" -C "$p" status >/dev/null 2>&1
id=$(sqlite3 "$p/.ferry/engagement.db" "SELECT max(id) FROM checkpoints")
changes "$p" "$work/drop2.json"
deleted_row "$work/drop2.json" undone "$id" && ok "a deleted line typed back by hand undoes the deletion, by that edit" ||
	fail "a deleted line typed back by hand: the deletion is still listed"

finish
