// SPDX-License-Identifier: MIT
/*
 * aclInit/aclFinalize reference counting, the JSON configuration, error
 * reporting (aclGetRecentErrMsg, aclrtGetLastError), version and the base
 * helpers (data buffers, fp16, data type sizes).
 */
#include "acl_test.h"
#include "kselftest_harness.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* aclInit with a configuration file holding text; -1 if it cannot be written. */
static aclError init_with(const char *text)
{
	char path[] = "/tmp/acl-config-XXXXXX";
	ssize_t len = (ssize_t)strlen(text);
	aclError r = -1;
	int fd;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, text, (size_t)len) == len)
		r = aclInit(path);
	close(fd);
	unlink(path);
	return r;
}

TEST(init_refcount)
{
	uint64_t refs = 99;

	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	EXPECT_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
	EXPECT_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
	ASSERT_EQ(ACL_SUCCESS, aclFinalizeReference(&refs));
	EXPECT_EQ(2, refs);
	ASSERT_EQ(ACL_SUCCESS, aclFinalizeReference(&refs));
	EXPECT_EQ(1, refs);
	ASSERT_EQ(ACL_SUCCESS, aclFinalizeReference(NULL));
	EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(&refs));
	EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
}

TEST(finalize_drops_all_references)
{
	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	EXPECT_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
	ASSERT_EQ(ACL_SUCCESS, aclFinalize());
	EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
	/* init -> work -> finalize -> init again */
	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclFinalize());
	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclFinalize());
}

TEST(finalize_releases_devices)
{
	aclrtContext ctx;
	void *p;

	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(ACL_SUCCESS, aclFinalize());
	/* the thread's context went with it */
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&ctx));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtFree(p));
}

TEST(config_empty_and_valid)
{
	EXPECT_EQ(ACL_SUCCESS, init_with(""));
	EXPECT_EQ(ACL_SUCCESS, aclFinalize());
	EXPECT_EQ(ACL_SUCCESS, init_with("{}"));
	EXPECT_EQ(ACL_SUCCESS, aclFinalize());
	EXPECT_EQ(ACL_SUCCESS, init_with("{\"dump\": {\"dump_path\": \"/tmp\", \"dump_list\": []},"
					 " \"err_msg_mode\": \"1\"}\n"));
	EXPECT_EQ(ACL_SUCCESS, aclFinalize());
}

TEST(config_errors)
{
	EXPECT_EQ(ACL_ERROR_INVALID_FILE, aclInit("/nonexistent/acl.json"));
	EXPECT_NE(NULL, aclGetRecentErrMsg());
	EXPECT_EQ(ACL_ERROR_INVALID_FILE, aclInit("/tmp"));
	EXPECT_EQ(ACL_ERROR_PARSE_FILE, init_with("{\"dump\": "));
	EXPECT_EQ(ACL_ERROR_PARSE_FILE, init_with("[1, 2, 3]"));
	/* a valid object followed by more text is not a JSON file */
	EXPECT_EQ(ACL_ERROR_PARSE_FILE, init_with("{} {}"));
	EXPECT_EQ(ACL_ERROR_PARSE_FILE, init_with("{\"err_msg_mode\": \"1\"} x"));
	/* deeper than 10 levels */
	EXPECT_EQ(ACL_ERROR_PARSE_FILE,
		  init_with("{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
			    "{\"a\":{\"a\":{}}}}}}}}}}}}"));
	EXPECT_EQ(ACL_ERROR_FILE_ATTR_INVALID,
		  init_with("{\"defaultDevice\": {\"default_device\": \"x\"}}"));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID,
		  init_with("{\"defaultDevice\": {\"default_device\": \"15\"}}"));
	/* nothing initialized by the failures */
	EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
}

TEST(config_default_device)
{
	aclrtStream s;
	int32_t dev = -1;

	ASSERT_EQ(ACL_SUCCESS, init_with("{\"defaultDevice\": {\"default_device\": \"0\"}}"));
	/* no aclrtSetDevice: the default device is used */
	ASSERT_EQ(ACL_SUCCESS, aclrtGetDevice(&dev));
	EXPECT_EQ(0, dev);
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	ASSERT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	ASSERT_EQ(ACL_SUCCESS, aclFinalize());
}

