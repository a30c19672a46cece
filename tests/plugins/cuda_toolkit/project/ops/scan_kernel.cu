// Inclusive prefix sum of one block.
__global__ void scan(float *x, int n) {
    for (int s = 1; s < n; s <<= 1) {
        float v = threadIdx.x >= s ? x[threadIdx.x - s] : 0;
        __syncthreads();
        x[threadIdx.x] += v;
        __syncthreads();
    }
}
