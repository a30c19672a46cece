#!/bin/sh
export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True
export MULTI_STREAM_MEMORY_REUSE=2
torchrun --nproc_per_node 8 train.py
