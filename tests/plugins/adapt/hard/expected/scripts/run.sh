#!/bin/bash
# Uses CUDA_VISIBLE_DEVICES=0,1 by default; nccl backend.
export ASCEND_RT_VISIBLE_DEVICES=${ASCEND_RT_VISIBLE_DEVICES:-0,1}
ASCEND_RT_VISIBLE_DEVICES=0,1 python train.py --backend hccl   # CUDA_VISIBLE_DEVICES in a comment
echo "visible: $ASCEND_RT_VISIBLE_DEVICES (set CUDA_VISIBLE_DEVICES to change)"
unset ASCEND_LAUNCH_BLOCKING
env ASCEND_RT_VISIBLE_DEVICES=2 python other.py
