// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs: DRM_IOCTL_NPU_PROGRAM_CREATE/DESTROY, DRM_NPU_OP_PROGRAM and
 * DRM_NPU_OP_SET_CALL, the control commands only a program holds, and
 * DRM_NPU_CMD_VALUE_INDIRECT.  Results are checked against arithmetic
 * done here.
 */

#include "kselftest_harness.h"
#include "npu_test_ioctl.h"

#define BUF_SIZE	(1u << 20)

static int program_create(int fd, const struct drm_npu_cmd *cmds, uint32_t count,
			  uint32_t *id)
{
	struct drm_npu_program_create c = {
		.cmds = (uintptr_t)cmds, .count = count, .cmd_size = sizeof(*cmds),
	};
	int ret = test_ioctl(fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &c);

	*id = c.id;
	return ret;
}

static int program_destroy(int fd, uint32_t id)
{
	struct drm_npu_program_destroy d = { .id = id };

	return test_ioctl(fd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &d);
}

static struct drm_npu_cmd cmd_program(uint32_t id)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_PROGRAM, .value = id };
}

static struct drm_npu_cmd cmd_value_write(uint64_t dst, uint64_t value)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WRITE, .dst = dst, .value = value };
}

static struct drm_npu_cmd cmd_op(uint32_t op, uint64_t value)
{
	return (struct drm_npu_cmd){ .op = op, .value = value };
}

static struct drm_npu_cmd cmd_branch(uint64_t dst, uint64_t src, uint64_t size,
				     uint32_t cond, uint32_t flags, uint64_t target)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_BRANCH, .dst = dst, .src = src,
				     .size = size, .cond = cond, .flags = flags,
				     .value = target };
}

static struct drm_npu_cmd cmd_set_call(uint32_t parent, uint32_t index, uint32_t callee)
{
	return (struct drm_npu_cmd){ .op = DRM_NPU_OP_SET_CALL, .value = parent,
				     .dst = index, .src = callee };
}

FIXTURE(program) {
	struct test_card card;
	struct drm_npu_stream_create stream;
	struct drm_npu_bo_create a, b;
	uint8_t host[BUF_SIZE];
};

FIXTURE_SETUP(program)
{
	ASSERT_EQ(0, test_card_open(&self->card, 0));
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	ASSERT_EQ(0, test_bo_create(self->card.fd, BUF_SIZE, 0, &self->a));
	ASSERT_EQ(0, test_bo_create(self->card.fd, BUF_SIZE, 0, &self->b));
}

FIXTURE_TEARDOWN(program)
{
	test_card_close(&self->card);
}

/* Submits cmds and waits for them. */
static int run(struct _test_data_program *self, const struct drm_npu_cmd *cmds,
	       uint32_t count)
{
	uint64_t seq;
	int ret = test_submit(self->card.fd, self->stream.id, cmds, count, 0, &seq);

	return ret ?: test_wait(self->card.fd, self->stream.slot, seq, 60000);
}

/* size bytes of device memory at addr, into self->host. */
static int read_back(struct _test_data_program *self, uint64_t addr, size_t size)
{
	struct drm_npu_cmd c = test_cmd_copy((uintptr_t)self->host, addr, size,
					     DRM_NPU_CMD_DST_USER);

	memset(self->host, 0xee, size);
	return run(self, &c, 1);
}

static uint64_t read_word(struct _test_data_program *self, uint64_t addr)
{
	uint64_t v;

	if (read_back(self, addr, 8))
		return ~0ull;
	memcpy(&v, self->host, 8);
	return v;
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t byte)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != byte)
			return false;
	return true;
}

TEST_F(program, create_run_destroy)
{
	struct drm_npu_cmd cmds[] = {
		test_cmd_fill(self->a.addr, 0x5a, 4096, 0),
		test_cmd_copy(self->b.addr + 100, self->a.addr, 4096, 0),
	};
	struct drm_npu_cmd run_cmd;
	uint32_t id;

	ASSERT_EQ(0, program_create(self->card.fd, cmds, 2, &id));
	ASSERT_NE(0, id);
	run_cmd = cmd_program(id);
	ASSERT_EQ(0, run(self, &run_cmd, 1));
	ASSERT_EQ(0, read_back(self, self->b.addr, 4096 + 200));
	EXPECT_TRUE(all_bytes(self->host, 100, 0));
	EXPECT_TRUE(all_bytes(self->host + 100, 4096, 0x5a));
	EXPECT_TRUE(all_bytes(self->host + 4196, 100, 0));

	EXPECT_EQ(0, program_destroy(self->card.fd, id));
	EXPECT_EQ(-ENOENT, program_destroy(self->card.fd, id));
	EXPECT_EQ(-ENOENT, run(self, &run_cmd, 1));
}

