#!/bin/sh
# Directory symlinks inside the project, as DeepSpeed has them (deepspeed/accelerator ->
# ../accelerator/): a file reached through such a link is the same file, scanned once by
# its real path, so check finds each construct once, the dry run and the fix edit the
# real file, no false "manual edit" is recorded and revert brings the client's files back
# byte for byte; a link out of the project is never followed. The dry-run diff shows an
# executable script's mode (100755) as the checkpoint's patch does (issue #15).
. "$(dirname "$0")/lib.sh"

cps_of_kind() { sqlite3 "$1/.ferry/engagement.db" "SELECT count(*) FROM checkpoints WHERE kind='$2'"; }
# listing DIR: every file and link below DIR (not .ferry) with its type, mode and target
listing() { (cd "$1" && find . -path ./.ferry -prune -o ! -type d -printf '%y %m %p %l\n' | sort); }

p="$work/proj"
mkdir -p "$p/accelerator" "$p/deepspeed" "$p/bin" "$work/elsewhere"
cat >"$p/accelerator/real_accel.py" <<'EOF'
import torch
import torch.distributed as dist


def init():
    dist.init_process_group(backend='nccl')
    return torch.zeros(4).cuda()
EOF
printf 'from .real_accel import init\n' >"$p/accelerator/__init__.py"
printf 'import torch\n\n\ndef run(model):\n    return model.cuda()\n' >"$p/deepspeed/__init__.py"
ln -s ../accelerator/ "$p/deepspeed/accelerator" # as DeepSpeed has it, trailing slash included
printf '#!/usr/bin/env python\nimport torch\n\nx = torch.ones(2).cuda()\nprint(x)\n' >"$p/bin/train.py"
chmod 755 "$p/bin/train.py"
# a folder outside the project, linked in: never scanned, never written
printf 'import torch\ny = torch.ones(1).cuda()\n' >"$work/elsewhere/secret.py"
ln -s "$work/elsewhere" "$p/vendor"
before_hash=$(tree_hash "$p")
before_list=$(listing "$p")
outside_hash=$(tree_hash "$work/elsewhere")

expect_exit 0 "init on a project with directory symlinks" -- "$FERRY" init "$p"

# --- check: each file once, by its real path ---
expect_exit 0 "check --phase adapt" -- "$FERRY" -C "$p" check --phase adapt --format json
cp "$work/out" "$work/check.json"
python3 - "$work/check.json" <<'PY' && ok "check reports each construct once, under its real path" || fail "check findings through the link"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
files = sorted({f["file"] for f in fs if f["file"]})
assert not [f for f in files if f.startswith("deepspeed/accelerator/")], files
assert "accelerator/real_accel.py" in files and "bin/train.py" in files, files
keys = [(f["plugin"], f["file"], f["line"], f["col"]) for f in fs]
assert len(keys) == len(set(keys)), keys
PY
grep -q '"vendor/' "$work/check.json" && fail "a folder linked from outside the project was scanned" ||
	ok "a link out of the project is not followed"
expect_exit 0 "check --phase assess" -- "$FERRY" -C "$p" check --phase assess --format json
expect_grep '"vendor: symlink leaving the project"' "$work/out" "the link out of the project is reported as skipped"
FERRY_LANG=zh "$FERRY" -C "$p" findings --plugin ferry.source >"$work/zh.txt" 2>&1
expect_grep "vendor：指向项目之外的符号链接" "$work/zh.txt" "and the reason reads in Chinese for a Chinese reader"
if grep -q '"deepspeed/accelerator' "$work/out"; then fail "assess names a path through the link inside the project"; else
	ok "assess names no path through the link inside the project"; fi

# --- the dry run: the real file, and an executable script's mode ---
expect_exit 0 "fix --dry-run on a project with a directory symlink" -- \
	"$FERRY" -C "$p" fix --all --phase adapt --dry-run
cp "$work/out" "$work/dry.diff"
expect_grep '^diff --git a/accelerator/real_accel.py b/accelerator/real_accel.py' "$work/dry.diff" \
	"the dry run edits the file by its real path"
expect_grep "^+.*hccl" "$work/dry.diff" "the dry run shows the backend rewrite"
grep -q 'deepspeed/accelerator/' "$work/dry.diff" && fail "the dry run names a path through the link" ||
	ok "the dry run names no path through the link"
