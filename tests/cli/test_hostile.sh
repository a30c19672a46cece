#!/bin/sh
# Hostile fixes: engagement plugins (tests/cli/hostile/*.lua, installed into
# .ferry/plugins/) whose fixes try to write where ferry must never write — the
# client's .git/config, a folder symlink out of the project, the engagement's own
# .ferry/, a nested repository's .hg/, a file symlink (even one to a project file),
# a hard link to a file outside,
# a FIFO, a device. Each plugin's fix must be an error naming the path (exit 3), and
# nothing may be written: not the hostile file, not the plugin's harmless edits.
. "$(dirname "$0")/lib.sh"
fixtures="$top/tests/cli/hostile"
out="$work/outside"
p="$work/proj"
mkdir -p "$out"
make_project "$p"
git -C "$p" init -q
printf 'secret = 1\n' >"$out/secret.py"
printf 'shared = 1\n' >"$out/shared.py"
ln -s "$out" "$p/link_out"
ln -s models/net.py "$p/alias.py" # inside the project, but still a link
ln "$out/shared.py" "$p/shared.py"
mkfifo "$p/pipe.txt"
mkdir -p "$p/vendor/lib/.hg"
printf '[ui]\n' >"$p/vendor/lib/.hg/hgrc"
device=0
if mknod "$p/null.dev" c 1 3 2>/dev/null; then device=1; fi
"$FERRY" init "$p" >/dev/null
mkdir -p "$p/.ferry/plugins"
cp "$fixtures"/*.lua "$p/.ferry/plugins/"
timeout 60 "$FERRY" -C "$p" check --phase adapt >"$work/check.out" 2>&1
n=$(grep -c 'adapt.hostile_' "$work/check.out")
[ "$n" -ge 8 ] && ok "the hostile plugins report their fixable findings ($n)" || { fail "hostile findings: $n"; head -20 "$work/check.out"; }

sums() { # every byte ferry must not touch
	(cd "$p" && sha256sum train.py models/net.py .git/config vendor/lib/.hg/hgrc "$out/secret.py" "$out/shared.py"
	 ls -A "$out" .ferry/plugins)
}
sums >"$work/before"

# plugin  path-named-in-the-error
for case in "git_config .git/config" "dir_link link_out" "ferry_dir .ferry/plugins/planted.lua" \
	"other_vcs vendor/lib/.hg/hgrc" "file_link alias.py" "hard_link shared.py" "fifo pipe.txt" "device null.dev"; do
	set -- $case
	if [ "$1" = device ] && [ $device -eq 0 ]; then ok "(skipped: cannot make a device node here)"; continue; fi
	expect_exit 3 "$1: the fix is an error (exit 3)" -- timeout 30 "$FERRY" -C "$p" fix --plugin "adapt.hostile_$1" --yes
	expect_grep "plugin adapt.hostile_$1: .*$2" "$work/err" "$1: the error names the plugin and $2"
	one_line "$work/err" "$1: one line on stderr"
done
sums >"$work/after"
cmp -s "$work/before" "$work/after" && ok "nothing was written: .git/config, .hg/hgrc, train.py, the files outside, .ferry/plugins unchanged" ||
	{ fail "something was written"; diff "$work/before" "$work/after" | head; }
[ -e "$out/created_by_fix.py" ] && fail "a file was created outside the project" || ok "no file was created outside the project"
[ "$(stat -c %h "$p/shared.py")" -eq 2 ] && ok "the hard link is intact" || fail "the hard link was broken"
[ -L "$p/alias.py" ] && ok "the file symlink is still a symlink" || fail "the file symlink was replaced"

# all at once: the hostile plugins are errors, the good fixes still apply
expect_exit 3 "fix --all --yes: exit 3 when a plugin's fix is refused" -- timeout 60 "$FERRY" -C "$p" fix --all --phase adapt --yes
expect_grep "hostile_" "$work/err" "fix --all names a refused plugin"
grep -q 'npu' "$p/train.py" && ok "the bundled adapt fixes were still applied" || fail "the good fixes were not applied"
head -1 "$p/train.py" | grep -q '# touched' && fail "an edit of a refused plugin was applied" || ok "no edit of a refused plugin was applied"
sums | grep -v train.py >"$work/after2"
grep -v train.py "$work/before" | cmp -s - "$work/after2" && ok "fix --all wrote nothing where it must not" || fail "fix --all wrote where it must not"
expect_exit 0 "verify passes afterwards" -- "$FERRY" -C "$p" verify

finish