/*
 * Before run i its batch copies table[i] = i + 1 into b; the program fills
 * and copies, and copies that word on to b + 8, which ends as the number
 * of runs.
 */
TEST_F(program, thousand_runs)
{
	/* a: table[i] = i + 1 (8 bytes each, 0..1000); b: the counter */
	uint64_t table[1001];
	struct drm_npu_cmd cmds[3], batch[8];
	unsigned int i, runs = 1000;
	uint32_t id;

	for (i = 0; i <= runs; i++)
		table[i] = i + 1;
	batch[0] = test_cmd_copy(self->a.addr, (uintptr_t)table, sizeof(table),
				 DRM_NPU_CMD_SRC_USER);
	batch[1] = cmd_value_write(self->b.addr, 0);
	ASSERT_EQ(0, run(self, batch, 2));

	cmds[0] = test_cmd_fill(self->b.addr + 64, 0x33, 64, 0);
	cmds[1] = test_cmd_copy(self->b.addr + 128, self->b.addr + 64, 64, 0);
	cmds[2] = test_cmd_copy(self->b.addr + 8, self->b.addr, 8, 0);
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 3, &id));

	for (i = 0; i < runs; i++) {
		batch[0] = test_cmd_copy(self->b.addr, self->a.addr + 8 * i, 8, 0);
		batch[1] = cmd_program(id);
		ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, batch, 2, 0, NULL));
	}
	EXPECT_EQ(runs, read_word(self, self->b.addr + 8));
	ASSERT_EQ(0, read_back(self, self->b.addr + 128, 64));
	EXPECT_TRUE(all_bytes(self->host, 64, 0x33));
	EXPECT_EQ(0, program_destroy(self->card.fd, id));
}


/* acc[i] = i, then 1000 runs of: zero tmp, tmp = acc, acc = tmp + ones. */
struct add_desc {
	struct npu_op_desc h;
	struct npu_tensor_desc t[3];
};

TEST_F(program, copies_fills_and_an_operator_run_1000_times)
{
	const uint64_t n = 64, bytes = n * sizeof(float);
	uint64_t acc = self->a.addr, tmp = self->a.addr + 4096, ones = self->b.addr;
	struct add_desc d = { 0 };
	struct drm_npu_cmd cmds[3], batch[2];
	float init[64], one[64], *out = (float *)self->host;
	unsigned int i, runs = 1000;
	uint64_t seq = 0;
	uint32_t id;

	if (!(test_param_or_die(self->card.fd, DRM_NPU_PARAM_OPERATORS) &
	      (1ull << NPU_OPERATOR_BINARY)))
		SKIP(return, "the card computes no BINARY");
	for (i = 0; i < n; i++) {
		init[i] = i;
		one[i] = 1.0f;
	}
	batch[0] = test_cmd_copy(acc, (uintptr_t)init, bytes, DRM_NPU_CMD_SRC_USER);
	batch[1] = test_cmd_copy(ones, (uintptr_t)one, bytes, DRM_NPU_CMD_SRC_USER);
	ASSERT_EQ(0, run(self, batch, 2));

	d.h.kind = NPU_OPERATOR_BINARY;
	d.h.num_inputs = 2;
	d.h.num_outputs = 1;
	d.h.attrs.binary.kind = NPU_BINARY_ADD;
	test_tensor_dense(&d.t[0], tmp, NPU_DTYPE_F32, 1, &n);
	test_tensor_dense(&d.t[1], ones, NPU_DTYPE_F32, 1, &n);
	test_tensor_dense(&d.t[2], acc, NPU_DTYPE_F32, 1, &n);
	cmds[0] = test_cmd_fill(tmp, 0, bytes, 0);
	cmds[1] = test_cmd_copy(tmp, acc, bytes, 0);
	cmds[2] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_COMPUTE, .src = (uintptr_t)&d,
					.size = sizeof(d) };
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 3, &id));
	/* the program read the descriptor once: changing it now changes nothing */
	memset(&d, 0, sizeof(d));

	batch[0] = cmd_program(id);
	for (i = 0; i < runs; i++)
		ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, batch, 1, 0, &seq));
	ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 120000));
	ASSERT_EQ(0, read_back(self, acc, bytes));
	for (i = 0; i < n; i++)
		EXPECT_EQ((float)(i + runs), out[i]) TH_LOG("element %u", i);
	EXPECT_EQ(0, program_destroy(self->card.fd, id));
}

