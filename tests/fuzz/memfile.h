/* Shared by the fuzz targets whose reader takes a path: the input as a file in memory. */
#ifndef FERRY_FUZZ_MEMFILE_H
#define FERRY_FUZZ_MEMFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* Writes data to a new memfd and its path into path (64 bytes); returns the descriptor
 * for the caller to close, or -1 (then there is nothing to close). */
static inline int fuzz_memfile(char path[64], const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
