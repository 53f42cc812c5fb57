/* SPDX-License-Identifier: MIT */
/*
 * libc_sec: the bounds-checked string and memory functions (memcpy_s and
 * the rest) that the vendor's toolkit ships and its samples link. Each
 * takes the destination's capacity; on a violation it leaves the
 * destination reset (zeroed, or an empty string) and says why.
 */
#ifndef SECUREC_H
#define SECUREC_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef EOK
#define EOK 0
#endif
typedef int errno_t;

/* The destination was reset because of the violation. */
#define SECUREC_RESET_FLAG		0x80
#define EINVAL_AND_RESET		(EINVAL | SECUREC_RESET_FLAG)
#define ERANGE_AND_RESET		(ERANGE | SECUREC_RESET_FLAG)
#define EOVERLAP_AND_RESET		(54 | SECUREC_RESET_FLAG)

/* Larger capacities are taken for negative numbers gone unsigned. */
#define SECUREC_MEM_MAX_LEN		0x7fffffffUL
#define SECUREC_STRING_MAX_LEN		0x7fffffffUL

errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count);
errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count);
errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);
errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);
errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
/* The formatting ones return the characters written, or -1. */
int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
	__attribute__((format(printf, 3, 0)));
int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format,
		va_list argList) __attribute__((format(printf, 4, 0)));

#ifdef __cplusplus
}
#endif

#endif /* SECUREC_H */
