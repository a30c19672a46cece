#!/bin/sh
# CSV that spreadsheets read safely: --excel (or `config csv.bom true`) starts the file
# with a UTF-8 byte-order mark so Excel reads Chinese and other non-ASCII text; a field
# starting with = + - @ (or tab, CR) is prefixed with a single quote so no spreadsheet
# evaluates it as a formula; --layout msft gives the change list and the unsupported list
# in the vendor migration tool's columns.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
# a construct whose finding message/file starts with a formula character
mkdir -p "$p/=cmd"
printf 'import torch\nx = torch.zeros(2).cuda()\n' >"$p/=cmd/evil.py"
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check >/dev/null 2>&1

expect_exit 0 "report csv without --excel" -- "$FERRY" -C "$p" report --format csv --output "$work/plain.csv"
head -c 3 "$work/plain.csv" | od -An -tx1 | grep -q "ef bb bf" && fail "a BOM without --excel" || ok "no BOM without --excel"
expect_exit 0 "report csv --excel" -- "$FERRY" -C "$p" report --format csv --excel --output "$work/excel.csv"
[ "$(head -c 3 "$work/excel.csv" | od -An -tx1 | tr -d ' ')" = "efbbbf" ] && ok "--excel starts with a UTF-8 BOM" \
	|| fail "--excel: no BOM"
expect_exit 0 "config csv.bom true" -- "$FERRY" -C "$p" config csv.bom true
expect_exit 2 "config csv.bom maybe is a usage error" -- "$FERRY" -C "$p" config csv.bom maybe
expect_exit 0 "report csv with csv.bom set" -- "$FERRY" -C "$p" report --format csv --section unsupported --output "$work/bom.csv"
[ "$(head -c 3 "$work/bom.csv" | od -An -tx1 | tr -d ' ')" = "efbbbf" ] && ok "csv.bom true starts with a BOM" || fail "csv.bom: no BOM"
"$FERRY" -C "$p" config csv.bom false >/dev/null 2>&1

if python3 - "$work/plain.csv" <<'PY'; then ok "no field starts with a formula character"; else fail "no field starts with a formula character"; fi
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8-sig")))
cells = [c for r in rows for c in r]
bad = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
assert not bad, bad[:5]
assert any(c.startswith("'=cmd/") for c in cells), "the =cmd/ path is not quoted"
PY

"$FERRY" -C "$p" fix --all --phase adapt --yes >/dev/null 2>&1
expect_exit 0 "change list --layout msft" -- \
	"$FERRY" -C "$p" report --format csv --section changes --layout msft --output "$work/msft-changes.csv"
expect_exit 0 "unsupported list --layout msft" -- \
	"$FERRY" -C "$p" report --format csv --section unsupported --layout msft --output "$work/msft-unsup.csv"
if python3 - "$work/msft-changes.csv" "$work/msft-unsup.csv" <<'PY'; then ok "--layout msft: the vendor tool's columns"; else fail "--layout msft: the vendor tool's columns"; fi
import csv, sys
ch = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8-sig")))
assert ch[0] == ["File", "Start Line", "End Line", "Operation Type", "Message"], ch[0]
assert len(ch) > 1 and all(len(r) == 5 for r in ch) and {r[3] for r in ch[1:]} <= {"INSERT", "MODIFY", "DELETE"}
assert all(r[1].isdigit() and r[2].isdigit() for r in ch[1:])
un = list(csv.reader(open(sys.argv[2], newline="", encoding="utf-8-sig")))
assert un[0] == ["File", "Start Line", "End Line", "API Name", "Message"], un[0]
assert all(len(r) == 5 for r in un)
PY
expect_exit 2 "--layout msft for the findings is a usage error" -- "$FERRY" -C "$p" report --format csv --layout msft
expect_exit 2 "--layout msft with markdown is a usage error" -- "$FERRY" -C "$p" report --format md --section changes --layout msft
expect_exit 2 "--layout other is a usage error" -- "$FERRY" -C "$p" report --format csv --section changes --layout other
expect_exit 2 "--excel with markdown is a usage error" -- "$FERRY" -C "$p" report --format md --excel

finish
