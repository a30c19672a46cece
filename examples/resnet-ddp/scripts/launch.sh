#!/bin/sh
# Launch DDP training on the GPUs of one node.
# Usage: scripts/launch.sh [NUM_GPUS]   (uses CUDA_VISIBLE_DEVICES if set)
set -eu
cd "$(dirname "$0")/.."
ngpus=${1:-2}
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0,1}
export NCCL_DEBUG=WARN
export NCCL_SOCKET_IFNAME=eth0
export TORCH_NCCL_ASYNC_ERROR_HANDLING=1
torchrun --standalone --nproc_per_node="$ngpus" train.py --cuda --amp --backend nccl "$@"
