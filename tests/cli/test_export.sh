#!/bin/sh
# Delivery: after the adapt fixes, `ferry export patches` writes patches that `git am`
# applies cleanly on the client's repository at the baseline, and `ferry export branch`
# creates the same result as a branch without touching the client's checkout.
. "$(dirname "$0")/lib.sh"

client="$work/client"
cp -R "$top/examples/resnet-ddp" "$client"
rm -rf "$client/.ferry"
(cd "$client" && git init -q && git add -A && git -c user.name=Client -c user.email=c@example.org commit -qm "client code")
"$FERRY" init "$client" >/dev/null
"$FERRY" -C "$client" check --phase adapt >/dev/null
expect_exit 0 "fix --all --phase adapt" -- "$FERRY" -C "$client" fix --all --phase adapt --yes
n=$("$FERRY" -C "$client" log --json | python3 -c "import json,sys; print(sum(c['kind']=='fix' for c in json.load(sys.stdin)['checkpoints']))")
[ "$n" -ge 3 ] && ok "several fix checkpoints to deliver ($n)" || fail "fix checkpoints: $n"

expect_exit 0 "export patches" -- "$FERRY" -C "$client" export patches "$work/patches"
np=$(ls "$work/patches"/*.patch | wc -l)
[ "$np" -eq "$n" ] && ok "one patch per checkpoint" || fail "$np patches for $n checkpoints"
git clone -q "$client" "$work/review"
(cd "$work/review" && git -c user.name=R -c user.email=r@example.org am -q --keep-cr "$work/patches"/*.patch) >"$work/am.log" 2>&1 \
	&& ok "git am applies every patch on the baseline" || { fail "git am"; head -5 "$work/am.log"; }
diff -r -x .git -x .ferry "$work/review" "$client" >"$work/d" && ok "the patched clone equals ferry's work tree" \
	|| { fail "patched clone differs"; head -10 "$work/d"; }

head_before=$(git -C "$client" rev-parse HEAD)
branch_before=$(git -C "$client" branch --show-current)
status_before=$(git -C "$client" status --porcelain | sort)
index_before=$(sha256sum "$client/.git/index" | cut -c1-64)
expect_exit 0 "export branch" -- "$FERRY" -C "$client" export branch ferry/npu --to "$client"
[ "$(git -C "$client" rev-parse HEAD)" = "$head_before" ] && ok "the client's HEAD did not move" || fail "client HEAD moved"
[ "$(git -C "$client" branch --show-current)" = "$branch_before" ] && ok "the client's checked-out branch is unchanged" || fail "checked-out branch changed"
[ "$(sha256sum "$client/.git/index" | cut -c1-64)" = "$index_before" ] && ok "the client's index is untouched" || fail "client index changed"
[ "$(git -C "$client" status --porcelain | sort)" = "$status_before" ] && ok "the client's work tree status is unchanged" || fail "client status changed"
git -C "$client" log --format=%s ferry/npu | head -n "$n" >"$work/subjects"
grep -q "adapt\." "$work/subjects" && ok "the branch carries the checkpoints' messages" || fail "branch messages"
git clone -q -b ferry/npu "$client" "$work/branch"
diff -r -x .git -x .ferry "$work/branch" "$client" >"$work/d2" && ok "the branch holds exactly the migrated files" \
	|| { fail "branch content differs"; head -10 "$work/d2"; }
git -C "$client" fsck >/dev/null 2>&1 && ok "the client's repository passes git fsck" || fail "client fsck"

expect_exit 3 "a branch that exists is refused" -- "$FERRY" -C "$client" export branch ferry/npu --to "$client"
one_line "$work/err" "existing branch: one line"
expect_exit 2 "export branch without --to is a usage error" -- "$FERRY" -C "$client" export branch other
expect_exit 0 "log lists the export events" -- "$FERRY" -C "$client" log --json
python3 -c "import json,sys; k=[e['kind'] for e in json.load(open(sys.argv[1]))['events']]; assert k.count('export')==2, k" "$work/out" \
	&& ok "both exports are in the audit chain" || fail "export events"
expect_exit 0 "verify after the exports" -- "$FERRY" -C "$client" verify

finish