/* What a program names stays allocated while it exists, whoever closes it. */
TEST_F(program, keeps_a_buffer_closed_under_it)
{
	struct drm_npu_bo_create c;
	struct drm_npu_cmd cmds[2], run_cmd;
	uint64_t free_before, free_closed, free_after;
	uint32_t id;

	ASSERT_EQ(0, test_bo_create(self->card.fd, 65536, 0, &c));
	cmds[0] = test_cmd_fill(c.addr, 0x6c, 65536, 0);
	cmds[1] = test_cmd_copy(self->b.addr, c.addr, 65536, 0);
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 2, &id));
	free_before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	ASSERT_EQ(0, test_bo_close(self->card.fd, c.handle));
	free_closed = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	EXPECT_EQ(free_before, free_closed);

	run_cmd = cmd_program(id);
	ASSERT_EQ(0, run(self, &run_cmd, 1));
	ASSERT_EQ(0, read_back(self, self->b.addr, 65536));
	EXPECT_TRUE(all_bytes(self->host, 65536, 0x6c));

	ASSERT_EQ(0, program_destroy(self->card.fd, id));
	free_after = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	EXPECT_EQ(free_closed + 65536, free_after);
}

/* Each ioctl error of the uapi's documentation, and nothing changed by it. */
TEST_F(program, bad_input)
{
	uint64_t nowhere = DRM_NPU_DEVICE_ADDR_BASE + (1ull << 40);
	struct drm_npu_cmd nop = { .op = DRM_NPU_OP_NOP }, c[4];
	struct drm_npu_program_create pc;
	uint64_t free_mem, free_slots;
	uint32_t id, first, again;
	unsigned int i;
	const struct {
		const char *what;
		int err;
		struct drm_npu_cmd cmd;
	} cases[] = {
		{ "unknown op", -EINVAL, { .op = 99 } },
		{ "PROGRAM in a program", -EINVAL, cmd_program(1) },
		{ "SET_CALL in a program", -EINVAL, cmd_set_call(1, 0, 1) },
		{ "JUMP past the end", -EINVAL, cmd_op(DRM_NPU_OP_JUMP, 2) },
		{ "ACTIVATE past the end", -EINVAL, cmd_op(DRM_NPU_OP_ACTIVATE, 2) },
		{ "END with a value", -EINVAL, cmd_op(DRM_NPU_OP_END, 1) },
		{ "RETURN with a flag", -EINVAL,
		  { .op = DRM_NPU_OP_RETURN, .flags = DRM_NPU_CMD_SRC_IMM } },
		{ "JUMP with a slot", -EINVAL, { .op = DRM_NPU_OP_JUMP, .slot = 1 } },
		{ "CALL of no program", -EINVAL, cmd_op(DRM_NPU_OP_CALL, 4000) },
		{ "CALL of id 0", -EINVAL, cmd_op(DRM_NPU_OP_CALL, 0) },
		{ "BRANCH of 3 bytes", -EINVAL,
		  cmd_branch(self->a.addr, 0, 3, 0, DRM_NPU_CMD_SRC_IMM, 0) },
		{ "BRANCH misaligned", -EINVAL,
		  cmd_branch(self->a.addr + 4, 0, 8, 0, DRM_NPU_CMD_SRC_IMM, 0) },
		{ "BRANCH cond 6", -EINVAL,
		  cmd_branch(self->a.addr, 0, 8, 6, DRM_NPU_CMD_SRC_IMM, 0) },
		{ "BRANCH past the end", -EINVAL,
		  cmd_branch(self->a.addr, 0, 8, 0, DRM_NPU_CMD_SRC_IMM, 2) },
		{ "BRANCH unknown flag", -EINVAL,
		  cmd_branch(self->a.addr, 0, 8, 0, DRM_NPU_CMD_SRC_HOST, 0) },
		{ "BRANCH on no buffer", -EPERM,
		  cmd_branch(nowhere, 0, 8, 0, DRM_NPU_CMD_SRC_IMM, 0) },
		{ "BRANCH operand on no buffer", -EPERM,
		  cmd_branch(self->a.addr, nowhere, 8, 0, 0, 0) },
		{ "SWITCH without its JUMPs", -EINVAL,
		  { .op = DRM_NPU_OP_SWITCH, .dst = self->a.addr, .size = 8, .value = 1 } },
		{ "VALUE_INDIRECT misaligned", -EINVAL,
		  { .op = DRM_NPU_OP_VALUE_WRITE, .flags = DRM_NPU_CMD_VALUE_INDIRECT,
		    .dst = self->a.addr, .value = self->b.addr + 4 } },
		{ "VALUE_INDIRECT on no buffer", -EPERM,
		  { .op = DRM_NPU_OP_VALUE_WRITE, .flags = DRM_NPU_CMD_VALUE_INDIRECT,
		    .dst = self->a.addr, .value = nowhere } },
		{ "VALUE_INDIRECT on a TIMESTAMP", -EINVAL,
		  { .op = DRM_NPU_OP_TIMESTAMP, .flags = DRM_NPU_CMD_VALUE_INDIRECT,
		    .slot = self->stream.slot } },
		{ "COPY to no buffer", -EPERM, test_cmd_copy(nowhere, self->a.addr, 8, 0) },
		{ "COPY of 0 bytes", -EINVAL, test_cmd_copy(self->b.addr, self->a.addr, 0, 0) },
		{ "non-zero pad", -EINVAL, { .op = DRM_NPU_OP_NOP, .pad = 1 } },
	};

	ASSERT_EQ(0, program_create(self->card.fd, &nop, 1, &first));
	free_mem = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	free_slots = test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* a good command first: a failure undoes it */
		c[0] = test_cmd_copy(self->b.addr, (uintptr_t)self->host, 4096,
				     DRM_NPU_CMD_SRC_USER);
		c[1] = cases[i].cmd;
		EXPECT_EQ(cases[i].err, program_create(self->card.fd, c, 2, &id))
			TH_LOG("%s", cases[i].what);
	}
	/* SWITCH's JUMPs: one too few */
	c[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SWITCH, .dst = self->a.addr,
				     .size = 8, .value = 2 };
	c[1] = cmd_op(DRM_NPU_OP_JUMP, 0);
	c[2] = nop;
	EXPECT_EQ(-EINVAL, program_create(self->card.fd, c, 3, &id));
	c[2] = cmd_op(DRM_NPU_OP_JUMP, 0);
	EXPECT_EQ(0, program_create(self->card.fd, c, 3, &id));
	EXPECT_EQ(0, program_destroy(self->card.fd, id));

	/* the arguments */
	memset(&pc, 0, sizeof(pc));
	pc = (struct drm_npu_program_create){ .cmds = (uintptr_t)&nop, .count = 0,
					      .cmd_size = sizeof(nop) };
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc));
	pc.count = DRM_NPU_MAX_PROGRAM + 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc));
	pc.count = 1;
	pc.cmd_size = sizeof(nop) - 8;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc));
	pc.cmd_size = sizeof(nop);
	pc.flags = 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc));
	pc.flags = 0;
	pc.id = 1;
	EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc));
	pc.id = 0;
	pc.cmds = 8;
	EXPECT_EQ(-EFAULT, test_ioctl(self->card.fd, DRM_IOCTL_NPU_PROGRAM_CREATE, &pc));
	{
		struct drm_npu_program_destroy d = { .id = first, .flags = 1 };

		EXPECT_EQ(-EINVAL, test_ioctl(self->card.fd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &d));
		d = (struct drm_npu_program_destroy){ .id = 0 };
		EXPECT_EQ(-ENOENT, test_ioctl(self->card.fd, DRM_IOCTL_NPU_PROGRAM_DESTROY, &d));
	}

	/* control commands are a program's; PROGRAM of no program */
	c[0] = cmd_op(DRM_NPU_OP_JUMP, 0);
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, c, 1, 0, NULL));
	c[0] = cmd_op(DRM_NPU_OP_END, 0);
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, c, 1, 0, NULL));
	c[0] = cmd_program(first + 100);
	EXPECT_EQ(-ENOENT, test_submit(self->card.fd, self->stream.id, c, 1, 0, NULL));
	c[0] = cmd_program(first);
	c[0].dst = 8;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, c, 1, 0, NULL));

	/* nothing changed: memory, slots, and the next id is the next one */
	EXPECT_EQ(free_mem, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	EXPECT_EQ(free_slots, test_param_or_die(self->card.fd, DRM_NPU_PARAM_FREE_SLOTS));
	ASSERT_EQ(0, program_create(self->card.fd, &nop, 1, &again));
	/* the lowest free id: the good SWITCH program's, failures took none */
	EXPECT_EQ(first + 1, again);
	EXPECT_EQ(0, program_destroy(self->card.fd, again));
	EXPECT_EQ(0, program_destroy(self->card.fd, first));
}

