#!/bin/sh
# One translation mechanism: a plugin writes its messages through _() with named
# placeholders; findings are stored in English (their identity does not depend on the
# reader's language) and shown in Chinese with FERRY_LANG=zh. An engagement plugin ships
# its own catalog (textdomain + locale/ beside it).
. "$(dirname "$0")/lib.sh"

p="$work/p"
make_project "$p"
"$FERRY" init "$p" >/dev/null
dir="$p/.ferry/plugins/assess"
mkdir -p "$dir/locale/zh_CN/LC_MESSAGES"
cat >"$dir/acme_check.lua" <<'LUA'
return {
	id = "assess.acme_check", phase = "assess", title = _("Acme house rules"),
	severity = "warning", category = "custom_kernel", textdomain = "acme",
	run = function(ctx)
		for _i, f in ipairs({ "train.py" }) do
			ctx.report{ file = f, line = 1,
				message = _("{file} breaks house rule {n}", { file = f, n = 7 }),
				suggestion = _("Ask {who} before shipping it.", { who = "the lead" }) }
		end
	end,
}
LUA
cat >"$work/acme.po" <<'PO'
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"

msgid "{file} breaks house rule {n}"
msgstr "{file} 违反了内部规则 {n}"

msgid "Ask {who} before shipping it."
msgstr "交付前请先询问{who}。"
PO
msgfmt -o "$dir/locale/zh_CN/LC_MESSAGES/acme.mo" "$work/acme.po"

FERRY_LANG=en "$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
FERRY_LANG=en "$FERRY" -C "$p" findings --plugin assess.acme_check >"$work/en" 2>&1
expect_grep "train.py breaks house rule 7" "$work/en" "English: the placeholders are filled"
FERRY_LANG=zh "$FERRY" -C "$p" findings --plugin assess.acme_check >"$work/zh" 2>&1
expect_grep "train.py 违反了内部规则 7" "$work/zh" "Chinese: the plugin's own catalog, with the same values"
FERRY_LANG=zh LANG=C "$FERRY" -C "$p" findings --plugin assess.acme_check --format json >"$work/zh.json" 2>&1
python3 - "$work/zh.json" <<'PY' && ok "JSON in zh carries the translated message and suggestion, even in the C locale" || fail "zh JSON: $(head -c 300 "$work/zh.json")"
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["plugin"] == "assess.acme_check"][0]
assert f["message"] == "train.py 违反了内部规则 7", f["message"]
assert f["suggestion"] == "交付前请先询问the lead。", f["suggestion"]
assert "i18n" not in f
PY
sqlite3 "$p/.ferry/engagement.db" "SELECT message FROM findings WHERE plugin = 'assess.acme_check'" >"$work/db"
expect_grep "^train.py breaks house rule 7$" "$work/db" "the record keeps the English text"

# running the checks in Chinese does not change the findings' identity
n1=$(sqlite3 "$p/.ferry/engagement.db" "SELECT count(*) FROM findings")
FERRY_LANG=zh "$FERRY" -C "$p" check --phase assess >/dev/null 2>&1
n2=$(sqlite3 "$p/.ferry/engagement.db" "SELECT count(*) FROM findings")
[ "$n1" = "$n2" ] && ok "a check run in Chinese updates the same findings ($n1)" || fail "findings $n1 -> $n2"

# an argument that is itself a _() result (a fact table's prose) is shown translated too
cat >"$dir/nested_args.lua" <<'LUA'
return {
	id = "assess.nested_args", phase = "assess", title = "nested", severity = "info",
	textdomain = "acme",
	run = function(ctx)
		local cause = _("the {what} is missing", { what = "wheel" })
		ctx.report{ message = _("{file}: {cause}", { file = "train.py", cause = cause }) }
	end,
}
LUA
cat >>"$work/acme.po" <<'PO'

msgid "{file}: {cause}"
msgstr "{file}：{cause}"

msgid "the {what} is missing"
msgstr "缺少 {what}"
PO
msgfmt -o "$dir/locale/zh_CN/LC_MESSAGES/acme.mo" "$work/acme.po"
FERRY_LANG=en "$FERRY" -C "$p" check --plugin assess.nested_args >/dev/null 2>&1
FERRY_LANG=en "$FERRY" -C "$p" findings --plugin assess.nested_args >"$work/en2" 2>&1
expect_grep "train.py: the wheel is missing" "$work/en2" "English: a nested _() argument reads as its English text"
FERRY_LANG=zh "$FERRY" -C "$p" findings --plugin assess.nested_args >"$work/zh2" 2>&1
expect_grep "train.py：缺少 wheel" "$work/zh2" "Chinese: a nested _() argument is translated with its own arguments"
sqlite3 "$p/.ferry/engagement.db" "SELECT message FROM findings WHERE plugin = 'assess.nested_args'" >"$work/db2"
expect_grep "^train.py: the wheel is missing$" "$work/db2" "the record keeps the nested argument's English text"

# _() refuses arguments it cannot show, with the plugin named
cat >"$dir/bad_args.lua" <<'LUA'
return {
	id = "assess.bad_args", phase = "assess", title = "bad args", severity = "info",
	run = function(ctx) ctx.report{ message = _("{t}", { t = {} }) } end,
}
LUA
FERRY_LANG=en "$FERRY" -C "$p" check --plugin assess.bad_args >/dev/null 2>"$work/err"
expect_grep "assess.bad_args.*argument 't' must be a string, number or boolean" "$work/err" "a table argument is a plugin error naming the argument"
finish
