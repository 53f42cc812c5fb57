// SPDX-License-Identifier: GPL-2.0
/*
 * Telemetry registers (NPU_TEL_*): temperature, power and clock from the
 * model in thermal.c, fed with the engine pools' busy time; the memory
 * error counters, which only fault injection moves on an emulated card.
 */
#include "emu_card.h"

static int32_t milli(double v)
{
	return (int32_t)(v * 1000.0 + (v < 0 ? -0.5 : 0.5));
}

static void telemetry_write_temp(struct emu_card *card)
{
	struct emu_telemetry *t = &card->tel;
	double c = t->forced_temp_c ? t->forced_temp_c : t->model.temp_c;

	emu_reg_write32(card, NPU_TEL_TEMP, (uint32_t)milli(c));
}

/* The limits the card states; a global reset rewrites them. */
static void telemetry_write_fixed(struct emu_card *card)
{
	struct emu_telemetry *t = &card->tel;

	emu_reg_write32(card, NPU_TEL_TEMP_WARN, (uint32_t)milli(EMU_TEMP_WARN_C));
	emu_reg_write32(card, NPU_TEL_TEMP_CRIT, (uint32_t)milli(EMU_TEMP_CRIT_C));
	emu_reg_write32(card, NPU_TEL_POWER_MAX_MW, (uint32_t)milli(t->params.max_w));
	emu_reg_write32(card, NPU_TEL_CLOCK_KHZ, EMU_CLOCK_KHZ);
}

void emu_telemetry_init(struct emu_card *card)
{
	struct emu_telemetry *t = &card->tel;

	pthread_mutex_init(&t->lock, NULL);
	emu_thermal_params(&t->params, card->cfg.num_copy_engines,
			   card->cfg.num_compute_engines);
	emu_thermal_init(&t->model, &t->params);
	t->at_ns = emu_card_clock_ns(card);
	telemetry_write_fixed(card);
	telemetry_write_temp(card);
	emu_reg_write32(card, NPU_TEL_POWER_MW, (uint32_t)milli(t->model.power_w));
	emu_reg_write64(card, NPU_TEL_SAMPLE_NS, t->at_ns);
}

void emu_telemetry_destroy(struct emu_card *card)
{
	pthread_mutex_destroy(&card->tel.lock);
}

/* Every heartbeat: the model takes in what the engines did since the last. */
void emu_telemetry_tick(struct emu_card *card)
{
	struct emu_telemetry *t = &card->tel;
	uint64_t copy = emu_engines_busy_ns(&card->copy_engines);
	uint64_t compute = emu_engines_busy_ns(&card->compute_engines);
	uint64_t now = emu_card_clock_ns(card);
	uint64_t dt = now - t->at_ns;

	if (!dt)
		return;
	pthread_mutex_lock(&t->lock);
	emu_thermal_step(&t->model, &t->params,
			 (double)(copy - t->copy_busy_ns) / dt,
			 (double)(compute - t->compute_busy_ns) / dt, dt / 1e9);
	t->at_ns = now;
	t->copy_busy_ns = copy;
	t->compute_busy_ns = compute;
	telemetry_write_temp(card);
	emu_reg_write32(card, NPU_TEL_POWER_MW, (uint32_t)milli(t->model.power_w));
	emu_reg_write64(card, NPU_TEL_COPY_BUSY_NS, copy);
	emu_reg_write64(card, NPU_TEL_COMPUTE_BUSY_NS, compute);
	emu_reg_write64(card, NPU_TEL_SAMPLE_NS, now);
	pthread_mutex_unlock(&t->lock);
}

/* A card-wide fault; false if @kind is not one of the telemetry's. */
bool emu_telemetry_inject(struct emu_card *card, uint32_t kind, uint32_t arg)
{
	struct emu_telemetry *t = &card->tel;

	pthread_mutex_lock(&t->lock);
	switch (kind) {
	case NPU_FAULT_OVER_TEMP:
		if (arg > NPU_FAULT_OVER_TEMP_MAX_C) {
			emu_log("fault: over-temperature %u C ignored", arg);
			break;
		}
		t->forced_temp_c = arg;
		telemetry_write_temp(card);
		emu_log("fault: temperature %u C (0: the model's)", arg);
		break;
	case NPU_FAULT_ECC_CORRECTED:
		t->ecc_corrected += arg;
		emu_reg_write64(card, NPU_TEL_ECC_CORRECTED, t->ecc_corrected);
		break;
	case NPU_FAULT_ECC_UNCORRECTED:
		t->ecc_uncorrected += arg;
		emu_reg_write64(card, NPU_TEL_ECC_UNCORRECTED, t->ecc_uncorrected);
		break;
	default:
		pthread_mutex_unlock(&t->lock);
		return false;
	}
	pthread_mutex_unlock(&t->lock);
	return true;
}

/*
 * GLB_CTRL.RESET ends an injected over-temperature; the error and busy
 * counters go on counting from power-on, as a real card's do.
 */
void emu_telemetry_reset(struct emu_card *card)
{
	struct emu_telemetry *t = &card->tel;

	pthread_mutex_lock(&t->lock);
	t->forced_temp_c = 0;
	telemetry_write_fixed(card);
	telemetry_write_temp(card);
	pthread_mutex_unlock(&t->lock);
}
