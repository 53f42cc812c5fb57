/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Reading and writing the one-line text files of sysfs, debugfs and
 * /proc, shared by the driver and library tests.
 */
#ifndef TEXT_FILE_H
#define TEXT_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Reads @path into @buf, without its trailing newline; 0 or -errno. */
static inline int text_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* Writes @val to @path in one write; 0 or -errno. */
static inline int text_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

#endif /* TEXT_FILE_H */
