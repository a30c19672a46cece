#include <cuda_runtime_api.h>

namespace vision {
int get_cudart_version() { return CUDART_VERSION; }
}  // namespace vision