/* DRM_NPU_MAX_PROGRAMS per context, then -ENOSPC; destroying frees an id. */
TEST_F(program, table_full)
{
	struct drm_npu_cmd nop = { .op = DRM_NPU_OP_NOP };
	uint32_t id, last = 0;
	unsigned int i;

	for (i = 0; i < DRM_NPU_MAX_PROGRAMS; i++)
		ASSERT_EQ(0, program_create(self->card.fd, &nop, 1, &last));
	EXPECT_EQ(DRM_NPU_MAX_PROGRAMS, last);
	EXPECT_EQ(-ENOSPC, program_create(self->card.fd, &nop, 1, &id));
	EXPECT_EQ(0, program_destroy(self->card.fd, 7));
	EXPECT_EQ(0, program_create(self->card.fd, &nop, 1, &id));
	EXPECT_EQ(7, id);
}

/* Event and value commands taking each run's value from device memory. */
TEST_F(program, indirect_values)
{
	uint64_t p = self->a.addr, q = self->a.addr + 8, out = self->a.addr + 16;
	struct drm_npu_cmd cmds[3], batch[3];
	uint32_t ev, gate, id;
	uint64_t seq;
	unsigned int i;

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &gate));
	/* wait for gate >= *q, write *p to ev and to out */
	cmds[0] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WAIT, .slot = gate,
					.flags = DRM_NPU_CMD_VALUE_INDIRECT, .value = q };
	cmds[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev,
					.flags = DRM_NPU_CMD_VALUE_INDIRECT, .value = p };
	cmds[2] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WRITE, .dst = out,
					.flags = DRM_NPU_CMD_VALUE_INDIRECT, .value = p };
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 3, &id));

	for (i = 1; i <= 5; i++) {
		batch[0] = cmd_value_write(p, 1000 + i);
		batch[1] = cmd_value_write(q, 10 * i);
		batch[2] = cmd_program(id);
		ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, batch, 3, 0, &seq));
		/* the run waits for its own gate value */
		ASSERT_EQ(-ETIME, test_wait(self->card.fd, ev, 1000 + i, 50));
		ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, gate,
					  10 * i - 1));
		ASSERT_EQ(-ETIME, test_wait(self->card.fd, ev, 1000 + i, 50));
		ASSERT_EQ(0, test_slot_op(self->card.fd, DRM_IOCTL_NPU_SLOT_SIGNAL, gate,
					  10 * i));
		ASSERT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 20000));
		EXPECT_EQ(1000 + i, self->card.fence[ev].value);
		EXPECT_EQ(1000 + i, read_word(self, out));
	}

	/* VALUE_WAIT too, in SUBMIT: *out == *p */
	batch[0] = cmd_value_write(p, 77);
	batch[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_VALUE_WAIT, .dst = out,
					 .cond = DRM_NPU_WAIT_EQ,
					 .flags = DRM_NPU_CMD_VALUE_INDIRECT, .value = p };
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, batch, 2, 0, &seq));
	EXPECT_EQ(-ETIME, test_wait(self->card.fd, self->stream.slot, seq, 50));
	batch[0] = cmd_value_write(out, 77);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, batch, 1, 0, NULL));
	/* a second stream releases the first */
	{
		struct drm_npu_stream_create s2;
		uint64_t seq2;

		ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &s2));
		ASSERT_EQ(0, test_submit(self->card.fd, s2.id, batch, 1, 0, &seq2));
		ASSERT_EQ(0, test_wait(self->card.fd, s2.slot, seq2, 20000));
	}
	EXPECT_EQ(0, test_wait(self->card.fd, self->stream.slot, seq, 20000));
	EXPECT_EQ(0, program_destroy(self->card.fd, id));
}

