// Overlap of two boxes (x1, y1, x2, y2) for the GPU NMS.
__device__ inline float overlap(float const * const a, float const * const b) {
  float w = fmaxf(fminf(a[2], b[2]) - fmaxf(a[0], b[0]), 0.f);
  float h = fmaxf(fminf(a[3], b[3]) - fmaxf(a[1], b[1]), 0.f);
  return w * h;
}
