// SPDX-License-Identifier: MIT
/*
 * Continue-on-failure (ACL_CONTINUE_ON_FAILURE, the default mode): the
 * tasks queued behind the one that failed still run, as the vendor
 * documents. The card stops a ring at the failed command and the driver
 * drops what the ring still held, so each ring of a stream keeps a
 * journal of the tasks it was given and has not finished; when the ring
 * fails, the tasks after the failed one go again, in order, to the
 * stream's new ring. A task is one submission: the one that holds the
 * failed command is dropped whole.
 *
 * Not journaled, so lost with the ring as before: host functions (their
 * queue is dropped with the ring) and copies with pageable memory (their
 * call waits for them and reports the failure itself).
 *
 * The journal is on every submission's path, direct rings' included
 * (which enter no system call), so finished notes are kept for reuse
 * rather than freed: a note mostly costs a copy of the task and no allocation.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_internal.h"

/* Notes are made in steps of NOTE_STEP bytes, so that most fit a spare one. */
#define NOTE_STEP	64
/* Finished notes kept for reuse. */
#define SPARE_MAX	64

struct acl_journal_task {
	struct acl_journal_task *next;
	uint64_t first, last;		/* its sequence numbers on the ring */
	size_t count;
	size_t room;			/* bytes after the header */
	struct drm_npu_cmd *cmds;	/* in the same allocation, then descriptors */
};

struct acl_journal {
	struct acl_journal_task *head, **tail;
	struct acl_journal_task *spare;	/* finished notes, for reuse */
	unsigned int nspare;
};

static bool replayable(const struct drm_npu_cmd *cmds, size_t count, size_t *desc_bytes)
{
	size_t i;

	*desc_bytes = 0;
	for (i = 0; i < count; i++) {
		if (cmds[i].flags & (DRM_NPU_CMD_DST_USER | DRM_NPU_CMD_SRC_USER))
			return false;
		if (cmds[i].op == DRM_NPU_OP_COMPUTE)
			*desc_bytes += (cmds[i].size + 7) & ~(size_t)7;
	}
	return true;
}

static void task_release(struct acl_journal *j, struct acl_journal_task *t)
{
	if (j->nspare >= SPARE_MAX) {
		free(t);
		return;
	}
	t->next = j->spare;
	j->spare = t;
	j->nspare++;
}

/* Forgets the tasks k has finished. */
static void trim(struct acl_device *d, struct acl_kstream *k)
{
	struct acl_journal *j = k->journal;
	uint64_t v;

	if (!j->head)
		return;
	v = acl_slot_value(d, k->slot);
	while (j->head && acl_seq_reached(v, j->head->last)) {
		struct acl_journal_task *t = j->head;

		j->head = t->next;
		task_release(j, t);
	}
	if (!j->head)
		j->tail = &j->head;
}

static struct acl_journal_task *task_alloc(struct acl_journal *j, size_t bytes)
{
	struct acl_journal_task *t;

	if (j->spare && j->spare->room >= bytes) {
		t = j->spare;
		j->spare = t->next;
		j->nspare--;
		return t;
	}
	bytes = (bytes + NOTE_STEP - 1) & ~(size_t)(NOTE_STEP - 1);
	t = malloc(sizeof(*t) + bytes);
	if (t)
		t->room = bytes;
	return t;
}

/* A copy of the task, its operator descriptors with it (the driver read the caller's). */
static struct acl_journal_task *task_copy(struct acl_journal *j, const struct drm_npu_cmd *cmds,
					  size_t count, size_t desc_bytes)
{
	size_t cmd_bytes = count * sizeof(*cmds);
	struct acl_journal_task *t = task_alloc(j, cmd_bytes + desc_bytes);
	char *desc;
	size_t i;

	if (!t)
		return NULL;
	t->cmds = (struct drm_npu_cmd *)(t + 1);
	memcpy(t->cmds, cmds, cmd_bytes);
	desc = (char *)t->cmds + cmd_bytes;
	for (i = 0; i < count; i++) {
		if (cmds[i].op != DRM_NPU_OP_COMPUTE)
			continue;
		memcpy(desc, (const void *)(uintptr_t)cmds[i].src, cmds[i].size);
		t->cmds[i].src = (uint64_t)(uintptr_t)desc;
		desc += (cmds[i].size + 7) & ~(size_t)7;
	}
	t->count = count;
	t->next = NULL;
	return t;
}

void acl_journal_note_locked(struct acl_stream *s, struct acl_kstream *k,
			     const struct drm_npu_cmd *cmds, size_t count, uint64_t first,
			     uint64_t last)
{
	struct acl_journal_task *t;
	size_t desc_bytes;

	ACL_ASSERT_HELD(&s->lock);
	if (s->failure_mode != ACL_CONTINUE_ON_FAILURE || !replayable(cmds, count, &desc_bytes))
		return;
	if (!k->journal) {
		k->journal = calloc(1, sizeof(*k->journal));
		if (!k->journal)
			goto no_memory;
		k->journal->tail = &k->journal->head;
	}
	trim(s->dev, k);
	t = task_copy(k->journal, cmds, count, desc_bytes);
	if (!t)
		goto no_memory;
	t->first = first;
	t->last = last;
	*k->journal->tail = t;
	k->journal->tail = &t->next;
	return;

no_memory:
	ACL_LOGW("stream %u: no memory to note a task; should the stream fail, that task is "
		 "lost", s->obj.index);
}

/*
 * k, a ring of s, has failed and s has a new one (s->lock held): the
 * tasks after the failed one are submitted again, to the new ring.
 */
void acl_journal_replay_locked(struct acl_stream *s, struct acl_kstream *k)
{
	struct acl_journal *j = k->journal;
	struct acl_journal_task *t, *next;
	uint64_t done, failed;
	uint32_t e;
	aclError err;

	ACL_ASSERT_HELD(&s->lock);
	if (!j)
		return;
	acl_kstream_state(s->dev, k, &done, &e);
	failed = done + 1;
	t = j->head;
	j->head = NULL;
	j->tail = &j->head;
	for (; t; t = next) {
		next = t->next;
		if ((int64_t)(t->first - failed) > 0) {
			err = acl_stream_submit_locked(s, t->cmds, t->count, NULL);
			if (err)
				ACL_LOGW("stream %u: a task queued behind the failed one could not "
					 "be resubmitted (%d); it is lost", s->obj.index, err);
		}
		task_release(j, t);
	}
}

static void free_list(struct acl_journal_task *t)
{
	struct acl_journal_task *next;

	for (; t; t = next) {
		next = t->next;
		free(t);
	}
}

void acl_journal_free(struct acl_kstream *k)
{
	if (!k->journal)
		return;
	free_list(k->journal->head);
	free_list(k->journal->spare);
	free(k->journal);
	k->journal = NULL;
}
