#!/usr/bin/env bash
# Builds the crop kernels, then the Python extension around them.
CUDA_PATH=/usr/local/cuda/
NVCC="$CUDA_PATH/bin/nvcc"

cd src/cuda
echo "Compiling crop kernels by nvcc..."
nvcc -c -o crop_kernel.cu.o crop_kernel.cu \
	-x cu -Xcompiler -fPIC -arch=sm_61
$NVCC -c -o crop_grad.cu.o crop_grad.cu -x cu -Xcompiler -fPIC  # the backward pass
cd ../..
python setup.py build_ext --inplace
