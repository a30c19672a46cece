#!/bin/sh
# tune.attention_fp32 on the hand-written attentions of nanoGPT (model.py,
# CausalSelfAttention.forward without flash) and timm (vision_transformer.py, Attention
# without fused_attn), both passing the softmax through dropout before `@ v`, and on a
# direct torch.matmul(F.softmax(...), v): reported when the project trains under float16
# autocast; not under bfloat16, not where the function turns autocast off, not for a
# product whose left side is not a softmax's output.
. "$(dirname "$0")/lib.sh"
p=$work/p
mkdir -p "$p/models"
cat >"$p/models/gpt.py" <<'PY'
import math
import torch
import torch.nn.functional as F


class CausalSelfAttention(torch.nn.Module):
    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        return y
PY
cat >"$p/models/vit.py" <<'PY'
import torch


class Attention(torch.nn.Module):
    def forward(self, x):
        q, k, v = self.qkv(x).unbind(0)
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)
        x = attn @ v
        return x


def direct(s, v):
    return torch.matmul(torch.nn.functional.softmax(s, dim=-1), v)


def upcast(s, v):
    with torch.autocast(device_type="npu", enabled=False):
        p = s.float().softmax(dim=-1)
        return p @ v.float()


def linear_attention(q, k, v):
    kv = k.transpose(-2, -1) @ v
    return q @ kv
PY
# shapes a review found wrongly reported or missed (Megatron's bmm on a view, diffusers'
# get_attention_scores; a softmax_scale factor, custom_fwd in FP32, a later autocast-off
# block, a name reused for another product)
cat >"$p/models/more.py" <<'PY'
import torch
import torch.nn.functional as F


def scaled_q(self, q, k):
    q = q * self.softmax_scale
    return q @ k.transpose(-2, -1)


def megatron_style(self, attention_probs, value_layer, n):
    attention_probs = F.softmax(attention_probs, dim=-1)
    return torch.bmm(attention_probs.view(n, n, -1), value_layer.transpose(0, 1))


@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
def custom_fwd_style(q, k, v):
    attn = (q @ k.transpose(-2, -1)).softmax(-1)
    return attn @ v


def other_block(q, k, v):
    attn = (q @ k.transpose(-2, -1)).softmax(-1)
    out = attn @ v
    with torch.autocast("cuda", enabled=False):
        stats = out.float().var()
    return out, stats


def diffusers_style(attn, query, key, value, attention_mask):
    attention_probs = attn.get_attention_scores(query, key, attention_mask)
    return torch.bmm(attention_probs, value)


def reused(x, w, v):
    p = F.softmax(x, -1) @ w
    return p @ v
PY
write_train() {
	cat >"$p/train.py" <<PY
import torch
from models.gpt import CausalSelfAttention

model = CausalSelfAttention()
opt = torch.optim.AdamW(model.parameters())
scaler = torch.cuda.amp.GradScaler()
for x, y in []:
    with torch.autocast(device_type="cuda", dtype=torch.$1):
        loss = model(x).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
PY
}
write_train float16
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check --plugin tune.attention_fp32 >/dev/null 2>&1
"$FERRY" -C "$p" findings --plugin tune.attention_fp32 --status open --format json >"$work/f.json"
check_has warning "\`att @ v\` multiplies the attention's softmax output with V in float16" "nanoGPT's att @ v, through dropout, is reported"
check_has warning "float16 autocast (train.py:8)" "the finding names the float16 region"
check_has warning "\`attn @ v\` multiplies" "timm's attn @ v is reported"
check_has warning "\`torch.matmul(torch.nn.functional.softmax(s, dim=-1), v)\`" "a softmax passed straight to torch.matmul is reported"
check_has warning "y = att.float() @ v.float()" "the fix turns autocast off and upcasts both sides"
lines=$(python3 -c 'import json,sys; print(" ".join(sorted("%s:%d" % (f["file"], f["line"]) for f in json.load(open(sys.argv[1]))["findings"])))' "$work/f.json")
[ "$lines" = "models/gpt.py:14 models/more.py:12 models/more.py:23 models/more.py:31 models/more.py:35 models/vit.py:11 models/vit.py:16" ] &&
	ok "at the products' lines; a softmax_scale factor, custom_fwd, autocast off and a reused name are not reported" || fail "lines: $lines"

write_train bfloat16
"$FERRY" -C "$p" check --plugin tune.attention_fp32 >/dev/null 2>&1
"$FERRY" -C "$p" findings --plugin tune.attention_fp32 --status open --format json >"$work/f.json"
n=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"]; print(sum(x["severity"] == "info" for x in f), sum(x["severity"] != "info" for x in f))' "$work/f.json")
[ "$n" = "7 0" ] && ok "under bfloat16 the same products are information" || fail "bfloat16 training gives (info, other) $n"
check_has info "in bfloat16: the project trains in bfloat16 (train.py:8)" "the bfloat16 finding names the region"

# timm's train.py makes autocast a partial with float16 as its default dtype; a test's
# bfloat16 region is not how the project trains
mkdir -p "$p/tests"
printf 'import torch\n\ndef test_resample():\n    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):\n        w = torch.randn(2, 2)\n    w.sum().backward()\n' >"$p/tests/test_layers.py"
cat >"$p/train.py" <<'PY'
import torch
from functools import partial

amp_dtype = torch.float16
amp_autocast = partial(torch.autocast, device_type="cuda", dtype=amp_dtype)
PY
"$FERRY" -C "$p" check --plugin tune.attention_fp32 >/dev/null 2>&1
"$FERRY" -C "$p" findings --plugin tune.attention_fp32 --status open --format json >"$work/f.json"
check_has warning "float16 autocast (train.py:5)" "timm's autocast partial with float16 is float16 training; its tests are not"

# no autocast in the code: Lightning's precision says it
rm "$p/train.py"
printf 'import lightning as L\ntrainer = L.Trainer(accelerator="auto", precision="16-mixed")\n' >"$p/fit.py"
"$FERRY" -C "$p" check --plugin tune.attention_fp32 >/dev/null 2>&1
"$FERRY" -C "$p" findings --plugin tune.attention_fp32 --status open --format json >"$work/f.json"
check_has warning "float16 autocast (fit.py:2)" "Lightning's 16-mixed precision is float16 training"
finish
