// C++ binding (not CUDA source)
int binding_marker = 1;
