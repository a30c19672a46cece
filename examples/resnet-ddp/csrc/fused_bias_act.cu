// leaky_relu(x + bias) over the last dimension, one thread per element.
#include <torch/extension.h>
#include <cuda_runtime.h>

template <typename T>
__global__ void bias_act_kernel(const T *x, const T *bias, T *out, int64_t n, int64_t cols, float slope) {
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = (float)x[i] + (float)bias[i % cols];
	out[i] = (T)(v > 0.f ? v : v * slope);
}

torch::Tensor forward(torch::Tensor x, torch::Tensor bias, double slope) {
	TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
	auto out = torch::empty_like(x);
	int64_t n = x.numel(), cols = x.size(-1);
	int threads = 256;
	int blocks = (int)((n + threads - 1) / threads);
	AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "bias_act", [&] {
		bias_act_kernel<scalar_t><<<blocks, threads>>>(x.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(),
		                                              out.data_ptr<scalar_t>(), n, cols, (float)slope);
	});
	return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
	m.def("forward", &forward, "leaky_relu(x + bias) (CUDA)");
}
