#!/bin/sh
# The change list and the unsupported list say what they claim, on the bundled example.
# After `fix --all --phase adapt` (whose first checkpoint inserts `import torch_npu` and
# shifts every later line), each change-list row names exactly the findings its hunk fixed:
# a finding's line, as the code was when it was found, lies in the lines the hunk replaced,
# and every fixed finding is on one row. Right after assess, the unsupported list holds
# only open findings that no automatic fix handles — nothing the adapt phase rewrites.
. "$(dirname "$0")/lib.sh"

p="$work/resnet"
cp -R "$top/examples/resnet-ddp" "$p"
rm -rf "$p/.ferry"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"

# --- unsupported list right after assess ---------------------------------------------
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
expect_exit 0 "report --section unsupported after assess" -- \
	"$FERRY" -C "$p" report --format json --section unsupported --output "$work/unsup-assess.json"
"$FERRY" -C "$p" check --phase adapt >/dev/null 2>&1
expect_exit 0 "fix --all --phase adapt" -- "$FERRY" -C "$p" fix --all --phase adapt --yes
"$FERRY" -C "$p" findings --format json >"$work/findings.json"
if python3 - "$work/unsup-assess.json" "$work/findings.json" "$p" <<'PY'; then ok "after assess, the unsupported list holds no construct the adapt fixes rewrote"; else fail "after assess, the unsupported list holds no construct the adapt fixes rewrote"; fi
import json, sys
rows = json.load(open(sys.argv[1]))["unsupported"]
fs = json.load(open(sys.argv[2]))
fs = fs["findings"] if isinstance(fs, dict) else fs
fixed = {(f["file"], f["line"]) for f in fs if f["phase"] == "adapt" and f["status"] == "fixed"}
assert rows, "the unsupported list is empty: the custom kernel must stay"
bad = [(r["file"], r["start_line"], r["message"][:60]) for r in rows if (r["file"], r["start_line"]) in fixed]
assert not bad, "%d of %d rows were fixed automatically by adapt: %s" % (len(bad), len(rows), bad[:5])
assert any(r["file"].endswith(".cu") or "CUDAExtension" in r["message"] or "extension" in r["message"].lower()
           for r in rows), [r["message"][:50] for r in rows]
PY

# --- after a full check: settings, evidence and tuning advice are not constructs to port ---
"$FERRY" -C "$p" check >/dev/null 2>&1
expect_exit 0 "report --section unsupported after a full check" -- \
	"$FERRY" -C "$p" report --format json --section unsupported --output "$work/unsup-all.json"
"$FERRY" -C "$p" findings --format json --status open >"$work/open.json"
if python3 - "$work/unsup-all.json" "$work/open.json" <<'PY'; then ok "the unsupported list holds only assess and adapt findings"; else fail "the unsupported list holds tuning or environment advice"; fi
import json, sys
rows = json.load(open(sys.argv[1]))["unsupported"]
fs = json.load(open(sys.argv[2]))["findings"]
assert any(f["phase"] == "tune" and f["severity"] in ("error", "warning") and f["file"] for f in fs), \
    "the example has no open tune warning on a file: the test proves nothing"
bad = [(r["phase"], r["plugin"], r["message"][:50]) for r in rows if r["phase"] not in ("assess", "adapt")]
assert not bad, bad[:5]
PY

# --- change list rows ---------------------------------------------------------------------
expect_exit 0 "report --section changes" -- \
	"$FERRY" -C "$p" report --format json --section changes --output "$work/changes.json"
expect_exit 0 "report --section changes as CSV" -- \
	"$FERRY" -C "$p" report --format csv --section changes --output "$work/changes.csv"
expect_exit 0 "report --section changes as HTML" -- \
	"$FERRY" -C "$p" report --format html --section changes --output "$work/changes.html"
if python3 - "$work/changes.json" "$work/findings.json" "$top/examples/resnet-ddp" "$work/changes.csv" <<'PY'; then ok "each change row names exactly the findings its hunk fixed"; else fail "each change row names exactly the findings its hunk fixed"; fi
import csv, difflib, json, sys, collections
rows = json.load(open(sys.argv[1]))["changes"]
fs = json.load(open(sys.argv[2]))
fs = {f["id"]: f for f in (fs["findings"] if isinstance(fs, dict) else fs)}
base = sys.argv[3]
count = collections.Counter()
for r in rows:
    for fid in r["findings"]:
        f = fs[fid]
        count[fid] += 1
        assert f["plugin"] == r["plugin"], (r["file"], r["start_line"], fid, f["plugin"], r["plugin"])
        assert f["file"] == r["file"], (fid, f["file"], r["file"])
        if r["operation"] == "MODIFY":
            src = open("%s/%s" % (base, f["file"]), encoding="utf-8").read().split("\n")
            line = src[f["line"] - 1]
            # the line as received, possibly already changed by an earlier checkpoint
            best = max(difflib.SequenceMatcher(None, line, b).ratio() for b in r["before"].split("\n"))
            assert best >= 0.75, ("row %s:%d lists finding %d at line %d (%r) not in %r"
                                  % (r["file"], r["start_line"], fid, f["line"], line, r["before"]))