dry_mode=$(sed -n '/^diff --git a\/bin\/train.py /,/^---/s/^index [0-9a-f]*\.\.[0-9a-f]* //p' "$work/dry.diff")
[ "$dry_mode" = 100755 ] && ok "the dry run shows the executable script as 100755" ||
	fail "the dry run shows bin/train.py with mode '$dry_mode', wanted 100755"
[ "$(tree_hash "$p")" = "$before_hash" ] && ok "the dry run changed nothing" || fail "the dry run changed files"

# --- the fix: the real file edited, the link kept, no manual edit ---
expect_exit 0 "fix --all --phase adapt --yes" -- "$FERRY" -C "$p" fix --all --phase adapt --yes
grep -q "backend='hccl'" "$p/accelerator/real_accel.py" && grep -q 'zeros(4).npu()' "$p/accelerator/real_accel.py" &&
	ok "the fix rewrote the real file" || fail "the fix did not rewrite accelerator/real_accel.py"
[ "$(readlink "$p/deepspeed/accelerator")" = ../accelerator/ ] && ok "the directory link is still the same link" ||
	fail "the directory link was changed"
[ -x "$p/bin/train.py" ] && ok "the script is still executable" || fail "the fix dropped the script's executable bit"
expect_exit 0 "status after the fix" -- "$FERRY" -C "$p" status
expect_exit 0 "check after the fix" -- "$FERRY" -C "$p" check --phase adapt
[ "$(cps_of_kind "$p" manual)" -eq 0 ] && ok "no false manual edit is recorded" ||
	fail "a manual edit was recorded: $(sqlite3 "$p/.ferry/engagement.db" "SELECT message FROM checkpoints WHERE kind='manual'")"
[ "$(tree_hash "$work/elsewhere")" = "$outside_hash" ] && ok "nothing outside the project was written" ||
	fail "a file outside the project changed"

# --- the dry run's mode is the patch's mode ---
expect_exit 0 "export patches" -- "$FERRY" -C "$p" export patches "$work/patches"
patch_mode=$(cat "$work"/patches/*.patch | sed -n '/^diff --git a\/bin\/train.py /,/^---/s/^index [0-9a-f]*\.\.[0-9a-f]* //p' | sort -u)
[ -n "$patch_mode" ] && [ "$patch_mode" = "$dry_mode" ] && ok "the dry run and the patches agree on the mode ($patch_mode)" ||
	fail "the patches say '$patch_mode', the dry run '$dry_mode'"

# --- revert every fix: the client's files come back byte for byte ---
for cp in $(sqlite3 "$p/.ferry/engagement.db" "SELECT id FROM checkpoints WHERE kind='fix' ORDER BY id DESC"); do
	expect_exit 0 "revert checkpoint $cp" -- "$FERRY" -C "$p" revert "$cp"
done
[ "$(tree_hash "$p")" = "$before_hash" ] && ok "after the reverts every file is byte-identical to the original" ||
	fail "the reverts did not restore the files"
[ "$(listing "$p")" = "$before_list" ] && ok "after the reverts the links and modes are as received" ||
	fail "the reverts left other links or modes: $(listing "$p" | tr '\n' ';')"
expect_exit 0 "status after the reverts" -- "$FERRY" -C "$p" status
[ "$(cps_of_kind "$p" manual)" -eq 0 ] && ok "still no manual edit after the reverts" || fail "a manual edit after the reverts"
expect_exit 0 "verify" -- "$FERRY" -C "$p" verify

# --- a new file made by a fix gets its mode in the dry run too ---
q="$work/gen"
mkdir -p "$q"
printf 'import torch\nx = torch.ones(1).cuda()\n' >"$q/run.py"
"$FERRY" init "$q" >/dev/null 2>&1 && "$FERRY" -C "$q" check >/dev/null 2>&1
expect_exit 0 "dry run of every fix on a fresh project" -- "$FERRY" -C "$q" fix --all --dry-run
# a script a fix creates (scripts/npu_env.sh) is written 0755, so its dry run must say so
new_mode=$(sed -n '/^diff --git a\/scripts\/npu_env.sh /,/^---/s/^new file mode //p' "$work/out")
[ "$new_mode" = 100755 ] && ok "a new script shows as 100755 in the dry run" ||
	fail "the dry run shows the new scripts/npu_env.sh with mode '$new_mode', wanted 100755"
expect_exit 0 "apply every fix on the fresh project" -- "$FERRY" -C "$q" fix --all --yes
[ -x "$q/scripts/npu_env.sh" ] && ok "the new script was made executable, as the dry run said" ||
	fail "scripts/npu_env.sh is not executable"

finish
