#!/bin/sh
# What keeps `ferry fix` from leaving a client's code half-migrated or failing a clean run.
#
# A file holding a long string literal (a test fixture's article, an embedded vocabulary:
# LoRA's vendored transformers tests hold a 43 KB one) is ordinary code. The sandbox's guard
# against patterns that backtrack for hours once took `^(prefix*)(.*)$` for one and stopped
# the device checks for the whole project, so `fix` rewrote `torch.cuda.is_available()` but
# left the "cuda" beside it: half-migrated code on every file.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
python3 - "$p/test_big.py" <<'PY'
import sys
words = " ".join("word%d" % (i % 97) for i in range(9000))
with open(sys.argv[1], "w") as f:
    f.write('import torch\n\nARTICLE = """%s"""\nSHORT = r"%s"\ntorch_device = "cuda"\n' % (words, words))
PY
cat >"$p/train.py" <<'PY'
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Linear(2, 2).to(device)
PY
"$FERRY" init "$p" >/dev/null
[ "$(wc -c <"$p/test_big.py")" -gt 40000 ] || fail "the literal is not long enough to test anything"

expect_exit 0 "a check over a 40 KB string literal has no plugin error" -- "$FERRY" -C "$p" check --format json
if grep -q "could backtrack" "$work/err"; then
	fail "the pattern guard refused a linear pattern on a long literal"
	grep -h "could backtrack" "$work/err" | head -2 | sed 's/^/     | /'
else
	ok "no pattern is refused on a long literal"
fi
expect_exit 0 "the adapt fixes apply" -- "$FERRY" -C "$p" fix --all --phase adapt --yes
if grep -q '"npu" if torch.npu.is_available() else "cpu"' "$p/train.py"; then
	ok "the device string and its test are migrated together"
else
	fail "half-migrated device choice: $(grep -n 'is_available' "$p/train.py")"
fi
if grep -q '^import torch_npu' "$p/train.py"; then ok "torch_npu is imported where torch.npu is used"; else
	fail "torch.npu without import torch_npu"
fi
if grep -q 'torch_device = "npu"' "$p/test_big.py"; then ok "the file with the long literal is migrated too"; else
	fail "the file with the long literal was left: $(grep -n torch_device "$p/test_big.py")"
fi

# A check of the phase that fails leaves its edits out; the others' alone can leave code
# half-migrated, so a bulk fix refuses and changes nothing. Findings chosen one by one still
# apply.
q="$work/failing"
make_project "$q"
cat >"$q/train.py" <<'PY'
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.cuda.synchronize()
PY
"$FERRY" init "$q" >/dev/null
mkdir -p "$q/.ferry/plugins"
cat >"$q/.ferry/plugins/broken.lua" <<'PY'
return {
	id = "adapt.house_rule", phase = "adapt", title = "a house rule that fails on this project",
	severity = "warning",
	run = function(ctx) error("cannot read the house configuration") end,
}
PY
"$FERRY" -C "$q" check >/dev/null 2>&1
before=$(tree_hash "$q")
expect_exit 3 "a bulk fix refuses while a check of the phase fails" -- "$FERRY" -C "$q" fix --all --phase adapt --yes
expect_grep "adapt.house_rule" "$work/err" "the refusal names the failing check"
one_line "$work/err" "the refusal is one line"
[ "$(tree_hash "$q")" = "$before" ] && ok "nothing was changed" || fail "the refused fix changed the project"
id=$("$FERRY" -C "$q" findings --plugin adapt.cuda_apis --format json | python3 -c 'import json,sys; print([f["id"] for f in json.load(sys.stdin)["findings"] if "synchronize" in f["message"]][0])')
expect_exit 0 "a finding chosen by number still applies" -- "$FERRY" -C "$q" fix --finding "$id" --yes
grep -q 'torch.npu.synchronize' "$q/train.py" && ok "the chosen edit is made" || fail "the chosen edit is missing"
# that fix re-ran only its own check: the house rule's failure still stands
before=$(tree_hash "$q")
expect_exit 3 "a later bulk fix still refuses: no run since has seen the failing check succeed" -- \
	"$FERRY" -C "$q" fix --all --phase adapt --yes
[ "$(tree_hash "$q")" = "$before" ] && ok "and changes nothing" || fail "the refused fix changed the project"
rm "$q/.ferry/plugins/broken.lua"
"$FERRY" -C "$q" check --phase adapt >/dev/null 2>&1
expect_exit 0 "once a check of the phase runs clean, the bulk fix applies" -- "$FERRY" -C "$q" fix --all --phase adapt --yes

