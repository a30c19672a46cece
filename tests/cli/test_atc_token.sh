#!/bin/sh
# The atc command for a model whose inputs are token ids, not images. An export in the
# code whose dummy input ferry cannot read (pytorch/examples' word_language_model: a
# LongTensor view and the LSTM state, no input_names) gets a placeholder that presumes no
# image layout; once the model it writes is ingested (tests/fixtures/onnx/rnn_lm_op13.onnx,
# the same export made by make_onnx.py), the command takes every input's name and shape
# from the model and says their types. A token model with symbolic batch and sequence
# (tiny_lm_op13.onnx: input_ids and attention_mask [batch, sequence] int64) gets --input_format=ND
# and --dynamic_dims profiles whose example sizes the finding explains per symbolic name,
# in the export's finding and in the model's inventory alike.
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures/onnx"

# findings FILE PLUGIN: the message and suggestion of PLUGIN's findings, one per line
findings() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["plugin"] == sys.argv[2]:
        print(f["message"] + " | " + f.get("suggestion", ""))
EOF
}
# convert DIR PLUGIN: checks infer-convert in DIR; PLUGIN's findings go to $work/f.txt
convert() {
	"$FERRY" -C "$1" check --phase infer-convert --format json >"$work/out" 2>"$work/err"
	findings "$work/out" "$2" >"$work/f.txt"
}
# has TEXT DESC: the last findings (in $work/f.txt) hold TEXT
has() {
	if grep -qF -- "$1" "$work/f.txt"; then ok "$2"; else
		fail "$2: no '$1'"
		sed 's/^/     | /' "$work/f.txt" | head -5
	fi
}
hasnt() {
	if grep -qF -- "$1" "$work/f.txt"; then
		fail "$2: '$1' found"
		sed 's/^/     | /' "$work/f.txt" | head -5
	else ok "$2"; fi
}

# ---- word_language_model's export -----------------------------------------------------
w="$work/wlm"
mkdir -p "$w"
cat >"$w/main.py" <<'EOF'
import torch


def export_onnx(model, path, batch_size, seq_len):
    model.eval()
    dummy_input = torch.LongTensor(seq_len * batch_size).zero_().view(-1, batch_size)
    hidden = model.init_hidden(batch_size)
    torch.onnx.export(model, (dummy_input, hidden), path)
EOF
"$FERRY" init "$w" >/dev/null
"$FERRY" -C "$w" config target.soc Ascend310P3 >/dev/null
convert "$w" infer-convert.atc_command
hasnt "n,c,h,w" "a dummy input ferry cannot read: no image layout presumed in --input_shape"
has '--input_shape="<input name>:<dims>"' "the placeholder names what to fill in"
has "ferry ingest onnx" "the finding says that ingesting the exported model fills it in"

expect_exit 0 "ingest the model the export writes" -- "$FERRY" -C "$w" ingest onnx "$fx/rnn_lm_op13.onnx" --label wlm
convert "$w" infer-convert.atc_command
has '--input_shape="input.1:35,1;onnx::Slice_1:2,1,8;onnx::Slice_2:2,1,8"' \
	"after the ingest: every input of the model, by its name, with its rank"
hasnt "--input_format=NCHW" "token ids are no image: no NCHW"
has "input.1 int64[35,1]" "the finding gives the inputs' types from the model"
has "'wlm' (artifact 1)" "the finding names the model the shapes come from"
hasnt "<input name>" "no placeholder is left"
has "the names onnx::Slice_1, onnx::Slice_2 hold ':'" "names holding --input_shape's separator are pointed out"
has "input_names=" "the advice names the inputs at export"
has "--model=rnn_lm_op13.onnx --framework=5 --output=rnn_lm_op13 " "the model's file name stands for the path the code computes"

# ---- a token model with symbolic batch and sequence -----------------------------------
t="$work/tok"
mkdir -p "$t"
cat >"$t/export.py" <<'EOF'
import torch


def export(model, ids, mask):
    model.eval()
    torch.onnx.export(model, (ids, mask), "tiny_lm_op13.onnx", opset_version=13,
                      input_names=["input_ids", "attention_mask"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "sequence"},
                                    "attention_mask": {0: "batch", 1: "sequence"}})
EOF
"$FERRY" init "$t" >/dev/null
"$FERRY" -C "$t" config target.soc Ascend310P3 >/dev/null
expect_exit 0 "ingest the token model" -- "$FERRY" -C "$t" ingest onnx "$fx/tiny_lm_op13.onnx" --label lm
convert "$t" infer-convert.atc_command
has '--input_format=ND --input_shape="input_ids:-1,-1;attention_mask:-1,-1" --dynamic_dims="1,128,1,128;4,256,4,256;8,512,8,512"' \
	"the export's command has both inputs of the model, dynamic in ND"
has "batch = 1/4/8; sequence = 128/256/512" "the example sizes are explained per symbolic dimension"
hasnt "add the shapes of the other inputs" "no input is left for the reader to add"
findings "$work/out" infer-convert.onnx_model >"$work/f.txt"
has "batch = 1/4/8; sequence = 128/256/512" "the model's inventory explains them too"
finish
