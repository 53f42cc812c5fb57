// SPDX-License-Identifier: GPL-2.0-only
/*
 * The card's power and temperature model (card/thermal.c) against the
 * arithmetic of docs/hardware.md, "Telemetry", written out here: a card
 * of 4 copy and 2 compute engines draws 20 W idle and 20 + 4 * 5 + 2 * 25
 * = 90 W with every engine busy, and settles at 30 + 45 * P / 90 degrees
 * C; power follows the load with a lag of 0.1 s, the temperature the power
 * with one of 2 s.
 */
#include <math.h>

#include "kselftest_harness.h"
#include "thermal.h"

#define DT	0.001

static void run(struct emu_thermal *t, const struct emu_thermal_params *p,
		double copy, double compute, double seconds)
{
	long i, steps = lround(seconds / DT);

	for (i = 0; i < steps; i++)
		emu_thermal_step(t, p, copy, compute, DT);
}

FIXTURE(thermal) {
	struct emu_thermal_params p;
	struct emu_thermal t;
};

FIXTURE_SETUP(thermal)
{
	emu_thermal_params(&self->p, 4, 2);
	emu_thermal_init(&self->t, &self->p);
}

FIXTURE_TEARDOWN(thermal)
{
}

TEST_F(thermal, idle_card)
{
	EXPECT_EQ(90.0, self->p.max_w);
	EXPECT_EQ(20.0, self->t.power_w);
	EXPECT_EQ(30.0 + 45.0 * 20 / 90, self->t.temp_c);
	run(&self->t, &self->p, 0, 0, 10);
	EXPECT_GT(1e-9, fabs(self->t.power_w - 20.0));
	EXPECT_GT(1e-9, fabs(self->t.temp_c - 40.0));
}

TEST_F(thermal, full_load_settles_at_75_and_cools_back)
{
	run(&self->t, &self->p, 4, 2, 60);
	EXPECT_GT(1e-6, fabs(self->t.power_w - 90.0));
	EXPECT_GT(1e-3, fabs(self->t.temp_c - 75.0));
	run(&self->t, &self->p, 0, 0, 60);
	EXPECT_GT(1e-6, fabs(self->t.power_w - 20.0));
	EXPECT_GT(1e-3, fabs(self->t.temp_c - 40.0));
}

TEST_F(thermal, partial_load_settles_in_between)
{
	/* two copy engines busy: 30 W, 30 + 45 * 30 / 90 = 45 C */
	run(&self->t, &self->p, 2, 0, 60);
	EXPECT_GT(1e-6, fabs(self->t.power_w - 30.0));
	EXPECT_GT(1e-3, fabs(self->t.temp_c - 45.0));
}

/* Power: one lag of 0.1 s, 90 + (20 - 90) e^(-t / 0.1). */
TEST_F(thermal, power_lags_by_its_time_constant)
{
	run(&self->t, &self->p, 4, 2, 0.1);
	EXPECT_GT(1e-6, fabs(self->t.power_w - (90.0 - 70.0 * exp(-1))));
	EXPECT_GT(self->t.temp_c, 40.0);
}

/*
 * Temperature: two lags in a row, a = 0.1 s then b = 2 s; a step of 35 C
 * is 35 (1 - (b e^(-t/b) - a e^(-t/a)) / (b - a)) after t.  Steps of 1 ms
 * stay within 0.05 C of it.
 */
TEST_F(thermal, temperature_lags_power)
{
	double a = 0.1, b = 2, t = 2;
	double expect = 40 + 35 * (1 - (b * exp(-t / b) - a * exp(-t / a)) / (b - a));

	run(&self->t, &self->p, 4, 2, t);
	EXPECT_GT(0.05, fabs(self->t.temp_c - expect));
	EXPECT_LT(self->t.temp_c, 75.0);
}

TEST_F(thermal, no_time_no_change)
{
	emu_thermal_step(&self->t, &self->p, 4, 2, 0);
	emu_thermal_step(&self->t, &self->p, 4, 2, -1);
	EXPECT_EQ(20.0, self->t.power_w);
	EXPECT_EQ(40.0, self->t.temp_c);
}

TEST_HARNESS_MAIN
