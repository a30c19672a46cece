#!/bin/sh
# The workbench's own text in Chinese and its English counts: the real binary run
# headless (FERRY_HEADLESS, a FERRY_KEYS script saving the screen as it goes) on the
# bundled example after assess and adapt checks, two ingested loss logs, a comparison
# and a report.
#
# With FERRY_LANG=zh every pane — the phase rail, the findings list, the detail, the
# guide, the readiness chart, the artifacts, a comparison, the audit chain with a
# verify, the timeline, the messages, the help overlay, the palette, the fix preview — and the
# status, message and hint lines show no English sentence (tests/tui/zh_screens.py).
# Not checked here: the text the record holds, which is translated elsewhere (finding
# messages and suggestions come from the plugins, checkpoint messages from the history,
# the actor's name is the user's), the project's code in diffs and source excerpts, and
# the palette's command names, which are typed as they are. With FERRY_LANG=en the counts read right for one and for many ("1 fix",
# "2 fixes"). Prints "ok"/"FAIL" lines; the exit status is the failure count. Skipped
# (exit 0) only when python3 is missing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
FERRY="${FERRY:-$top/ferry}"
if ! command -v python3 >/dev/null 2>&1; then
	echo "tui zh panes: python3 is not installed; skipped"
	exit 0
fi
[ -x "$FERRY" ] || { echo "FAIL $FERRY is not built"; exit 1; }
. "$top/tests/tui/lib.sh" # $work, ok, fail (its tmux server is never started here)

export FERRY_ACTOR='Zh Tester <zh@example.org>' LANG=C.UTF-8 LC_ALL=C.UTF-8
unset FERRY_KEYS FERRY_HEADLESS
proj="$work/proj"
cp -R "$top/examples/resnet-ddp" "$proj"
rm -rf "$proj/.ferry"
late="$top/tests/plugins/late/tune_clean/artifacts"
cli() { FERRY_LANG=en "$FERRY" -C "$proj" "$@"; }
{
	"$FERRY" init "$proj" &&
	cli check --phase assess --phase adapt &&
	cli ingest loss-log "$late/loss-log.gpu.log" --label gpu &&
	cli ingest loss-log "$late/loss-log.npu.log" --label npu &&
	cli compare loss gpu npu &&
	cli report --format md --output "$work/report.md"
} >"$work/setup.log" 2>&1 || { fail "setting up the engagement:"; sed 's/^/     | /' "$work/setup.log"; exit 1; }

# bench LANG KEYS: runs the workbench headless at 120x40 with the key script; each
# saved screen comes with its cells' attributes (SCREEN.attr)
bench() {
	FERRY_LANG=$1 FERRY_SAVE_ATTRS=1 FERRY_HEADLESS=120x40 FERRY_KEYS="$2" "$FERRY" "$proj" >"$work/bench.log" 2>&1 ||
		{ fail "the workbench ($1) failed:"; sed 's/^/     | /' "$work/bench.log"; }
}
s() { echo "<Save:$work/$1.txt>"; }

# every pane in Chinese: main screen (rail, list, detail, status, hints), zoomed detail,
# chart, guide, artifacts, the loss comparison, the audit chain and its verify, the
# timeline, the settings form, the messages, help, the palette and a command's usage, the fix
# preview and its closing
keys="$(s main)<Enter>$(s detail)<Esc>c$(s chart)i$(s guide)a$(s artifacts)jj<Enter>$(s show)<Esc>"
keys="${keys}E$(s audit)V$(s verify)t$(s timeline)o$(s settings)M$(s messages)f?$(s help)<Esc>:$(s palette)ingest $(s usage)<Esc>"
keys="${keys}4/fix:yes<Enter>F$(s fix)n$(s closed)<Esc>Q"
bench zh "$keys"
screens=""
for n in main detail chart guide artifacts show audit verify timeline settings messages help palette usage fix closed; do
	if [ -s "$work/$n.txt" ]; then screens="$screens $work/$n.txt"; else fail "no $n screen was saved"; fi
done
grep -q "修复预览 ·" "$work/fix.txt" && ok "the fix preview was reached" || fail "the fix preview did not open"
grep -q "界面语言\|阶段指南" "$work/guide.txt" && ok "the guide is in Chinese" || fail "the guide is not in Chinese"
grep -q "审计链" "$work/audit.txt" && ok "the audit pane is in Chinese" || fail "the audit pane is not in Chinese"

# what the record holds, in both languages, and the palette's command names
FERRY_LANG=en "$FERRY" -C "$proj" findings --format json >"$work/f-en.json"
FERRY_LANG=zh "$FERRY" -C "$proj" findings --format json >"$work/f-zh.json"
cli log --format json >"$work/log.json"
set -- --record "$work/f-en.json" --record "$work/f-zh.json" --record "$work/log.json" --text "$FERRY_ACTOR"
for w in $(sed -n 's/^	{ CMD_[A-Z_0-9 +]*, "\([a-z0-9-]*\)".*/\1/p' "$top/panes/keymap.c"); do
	set -- "$@" --word "$w"
done
# shellcheck disable=SC2086
if python3 "$top/tests/tui/zh_screens.py" "$@" $screens >"$work/zh.out"; then
	ok "FERRY_LANG=zh: no English sentence in the workbench's own text on any pane"
else
	fail "FERRY_LANG=zh: English left on the screen:"
	sed 's/^/     | /' "$work/zh.out"
fi

# English counts: one and many, in the preview, the applied message and the headings
bench en "$(s en-one)4/fix:yes<Enter>F$(s en-fix1)n:fix-phase<Enter>$(s en-fixn)y$(s en-applied)EQ"
one=$(grep -o 'Apply [0-9]* fix[a-z]* to [0-9]* file[a-z]* as [0-9]* checkpoint[a-z]*' "$work/en-fix1.txt")
many=$(grep -o 'Apply [0-9]* fix[a-z]* to [0-9]* file[a-z]* as [0-9]* checkpoint[a-z]*' "$work/en-fixn.txt")
applied=$(grep -o 'Fixed [0-9]* finding[a-z]* in [0-9]* checkpoint[a-z]*' "$work/en-applied.txt")
[ "$one" = "Apply 1 fix to 1 file as 1 checkpoint" ] && ok "one fix: \"$one\"" || fail "one fix reads \"$one\""
case "$many" in
"Apply "[0-9]*" fixes to "*) ok "many fixes: \"$many\"" ;;
*) fail "many fixes read \"$many\"" ;;
esac
case "$applied" in
"Fixed "[0-9]*" findings in "*" checkpoints") ok "applied: \"$applied\"" ;;
*) fail "the applied fixes read \"$applied\"" ;;
esac
# no count disagrees with its noun anywhere on the English screens
if grep -E -h '(^|[^0-9.#/])1 (fixes|files|checkpoints|findings|events|problems|warnings|errors|steps)\b|(^|[^0-9.#/])([02-9]|[0-9]{2,}) (fix|file|checkpoint|finding|event|problem|warning|error|step)\b' \
	"$work"/en-*.txt >"$work/grammar.out"; then
	fail "a count disagrees with its noun:"
	sed 's/^/     | /' "$work/grammar.out"
else
	ok "every English count agrees with its noun"
fi

echo "tui zh panes: $fails failed"
[ "$fails" -gt 125 ] && fails=125
exit "$fails"