/* Runs id with *x = v (8 bytes at a) and returns the word at a + 8. */
static uint64_t run_with(struct _test_data_program *self, uint32_t id, uint64_t v)
{
	struct drm_npu_cmd batch[3] = {
		cmd_value_write(self->a.addr, v),
		cmd_value_write(self->a.addr + 8, 0),
		cmd_program(id),
	};

	if (run(self, batch, 3))
		return ~0ull;
	return read_word(self, self->a.addr + 8);
}

TEST_F(program, branch)
{
	uint64_t x = self->a.addr, out = self->a.addr + 8, y = self->a.addr + 16;
	struct drm_npu_cmd cmds[5];
	uint32_t imm, mem, word;

	/* if (*x == 5) out = 2 else out = 1 */
	cmds[0] = cmd_branch(x, 5, 8, DRM_NPU_BRANCH_EQ, DRM_NPU_CMD_SRC_IMM, 3);
	cmds[1] = cmd_value_write(out, 1);
	cmds[2] = cmd_op(DRM_NPU_OP_END, 0);
	cmds[3] = cmd_value_write(out, 2);
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 4, &imm));
	EXPECT_EQ(2, run_with(self, imm, 5));
	EXPECT_EQ(1, run_with(self, imm, 6));

	/* if (*x > *y), signed: y = -3 */
	cmds[0] = cmd_branch(x, y, 8, DRM_NPU_BRANCH_GT, 0, 3);
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 4, &mem));
	{
		struct drm_npu_cmd w = cmd_value_write(y, (uint64_t)-3);

		ASSERT_EQ(0, run(self, &w, 1));
	}
	EXPECT_EQ(2, run_with(self, mem, 0));
	EXPECT_EQ(2, run_with(self, mem, (uint64_t)-2));
	EXPECT_EQ(1, run_with(self, mem, (uint64_t)-3));
	EXPECT_EQ(1, run_with(self, mem, (uint64_t)-4));

	/* 4 bytes, signed: the low word 0xffffffff is -1 < 0; 1 << 32 is 0 */
	cmds[0] = cmd_branch(x, 0, 4, DRM_NPU_BRANCH_LT, DRM_NPU_CMD_SRC_IMM, 3);
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 4, &word));
	EXPECT_EQ(2, run_with(self, word, 0xffffffffull));
	EXPECT_EQ(1, run_with(self, word, 1ull << 32));
	EXPECT_EQ(1, run_with(self, word, 7));
}

