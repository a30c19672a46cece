#!/bin/sh
# Log lines quoted in findings are cut at a character boundary: ATC and CANN print Chinese
# messages, and a quote cut inside a character put invalid UTF-8 into the record and the
# reports. The line's end is marked with "…".
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null
python3 - "$work/atc.log" <<'PY'
import sys
words = "模型转换失败" * 40  # 3 bytes a character: a 160-byte cut after "[ERROR] " falls inside one
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("ATC start working now, please wait for a moment.\n")
    f.write("[ERROR] " + words + "\n")
    f.write("ATC run failed, Please check the detail log, Try 'atc --help' for more information\n")
PY
expect_exit 0 "ingest the ATC log" -- "$FERRY" -C "$p" ingest atc-log "$work/atc.log" --label zh
"$FERRY" -C "$p" check --phase infer-convert --format json >"$work/f.json" 2>/dev/null
if python3 - "$work/f.json" <<'PY'; then ok "the quoted Chinese line is whole characters, marked where it was cut"; else fail "a quote was cut inside a character"; fi
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")  # strict: a split character fails here
fs = [f for f in json.loads(raw)["findings"] if f["plugin"] == "infer-convert.atc_log" and "模型转换失败" in f["message"]]
assert fs, "no finding quotes the line"
assert "\ufffd" not in fs[0]["message"], fs[0]["message"]
assert "…\"" in fs[0]["message"], fs[0]["message"]  # the quote ends where it was cut
PY
finish