# A package others import gets a guarded `import torch_npu`, so it still imports where
# torch_npu is not installed; its CUDA availability test must then answer no there, as it
# did on a machine without a GPU, not raise AttributeError (whisper.load_model did). Its
# other NPU forms fall back to CUDA's there: an import from torch_npu (dinov2's
# `from torch.cuda.amp import custom_fwd` became one the package failed on), torch.npu
# calls and autocast('npu'); a fallback inside an f-string's field takes the other quote
# (litgpt's f"Memory used: {...}" broke on every Python before 3.12).
py=/usr/bin/python3
"$py" -c "import torch" 2>/dev/null || py=python3
l="$work/lib"
mkdir -p "$l/mypkg"
printf 'from setuptools import setup\n\nsetup(name="mypkg", packages=["mypkg"])\n' >"$l/setup.py"
printf 'from .core import load\n' >"$l/mypkg/__init__.py"
cat >"$l/mypkg/core.py" <<'PY'
import torch
from torch.cuda.amp import custom_fwd


@custom_fwd(cast_inputs=torch.float32)
def double(x):
    return x * 2


def load(device=None):
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    torch.cuda.manual_seed_all(0)
    used = f"{torch.cuda.max_memory_allocated() / 1e9:.02f} GB, {torch.cuda.is_available()}"
    with torch.autocast("cuda", enabled=False):
        return double(torch.zeros(1, device=device))
PY
"$FERRY" init "$l" >/dev/null
"$FERRY" -C "$l" check --phase adapt >/dev/null 2>&1
expect_exit 0 "the library is migrated" -- "$FERRY" -C "$l" fix --all --phase adapt --yes
expect_grep "try:" "$l/mypkg/__init__.py" "its package imports torch_npu guarded"
expect_grep "from torch_npu.npu.amp import custom_fwd" "$l/mypkg/core.py" "its CUDA amp import is migrated"
if out=$(cd "$l" && "$py" -c "import mypkg; print(mypkg.load().device)" 2>&1) && [ "$out" = "cpu" ]; then
	ok "without torch_npu the migrated library still runs, on the CPU"
else
	fail "the migrated library fails without torch_npu: $(printf '%s' "$out" | tail -1)"
fi