TEST_F(program, switch_in_and_out_of_range)
{
	uint64_t x = self->a.addr, out = self->a.addr + 8;
	struct drm_npu_cmd cmds[] = {
		{ .op = DRM_NPU_OP_SWITCH, .dst = x, .size = 8, .value = 3 },
		cmd_op(DRM_NPU_OP_JUMP, 6),
		cmd_op(DRM_NPU_OP_JUMP, 8),
		cmd_op(DRM_NPU_OP_JUMP, 10),
		cmd_value_write(out, 100),	/* past the cases */
		cmd_op(DRM_NPU_OP_END, 0),
		cmd_value_write(out, 10),
		cmd_op(DRM_NPU_OP_END, 0),
		cmd_value_write(out, 11),
		cmd_op(DRM_NPU_OP_RETURN, 0),
		cmd_value_write(out, 12),
	};
	uint32_t id;

	ASSERT_EQ(0, program_create(self->card.fd, cmds, sizeof(cmds) / sizeof(cmds[0]), &id));
	EXPECT_EQ(10, run_with(self, id, 0));
	EXPECT_EQ(11, run_with(self, id, 1));
	EXPECT_EQ(12, run_with(self, id, 2));
	EXPECT_EQ(100, run_with(self, id, 3));
	EXPECT_EQ(100, run_with(self, id, 1ull << 40));
}

/* Threads run in ACTIVATE order after the running one returns; END drops them. */
TEST_F(program, activate_order_and_end)
{
	uint64_t w = self->a.addr + 8, a_seen = self->a.addr + 16, b_seen = self->a.addr + 24;
	struct drm_npu_cmd threads[] = {
		cmd_op(DRM_NPU_OP_ACTIVATE, 4),
		cmd_op(DRM_NPU_OP_ACTIVATE, 7),
		cmd_value_write(w, 1),
		cmd_op(DRM_NPU_OP_RETURN, 0),
		test_cmd_copy(a_seen, w, 8, 0),		/* thread A */
		cmd_value_write(w, 2),
		cmd_op(DRM_NPU_OP_RETURN, 0),
		test_cmd_copy(b_seen, w, 8, 0),		/* thread B */
		cmd_value_write(w, 3),
	};
	struct drm_npu_cmd ended[] = {
		cmd_op(DRM_NPU_OP_ACTIVATE, 3),
		cmd_value_write(w, 1),
		cmd_op(DRM_NPU_OP_END, 0),
		cmd_value_write(w, 99),
	};
	uint32_t id, end_id;

	ASSERT_EQ(0, program_create(self->card.fd, threads, 9, &id));
	EXPECT_EQ(3, run_with(self, id, 0));
	EXPECT_EQ(1, read_word(self, a_seen));
	EXPECT_EQ(2, read_word(self, b_seen));

	ASSERT_EQ(0, program_create(self->card.fd, ended, 4, &end_id));
	EXPECT_EQ(1, run_with(self, end_id, 0));
}

