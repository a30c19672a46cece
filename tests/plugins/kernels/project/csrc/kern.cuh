#pragma once
__global__ void add_one(float *x, int n);
