// SPDX-License-Identifier: MIT
/*
 * om_check FILE.om: prints "ok", or the first check of docs/om-format.md
 * the file fails (exit 1).  The test suites' view of a .om, kept apart
 * from libascendcl's loader.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "om_check.h"

int main(int argc, char **argv)
{
	const char *why;
	struct stat st;
	void *p;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: om_check FILE.om\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !st.st_size) {
		printf("cannot read %s\n", argv[1]);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		printf("cannot map %s\n", argv[1]);
		return 1;
	}
	why = om_check(p, (uint64_t)st.st_size);
	printf("%s\n", why ? why : "ok");
	munmap(p, (size_t)st.st_size);
	return why ? 1 : 0;
}
