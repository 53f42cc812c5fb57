// SPDX-License-Identifier: GPL-2.0-only
/*
 * Programs: commands checked and translated once, at
 * DRM_IOCTL_NPU_PROGRAM_CREATE, into memory the card reads and userspace
 * cannot reach, that a SUBMIT runs with one card command (NPU_OP_CALL).
 * A program keeps what its commands name (buffers, operator descriptors,
 * pinned user memory, in a job of its own) until it is destroyed and no
 * run, no caller and no ioctl uses it.
 *
 * Locking: the context's table (npu_ctx.programs) is changed and
 * references are taken from it under its xa_lock, the innermost lock; a
 * program's @lock guards the callees it gathers through SET_CALL and its
 * @events, and is taken under a stream's submit_lock when a SET_CALL is
 * queued.  The references: the table's, each job that runs or edits the
 * program, each program that has CALLed it.
 */

#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "npu_drv.h"

/**
 * struct npu_program - a program of a context
 * @ref: see the locking rules above
 * @ndev: the card
 * @count: its commands
 * @height: programs deep that a run of it goes, itself included: 1 + its
 *	callees' highest; fixed at creation, and every later callee lower
 * @job: what its commands hold
 * @desc: the card's descriptor (struct npu_program_desc), coherent memory
 * @desc_dma: its bus address, what a CALL names
 * @desc_size: its bytes
 * @chunks: the translated commands, NPU_PROGRAM_CHUNK_CMDS a chunk; only
 *	the driver writes them, and only a CALL's src after creation
 *	(SET_CALL, by the card in stream order)
 * @chunks_dma: their bus addresses
 * @lock: protects @callees and updates of @events
 * @callees: every program it has CALLed (struct npu_program_callee),
 *	referenced until it goes; added to under @lock, walked under RCU by
 *	whoever holds the program, and freed with it
 * @events: the event slots its runs may write, its callees' included
 * @nslots: bits of @events
 */
struct npu_program {
	struct kref ref;
	struct npu_device *ndev;
	u32 count;
	u32 height;
	struct npu_job *job;
	struct npu_program_desc *desc;
	dma_addr_t desc_dma;
	size_t desc_size;
	struct npu_cmd *chunks[NPU_PROGRAM_MAX_CHUNKS];
	dma_addr_t chunks_dma[NPU_PROGRAM_MAX_CHUNKS];
	struct mutex lock;		/* @callees, @events */
	struct list_head callees;
	unsigned long *events;
	u32 nslots;
};

/* A callee a program keeps, in its @callees. */
struct npu_program_callee {
	struct list_head link;
	struct npu_program *program;
};

/*
 * A SET_CALL of a queued job: the parent, referenced, and the callee it
 * takes once the job is queued (@callee, referenced, NULL once taken).
 */
struct npu_program_edit {
	struct npu_program *parent;
	struct npu_program_callee *callee;
};

/* A program being created, for its control commands. */
struct npu_program_build {
	struct npu_ctx *ctx;
	struct npu_program *program;
};

static_assert(DRM_NPU_MAX_PROGRAM == NPU_PROGRAM_MAX_CMDS);
static_assert(DRM_NPU_PROGRAM_MAX_DEPTH == NPU_PROGRAM_MAX_DEPTH);
static_assert(DRM_NPU_PROGRAM_MAX_ACTIVE == NPU_PROGRAM_MAX_ACTIVE);
static_assert((int)DRM_NPU_BRANCH_LE == (int)NPU_BRANCH_LE);
static_assert(sizeof(struct npu_program_desc) == sizeof(struct npu_cmd));

static u32 npu_program_chunk_cmds(u32 count, unsigned int chunk)
{
	return min_t(u32, count - chunk * NPU_PROGRAM_CHUNK_CMDS,
		     NPU_PROGRAM_CHUNK_CMDS);
}

static unsigned int npu_program_nchunks(u32 count)
{
	return DIV_ROUND_UP(count, NPU_PROGRAM_CHUNK_CMDS);
}

static void npu_program_callee_free(struct npu_program_callee *callee)
{
	npu_program_put(callee->program);
	kfree(callee);
}

