/* SPDX-License-Identifier: MIT */
/* Socket I/O with deadlines, shared by the bootstrap and the peer sockets. */
#ifndef HCCL_BOOTSTRAP_IO_H
#define HCCL_BOOTSTRAP_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int64_t hccl_now_ms(void);
/* All len bytes in or out by deadline_ms: 0 or a negative errno. */
int hccl_io_full(int fd, void *buf, size_t len, bool out, int64_t deadline_ms);

#endif
