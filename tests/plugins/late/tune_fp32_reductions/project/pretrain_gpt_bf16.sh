#!/bin/bash
# bf16 with fp32 softmax (as the MindSpeed example), but gradients reduced in bf16
torchrun --nproc_per_node 8 pretrain_gpt.py \
    --tensor-model-parallel-size 8 \
    --micro-batch-size 1 \
    --bf16 \
    --attention-softmax-in-fp32 \
    --grad-reduce-in-bf16