static void npu_program_free(struct npu_program *program)
{
	struct device *dev = program->ndev->drm.dev;
	struct npu_program_callee *callee, *next;
	unsigned long i;

	list_for_each_entry_safe(callee, next, &program->callees, link)
		npu_program_callee_free(callee);
	for (i = 0; i < ARRAY_SIZE(program->chunks) && program->chunks[i]; i++)
		dma_free_coherent(dev, npu_program_chunk_cmds(program->count, i) *
				  sizeof(struct npu_cmd), program->chunks[i],
				  program->chunks_dma[i]);
	if (program->desc)
		dma_free_coherent(dev, program->desc_size, program->desc,
				  program->desc_dma);
	if (program->job)
		npu_job_free(program->ndev, program->job);
	bitmap_free(program->events);
	mutex_destroy(&program->lock);
	kfree(program);
}

static void npu_program_release(struct kref *ref)
{
	npu_program_free(container_of(ref, struct npu_program, ref));
}

/**
 * npu_program_put - drop a reference to a program
 * @program: the program; freed with the last reference, in process context
 */
void npu_program_put(struct npu_program *program)
{
	kref_put(&program->ref, npu_program_release);
}

/* The context's program @id, referenced, or NULL. */
static struct npu_program *npu_program_get(struct npu_ctx *ctx, u64 id)
{
	struct npu_program *program;

	if (!id || id > DRM_NPU_MAX_PROGRAMS)
		return NULL;
	xa_lock(&ctx->programs);
	program = xa_load(&ctx->programs, id);
	if (program)
		kref_get(&program->ref);
	xa_unlock(&ctx->programs);
	return program;
}

/* The translated command @i, in the program's memory. */
static struct npu_cmd *npu_program_cmd(struct npu_program *program, u32 i)
{
	return &program->chunks[i / NPU_PROGRAM_CHUNK_CMDS][i % NPU_PROGRAM_CHUNK_CMDS];
}

static dma_addr_t npu_program_cmd_dma(struct npu_program *program, u32 i)
{
	return program->chunks_dma[i / NPU_PROGRAM_CHUNK_CMDS] +
	       (i % NPU_PROGRAM_CHUNK_CMDS) * sizeof(struct npu_cmd);
}

/* @program, referenced by the caller, in a node for a @callees list. */
static struct npu_program_callee *npu_program_callee_new(struct npu_program *program)
{
	struct npu_program_callee *callee = kmalloc(sizeof(*callee), GFP_KERNEL);

	if (callee)
		callee->program = program;
	return callee;
}

/*
 * @program keeps @callee from now on, unless it has that program already:
 * then the node is left to the caller.  Its runs may write the callee's
 * events.  Return: whether it took the node.
 */
static bool npu_program_add_callee(struct npu_program *program,
				   struct npu_program_callee *callee)
{
	struct npu_program_callee *known;

	lockdep_assert_held(&program->lock);
	list_for_each_entry(known, &program->callees, link)
		if (known->program == callee->program)
			return false;
	list_add_tail_rcu(&callee->link, &program->callees);
	bitmap_or(program->events, program->events, callee->program->events,
		  min(program->nslots, callee->program->nslots));
	return true;
}

/* A device word of 4 or 8 bytes, aligned, of the context: its VA. */
static int npu_program_word(struct npu_ctx *ctx, struct npu_job *job, u64 addr,
			    u64 size, u64 *offset)
{
	if ((size != 4 && size != 8) || !IS_ALIGNED(addr, size))
		return -EINVAL;
	return npu_vm_address(ctx, job, addr, size, offset);
}

static int npu_build_branch(struct npu_program_build *build,
			    const struct drm_npu_cmd *uc, u32 count, struct npu_cmd *hw)
{
	struct npu_job *job = build->program->job;
	u64 dst, src = uc->src;
	int ret;

	if (uc->flags & ~DRM_NPU_CMD_SRC_IMM || uc->cond > DRM_NPU_BRANCH_LE ||
	    uc->value >= count)
		return -EINVAL;
	ret = npu_program_word(build->ctx, job, uc->dst, uc->size, &dst);
	if (!ret && !(uc->flags & DRM_NPU_CMD_SRC_IMM))
		ret = npu_program_word(build->ctx, job, uc->src, uc->size, &src);
	if (ret)
		return ret;
	hw->opcode = cpu_to_le16(NPU_OP_BRANCH);
	hw->flags = cpu_to_le16(uc->flags & DRM_NPU_CMD_SRC_IMM ? NPU_CMD_SRC_IMM : 0);
	hw->arg = cpu_to_le32(uc->cond);
	hw->dst = cpu_to_le64(dst);
	hw->src = cpu_to_le64(src);
	hw->size = cpu_to_le64(uc->size);
	hw->value = cpu_to_le64(uc->value);
	return 0;
}

