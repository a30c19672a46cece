// Scatters the gradient of a window back into the feature map.
__global__ void crop_backward(const float *grad, float *in_grad, int w, int x0, int y0, int cw, int ch) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cw * ch) return;
    atomicAdd(&in_grad[(y0 + i / cw) * w + x0 + i % cw], grad[i]);
}
