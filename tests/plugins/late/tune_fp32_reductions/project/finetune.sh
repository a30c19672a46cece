#!/bin/sh
# not a Megatron launch: a script of its own whose --fp16 means what train.py says
python train.py --fp16 --epochs 3
