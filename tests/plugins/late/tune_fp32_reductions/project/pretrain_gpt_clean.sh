#!/bin/bash
# --fp16 in a comment is no flag: --fp16
torchrun --nproc_per_node 8 pretrain_gpt.py --micro-batch-size 1 --bf16 --attention-softmax-in-fp32