/* A SWITCH of n cases is followed by n JUMPs. */
static int npu_build_switch(struct npu_program_build *build,
			    const struct drm_npu_cmd *ucmds, u32 count, u32 i,
			    struct npu_cmd *hw)
{
	const struct drm_npu_cmd *uc = &ucmds[i];
	u64 dst, n;
	int ret;

	if (uc->flags || uc->src || uc->cond || !uc->value ||
	    uc->value > count - i - 1)
		return -EINVAL;
	for (n = 1; n <= uc->value; n++)
		if (ucmds[i + n].op != DRM_NPU_OP_JUMP)
			return -EINVAL;
	ret = npu_program_word(build->ctx, build->program->job, uc->dst, uc->size, &dst);
	if (ret)
		return ret;
	hw->opcode = cpu_to_le16(NPU_OP_SWITCH);
	hw->dst = cpu_to_le64(dst);
	hw->size = cpu_to_le64(uc->size);
	hw->value = cpu_to_le64(uc->value);
	return 0;
}

static int npu_build_call(struct npu_program_build *build,
			  const struct drm_npu_cmd *uc, struct npu_cmd *hw)
{
	struct npu_program *program = build->program;
	struct npu_program_callee *node;
	struct npu_program *callee;
	bool taken;

	if (uc->flags || uc->dst || uc->src || uc->size || uc->cond)
		return -EINVAL;
	callee = npu_program_get(build->ctx, uc->value);
	if (!callee)
		return -EINVAL;
	if (callee->height >= NPU_PROGRAM_MAX_DEPTH) {
		npu_program_put(callee);
		return -EINVAL;
	}
	node = npu_program_callee_new(callee);
	if (!node) {
		npu_program_put(callee);
		return -ENOMEM;
	}
	program->height = max(program->height, callee->height + 1);
	hw->opcode = cpu_to_le16(NPU_OP_CALL);
	hw->src = cpu_to_le64(callee->desc_dma);
	mutex_lock(&program->lock);
	taken = npu_program_add_callee(program, node);
	mutex_unlock(&program->lock);
	if (!taken)
		npu_program_callee_free(node);
	return 0;
}

/**
 * npu_program_build_control - check and translate a control command
 * @build: the program being created
 * @ucmds: all its commands
 * @count: how many
 * @i: the index of this one
 * @hw: its translation
 *
 * Return: 0; -EINVAL for a command that is not a control command, a
 * target outside the program, a CALL of no program of the context or too
 * deep, a SWITCH not followed by its JUMPs, a non-zero unused field;
 * -EPERM for an operand outside the context's device buffers.
 */
int npu_program_build_control(struct npu_program_build *build,
			      const struct drm_npu_cmd *ucmds, unsigned int count,
			      unsigned int i, struct npu_cmd *hw)
{
	const struct drm_npu_cmd *uc = &ucmds[i];
	bool target = uc->op == DRM_NPU_OP_JUMP || uc->op == DRM_NPU_OP_ACTIVATE;
	bool bare = uc->op == DRM_NPU_OP_END || uc->op == DRM_NPU_OP_RETURN;

	if (uc->dst_handle || uc->src_handle || uc->slot)
		return -EINVAL;
	if (target || bare) {
		if (uc->flags || uc->dst || uc->src || uc->size || uc->cond ||
		    (bare && uc->value) || (target && uc->value >= count))
			return -EINVAL;
		hw->value = cpu_to_le64(uc->value);
	}
	switch (uc->op) {
	case DRM_NPU_OP_JUMP:
		hw->opcode = cpu_to_le16(NPU_OP_JUMP);
		return 0;
	case DRM_NPU_OP_ACTIVATE:
		hw->opcode = cpu_to_le16(NPU_OP_ACTIVATE);
		return 0;
	case DRM_NPU_OP_END:
		hw->opcode = cpu_to_le16(NPU_OP_END);
		return 0;
	case DRM_NPU_OP_RETURN:
		hw->opcode = cpu_to_le16(NPU_OP_RETURN);
		return 0;
	case DRM_NPU_OP_BRANCH:
		return npu_build_branch(build, uc, count, hw);
	case DRM_NPU_OP_SWITCH:
		return npu_build_switch(build, ucmds, count, i, hw);
	case DRM_NPU_OP_CALL:
		return npu_build_call(build, uc, hw);
	default:
		return -EINVAL;
	}
}

