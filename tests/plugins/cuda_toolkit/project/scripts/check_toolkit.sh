#!/bin/sh
# Prints the toolkit version the build will use.
if command -v nvcc >/dev/null 2>&1; then
	nvcc --version | tail -n 1
else
	echo "no nvcc on the PATH"
fi
