#!/bin/sh
# Chinese coverage: with FERRY_LANG=zh, every finding message and suggestion that the
# bundled example, the fixture projects and the fixture artifacts produce is Chinese, and
# the catalogs have no untranslated or fuzzy entry against the templates extracted from
# the sources (C code, plugins, fact tables).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
ferry=$FERRY
tmp=$work
. "$top/tests/plugins/lib.sh" >/dev/null
export FERRY_ACTOR="zh-tests <tests@example.invalid>"

# ---- the catalogs are complete ------------------------------------------------------
if make -s -C "$top" pot >"$work/pot.log" 2>&1; then
	for domain in ferry ferry-plugins; do
		case $domain in ferry) dir=po ;; *) dir=plugins/po ;; esac
		msgcat --force-po --use-first -o "$work/$domain-all.po" "$top/$dir"/zh_CN*.po &&
			msgmerge -q --force-po --no-fuzzy-matching -o "$work/$domain.po" "$work/$domain-all.po" \
				"$top/build/po/$domain.pot" 2>"$work/stats-$domain" &&
			msgfmt --statistics -o /dev/null "$work/$domain.po" 2>"$work/stats-$domain"
		if [ $? -ne 0 ] || grep -q "untranslated\|fuzzy" "$work/stats-$domain"; then
			fail "$domain catalog: $(cat "$work/stats-$domain")"
			msgattrib --untranslated "$work/$domain.po" | grep '^#:' | head -5 | sed 's/^/     | /'
		else
			ok "$domain catalog: $(cat "$work/stats-$domain")"
		fi
	done
else
	fail "make pot: $(tail -2 "$work/pot.log")"
fi

# ---- every finding is Chinese -------------------------------------------------------
n=0
checked() { # WORK: run every phase and keep the findings in Chinese
	FERRY_LANG=en "$ferry" -C "$1" check >/dev/null 2>>"$work/check.log"
	n=$((n + 1))
	FERRY_LANG=zh "$ferry" -C "$1" findings --format json >"$work/findings-$n.json" 2>>"$work/check.log"
}
for fx in "$top"/tests/plugins/late/*/ "$top"/tests/plugins/design/*/ "$top"/tests/plugins/environment/*/ \
	"$top"/tests/plugins/adapt/*/ "$top"/tests/plugins/*/; do
	[ -d "$fx/project" ] || continue
	w="$work/case-$(basename "$fx")-$n"
	engagement "$fx" "$w" >/dev/null 2>&1 || continue
	checked "$w"
done
w="$work/example"
cp -R "$top/examples/resnet-ddp" "$w"
"$ferry" init "$w" --client zh >/dev/null 2>&1
checked "$w"

# the tune artifacts real runs produce: loss logs, dumps, run logs, profiles, models, bench
w="$work/artifacts"
cp -R "$top/examples/resnet-ddp" "$w"
"$ferry" init "$w" --client zh >/dev/null 2>&1
fx=$top/tests/fixtures
ing() { "$ferry" -C "$w" ingest "$@" >/dev/null 2>>"$work/ingest.log" || echo "ingest $*" >>"$work/ingest.log"; }
ing loss-log "$fx/loss/gpu_plain.log" --label gpu
ing loss-log "$fx/loss/npu_blowup_plain.log" --label npu
FERRY_LANG=zh "$ferry" -C "$w" compare loss gpu npu >"$work/compare-zh.txt" 2>&1 # recorded, read by the tune checks
expect_grep "结论：不通过 — " "$work/compare-zh.txt" "zh compare: the verdict word is Chinese"
ing dump "$fx/dump/gpu_dump" --label gpu-dump
ing dump "$fx/dump/npu_dump" --label npu-dump
"$ferry" -C "$w" compare dump gpu-dump npu-dump >/dev/null 2>&1
for f in "$fx"/runlog/*.log; do ing run-log "$f" --label "$(basename "$f" .log)"; done
ing profile "$fx/profile/kernel_details.csv" --label kd
ing profile "$fx/profile/trace_view.json" --label tv
ing profile "$fx/profile/op_summary_0.csv" --label ops
ing bench "$fx/profile/ais_bench_summary.json" --label npu
for f in "$fx"/onnx/*.onnx; do ing onnx "$f" --label "$(basename "$f" .onnx)"; done
checked "$w"
[ ! -s "$work/ingest.log" ] || { echo "     ingest problems:"; sed 's/^/     | /' "$work/ingest.log" | head -5; }

# the glossary (docs/GLOSSARY.md): a finding is 问题, never 发现 ("discover") used as a noun
if grep -n "^msgstr.*\(个发现\|此发现\|发现项\|条发现\|发现 #\|· 发现\)" "$top/po/zh_CN.po" "$top/plugins/po/zh_CN.po" >"$work/glossary"; then
	fail "the catalogs call a finding 发现, not 问题:"
	sed 's/^/     | /' "$work/glossary" | head -5
else
	ok "the catalogs call a finding 问题, as the glossary does"
fi

# and a message about a finding (its msgid says "finding") does not name it 发现 or 结果
for po in "$top/po/zh_CN.po" "$top/plugins/po/zh_CN.po"; do
	msggrep --no-wrap -K -i -e finding "$po" | msggrep --no-wrap -T -e '发现\|结果' |
		msggrep --no-wrap -v -T -e 问题 | grep '^msgid "[^"]'
done >"$work/finding-term"
if [ -s "$work/finding-term" ]; then
	fail "messages about a finding call it 发现 or 结果, not 问题:"
	cut -c1-160 "$work/finding-term" | sed 's/^/     | /' | head -5
else
	ok "every message about a finding calls it 问题"
fi

if python3 "$top/tests/zh_check.py" findings "$work"/findings-*.json >"$work/english" 2>&1; then
	ok "every finding of $n engagements is in Chinese"
else
	fail "$(wc -l <"$work/english") finding texts are still English; by plugin:"
	sed 's/^.*findings-[0-9]*.json: //' "$work/english" | cut -d' ' -f1 | sort | uniq -c | sort -rn | sed 's/^/     | /'
	echo "     e.g.:"
	sed 's/^.*findings-[0-9]*.json: /     | /' "$work/english" | sort -u | head -15
fi
finish
