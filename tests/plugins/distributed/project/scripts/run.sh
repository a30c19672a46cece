#!/bin/bash
# Set CUDA_VISIBLE_DEVICES before launching; NCCL_DEBUG=INFO helps debugging.
export CUDA_VISIBLE_DEVICES=0,1,2,3
export NCCL_DEBUG=INFO   # verbose NCCL_P2P_DISABLE stays commented
export NCCL_IB_DISABLE=1
export TORCH_NCCL_BLOCKING_WAIT=1
export MY_CUDA_VISIBLE_DEVICES_COPY=1
echo "devices: $CUDA_VISIBLE_DEVICES"
torchrun --nproc_per_node=4 dist_train.py --backend nccl
