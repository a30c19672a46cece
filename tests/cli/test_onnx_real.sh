#!/bin/sh
# Real ONNX exports (tests/fixtures/onnx/, made by make_onnx.py with torch and onnx):
# ingest reads each, infer-convert.onnx_model reports the inventory (opsets, operator
# counts, input dims) and the atc command in the right dynamic-shape form with the
# model's file name, missing external data is an error, and a model over 300 MB (inline
# weights, then external data) is read with bounded memory.
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/onnx"
p="$work/proj"
mkdir -p "$p"
printf 'import torch\n' >"$p/train.py"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" config target.soc Ascend310P3 >/dev/null
for m in cnn_op11 cnn_op13 tiny_lm_op13 tiny_lm_op17 control_flow cnn_external no_opset; do
	expect_exit 0 "ingest $m.onnx" -- "$FERRY" -C "$p" ingest onnx "$fx/$m.onnx" --label "$m"
done
mkdir -p "$work/moved"
cp "$fx/cnn_external.onnx" "$work/moved/"
expect_exit 0 "ingest a model whose external data was left behind" -- "$FERRY" -C "$p" ingest onnx "$work/moved/cnn_external.onnx" --label moved
expect_exit 0 "check infer-convert" -- "$FERRY" -C "$p" check --phase infer-convert --format json
cp "$work/out" "$work/findings.json"

# finding LABEL SEVERITY TEXT...: a finding of onnx_model about artifact LABEL whose message
# and suggestion contain every TEXT
finding() {
	python3 - "$work/findings.json" "$@" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
label, sev, texts = sys.argv[2], sys.argv[3], sys.argv[4:]
for f in doc["findings"] if isinstance(doc, dict) else doc:
    if f.get("plugin") != "infer-convert.onnx_model" or f.get("severity") != sev:
        continue
    text = f.get("message", "") + " | " + f.get("suggestion", "")
    if "'%s'" % label in text and all(t in text for t in texts):
        sys.exit(0)
    if "'%s'" % label in text:
        print("     | " + text[:600])
sys.exit(1)
EOF
}
check() {
	desc=$1
	shift
	if finding "$@"; then ok "$desc"; else fail "$desc"; fi
}

check "CNN opset 11: inventory" cnn_op11 info "opset 11, 7 nodes, 5 operator types (Conv 2, Relu 2, Flatten 1, Gemm 1, GlobalAveragePool 1)" \
	"inputs image[batch,3,32,32]" "6 initializers, 1.9 KB"
check "CNN opset 11: dynamic batch -> --dynamic_batch_size, the file name in --model" cnn_op11 info \
	'atc --model=cnn_op11.onnx --framework=5 --output=cnn_op11 --soc_version=Ascend310P3 --input_format=NCHW --input_shape="image:-1,3,32,32" --dynamic_batch_size="1,2,4,8"'
check "CNN opset 13: dynamic H/W -> --dynamic_image_size" cnn_op13 info "opset 13" "inputs image[1,3,height,width]" \
	'--input_format=NCHW --input_shape="image:1,3,-1,-1" --dynamic_image_size="224,224;320,320;448,448"'
for v in 13 17; do
	check "transformer opset $v: input_ids [-1,-1] -> --dynamic_dims with ND, never --dynamic_batch_size" tiny_lm_op$v info \
		"opset $v" "inputs input_ids[batch,sequence], attention_mask[batch,sequence]" "MatMul 4" \
		"--model=tiny_lm_op$v.onnx" '--input_format=ND --input_shape="input_ids:-1,-1;attention_mask:-1,-1" --dynamic_dims="1,128,1,128;4,256,4,256;8,512,8,512"'
	if grep -q "tiny_lm_op$v.onnx[^|]*dynamic_batch_size" "$work/findings.json"; then fail "tiny_lm_op$v: --dynamic_batch_size given"; fi