/* More ACTIVATEs pending than DRM_NPU_PROGRAM_MAX_ACTIVE fail the stream. */
TEST_F(program, too_many_threads_fail_the_stream)
{
	struct drm_npu_cmd cmds[DRM_NPU_PROGRAM_MAX_ACTIVE + 2], run_cmd;
	unsigned int i;
	uint64_t seq;
	uint32_t id;

	for (i = 0; i <= DRM_NPU_PROGRAM_MAX_ACTIVE; i++)
		cmds[i] = cmd_op(DRM_NPU_OP_ACTIVATE, DRM_NPU_PROGRAM_MAX_ACTIVE + 1);
	cmds[i] = cmd_op(DRM_NPU_OP_RETURN, 0);
	ASSERT_EQ(0, program_create(self->card.fd, cmds, DRM_NPU_PROGRAM_MAX_ACTIVE + 2, &id));
	run_cmd = cmd_program(id);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &run_cmd, 1, 0, &seq));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, self->stream.slot, seq, 20000));
	EXPECT_EQ(DRM_NPU_ERR_REJECTED, self->card.fence[self->stream.slot].error);
}

/* CALLs nest DRM_NPU_PROGRAM_MAX_DEPTH deep, no deeper. */
TEST_F(program, call_nesting_limit)
{
	uint64_t out = self->a.addr + 8;
	struct drm_npu_cmd leaf[] = { cmd_value_write(out, 42) }, call;
	uint32_t ids[DRM_NPU_PROGRAM_MAX_DEPTH + 1], id;
	unsigned int i;

	ASSERT_EQ(0, program_create(self->card.fd, leaf, 1, &ids[0]));
	for (i = 1; i < DRM_NPU_PROGRAM_MAX_DEPTH; i++) {
		call = cmd_op(DRM_NPU_OP_CALL, ids[i - 1]);
		ASSERT_EQ(0, program_create(self->card.fd, &call, 1, &ids[i]));
	}
	call = cmd_op(DRM_NPU_OP_CALL, ids[DRM_NPU_PROGRAM_MAX_DEPTH - 1]);
	EXPECT_EQ(-EINVAL, program_create(self->card.fd, &call, 1, &id));
	EXPECT_EQ(42, run_with(self, ids[DRM_NPU_PROGRAM_MAX_DEPTH - 1], 0));

	/* a callee destroyed stays with its caller */
	EXPECT_EQ(0, program_destroy(self->card.fd, ids[0]));
	EXPECT_EQ(42, run_with(self, ids[DRM_NPU_PROGRAM_MAX_DEPTH - 1], 0));
}

/* SET_CALL in stream order: runs before it call the old callee. */
TEST_F(program, set_call_takes_effect_for_later_runs)
{
	uint64_t out = self->a.addr + 8, seen = self->a.addr + 32;
	struct drm_npu_cmd a_cmd = cmd_value_write(out, 1), b_cmd = cmd_value_write(out, 2);
	struct drm_npu_cmd parent_cmds[2], batch[4];
	uint32_t a, b, parent, top;

	ASSERT_EQ(0, program_create(self->card.fd, &a_cmd, 1, &a));
	ASSERT_EQ(0, program_create(self->card.fd, &b_cmd, 1, &b));
	parent_cmds[0] = cmd_op(DRM_NPU_OP_NOP, 0);
	parent_cmds[1] = cmd_op(DRM_NPU_OP_CALL, a);
	ASSERT_EQ(0, program_create(self->card.fd, parent_cmds, 2, &parent));
	EXPECT_EQ(1, run_with(self, parent, 0));

	batch[0] = cmd_program(parent);
	batch[1] = test_cmd_copy(seen, out, 8, 0);
	batch[2] = cmd_set_call(parent, 1, b);
	batch[3] = cmd_program(parent);
	ASSERT_EQ(0, run(self, batch, 4));
	EXPECT_EQ(1, read_word(self, seen));
	EXPECT_EQ(2, read_word(self, out));
	EXPECT_EQ(2, run_with(self, parent, 0));

	/* errors: not a CALL, unknown ids, a cycle, one too deep */
	batch[0] = cmd_set_call(parent, 0, a);
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, batch, 1, 0, NULL));
	batch[0] = cmd_set_call(parent, 2, a);
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, batch, 1, 0, NULL));
	batch[0] = cmd_set_call(parent + 100, 1, a);
	EXPECT_EQ(-ENOENT, test_submit(self->card.fd, self->stream.id, batch, 1, 0, NULL));
	batch[0] = cmd_set_call(parent, 1, parent + 100);
	EXPECT_EQ(-ENOENT, test_submit(self->card.fd, self->stream.id, batch, 1, 0, NULL));
	batch[0] = cmd_set_call(parent, 1, parent);
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, batch, 1, 0, NULL));
	parent_cmds[0] = cmd_op(DRM_NPU_OP_CALL, parent);
	ASSERT_EQ(0, program_create(self->card.fd, parent_cmds, 1, &top));
	batch[0] = cmd_set_call(parent, 1, top);
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, batch, 1, 0, NULL));
	batch[0] = cmd_set_call(parent, 1, a);
	batch[0].flags = DRM_NPU_CMD_SRC_IMM;
	EXPECT_EQ(-EINVAL, test_submit(self->card.fd, self->stream.id, batch, 1, 0, NULL));

	/* the callees set stay with the parent once destroyed */
	EXPECT_EQ(0, program_destroy(self->card.fd, b));
	EXPECT_EQ(2, run_with(self, top, 0));
}

