// SPDX-License-Identifier: MIT
/*
 * libc_sec. The checks come first, in the order the vendor's library
 * makes them: destination, capacity, source, then sizes and overlap.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "securec.h"

#define SEC_EXPORT __attribute__((visibility("default")))

static bool sec_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
	uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;

	return pa < pb + blen && pb < pa + alen;
}

static errno_t sec_mem_dest_bad(const void *dest, size_t destMax)
{
	if (!dest || !destMax)
		return EINVAL;
	return destMax > SECUREC_MEM_MAX_LEN ? ERANGE : EOK;
}

SEC_EXPORT errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
	errno_t bad = sec_mem_dest_bad(dest, destMax);

	if (bad)
		return bad;
	if (count > destMax) {
		memset(dest, c, destMax);
		return ERANGE_AND_RESET;
	}
	memset(dest, c, count);
	return EOK;
}

static errno_t sec_copy_check(void *dest, size_t destMax, const void *src, size_t count)
{
	errno_t bad = sec_mem_dest_bad(dest, destMax);

	if (bad)
		return bad;
	if (!src) {
		memset(dest, 0, destMax);
		return EINVAL_AND_RESET;
	}
	if (count > destMax) {
		memset(dest, 0, destMax);
		return ERANGE_AND_RESET;
	}
	return EOK;
}

SEC_EXPORT errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
	errno_t bad = sec_copy_check(dest, destMax, src, count);

	if (bad)
		return bad;
	if (dest == src || !count)
		return EOK;
	if (sec_overlap(dest, count, src, count)) {
		memset(dest, 0, destMax);
		return EOVERLAP_AND_RESET;
	}
	memcpy(dest, src, count);
	return EOK;
}

SEC_EXPORT errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count)
{
	errno_t bad = sec_copy_check(dest, destMax, src, count);

	if (bad)
		return bad;
	memmove(dest, src, count);
	return EOK;
}

static errno_t sec_str_dest_bad(const char *dest, size_t destMax)
{
	if (!dest || !destMax)
		return EINVAL;
	return destMax > SECUREC_STRING_MAX_LEN ? ERANGE : EOK;
}

/* Appends at most count bytes of src to dest's first used bytes. */
static errno_t sec_str_put(char *dest, size_t destMax, size_t used, const char *src,
			   size_t count)
{
	size_t n;

	if (!src) {
		dest[0] = '\0';
		return EINVAL_AND_RESET;
	}
	if (used >= destMax) {
		dest[0] = '\0';
		return EINVAL_AND_RESET;
	}
	n = strnlen(src, count);
	if (n >= destMax - used) {
		dest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	if (sec_overlap(dest, destMax, src, n + 1)) {
		dest[0] = '\0';
		return EOVERLAP_AND_RESET;
	}
	memcpy(dest + used, src, n);
	dest[used + n] = '\0';
	return EOK;
}

SEC_EXPORT errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc)
{
	errno_t bad = sec_str_dest_bad(strDest, destMax);

	return bad ? bad : sec_str_put(strDest, destMax, 0, strSrc, SECUREC_STRING_MAX_LEN);
}

SEC_EXPORT errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
	errno_t bad = sec_str_dest_bad(strDest, destMax);

	if (bad)
		return bad;
	if (count > SECUREC_STRING_MAX_LEN) {
		strDest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	return sec_str_put(strDest, destMax, 0, strSrc, count);
}

SEC_EXPORT errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc)
{
	errno_t bad = sec_str_dest_bad(strDest, destMax);

	return bad ? bad : sec_str_put(strDest, destMax, strnlen(strDest, destMax), strSrc,
				       SECUREC_STRING_MAX_LEN);
}

SEC_EXPORT errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
	errno_t bad = sec_str_dest_bad(strDest, destMax);

	if (bad)
		return bad;
	if (count > SECUREC_STRING_MAX_LEN) {
		strDest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	return sec_str_put(strDest, destMax, strnlen(strDest, destMax), strSrc, count);
}

SEC_EXPORT int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format,
			   va_list argList)
{
	size_t room;
	int n;

	if (sec_str_dest_bad(strDest, destMax) || !format)
		return -1;
	room = count < destMax ? count + 1 : destMax;
	n = vsnprintf(strDest, room, format, argList);
	if (n < 0 || (size_t)n < room)
		return n < 0 ? (strDest[0] = '\0', -1) : n;
	/* Cut short: by count the text stays, past destMax it goes. */
	if (count >= destMax)
		strDest[0] = '\0';
	return -1;
}

SEC_EXPORT int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
{
	va_list ap;
	int n;

	va_start(ap, format);
	n = vsnprintf_s(strDest, destMax, count, format, ap);
	va_end(ap);
	return n;
}

SEC_EXPORT int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
{
	return vsnprintf_s(strDest, destMax, destMax, format, argList);
}

SEC_EXPORT int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
{
	va_list ap;
	int n;

	va_start(ap, format);
	n = vsprintf_s(strDest, destMax, format, ap);
	va_end(ap);
	return n;
}
