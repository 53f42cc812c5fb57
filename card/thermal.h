/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The card's power and temperature model, a pure function of how busy its
 * engines were (docs/hardware.md, "Telemetry"), kept apart from the card
 * so that a host test can check its arithmetic.
 *
 * Power is an idle draw plus a draw per busy engine; what the card reports
 * follows it with a first-order lag of EMU_POWER_TAU_S (an averaging
 * meter).  The temperature follows the reported power the same way with
 * EMU_TEMP_TAU_S (the heat sink), towards ambient + power * c_per_w, where
 * c_per_w puts the card with every engine busy at EMU_TEMP_FULL_LOAD_C.
 */
#ifndef EMU_THERMAL_H
#define EMU_THERMAL_H

#include <stdint.h>

#define EMU_POWER_IDLE_W	20.0
#define EMU_POWER_COPY_W	5.0	/* per busy copy engine */
#define EMU_POWER_COMPUTE_W	25.0	/* per busy compute engine */
#define EMU_AMBIENT_C		30.0
#define EMU_TEMP_FULL_LOAD_C	75.0
#define EMU_TEMP_WARN_C		85
#define EMU_TEMP_CRIT_C		95
#define EMU_POWER_TAU_S		0.1
#define EMU_TEMP_TAU_S		2.0
#define EMU_CLOCK_KHZ		1000000	/* fixed: the emulated card never throttles */

struct emu_thermal_params {
	double idle_w;
	double copy_w;
	double compute_w;
	double max_w;		/* every engine busy */
	double ambient_c;
	double c_per_w;
};

struct emu_thermal {
	double power_w;		/* as reported: averaged */
	double temp_c;
};

void emu_thermal_params(struct emu_thermal_params *p, uint32_t copy_engines,
			uint32_t compute_engines);
double emu_thermal_steady_c(const struct emu_thermal_params *p, double power_w);
void emu_thermal_init(struct emu_thermal *t, const struct emu_thermal_params *p);
void emu_thermal_step(struct emu_thermal *t, const struct emu_thermal_params *p,
		      double copy_busy, double compute_busy, double dt_s);

#endif /* EMU_THERMAL_H */