TEST(error_messages)
{
	const char *msg;

	ASSERT_TRUE(acl_ok_init());
	/* consume anything pending */
	aclGetRecentErrMsg();
	EXPECT_EQ(NULL, aclGetRecentErrMsg());
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(1000));
	msg = aclGetRecentErrMsg();
	ASSERT_NE(NULL, msg);
	EXPECT_NE(NULL, strstr(msg, "1000"));
	TH_LOG("message: %s", msg);
	/* read once */
	EXPECT_EQ(NULL, aclGetRecentErrMsg());

	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError((aclrtLastErrLevel)7));
	aclFinalize();
}

static void *other_thread_msg(void *arg)
{
	(void)arg;
	/* errors of another thread are not ours */
	return (void *)aclGetRecentErrMsg();
}

TEST(error_messages_per_thread)
{
	pthread_t th;
	void *res = (void *)1;

	ASSERT_TRUE(acl_ok_init());
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
	ASSERT_EQ(0, pthread_create(&th, NULL, other_thread_msg, NULL));
	pthread_join(th, &res);
	EXPECT_EQ(NULL, res);
	EXPECT_NE(NULL, aclGetRecentErrMsg());
	aclFinalize();
}

TEST(version_and_soc)
{
	int32_t a, b, c;

	EXPECT_EQ(ACL_SUCCESS, aclrtGetVersion(&a, &b, &c));
	EXPECT_EQ(ACL_MAJOR_VERSION, a);
	EXPECT_EQ(ACL_MINOR_VERSION, b);
	EXPECT_EQ(ACL_PATCH_VERSION, c);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(NULL, &b, &c));
	ASSERT_TRUE(acl_ok_init());
	EXPECT_NE(NULL, aclrtGetSocName());
	aclFinalize();
}

TEST(data_buffer)
{
	char data[16];
	aclDataBuffer *b = aclCreateDataBuffer(data, sizeof(data));

	ASSERT_NE(NULL, b);
	EXPECT_EQ((void *)data, aclGetDataBufferAddr(b));
	EXPECT_EQ(sizeof(data), aclGetDataBufferSizeV2(b));
	EXPECT_EQ(sizeof(data), aclGetDataBufferSize(b));
	EXPECT_EQ(ACL_SUCCESS, aclUpdateDataBuffer(b, data + 1, 3));
	EXPECT_EQ((void *)(data + 1), aclGetDataBufferAddr(b));
	EXPECT_EQ(3, aclGetDataBufferSizeV2(b));
	EXPECT_EQ(ACL_SUCCESS, aclDestroyDataBuffer(b));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclDestroyDataBuffer(NULL));
	EXPECT_EQ(NULL, aclGetDataBufferAddr(NULL));
}

TEST(fp16_and_type_sizes)
{
	EXPECT_EQ(0x3c00, aclFloatToFloat16(1.0f));
	EXPECT_EQ(0xc000, aclFloatToFloat16(-2.0f));
	EXPECT_EQ(0x7bff, aclFloatToFloat16(1e6f));	/* saturates */
	EXPECT_EQ(0x3555, aclFloatToFloat16(1.0f / 3.0f));
	EXPECT_TRUE(aclFloat16ToFloat(0x3c00) == 1.0f);
	EXPECT_TRUE(aclFloat16ToFloat(0x0001) > 0.0f);
	EXPECT_TRUE(aclFloat16ToFloat(0x7c00) == 65536.0f);
	for (unsigned h = 0; h < 0x7c00; h += 7)
		EXPECT_EQ(h, aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h)));
	EXPECT_EQ(4, aclDataTypeSize(ACL_FLOAT));
	EXPECT_EQ(2, aclDataTypeSize(ACL_FLOAT16));
	EXPECT_EQ(8, aclDataTypeSize(ACL_INT64));
	EXPECT_EQ(1, aclDataTypeSize(ACL_BOOL));
	EXPECT_EQ(0, aclDataTypeSize(ACL_DT_UNDEFINED));
}

TEST(app_log)
{
	/* must not crash with any level or NULL pieces */
	aclAppLog(ACL_ERROR, NULL, NULL, 0, "value %d", 42);
	ACL_APP_LOG(ACL_INFO, "hello %s", "world");
	aclAppLog((aclLogLevel)99, "f", "x.c", 1, "ignored");
}

TEST_HARNESS_MAIN
