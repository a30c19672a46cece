__global__ void ROIPoolForward(const int nthreads, const float* bottom_data, float* top_data) {
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < nthreads) top_data[index] = bottom_data[index];
}
