/*
 * accel — which accelerator a free text names: an artifact's label, a benchmark's label or
 * hardware. The words of NVIDIA GPUs and of Ascend NPUs count each as a word of its own
 * ("8 NPUs", "gpu0", "Ascend910B", "npu_run"; not "input", not "ascending"). No state,
 * no allocation.
 */
#ifndef FERRY_ACCEL_H
#define FERRY_ACCEL_H

enum { ACCEL_GPU = 1, ACCEL_NPU = 2 };

/* ACCEL_GPU, ACCEL_NPU, both or'ed, or 0 for a text naming neither (or NULL). */
int accel_named(const char *text);

#endif