done
check "opset 17 is outside the safe range" tiny_lm_op17 warning "opset 17, outside 11-15"
check "Loop/If: subgraphs counted, nested operators in the inventory, static shape" control_flow info \
	"7 nodes, 7 operator types" "If 1" "Loop 1" "Sub 1" "3 subgraphs" 'atc --model=control_flow.onnx' '--input_shape="x:2,4".'
check "no ai.onnx opset and an input of unknown rank: said in words, <dims> to fill in" no_opset info \
	"opset not declared" "inputs x (rank unknown)" '--input_shape="x:<dims>"' "fill in <dims>"
python3 - "$work/findings.json" <<'EOF' && ok "no finding shows a bare '?' for an unknown value" || fail "a bare '?' in a finding"
import json, re, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    text = f.get("message", "") + " " + f.get("suggestion", "")
    if re.search(r"(^|[\s(\[,])\?($|[\s)\],.;])", text):
        print("     | " + text[:300])
        sys.exit(1)
EOF
check "external data present: listed" cnn_external info "6 tensors in 1 external data file"
if finding cnn_external error "external data"; then fail "external data reported missing although it is there"; else ok "present external data is not an error"; fi
check "external data left behind: an error naming the file" moved error "keeps 6 tensors (1.9 KB) in external data" \
	"'cnn_external.data' is missing next to the model"

# ---- the same through the code: an export with dynamic batch and sequence -------------
c="$work/code"
mkdir -p "$c"
cat >"$c/export.py" <<'EOF'
import torch


def export(model):
    model.eval()
    ids = torch.zeros(1, 128)
    torch.onnx.export(model, (ids,), "lm.onnx", opset_version=13, input_names=["input_ids"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}})
EOF
"$FERRY" init "$c" >/dev/null
"$FERRY" -C "$c" config target.soc Ascend310P3 >/dev/null
expect_exit 0 "check infer-convert on the export" -- "$FERRY" -C "$c" check --phase infer-convert --format json
expect_grep '--model=lm.onnx --framework=5 --output=lm --soc_version=Ascend310P3 --input_format=ND --input_shape=\\"input_ids:-1,-1\\" --dynamic_dims=\\"1,128;4,256;8,512\\"' \
	"$work/out" "export with a dynamic sequence: --dynamic_dims, not --dynamic_batch_size"

# ---- a model over 300 MB: inline weights, then external data ----------------------------
# max_rss KB CMD...: runs CMD under /usr/bin/time and leaves its peak RSS (KB) in $rss
max_rss() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$work/rss" "$@" >"$work/out" 2>"$work/err"
		rc=$?
		rss=$(tail -n 1 "$work/rss")
	else
		"$@" >"$work/out" 2>"$work/err"
		rc=$?
		rss=0
	fi
	return $rc
}
big="$work/big"
mkdir -p "$big"
start=$(date +%s)
# memory is measured against the same commands on the small models, in this run: a model
# 320 MB larger may cost at most GROWTH more (the sanitizers' own overhead is in both)
GROWTH=51200
max_rss "$FERRY" -C "$p" ingest onnx "$fx/cnn_op11.onnx" --label small-again
base_ingest=$rss
max_rss "$FERRY" -C "$p" check --phase infer-convert --format json
base_check=$rss
python3 "$top/tests/tools/big_onnx.py" "$big/big.onnx" 320000000
if max_rss "$FERRY" -C "$p" ingest onnx "$big/big.onnx" --label big; then ok "a 320 MB model is ingested"; else
	fail "a 320 MB model is ingested"
	sed 's/^/     | /' "$work/err" | head -3
fi
[ "$rss" -lt $((base_ingest + GROWTH)) ] && ok "ingest of 320 MB in bounded memory (peak RSS ${rss} KB, ${base_ingest} KB for a small model)" ||
	fail "ingest peak RSS ${rss} KB, ${base_ingest} KB for a small model"
