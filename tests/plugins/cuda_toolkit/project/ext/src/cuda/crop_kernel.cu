// Copies a window of each feature map.
__global__ void crop_forward(const float *in, float *out, int w, int h, int x0, int y0, int cw, int ch) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cw * ch) return;
    out[i] = in[(y0 + i / cw) * w + x0 + i % cw];
}
