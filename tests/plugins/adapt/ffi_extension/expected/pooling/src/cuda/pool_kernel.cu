__global__ void pool_kernel(const float *in, float *out) { out[0] = in[0]; }
