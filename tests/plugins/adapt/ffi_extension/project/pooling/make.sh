#!/bin/sh
# Compiles the pooling kernel, then the cffi wrapper around it.
cd src/cuda
echo "Compiling pooling kernels by nvcc..."
nvcc -c -o pool_kernel.cu.o pool_kernel.cu -x cu -Xcompiler -fPIC -arch=sm_52
cd ../..
python build.py