if max_rss "$FERRY" -C "$p" check --phase infer-convert --format json; then ok "check reads it"; else fail "check reads it"; fi
[ "$rss" -lt $((base_check + GROWTH)) ] && ok "check of 320 MB in bounded memory (peak RSS ${rss} KB, ${base_check} KB without it)" ||
	fail "check peak RSS ${rss} KB, ${base_check} KB without it"
cp "$work/out" "$work/findings.json"
check "the 320 MB model's inventory and command" big info "2 nodes, 2 operator types (Conv 1, Relu 1)" "1 initializer, 305.2 MB" \
	'--model=big.onnx' '--input_shape="x:-1,3,224,224" --dynamic_batch_size='
# a model kept by reference is evidence outside .ferry/: once it is gone, the check that
# reads it stops naming it (its findings stay as they were) until the file is back
mv "$big/big.onnx" "$big/big.moved"
expect_exit 3 "a model kept by reference that vanished stops the check that reads it" -- \
	"$FERRY" -C "$p" check --phase infer-convert
expect_grep "artifact [0-9]* (onnx, big).*big.onnx" "$work/err" "the check names the vanished model"
rm -f "$big/big.moved"
p2="$work/proj-ext"
make_project "$p2"
"$FERRY" init "$p2" >/dev/null
p=$p2
python3 "$top/tests/tools/big_onnx.py" "$big/ext.onnx" 320000000 --external
expect_exit 0 "a model with 320 MB of external data is ingested" -- "$FERRY" -C "$p" ingest onnx "$big/ext.onnx" --label ext
max_rss "$FERRY" -C "$p" check --phase infer-convert --format json
cp "$work/out" "$work/findings.json"
check "its external data is listed and present" ext info "1 tensor in 1 external data file" "305.2 MB"
[ "$rss" -lt $((base_check + GROWTH)) ] && ok "external data checked in bounded memory (peak RSS ${rss} KB)" || fail "check peak RSS ${rss} KB, ${base_check} KB for the small models"
truncate -s 1000 "$big/ext.data"
"$FERRY" -C "$p" check --phase infer-convert --format json >"$work/findings.json" 2>/dev/null
check "a short external data file is an error" ext error "'ext.data' has 1000 bytes, fewer than the 320000000"
rm -rf "$big"
secs=$(($(date +%s) - start))
[ "$secs" -lt 60 ] && ok "large-model part took ${secs}s" || fail "large-model part took ${secs}s"

# ---- a damaged model: one line naming the file and the reason ---------------------------
head -c 2000 "$fx/tiny_lm_op13.onnx" >"$work/cut.onnx"
expect_exit 3 "a cut model is refused" -- "$FERRY" -C "$p" ingest onnx "$work/cut.onnx"
one_line "$work/err" "the refusal is one line"
expect_grep "cut.onnx: damaged ONNX model (length past the end of its message: truncated" "$work/err" "it names the file and the reason"
# ---- the target SoC changed after ingest: the model's checks judge again at once --------
ps="$work/proj-soc"
make_project "$ps"
"$FERRY" init "$ps" >/dev/null
"$FERRY" -C "$ps" config target.soc Ascend910B2 >/dev/null
"$FERRY" -C "$ps" ingest onnx "$fx/tiny_lm_op17.onnx" --label lm >/dev/null 2>&1
"$FERRY" -C "$ps" config target.soc Ascend310P3 >/dev/null 2>&1
"$FERRY" -C "$ps" findings --plugin infer-convert.onnx_model --status open --format json >"$work/soc.json"
python3 - "$work/soc.json" <<'EOF' && ok "after target.soc changed, the inventory and the operator list follow it without a check" || fail "onnx_model stale after target.soc changed"
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
text = " ".join(f["message"] + " " + (f.get("suggestion") or "") for f in fs)
assert "--soc_version=Ascend310P3" in text and "Ascend910B2" not in text, text
assert any("in ONNX model 'lm'" in f["message"] and "vendor's operator page" in f["message"] for f in fs), text
EOF
finish
