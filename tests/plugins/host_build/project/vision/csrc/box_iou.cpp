#include <torch/extension.h>
at::Tensor box_iou_cpu(const at::Tensor& a, const at::Tensor& b);
#ifdef WITH_CUDA
at::Tensor box_iou_cuda(const at::Tensor& a, const at::Tensor& b);
#endif
at::Tensor box_iou(const at::Tensor& a, const at::Tensor& b) {
  if (a.is_cuda()) {
#ifdef WITH_CUDA
    return box_iou_cuda(a, b);
#else
    AT_ERROR("Not compiled with GPU support");
#endif
  }
  return box_iou_cpu(a, b);
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("box_iou", &box_iou); }