fixed = [i for i, f in fs.items() if f["status"] == "fixed" and f["phase"] == "adapt"]
assert fixed
missing = [i for i in fixed if count[i] == 0]
assert not missing, "fixed findings on no row: %s" % missing
# one row names one hunk's findings: the set_device row of train.py names exactly one finding
sd = [r for r in rows if r["file"] == "train.py" and "set_device" in r["before"]]
assert len(sd) == 1 and len(sd[0]["findings"]) == 1, sd
# the CSV carries the same ids
with open(sys.argv[4], newline="", encoding="utf-8-sig") as fh:
    crow = list(csv.DictReader(fh))
assert [c["findings"] for c in crow] == [" ".join(str(i) for i in r["findings"]) for r in rows]
PY

# --- each row says what ferry did to the code -------------------------------------------
# (a consultant reading the change list of yolov5 found every row stating the problem it
# fixed, never the edit: "`x` uses the NPU after migration but does not import torch_npu")
"$FERRY" -C "$p" report --format csv --section changes --layout msft --output "$work/msft.csv" >/dev/null 2>&1
"$FERRY" -C "$p" report --format md --section changes --output "$work/changes.md" >/dev/null 2>&1
if python3 - "$work/changes.json" "$work/msft.csv" "$work/changes.csv" <<'PY'; then ok "each change row names its edit, then the finding it settles"; else fail "each change row names its edit, then the finding it settles"; fi
import csv, json, sys
rows = json.load(open(sys.argv[1]))["changes"]
sd = [r for r in rows if r["file"] == "train.py" and "set_device" in r["before"]]
assert sd and "cuda.set_device(" in sd[0]["edit"] and "npu.set_device(" in sd[0]["edit"] and " → " in sd[0]["edit"], sd[0]["edit"]
imp = [r for r in rows if r["operation"] == "INSERT" and "import torch_npu" in r["after"]]
assert imp and all(r["edit"].startswith("added ") and "import torch_npu" in r["edit"] for r in imp), [r["edit"] for r in imp]
assert all(r["edit"] for r in rows), [r for r in rows if not r["edit"]]
with open(sys.argv[2], newline="", encoding="utf-8-sig") as fh:
    ms = list(csv.DictReader(fh))
assert [m["Message"] for m in ms] == [r["edit"] + (" — " + r["message"] if r["message"] else "") for r in rows]
with open(sys.argv[3], newline="", encoding="utf-8-sig") as fh:
    assert [c["edit"] for c in csv.DictReader(fh)] == [r["edit"] for r in rows]
PY
expect_grep "npu.set_device(" "$work/changes.md" "the markdown change list shows the edit"

# --- a hand edit that undoes fixes ----------------------------------------------------
# the client puts NCCL and the CUDA synchronize back by hand: those rows leave the change
# list (the code no longer holds them) and the report says which hand edit undid them
sed -i 's/torch.npu.synchronize()/torch.cuda.synchronize()/; s/"hccl"/"nccl"/g' "$p/train.py"
"$FERRY" -C "$p" report --format json --section changes --output "$work/hand.json" >/dev/null 2>&1
"$FERRY" -C "$p" report --format md --section changes --output "$work/hand.md" >/dev/null 2>&1
python3 - "$work/hand.json" <<'PY' && ok "rows a hand edit undid leave the change list, named with the edit" || fail "undone rows still listed as in effect"
import json, sys
d = json.load(open(sys.argv[1]))
gone = {(r["start_line"], r["plugin"]) for r in d["undone_by_hand"]}
assert (34, "adapt.distributed_backend") in gone and (109, "adapt.cuda_apis") in gone, d["undone_by_hand"]
assert all(r["undone_by"] > 0 for r in d["undone_by_hand"])
listed = {(r["file"], r["start_line"]) for r in d["changes"]}
assert ("train.py", 34) not in listed and ("train.py", 109) not in listed, sorted(listed)
assert ("train.py", 55) in listed, sorted(listed)  # a fix the edit left alone stays
PY
expect_grep "was undone by a hand edit (checkpoint [0-9]*) and is not listed" "$work/hand.md" "the report says so"

# the change list says what the edits mean for the GPU (a consultant read the rewritten
# device tests as keeping both devices working)
expect_grep "so on a GPU host the changed code no longer takes its CUDA paths" "$work/changes.md" \
	"the change list says the adapt edits make the code NPU code"
"$FERRY" -C "$p" report --format md --section changes --lang zh --output "$work/changes-zh.md" >/dev/null 2>&1
expect_grep "在 GPU 主机上，改动过的代码不再走其 CUDA 路径" "$work/changes-zh.md" "and says it in Chinese"

finish