# Reverting the checkpoint that imported torch_npu leaves the other rewrites calling
# torch.npu with nothing loading it: the next check says so, with the fix to import it.
r="$work/revert-import"
cp -R "$top/examples/resnet-ddp" "$r"
rm -rf "$r/.ferry"
# a helper script that loads torch_npu for itself (as the generated profiling helper does)
# does not load it for train.py
mkdir -p "$r/scripts"
printf 'import torch\nimport torch_npu\n\nprint(torch.npu.device_count())\n' >"$r/scripts/npu_count.py"
"$FERRY" init "$r" >/dev/null
"$FERRY" -C "$r" check --phase adapt >/dev/null 2>&1
"$FERRY" -C "$r" fix --all --phase adapt --yes >/dev/null 2>&1
cp_import=$("$FERRY" -C "$r" log --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
cps = d["checkpoints"] if isinstance(d, dict) else d
print(next(c["id"] for c in cps if c.get("plugin") == "adapt.torch_npu_import"))')
expect_exit 0 "revert the torch_npu import checkpoint" -- "$FERRY" -C "$r" revert "$cp_import"
if grep -q "torch_npu" "$r/train.py"; then fail "the revert left the import"; else ok "train.py no longer imports torch_npu"; fi
"$FERRY" -C "$r" check --phase adapt --format json >"$work/ri.json" 2>/dev/null
python3 - "$work/ri.json" <<'PY' && ok "the check flags train.py using torch.npu without torch_npu, fixable" || fail "no finding for torch.npu without torch_npu"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
hit = [f for f in fs if f["plugin"] == "adapt.torch_npu_import" and f["file"] == "train.py" and f["status"] == "open"]
assert hit and "does not import torch_npu" in hit[0]["message"] and hit[0]["fixable"], [(f["plugin"], f["file"], f["status"]) for f in fs]
PY

# Reverting the revert brings the import back, and the findings it settled close again at
# once, without another `ferry check` (the check of the reverted fix runs again)
rv=$("$FERRY" -C "$r" log --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
cps = d["checkpoints"] if isinstance(d, dict) else d
print(max(c["id"] for c in cps if c.get("kind") == "revert"))')
expect_exit 0 "revert the revert" -- "$FERRY" -C "$r" revert "$rv"
expect_grep "^import torch_npu" "$r/train.py" "the import is back"
"$FERRY" -C "$r" findings --plugin adapt.torch_npu_import --status open --format json >"$work/ro.json"
python3 - "$work/ro.json" <<'PY' && ok "no torch_npu import finding of train.py stays open" || fail "findings stay open after the revert of the revert"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["file"] == "train.py"]
assert not fs, fs
PY

# The same with no check in between, for another rule's fix: a revert reopens its
# findings, the revert of that revert settles them again at once
q="$work/revert-twice"
cp -R "$top/examples/resnet-ddp" "$q"
rm -rf "$q/.ferry"
"$FERRY" init "$q" >/dev/null
"$FERRY" -C "$q" check --phase adapt >/dev/null 2>&1
"$FERRY" -C "$q" fix --all --phase adapt --yes >/dev/null 2>&1
open_of() { "$FERRY" -C "$q" findings --plugin adapt.cuda_apis --status open --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))'; }
before=$(open_of)
cp_api=$("$FERRY" -C "$q" log --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
cps = d["checkpoints"] if isinstance(d, dict) else d
print(next(c["id"] for c in cps if c.get("plugin") == "adapt.cuda_apis" and c.get("kind") == "fix"))')
"$FERRY" -C "$q" revert "$cp_api" >"$work/rv.txt" 2>&1
reopened=$(open_of)
[ "$reopened" -gt "$before" ] && ok "the revert reopens the rule's findings ($before -> $reopened open)" || fail "the revert reopened nothing ($before -> $reopened)"
rv2=$(sed -n 's/.*checkpoint \([0-9]*\) .*/\1/p' "$work/rv.txt")
expect_exit 0 "revert that revert" -- "$FERRY" -C "$q" revert "$rv2"
[ "$(open_of)" -eq "$before" ] && ok "the revert of the revert settles them again, no check needed" || fail "after the revert of the revert $(open_of) open, $before before"

# A project with nothing left to fix: `fix --all` in a script is a success, not a usage error.
c="$work/clean"
mkdir -p "$c"
printf 'def add(a, b):\n    return a + b\n' >"$c/util.py"
"$FERRY" init "$c" >/dev/null
expect_exit 2 "fix --all before any check is a usage error" -- "$FERRY" -C "$c" fix --all --phase adapt --yes
expect_grep "run \`ferry check\` first" "$work/err" "it says to run a check first"
"$FERRY" -C "$c" check >/dev/null 2>&1
expect_exit 0 "fix --all with nothing to fix succeeds" -- "$FERRY" -C "$c" fix --all --phase adapt --yes
expect_grep "nothing to apply" "$work/out" "and says there is nothing to apply"
# File names a git pathspec would read otherwise: a leading '#' (a comment), '!' (a
# negation), a newline (the end of a pattern), a trailing space (trimmed). The fix's
# checkpoint must hold their edits, not leave them for a "manual edit", and a revert
# must undo them.
o="$work/odd-names"
mkdir -p "$o"
for n in '#hash.py' '!bang.py' "$(printf 'new\nline.py')" 'trail .py' ok.py; do
	printf 'import torch\nx = torch.randn(3).cuda()\n' >"$o/$n"
done
"$FERRY" init "$o" >/dev/null
"$FERRY" -C "$o" check --phase adapt >/dev/null 2>&1
"$FERRY" -C "$o" fix --all --phase adapt --yes >/dev/null 2>&1
"$FERRY" -C "$o" status >/dev/null 2>&1
"$FERRY" -C "$o" log --format json >"$work/odd-log.json"
python3 - "$work/odd-log.json" <<'PY2' && ok "odd file names: the fixes are the fix checkpoints' own, no manual edit follows" || fail "odd names: $(head -c 600 "$work/odd-log.json")"
import json, sys
d = json.load(open(sys.argv[1]))
cps = d["checkpoints"] if isinstance(d, dict) else d
kinds = [c.get("kind") for c in cps]
assert "manual" not in kinds and not any("Manual edit" in (c.get("message") or "") for c in cps), cps
PY2
for n in '#hash.py' '!bang.py' "$(printf 'new\nline.py')" 'trail .py'; do
	grep -q "npu" "$o/$n" || fail "odd names: '$n' was not fixed"
done
fixes=$("$FERRY" -C "$o" log --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
cps = d["checkpoints"] if isinstance(d, dict) else d
print(" ".join(str(c["id"]) for c in sorted(cps, key=lambda c: -c["id"]) if c.get("kind") == "fix"))')
for id in $fixes; do "$FERRY" -C "$o" revert "$id" >/dev/null 2>&1 || fail "odd names: revert $id failed"; done
undone=0
for n in '#hash.py' '!bang.py' "$(printf 'new\nline.py')" 'trail .py' ok.py; do
	[ "$(cat "$o/$n")" = "$(printf 'import torch\nx = torch.randn(3).cuda()')" ] && undone=$((undone + 1))
done
[ "$undone" -eq 5 ] && ok "odd file names: reverting the fixes restores every file" || fail "odd names: $undone of 5 files restored"
finish
