// CPU kernel of the monotonic alignment (placeholder source for the build)
int alignment_train_cpu() { return 0; }
