#!/bin/bash
# GPT pretraining on 8 cards, fp16 (an older launch script)
GPUS_PER_NODE=8
GPT_ARGS="
    --tensor-model-parallel-size 2 \
    --pipeline-model-parallel-size 1 \
    --num-layers 24 \
    --hidden-size 1024 \
    --num-attention-heads 16 \
    --micro-batch-size 4 \
    --global-batch-size 64 \
    --lr 0.00015 \
    --fp16 \
    --fp16-lm-cross-entropy
"
torchrun --nproc_per_node $GPUS_PER_NODE pretrain_gpt.py $GPT_ARGS --distributed-backend nccl
