#!/bin/sh
# A file the client's git tracks is part of the project even when a .gitignore pattern
# matches it (`git add -f data/loader.py` under an ignored data/): ferry records it in the
# baseline, checks it, fixes it and captures hand edits to it, like any other file.
# Untracked files the pattern matches stay out.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null 2>&1 || { echo "skip $(basename "$0"): no git"; exit 0; }

p="$work/proj"
make_project "$p"
mkdir -p "$p/data"
printf 'data\n' >>"$p/.gitignore"
printf 'import torch\n\ndef load(x):\n    return x.cuda()\n' >"$p/data/loader.py"
printf 'import torch\n\ny = torch.ones(2).cuda()\n' >"$p/data/scratch.py"
(cd "$p" && git init -q && git add . && git add -f data/loader.py &&
	git -c user.name=t -c user.email=t@e commit -qm client) || fail "client git setup"

"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
in_record() { git --git-dir="$p/.ferry/history.git" ls-tree -r --name-only HEAD | grep -qx "$1"; }
in_record data/loader.py && ok "the baseline holds the tracked file under an ignored folder" \
	|| fail "data/loader.py is not in the baseline"
in_record data/scratch.py && fail "an untracked ignored file entered the baseline" \
	|| ok "an untracked file the pattern matches stays out"

"$FERRY" -C "$p" check >/dev/null 2>&1
"$FERRY" -C "$p" findings --format json >"$work/f.json" 2>/dev/null
python3 -c "import json,sys; fs=json.load(open(sys.argv[1]))['findings']; sys.exit(0 if any(f.get('file')=='data/loader.py' for f in fs) else 1)" "$work/f.json" \
	&& ok "the checks report the tracked file's .cuda()" || fail "no finding in data/loader.py"
python3 -c "import json,sys; fs=json.load(open(sys.argv[1]))['findings']; sys.exit(1 if any(f.get('file')=='data/scratch.py' for f in fs) else 0)" "$work/f.json" \
	&& ok "the untracked ignored file is not checked" || fail "data/scratch.py was checked"

"$FERRY" -C "$p" fix --phase adapt --all --yes >/dev/null 2>&1
grep -q 'x.npu()\|device' "$p/data/loader.py" && ! grep -q 'x.cuda()' "$p/data/loader.py" \
	&& ok "the fix migrated the tracked file" || { fail "data/loader.py was not migrated"; sed 's/^/     | /' "$p/data/loader.py"; }
git --git-dir="$p/.ferry/history.git" show HEAD:data/loader.py >"$work/rec" 2>&1
cmp -s "$work/rec" "$p/data/loader.py" && ok "the fix's checkpoint holds the migrated file" \
	|| fail "the fix's checkpoint does not hold the migrated file"

# a hand edit to it is captured as a manual checkpoint
printf '# tuned by hand\n' >>"$p/data/loader.py"
"$FERRY" -C "$p" check >/dev/null 2>&1
git --git-dir="$p/.ferry/history.git" show HEAD:data/loader.py | grep -q 'tuned by hand' \
	&& ok "a hand edit to the tracked file is captured" || fail "the hand edit was not captured"

# a file the client starts tracking later (git add -f) enters the record at the next sync
printf 'import torch\nz = torch.zeros(1).cuda()\n' >"$p/data/later.py"
(cd "$p" && git add -f data/later.py)
"$FERRY" -C "$p" check >/dev/null 2>&1
in_record data/later.py && ok "a file tracked later enters the record" || fail "data/later.py never entered the record"

# the delivered branch carries the migrated file and keeps the untracked one out
expect_exit 0 "export branch" -- "$FERRY" -C "$p" export branch ferry/npu --to "$p"
git -C "$p" show ferry/npu:data/loader.py >"$work/exp" 2>&1
cmp -s "$work/exp" "$p/data/loader.py" && ok "the exported branch holds the migrated tracked file" \
	|| { fail "the exported branch lacks the migrated data/loader.py"; sed 's/^/     | /' "$work/exp" | head -5; }
git -C "$p" cat-file -e ferry/npu:data/scratch.py 2>/dev/null && fail "the untracked ignored file was exported" \
	|| ok "the untracked ignored file is not exported"

finish
