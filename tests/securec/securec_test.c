// SPDX-License-Identifier: MIT
/*
 * libc_sec: each function's result and what it leaves in the destination,
 * in the normal case and for each violation the vendor's library reports.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "securec.h"

TEST(memset_fills_count_bytes)
{
	char b[8] = "abcdefg";

	ASSERT_EQ(EOK, memset_s(b, sizeof(b), 'x', 3));
	ASSERT_EQ(0, memcmp(b, "xxxdefg", 8));
}

TEST(memset_past_capacity_fills_capacity)
{
	char b[10] = "abcdefghi";

	ASSERT_EQ(ERANGE_AND_RESET, memset_s(b, 4, 0, 9));
	ASSERT_EQ(0, memcmp(b, "\0\0\0\0efghi", 10));
}

TEST(memset_refuses_no_destination)
{
	char b[4];

	ASSERT_EQ(EINVAL, memset_s(NULL, 4, 0, 1));
	ASSERT_EQ(EINVAL, memset_s(b, 0, 0, 1));
	ASSERT_EQ(ERANGE, memset_s(b, (size_t)-1, 0, 1));
}

TEST(memcpy_copies_and_resets_on_violation)
{
	char d[6] = "zzzzz", s[6] = "hello";

	ASSERT_EQ(EOK, memcpy_s(d, sizeof(d), s, 6));
	ASSERT_STREQ("hello", d);
	ASSERT_EQ(ERANGE_AND_RESET, memcpy_s(d, 4, s, 6));
	ASSERT_EQ(0, memcmp(d, "\0\0\0\0o", 6));
	memcpy(d, "hello", 6);
	ASSERT_EQ(EINVAL_AND_RESET, memcpy_s(d, sizeof(d), NULL, 2));
	ASSERT_EQ(0, d[0]);
}

TEST(memcpy_refuses_overlap_memmove_takes_it)
{
	char b[16] = "0123456789";

	ASSERT_EQ(EOVERLAP_AND_RESET, memcpy_s(b + 2, 8, b, 4));
	ASSERT_EQ(0, b[2]);
	memcpy(b, "0123456789", 11);
	ASSERT_EQ(EOK, memmove_s(b + 2, 8, b, 4));
	ASSERT_STREQ("0101236789", b);
}

TEST(strcpy_fits_or_resets)
{
	char d[6];

	ASSERT_EQ(EOK, strcpy_s(d, sizeof(d), "hello"));
	ASSERT_STREQ("hello", d);
	ASSERT_EQ(ERANGE_AND_RESET, strcpy_s(d, sizeof(d), "hello!"));
	ASSERT_STREQ("", d);
	ASSERT_EQ(EINVAL, strcpy_s(NULL, 4, "a"));
	ASSERT_EQ(EINVAL_AND_RESET, strcpy_s(d, sizeof(d), NULL));
}

TEST(strncpy_takes_at_most_count)
{
	char d[4];

	ASSERT_EQ(EOK, strncpy_s(d, sizeof(d), "abcdef", 3));
	ASSERT_STREQ("abc", d);
	ASSERT_EQ(ERANGE_AND_RESET, strncpy_s(d, sizeof(d), "abcdef", 4));
	ASSERT_STREQ("", d);
}

TEST(strcat_appends_or_resets)
{
	char d[8] = "ab";

	ASSERT_EQ(EOK, strcat_s(d, sizeof(d), "cde"));
	ASSERT_STREQ("abcde", d);
	ASSERT_EQ(EOK, strncat_s(d, sizeof(d), "fghij", 2));
	ASSERT_STREQ("abcdefg", d);
	ASSERT_EQ(ERANGE_AND_RESET, strcat_s(d, sizeof(d), "h"));
	ASSERT_STREQ("", d);
}

TEST(sprintf_counts_or_fails)
{
	char d[8];

	ASSERT_EQ(5, sprintf_s(d, sizeof(d), "%d-%s", 12, "ab"));
	ASSERT_STREQ("12-ab", d);
	ASSERT_EQ(-1, sprintf_s(d, sizeof(d), "%s", "too long!"));
	ASSERT_STREQ("", d);
}

TEST(snprintf_truncates_at_count_keeps_text)
{
	char d[10];

	ASSERT_EQ(-1, snprintf_s(d, sizeof(d), 5, "%s", "abcdefgh"));
	ASSERT_STREQ("abcde", d);
	ASSERT_EQ(3, snprintf_s(d, sizeof(d), 5, "%s", "abc"));
	ASSERT_STREQ("abc", d);
	ASSERT_EQ(-1, snprintf_s(d, 4, 9, "%s", "abcdefgh"));
	ASSERT_STREQ("", d);
}

TEST_HARNESS_MAIN
