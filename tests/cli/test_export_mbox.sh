#!/bin/sh
# mbox patches for a consultant whose name is not ASCII: the From: header is RFC 2047
# encoded (=?UTF-8?B?…?=), `git am` applies the patches and the author round-trips byte
# for byte; with `config export.signoff true` every patch carries a Signed-off-by:
# trailer of the actor, and without it none.
. "$(dirname "$0")/lib.sh"

name="Zhāng Wěi 张伟"
export FERRY_ACTOR="$name <zw@example.cn>"
gitc() { git -c user.name=Client -c user.email=c@example.org "$@"; }

p="$work/client"
make_project "$p"
(cd "$p" && git init -q -b main && gitc add -A && gitc commit -qm "client code")
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
printf '\n# 注释: device\n' >>"$p/train.py"
"$FERRY" -C "$p" check --phase adapt >/dev/null 2>&1
"$FERRY" -C "$p" fix --all --phase adapt --yes >/dev/null 2>&1

# patches are never written into the client's repository folder or the project: there they
# would change the client's .git, or be taken for a change of the project
git_before=$(find "$p/.git" -newer "$p/train.py" | wc -l)
mkdir -p "$work/elsewhere"
ln -s "$p" "$work/elsewhere/link"
for d in "$p/.git" "$p/.git/patches" "$p/patches" "$p/.ferry/out" "$p" "$work/elsewhere/new/../../client/patches" \
	"$work/elsewhere/n1/n2/../../../client/.git/x" "$work/elsewhere/n3/../link/patches"; do
	expect_exit 2 "export patches into $(basename "$d") is refused" -- "$FERRY" -C "$p" export patches "$d"
	one_line "$work/err" "in one line"
done
expect_grep "inside the project" "$work/err" "the refusal says why"
[ ! -e "$p/patches" ] && [ ! -e "$p/.ferry/out" ] && [ ! -e "$p/.git/patches" ] && [ ! -e "$p/.git/AUDIT-ANCHOR" ] &&
	[ ! -e "$p/.git/x" ] && [ ! -e "$work/elsewhere/new" ] &&
	ok "nothing was written there" || fail "a refused export wrote files"
[ "$(find "$p/.git" -newer "$p/train.py" | wc -l)" -eq "$git_before" ] && ok "the client's .git is untouched" ||
	fail "the client's .git changed"
expect_exit 0 "export patches" -- "$FERRY" -C "$p" export patches "$work/plain"
grep -q '^From: =?UTF-8?B?[A-Za-z0-9+/=]*?= <zw@example.cn>$' "$work/plain"/0001-*.patch \
	&& ok "From: is RFC 2047 encoded" || { fail "From: not encoded"; grep '^From:' "$work/plain"/0001-*.patch; }
LC_ALL=C grep -q '^From:.*[^ -~]' "$work/plain"/*.patch && fail "a From: header holds raw non-ASCII bytes" \
	|| ok "no raw non-ASCII byte in the From: headers"
grep -q "Signed-off-by:" "$work/plain"/*.patch && fail "Signed-off-by: without export.signoff" \
	|| ok "no Signed-off-by: without export.signoff"

git clone -q "$p" "$work/am"
(cd "$work/am" && gitc am -q --keep-cr "$work/plain"/*.patch) >"$work/am.log" 2>&1 && ok "git am applies the patches" \
	|| { fail "git am"; head -5 "$work/am.log"; }
[ "$(git -C "$work/am" log -1 --format=%an)" = "$name" ] && ok "the author's name round-trips" \
	|| fail "author: $(git -C "$work/am" log -1 --format=%an)"
[ "$(git -C "$work/am" log -1 --format=%ae)" = "zw@example.cn" ] && ok "the author's e-mail round-trips" || fail "author e-mail"
diff -r -x .git -x .ferry -x checkpoints "$work/am" "$p" >/dev/null && ok "the patched clone equals the project" || fail "patched clone differs"

expect_exit 0 "config export.signoff true" -- "$FERRY" -C "$p" config export.signoff true
expect_exit 0 "export patches with sign-off" -- "$FERRY" -C "$p" export patches "$work/signed"
n=$(ls "$work/signed"/*.patch | wc -l)
s=$(grep -l "^Signed-off-by: $name <zw@example.cn>\$" "$work/signed"/*.patch | wc -l)
[ "$n" -ge 1 ] && [ "$s" -eq "$n" ] && ok "every patch carries Signed-off-by: the actor" || fail "$s of $n patches signed off"
git clone -q "$p" "$work/am2"
(cd "$work/am2" && gitc am -q --keep-cr "$work/signed"/*.patch) >"$work/am2.log" 2>&1 && ok "git am applies the signed patches" \
	|| { fail "git am (signed)"; head -5 "$work/am2.log"; }
git -C "$work/am2" log -1 --format=%B | grep -q "^Signed-off-by: $name <zw@example.cn>\$" \
	&& ok "the applied commit keeps the Signed-off-by: trailer" || fail "trailer lost in git am"
git -C "$work/am2" log -1 --format='%(trailers:key=Signed-off-by,valueonly)' | grep -q "$name" \
	&& ok "git reads it as a trailer" || fail "git does not read Signed-off-by as a trailer"

finish
