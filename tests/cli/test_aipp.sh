#!/bin/sh
# infer-convert.aipp: the image pre-processing of a project becomes scripts/aipp.cfg, a
# static AIPP configuration whose numbers reproduce torchvision's ToTensor + Normalize on
# uint8 pixels ((p - min_chn) * var_reci_chn == (p / 255 - mean) / std), written by
# `ferry fix` as one checkpoint and never over an existing file; OpenCV input without a
# conversion is said to be BGR; a Normalize already in pixel units is not scaled again.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

p="$work/p"
cp -R "$top/tests/plugins/late/infer_aipp/project" "$p"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" check --plugin infer-convert.aipp >/dev/null 2>&1
expect_exit 0 "the AIPP configuration is applied" -- "$FERRY" -C "$p" fix --plugin infer-convert.aipp --yes
expect_grep "1 checkpoint" "$work/out" "as one checkpoint"
python3 - "$p/scripts/aipp.cfg" <<'PY' && ok "AIPP's arithmetic on 0..255 pixels equals (p/255 - mean)/std for each channel" || fail "aipp numbers: $(cat "$p/scripts/aipp.cfg")"
import re, sys
cfg = open(sys.argv[1]).read()
v = dict(re.findall(r"^\s*(\w+)\s*:\s*(\S+)", cfg, re.M))
assert v["aipp_mode"] == "static" and v["input_format"] == "RGB888_U8", v
assert v["src_image_size_w"] == "224" and v["src_image_size_h"] == "224", v
mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
for i in range(3):
    for p in (0, 17, 128, 255):
        aipp = (p - float(v["mean_chn_%d" % i]) - float(v["min_chn_%d" % i])) * float(v["var_reci_chn_%d" % i])
        torch_like = (p / 255 - mean[i]) / std[i]
        assert abs(aipp - torch_like) < 1e-6, (i, p, aipp, torch_like)
PY
echo "# the consultant's own" >"$p/scripts/aipp.cfg"
"$FERRY" -C "$p" check --plugin infer-convert.aipp >"$work/again" 2>&1
grep -q "infer-convert.aipp" "$work/again" && fail "offered again over an existing scripts/aipp.cfg" ||
	ok "an existing scripts/aipp.cfg is never overwritten (no finding)"

# OpenCV input, Normalize in pixel units
q="$work/q"
mkdir -p "$q"
cat >"$q/infer.py" <<'PY'
import cv2
import numpy as np
import torch
from torchvision.transforms import Normalize

norm = Normalize([123.675, 116.28, 103.53], [58.395, 57.12, 57.375])


def prepare(path):
    img = cv2.resize(cv2.imread(path), (320, 320))
    return norm(torch.from_numpy(img).permute(2, 0, 1).float())
PY
"$FERRY" init "$q" >/dev/null
# nothing in this code points to inference by itself (no export, no inference SoC): the
# client's decision to plan it is what makes the AIPP configuration worth offering
"$FERRY" -C "$q" config design.migration_plan.inference yes >/dev/null
"$FERRY" -C "$q" check --plugin infer-convert.aipp >"$work/q.txt" 2>&1
expect_grep "BGR images" "$work/q.txt" "OpenCV input without a conversion to RGB is BGR"
# the code does not give the input size (cv2.resize's size is no CenterCrop or Resize): the
# finding says so and the configuration holds marked placeholders, never a bare "?"
"$FERRY" -C "$q" findings --plugin infer-convert.aipp --format json >"$work/q.json"
python3 - "$work/q.json" <<'PY' && ok "an unknown input size is said in words: fill in src_image_size_w/h" || fail "unknown size: $(cat "$work/q.json")"
import json, re, sys
f = json.load(open(sys.argv[1]))["findings"][0]
text = f["message"] + " " + f["suggestion"]
assert not re.search(r"(^|[\s(\[,])\?($|[\s)\],.])", text), text
assert "not found in the code" in text and "src_image_size_w" in text and "src_image_size_h" in text, text
PY
"$FERRY" -C "$q" fix --plugin infer-convert.aipp --yes >/dev/null 2>&1
grep -q "^    src_image_size_w : <width>" "$q/scripts/aipp.cfg" && grep -q "^    src_image_size_h : <height>" "$q/scripts/aipp.cfg" &&
	grep -q "FILL IN" "$q/scripts/aipp.cfg" && ok "the configuration marks the width and height to fill in" ||
	fail "placeholders: $(cat "$q/scripts/aipp.cfg")"
python3 - "$q/scripts/aipp.cfg" <<'PY' && ok "a Normalize in pixel units is used as it is (min_chn = mean, var_reci = 1/std)" || fail "pixel units: $(cat "$q/scripts/aipp.cfg")"
import re, sys
v = dict(re.findall(r"^\s*(\w+)\s*:\s*(\S+)", open(sys.argv[1]).read(), re.M))
assert abs(float(v["min_chn_0"]) - 123.675) < 1e-6, v
assert abs(float(v["var_reci_chn_0"]) - 1 / 58.395) < 1e-9, v
PY
expect_exit 0 "the engagement verifies after the fixes" -- "$FERRY" -C "$q" verify
finish