/* DRM_NPU_OP_PROGRAM: one CALL; the job holds the program until done. */
static int npu_build_run(struct npu_ctx *ctx, struct npu_job *job,
			 struct npu_cmd *hw, const struct drm_npu_cmd *uc)
{
	struct npu_program *program;

	if (uc->flags || uc->dst || uc->src || uc->size || uc->dst_handle ||
	    uc->src_handle || uc->slot || uc->cond)
		return -EINVAL;
	program = npu_program_get(ctx, uc->value);
	if (!program)
		return -ENOENT;
	job->programs[job->nprograms++] = program;
	job->bytes += program->job->bytes;
	hw->opcode = cpu_to_le16(NPU_OP_CALL);
	hw->src = cpu_to_le64(program->desc_dma);
	return 0;
}

/* Gives back what a SET_CALL of a job holds. */
void npu_program_edit_free(struct npu_program_edit *edit)
{
	if (edit->callee)
		npu_program_callee_free(edit->callee);
	npu_program_put(edit->parent);
	kfree(edit);
}

/**
 * npu_job_commit_program_edits - parents take the callees of a job's SET_CALLs
 * @stream: the stream the job goes to, its submit_lock held
 * @job: the job, about to be queued: nothing can fail it any more
 *
 * From here on each parent keeps its new callee, which the job holds
 * until then: a SUBMIT that fails leaves no parent with a callee more.
 */
void npu_job_commit_program_edits(struct npu_stream *stream, struct npu_job *job)
{
	struct npu_program_edit *edit;
	unsigned int i;

	lockdep_assert_held(&stream->submit_lock);
	for (i = 0; i < job->nprogram_edits; i++) {
		edit = job->program_edits[i];
		mutex_lock(&edit->parent->lock);
		if (npu_program_add_callee(edit->parent, edit->callee))
			edit->callee = NULL;
		mutex_unlock(&edit->parent->lock);
	}
}

/*
 * DRM_NPU_OP_SET_CALL: the card writes the new callee's descriptor into
 * the CALL's src, in stream order; the driver alone chose the word and
 * its value.  The job holds the parent until then, the parent the callee
 * from when the job is queued.
 */
static int npu_build_set_call(struct npu_ctx *ctx, struct npu_job *job,
			      struct npu_cmd *hw, const struct drm_npu_cmd *uc)
{
	struct npu_program *parent, *callee;
	struct npu_program_edit *edit;
	int ret = -ENOENT;

	if (uc->flags || uc->size || uc->dst_handle || uc->src_handle ||
	    uc->slot || uc->cond)
		return -EINVAL;
	parent = npu_program_get(ctx, uc->value);
	if (!parent)
		return -ENOENT;
	callee = npu_program_get(ctx, uc->src);
	if (!callee)
		goto err_parent;
	ret = -EINVAL;
	/* Lower than the parent: no cycle, no run deeper than checked. */
	if (uc->dst >= parent->count || callee->height >= parent->height ||
	    le16_to_cpu(npu_program_cmd(parent, uc->dst)->opcode) != NPU_OP_CALL)
		goto err_callee;
	ret = -ENOMEM;
	edit = kmalloc(sizeof(*edit), GFP_KERNEL);
	if (!edit)
		goto err_callee;
	edit->callee = npu_program_callee_new(callee);
	if (!edit->callee)
		goto err_edit;
	edit->parent = parent;
	job->program_edits[job->nprogram_edits++] = edit;

