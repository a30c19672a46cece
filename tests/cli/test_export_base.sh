#!/bin/sh
# Delivery into a client repository that holds the project in a subfolder and has moved on
# since the code was received: `ferry export branch` builds on the client's commit that
# matches the baseline, with the project at its real path, so that `git merge` into the
# client's newer HEAD keeps both sides' work; without such a commit it refuses and says how
# to name the base.
. "$(dirname "$0")/lib.sh"

gitc() { git -c user.name=Client -c user.email=c@example.org "$@"; }

repo="$work/repo"
mkdir -p "$repo"
cp -R "$top/examples/resnet-ddp" "$repo/trainer"
rm -rf "$repo/trainer/.ferry"
printf '# Acme monorepo\n\nline two\n' >"$repo/OTHER.md"
(cd "$repo" && git init -q -b main && gitc add -A && gitc commit -qm "client code")
received=$(git -C "$repo" rev-parse HEAD)

# the consultant works in a clone; the client goes on committing in its own repository
git clone -q "$repo" "$work/consult"
"$FERRY" init "$work/consult/trainer" >/dev/null
"$FERRY" -C "$work/consult/trainer" check --phase adapt >/dev/null
expect_exit 0 "fix --all --phase adapt in the subfolder project" -- \
	"$FERRY" -C "$work/consult/trainer" fix --all --phase adapt --yes

printf '# Acme monorepo\n\nline two, edited by the client\n' >"$repo/OTHER.md"
printf 'def extra():\n    return 2\n' >"$repo/trainer/extra.py"
(cd "$repo" && gitc add -A && gitc commit -qm "client: newer work")
client_head=$(git -C "$repo" rev-parse HEAD)
index_before=$(sha256sum "$repo/.git/index" | cut -c1-64)

expect_exit 0 "export branch into the moved-on repository" -- \
	"$FERRY" -C "$work/consult/trainer" export branch ferry/npu --to "$repo"
[ "$(git -C "$repo" rev-parse HEAD)" = "$client_head" ] && ok "the client's HEAD did not move" || fail "client HEAD moved"
[ "$(sha256sum "$repo/.git/index" | cut -c1-64)" = "$index_before" ] && ok "the client's index is untouched" \
	|| fail "client index changed"
[ "$(git -C "$repo" merge-base main ferry/npu)" = "$received" ] && ok "the branch starts at the commit the code came from" \
	|| fail "branch base: $(git -C "$repo" merge-base main ferry/npu), wanted $received"
git -C "$repo" diff --name-only "$received" ferry/npu >"$work/touched"
[ -s "$work/touched" ] && ! grep -qv '^trainer/' "$work/touched" && ok "the branch touches only trainer/" \
	|| { fail "the branch touches paths outside trainer/"; head -5 "$work/touched"; }
git -C "$repo" cat-file -e ferry/npu:OTHER.md 2>/dev/null && ok "OTHER.md stays on the branch" || fail "OTHER.md deleted"
git -C "$repo" cat-file -e ferry/npu:trainer/train.py 2>/dev/null && ! git -C "$repo" cat-file -e ferry/npu:train.py 2>/dev/null \
	&& ok "the project stays at trainer/" || fail "the project moved to the root"
git -C "$repo" log --format=%s "$received..ferry/npu" | grep -qi "baseline" && fail "the branch carries a baseline commit" \
	|| ok "no baseline commit undoes the client's work"

# a real merge into the client's newer HEAD keeps both sides' changes
git clone -q "$repo" "$work/merge"
(cd "$work/merge" && gitc merge -q --no-edit origin/ferry/npu) >"$work/merge.log" 2>&1 && ok "git merge succeeds" \
	|| { fail "git merge"; head -5 "$work/merge.log"; }
grep -q "edited by the client" "$work/merge/OTHER.md" && ok "the client's newer OTHER.md survives the merge" || fail "OTHER.md reverted"
[ -f "$work/merge/trainer/extra.py" ] && ok "the client's newer file survives the merge" || fail "extra.py lost"
diff "$work/merge/trainer/train.py" "$work/consult/trainer/train.py" >/dev/null && ok "the migrated train.py is merged" \
	|| fail "train.py is not the migrated version"
grep -q "torch_npu" "$work/merge/trainer/train.py" && ok "the merge carries the migration" || fail "no torch_npu after merge"

# a repository whose history never held the project as received: refused, one line naming --base
other="$work/other"
mkdir -p "$other/trainer"
printf 'print(1)\n' >"$other/trainer/train.py"
(cd "$other" && git init -q -b main && gitc add -A && gitc commit -qm "unrelated")
expect_exit 1 "no matching commit is refused" -- "$FERRY" -C "$work/consult/trainer" export branch ferry/npu --to "$other"
one_line "$work/err" "the refusal is one line"
expect_grep "\-\-base" "$work/err" "the refusal says how to name the base"
git -C "$other" rev-parse -q --verify ferry/npu >/dev/null && fail "a branch was created anyway" || ok "no branch was created"
expect_exit 0 "--base names the commit to build on" -- \
	"$FERRY" -C "$work/consult/trainer" export branch ferry/npu --to "$other" --base main
git -C "$other" diff --name-only main ferry/npu >"$work/touched2"
! grep -qv '^trainer/' "$work/touched2" && ok "with --base, only trainer/ is touched" || fail "--base branch touches other paths"
git clone -q -b ferry/npu "$other" "$work/other-branch"
diff -r -x .git -x .ferry "$work/other-branch/trainer" "$work/consult/trainer" >/dev/null \
	&& ok "with --base, trainer/ on the branch is the migrated project" || fail "--base branch content"
expect_exit 2 "--base that names nothing is a usage error" -- \
	"$FERRY" -C "$work/consult/trainer" export branch ferry/x --to "$other" --base no-such-rev
expect_exit 0 "verify after the exports" -- "$FERRY" -C "$work/consult/trainer" verify

finish
