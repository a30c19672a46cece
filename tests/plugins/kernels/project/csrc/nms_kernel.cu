// Greedy non-maximum suppression over boxes (x1, y1, x2, y2, score), one bit mask per block.
__device__ inline float box_iou(float const * const a, float const * const b) {
  float left = fmaxf(a[0], b[0]), right = fminf(a[2], b[2]);
  float top = fmaxf(a[1], b[1]), bottom = fminf(a[3], b[3]);
  float w = fmaxf(right - left + 1, 0.f), h = fmaxf(bottom - top + 1, 0.f);
  float inter = w * h;
  float area_a = (a[2] - a[0] + 1) * (a[3] - a[1] + 1);
  float area_b = (b[2] - b[0] + 1) * (b[3] - b[1] + 1);
  return inter / (area_a + area_b - inter);
}