	hw->opcode = cpu_to_le16(NPU_OP_FENCE);
	hw->flags = cpu_to_le16(NPU_CMD_DST_HOST);
	hw->dst = cpu_to_le64(npu_program_cmd_dma(parent, uc->dst) +
			      offsetof(struct npu_cmd, src));
	hw->value = cpu_to_le64(callee->desc_dma);
	return 0;

err_edit:
	kfree(edit);
err_callee:
	npu_program_put(callee);
err_parent:
	npu_program_put(parent);
	return ret;
}

/**
 * npu_program_build_submit - translate SUBMIT's DRM_NPU_OP_PROGRAM or _SET_CALL
 * @ctx: the submitter's context
 * @job: the batch's job, which holds the programs named
 * @hw: the translation
 * @uc: the command
 *
 * Return: 0; -ENOENT for a program id not of this context; -EINVAL for a
 * SET_CALL whose index is not a CALL of the program, or whose callee is
 * not lower than the program (a cycle, or too deep), or a non-zero unused
 * field.
 */
int npu_program_build_submit(struct npu_ctx *ctx, struct npu_job *job,
			     struct npu_cmd *hw, const struct drm_npu_cmd *uc)
{
	if (uc->op == DRM_NPU_OP_PROGRAM)
		return npu_build_run(ctx, job, hw, uc);
	return npu_build_set_call(ctx, job, hw, uc);
}

/**
 * npu_job_set_program_events - set the error of the events a job's runs write
 * @ctx: the job's context
 * @job: the job
 * @error: DRM_NPU_ERR_NONE as it is queued, the stream's error as it fails
 *
 * Called under the stream's lock, or before the job is queued.
 */
void npu_job_set_program_events(struct npu_ctx *ctx, struct npu_job *job, u32 error)
{
	unsigned int i, slot;

	for (i = 0; i < job->nprograms; i++)
		for_each_set_bit(slot, job->programs[i]->events, job->programs[i]->nslots)
			WRITE_ONCE(npu_ctx_slot(ctx, slot)->error, error);
}

/* A SLOT_WAIT of @program or of its callees waits on a slot that failed. */
static bool npu_program_waits_on_failure(struct npu_ctx *ctx, struct npu_program *program)
{
	struct npu_program_callee *callee;
	bool blocked = false;
	unsigned int i;

	for (i = 0; i < program->job->nwaits; i++)
		if (npu_ctx_wait_failed(ctx, &program->job->waits[i]))
			return true;
	rcu_read_lock();
	list_for_each_entry_rcu(callee, &program->callees, link) {
		blocked = npu_program_waits_on_failure(ctx, callee->program);
		if (blocked)
			break;
	}
	rcu_read_unlock();
	return blocked;
}

/**
 * npu_job_programs_wait_on_failure - a job's runs wait on a failed slot
 * @ctx: the job's context
 * @job: the job, which holds its programs
 *
 * As a job's own SLOT_WAITs, those of the programs it runs, their callees
 * included (every callee a program has had: a stream that might wait on a
 * failed slot is failed with DRM_NPU_ERR_DEPENDENCY rather than left to
 * wait forever).  Callable under the stream's lock.
 */
bool npu_job_programs_wait_on_failure(struct npu_ctx *ctx, struct npu_job *job)
{
	unsigned int i;

	for (i = 0; i < job->nprograms; i++)
		if (npu_program_waits_on_failure(ctx, job->programs[i]))
			return true;
	return false;
}

static int npu_program_alloc_memory(struct npu_program *program,
				    const struct npu_cmd *hw)
{
	struct device *dev = program->ndev->drm.dev;
	unsigned int i, nchunks = npu_program_nchunks(program->count);
	u32 n;

	program->desc_size = sizeof(*program->desc) + nchunks * sizeof(__le64);
	program->desc = dma_alloc_coherent(dev, program->desc_size,
					   &program->desc_dma, GFP_KERNEL);
	if (!program->desc)
		return -ENOMEM;
	program->desc->count = cpu_to_le32(program->count);
	for (i = 0; i < nchunks; i++) {
		n = npu_program_chunk_cmds(program->count, i);
		program->chunks[i] = dma_alloc_coherent(dev, n * sizeof(*hw),
							&program->chunks_dma[i],
							GFP_KERNEL);
		if (!program->chunks[i])
			return -ENOMEM;
		memcpy(program->chunks[i], hw + i * NPU_PROGRAM_CHUNK_CMDS,
		       n * sizeof(*hw));
		program->desc->chunks[i] = cpu_to_le64(program->chunks_dma[i]);
	}
	return 0;
}

