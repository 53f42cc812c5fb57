// SPDX-License-Identifier: GPL-2.0
/*
 * npu-card's telemetry registers (NPU_TEL_*) on the host, without QEMU:
 * what an idle card of 2 copy and 2 compute engines reports by
 * docs/hardware.md, "Telemetry" (20 W idle, 5 W per copy and 25 W per
 * compute engine busy: 80 W at most; 30 C + 45 C * P / 80 W), and how the
 * over-temperature and memory-error faults and a global reset move them.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wclobbered"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"
#include "card_client.h"

#define T_MS		10000	/* "should happen": generous, for loaded hosts */
#define MAX_MW		(20000 + 2 * 5000 + 2 * 25000)
/* 30 + 45 * 20 / 80 = 41.25 C */
#define IDLE_MC		41250

FIXTURE(tel) {
	struct client c;
};

FIXTURE_SETUP(tel)
{
	struct client_opts o;
	int ret;

	client_default_opts(&o);
	o.copy_engines = 2;
	o.compute_engines = 2;
	ret = client_start(&self->c, &o);
	if (ret)
		client_cleanup(&self->c);
	ASSERT_EQ(0, ret) TH_LOG("cannot start %s", client_card_path());
}

FIXTURE_TEARDOWN(tel)
{
	EXPECT_EQ(0, client_disconnect(&self->c, T_MS));
	client_cleanup(&self->c);
}

static int32_t temp(struct client *c)
{
	return (int32_t)client_reg_rd32(c, NPU_TEL_TEMP);
}

TEST_F(tel, idle_card_reports_the_model)
{
	struct client *c = &self->c;
	uint64_t t0 = client_reg_rd64(c, NPU_TEL_SAMPLE_NS);
	uint64_t end = client_now_us() + T_MS * 1000ULL;

	EXPECT_EQ(85000, client_reg_rd32(c, NPU_TEL_TEMP_WARN));
	EXPECT_EQ(95000, client_reg_rd32(c, NPU_TEL_TEMP_CRIT));
	EXPECT_EQ(MAX_MW, client_reg_rd32(c, NPU_TEL_POWER_MAX_MW));
	EXPECT_EQ(1000000, client_reg_rd32(c, NPU_TEL_CLOCK_KHZ));
	EXPECT_EQ(20000, client_reg_rd32(c, NPU_TEL_POWER_MW));
	EXPECT_EQ(IDLE_MC, temp(c));
	EXPECT_EQ(0, client_reg_rd64(c, NPU_TEL_ECC_CORRECTED));
	EXPECT_EQ(0, client_reg_rd64(c, NPU_TEL_ECC_UNCORRECTED));
	/* refreshed every heartbeat; idle engines count nothing */
	while (client_reg_rd64(c, NPU_TEL_SAMPLE_NS) == t0 && client_now_us() < end)
		usleep(100);
	EXPECT_LT(t0, client_reg_rd64(c, NPU_TEL_SAMPLE_NS));
	EXPECT_EQ(0, client_reg_rd64(c, NPU_TEL_COPY_BUSY_NS));
	EXPECT_EQ(0, client_reg_rd64(c, NPU_TEL_COMPUTE_BUSY_NS));
	EXPECT_EQ(IDLE_MC, temp(c));
}

TEST_F(tel, over_temperature_until_cleared)
{
	struct client *c = &self->c;

	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_OVER_TEMP, 120));
	EXPECT_EQ(120000, temp(c));
	/* out of range: ignored, the injected value stays */
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_OVER_TEMP,
				       NPU_FAULT_OVER_TEMP_MAX_C + 1));
	EXPECT_EQ(120000, temp(c));
	/* the ring does not matter: a card-wide fault */
	ASSERT_TRUE(client_ctrl_inject(c, 15, NPU_FAULT_OVER_TEMP, 0));
	EXPECT_EQ(IDLE_MC, temp(c));
}

TEST_F(tel, memory_errors_count_up)
{
	struct client *c = &self->c;

	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_ECC_CORRECTED, 3));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_ECC_CORRECTED, 4));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_ECC_UNCORRECTED, 1));
	EXPECT_EQ(7, client_reg_rd64(c, NPU_TEL_ECC_CORRECTED));
	EXPECT_EQ(1, client_reg_rd64(c, NPU_TEL_ECC_UNCORRECTED));
}

/* Error counters count from power-on; an injected temperature ends. */
TEST_F(tel, global_reset_keeps_errors_ends_over_temperature)
{
	struct client *c = &self->c;

	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_ECC_CORRECTED, 2));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_ECC_UNCORRECTED, 5));
	ASSERT_TRUE(client_ctrl_inject(c, 0, NPU_FAULT_OVER_TEMP, 99));
	ASSERT_TRUE(client_ctrl_global_reset(c));
	EXPECT_EQ(2, client_reg_rd64(c, NPU_TEL_ECC_CORRECTED));
	EXPECT_EQ(5, client_reg_rd64(c, NPU_TEL_ECC_UNCORRECTED));
	EXPECT_EQ(IDLE_MC, temp(c));
	EXPECT_EQ(95000, client_reg_rd32(c, NPU_TEL_TEMP_CRIT));
}

TEST_HARNESS_MAIN