/* A program that never ends is aborted with the stream; its events fail. */
TEST_F(program, endless_loop_aborted)
{
	struct drm_npu_cmd cmds[2], run_cmd;
	uint32_t ev, id;
	uint64_t seq;

	ASSERT_EQ(0, test_slot_alloc(self->card.fd, &ev));
	cmds[0] = cmd_op(DRM_NPU_OP_JUMP, 0);
	cmds[1] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_SLOT_WRITE, .slot = ev, .value = 1 };
	ASSERT_EQ(0, program_create(self->card.fd, cmds, 2, &id));
	run_cmd = cmd_program(id);
	ASSERT_EQ(0, test_submit(self->card.fd, self->stream.id, &run_cmd, 1, 0, &seq));
	EXPECT_EQ(-ETIME, test_wait(self->card.fd, self->stream.slot, seq, 100));
	ASSERT_EQ(0, test_stream_destroy(self->card.fd, self->stream.id,
					 DRM_NPU_STREAM_DESTROY_ABORT));
	EXPECT_EQ(-EIO, test_wait(self->card.fd, ev, 1, 20000));
	EXPECT_EQ(DRM_NPU_ERR_ABORTED, self->card.fence[ev].error);

	/* the ring is good for the next stream, the program for another run */
	ASSERT_EQ(0, test_stream_create(self->card.fd, 0, 0, &self->stream));
	cmds[0] = cmd_value_write(self->a.addr, 5);
	EXPECT_EQ(0, run(self, cmds, 1));
	EXPECT_EQ(0, program_destroy(self->card.fd, id));
}

/* Program ids are per context; closing the file frees its programs. */
TEST_F(program, two_contexts)
{
	struct drm_npu_cmd fill = test_cmd_fill(self->a.addr, 1, 64, 0), c;
	struct test_card other;
	struct drm_npu_stream_create s2;
	struct drm_npu_bo_create bo;
	uint64_t free_before;
	uint32_t id, id2;

	ASSERT_EQ(0, program_create(self->card.fd, &fill, 1, &id));
	ASSERT_EQ(0, test_card_open(&other, 0));
	ASSERT_EQ(0, test_stream_create(other.fd, 0, 0, &s2));
	c = cmd_program(id);
	EXPECT_EQ(-ENOENT, test_submit(other.fd, s2.id, &c, 1, 0, NULL));
	EXPECT_EQ(-ENOENT, program_destroy(other.fd, id));
	c = cmd_op(DRM_NPU_OP_CALL, id);
	EXPECT_EQ(-EINVAL, program_create(other.fd, &c, 1, &id2));
	/* another context's buffer */
	EXPECT_EQ(-EPERM, program_create(other.fd, &fill, 1, &id2));

	/* closing the file gives back what its program holds */
	free_before = test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE);
	ASSERT_EQ(0, test_bo_create(other.fd, 1 << 20, 0, &bo));
	fill = test_cmd_fill(bo.addr, 2, 64, 0);
	ASSERT_EQ(0, program_create(other.fd, &fill, 1, &id2));
	ASSERT_EQ(0, test_bo_close(other.fd, bo.handle));
	EXPECT_GT(free_before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	test_card_close(&other);
	EXPECT_EQ(free_before, test_param_or_die(self->card.fd, DRM_NPU_PARAM_DEVMEM_FREE));
	EXPECT_EQ(0, program_destroy(self->card.fd, id));
}

TEST_HARNESS_MAIN
