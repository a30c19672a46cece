#!/bin/bash
# Uses CUDA_VISIBLE_DEVICES=0,1 by default; nccl backend.
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0,1}
CUDA_VISIBLE_DEVICES=0,1 python train.py --backend nccl   # CUDA_VISIBLE_DEVICES in a comment
echo "visible: $CUDA_VISIBLE_DEVICES (set CUDA_VISIBLE_DEVICES to change)"
unset CUDA_LAUNCH_BLOCKING
env CUDA_VISIBLE_DEVICES=2 python other.py
