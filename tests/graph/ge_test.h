/* SPDX-License-Identifier: MIT */
/*
 * A TAP harness for the C++ graph tests, in the kselftest harness's
 * spirit (whose header is C only): TEST(name) registers a case, EXPECT_*
 * records a failure and goes on, ASSERT_* ends the case.  The cases run
 * in order, in one process; "ok N - name" or "not ok N - name" each.
 */
#ifndef GE_TEST_H
#define GE_TEST_H

#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

struct GeTestCase {
	const char *name;
	void (*fn)(bool &failed);
};

static inline std::vector<GeTestCase> &ge_tests()
{
	static std::vector<GeTestCase> tests;
	return tests;
}

struct GeTestRegister {
	GeTestRegister(const char *name, void (*fn)(bool &)) { ge_tests().push_back({name, fn}); }
};

struct GeTestAbort {};

#define TEST(name)                                                             \
	static void ge_test_##name(bool &ge_failed_);                          \
	static GeTestRegister ge_test_reg_##name(#name, ge_test_##name);       \
	static void ge_test_##name(bool &ge_failed_)

#define GE_CHECK_(cond, desc, fatal)                                           \
	do {                                                                   \
		if (!(cond)) {                                                 \
			std::printf("# %s:%d: %s\n", __FILE__, __LINE__, desc); \
			ge_failed_ = true;                                     \
			if (fatal)                                             \
				throw GeTestAbort();                           \
		}                                                              \
	} while (0)

#define GE_CMP_(a, op, b, fatal)                                               \
	do {                                                                   \
		auto ge_a_ = (a);                                              \
		auto ge_b_ = (b);                                              \
		if (!(ge_a_ op ge_b_)) {                                       \
			std::ostringstream ge_s_;                              \
			ge_s_ << #a " " #op " " #b ": " << ge_a_ << " vs " << ge_b_; \
			GE_CHECK_(false, ge_s_.str().c_str(), fatal);          \
		}                                                              \
	} while (0)

#define EXPECT_TRUE(c) GE_CHECK_((c), #c, false)
#define ASSERT_TRUE(c) GE_CHECK_((c), #c, true)
#define EXPECT_EQ(a, b) GE_CMP_(a, ==, b, false)
#define ASSERT_EQ(a, b) GE_CMP_(a, ==, b, true)
#define EXPECT_NE(a, b) GE_CMP_(a, !=, b, false)
#define EXPECT_LE(a, b) GE_CMP_(a, <=, b, false)
#define ASSERT_LE(a, b) GE_CMP_(a, <=, b, true)

/* A message, printed as a TAP comment. */
#define TH_LOG(...)                                                            \
	do {                                                                   \
		std::printf("# ");                                             \
		std::printf(__VA_ARGS__);                                      \
		std::printf("\n");                                             \
	} while (0)

static inline int ge_test_main()
{
	int failed = 0, n = 0;

	std::setvbuf(stdout, nullptr, _IOLBF, 0);
	std::printf("TAP version 13\n1..%zu\n", ge_tests().size());
	for (auto &t : ge_tests()) {
		bool f = false;

		n++;
		try {
			t.fn(f);
		} catch (GeTestAbort &) {
			f = true;
		}
		std::printf("%s %d - %s\n", f ? "not ok" : "ok", n, t.name);
		failed += f;
	}
	std::printf("# %d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}

#endif /* GE_TEST_H */