static struct npu_program *npu_program_new(struct npu_ctx *ctx, u32 count)
{
	struct npu_program *program = kzalloc(sizeof(*program), GFP_KERNEL);

	if (!program)
		return NULL;
	kref_init(&program->ref);
	program->ndev = ctx->ndev;
	program->count = count;
	program->height = 1;
	mutex_init(&program->lock);
	INIT_LIST_HEAD(&program->callees);
	program->nslots = ctx->fence->count;
	program->events = bitmap_zalloc(program->nslots, GFP_KERNEL);
	if (!program->events) {
		npu_program_free(program);
		return NULL;
	}
	return program;
}

/* Checks and translates @ucmds into a new program, not yet in the table. */
static int npu_program_build(struct npu_ctx *ctx, const struct drm_npu_cmd *ucmds,
			     u32 count, struct npu_program **out)
{
	struct npu_program_build build = { .ctx = ctx };
	struct npu_compute_plan plan;
	struct npu_cmd *hw;
	unsigned int i;
	int ret;

	ret = npu_compute_plan(ctx->ndev, ucmds, count, &plan);
	if (ret)
		return ret;
	build.program = npu_program_new(ctx, count);
	if (!build.program)
		return -ENOMEM;
	ret = -ENOMEM;
	build.program->job = npu_job_alloc(ctx->ndev, count, plan.ops);
	hw = kvcalloc(count, sizeof(*hw), GFP_KERNEL);
	if (!build.program->job || !hw)
		goto err;
	ret = npu_job_build_program(ctx, build.program->job, &plan, &build,
				    ucmds, count, hw);
	if (ret)
		goto err;
	ret = npu_program_alloc_memory(build.program, hw);
	if (ret)
		goto err;
	for (i = 0; i < build.program->job->nevents; i++)
		__set_bit(build.program->job->event_slots[i], build.program->events);
	kvfree(hw);
	*out = build.program;
	return 0;

err:
	kvfree(hw);
	npu_program_free(build.program);
	return ret;
}

int npu_program_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_program_create *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct npu_program *program;
	struct drm_npu_cmd *ucmds;
	u32 id;
	int ret;

	if (args->flags || args->id || args->cmd_size != sizeof(*ucmds) ||
	    !args->count || args->count > DRM_NPU_MAX_PROGRAM)
		return -EINVAL;
	ucmds = vmemdup_array_user(u64_to_user_ptr(args->cmds), args->count,
				   sizeof(*ucmds));
	if (IS_ERR(ucmds))
		return PTR_ERR(ucmds);
	ret = npu_program_build(ctx, ucmds, args->count, &program);
	kvfree(ucmds);
	if (ret)
		return ret;

	ret = xa_alloc(&ctx->programs, &id, program,
		       XA_LIMIT(1, DRM_NPU_MAX_PROGRAMS), GFP_KERNEL);
	if (ret) {
		npu_program_put(program);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	args->id = id;
	return 0;
}

int npu_program_destroy_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_npu_program_destroy *args = data;
	struct npu_ctx *ctx = file->driver_priv;
	struct npu_program *program;

	if (args->flags)
		return -EINVAL;
	if (!args->id || args->id > DRM_NPU_MAX_PROGRAMS)
		return -ENOENT;
	program = xa_erase(&ctx->programs, args->id);
	if (!program)
		return -ENOENT;
	npu_program_put(program);
	return 0;
}

void npu_program_ctx_init(struct npu_ctx *ctx)
{
	xa_init_flags(&ctx->programs, XA_FLAGS_ALLOC1);
}

/* After the context's streams: what their jobs held is given back. */
void npu_program_ctx_fini(struct npu_ctx *ctx)
{
	struct npu_program *program;
	unsigned long id;

	xa_for_each(&ctx->programs, id, program) {
		xa_erase(&ctx->programs, id);
		npu_program_put(program);
	}
	xa_destroy(&ctx->programs);
}
