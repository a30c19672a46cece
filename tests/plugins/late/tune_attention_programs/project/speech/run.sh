#!/bin/sh
cd "$(dirname "$0")"
python train.py \
    --fp16
