// SPDX-License-Identifier: GPL-2.0
/*
 * The card's power and temperature model (thermal.h).
 */
#include <math.h>

#include "thermal.h"

void emu_thermal_params(struct emu_thermal_params *p, uint32_t copy_engines,
			uint32_t compute_engines)
{
	p->idle_w = EMU_POWER_IDLE_W;
	p->copy_w = EMU_POWER_COPY_W;
	p->compute_w = EMU_POWER_COMPUTE_W;
	p->max_w = p->idle_w + copy_engines * p->copy_w +
		   compute_engines * p->compute_w;
	p->ambient_c = EMU_AMBIENT_C;
	p->c_per_w = (EMU_TEMP_FULL_LOAD_C - EMU_AMBIENT_C) / p->max_w;
}

/* Where the temperature settles at a constant draw. */
double emu_thermal_steady_c(const struct emu_thermal_params *p, double power_w)
{
	return p->ambient_c + power_w * p->c_per_w;
}

/* A card that has been idle for long. */
void emu_thermal_init(struct emu_thermal *t, const struct emu_thermal_params *p)
{
	t->power_w = p->idle_w;
	t->temp_c = emu_thermal_steady_c(p, p->idle_w);
}

/* x moves towards target as a first-order lag of time constant tau_s. */
static double lag(double x, double target, double dt_s, double tau_s)
{
	return target + (x - target) * exp(-dt_s / tau_s);
}

/*
 * dt_s seconds during which copy_busy copy engines and compute_busy
 * compute engines were busy, on average.
 */
void emu_thermal_step(struct emu_thermal *t, const struct emu_thermal_params *p,
		      double copy_busy, double compute_busy, double dt_s)
{
	double draw = p->idle_w + copy_busy * p->copy_w +
		      compute_busy * p->compute_w;

	if (dt_s <= 0)
		return;
	t->power_w = lag(t->power_w, draw, dt_s, EMU_POWER_TAU_S);
	t->temp_c = lag(t->temp_c, emu_thermal_steady_c(p, t->power_w), dt_s,
			EMU_TEMP_TAU_S);
}
