__global__ void alignment_train_kernel() {}
