// SPDX-License-Identifier: GPL-2.0
/*
 * The MMU: per address space, the driver's page tables (npu_hw.h, "The
 * MMU"), and peer windows onto other cards' device memory.
 *
 * Each address space the driver gives a root gets a mirror: a PROT_NONE
 * reservation as large as the virtual address space, where every valid
 * leaf is mapped from the memory it names (this card's BAR2 file, the
 * guest RAM file or a peer's BAR2 file), and a byte per page that says
 * whether the page is valid and writable, or why not.  The mirror is the
 * translation cache: SET_ROOT and the INVALIDATEs walk the tables over
 * their range and rebuild it there, and nothing else reads the tables.
 * A command checks its range against the page bytes before a byte moves,
 * so a bad access is a page fault, never a SIGSEGV; it then uses the
 * mirror as it uses device memory, and an operator runs with the mirror
 * as its device memory.  A range that lies whole and in order in this
 * card's device memory or in guest RAM is used through the card's own
 * maps of those instead (an own word per page says where): every new
 * mapping of the mirror costs the host a page fault per page on first
 * touch, and VAs are mapped afresh for every buffer, while the own maps
 * stay faulted in for the card's life.
 *
 * Commands run on the MMU's own thread, holding the address space's lock
 * for writing; accesses hold it for reading from their check to their last
 * byte, so when a command is done no access uses what it dropped.  The
 * control thread only hands commands over: it stays free to reset a ring
 * whose access the command waits for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu_card.h"

#define PAGE_SHIFT		12
#define PAGE_SIZE		(1ULL << PAGE_SHIFT)
#define CHUNK_PAGES		(EMU_MMU_STATE_CHUNK >> PAGE_SHIFT)

/* Page bytes: valid (and maybe writable), or invalid with a reason. */
#define PG_VALID		0x01
#define PG_WRITE		0x02
#define PG_REASON_SHIFT		4
#define PG_INVALID(reason)	((uint8_t)((reason) << PG_REASON_SHIFT))

static uint64_t level_span(unsigned int level)
{
	return PAGE_SIZE << (9 * (NPU_MMU_LEVELS - 1 - level));
}

/* The page byte of va; 0 (unmapped) where no chunk was ever needed. */
static uint8_t page_state(const struct emu_as *as, uint64_t va)
{
	const uint8_t *chunk = as->state[va / EMU_MMU_STATE_CHUNK];

	return chunk ? chunk[(va % EMU_MMU_STATE_CHUNK) >> PAGE_SHIFT] : 0;
}

/* Own words: 0 none (a peer's page, or invalid), else page + 1, OWN_RAM for guest RAM. */
#define OWN_RAM			0x80000000u

/* Where the card's own maps hold page @va of @as, NULL where they do not. */
static uint8_t *own_page(const struct emu_as *as, uint64_t va)
{
	const uint32_t *chunk = as->own[va / EMU_MMU_STATE_CHUNK];
	uint32_t w = chunk ? chunk[(va % EMU_MMU_STATE_CHUNK) >> PAGE_SHIFT] : 0;

	if (!w)
		return NULL;
	return (w & OWN_RAM ? as->card->ram : as->card->bar) +
	       ((uint64_t)((w & ~OWN_RAM) - 1) << PAGE_SHIFT);
}

/* The own word of a file page: fd at off, if it is one the card maps whole. */
static uint32_t own_word(const struct emu_card *card, int fd, uint64_t off)
{
	if (fd >= 0 && fd == card->shm_fd)
		return (uint32_t)(off >> PAGE_SHIFT) + 1;
	if (fd >= 0 && fd == card->ram_fd)
		return OWN_RAM | ((uint32_t)(off >> PAGE_SHIFT) + 1);
	return 0;
}

/*
 * Own words of [va, va + len), from fd at off (fd -1: none).  Without
 * memory for them the pages have none, and are used through the mirror.
 */
static void set_own(struct emu_as *as, uint64_t va, uint64_t len, int fd, uint64_t off)
{
	uint32_t word = own_word(as->card, fd, off);

	while (len) {
		uint32_t **chunk = &as->own[va / EMU_MMU_STATE_CHUNK];
		uint64_t in = (va % EMU_MMU_STATE_CHUNK) >> PAGE_SHIFT;
		uint64_t n = CHUNK_PAGES - in < len >> PAGE_SHIFT ?
			     CHUNK_PAGES - in : len >> PAGE_SHIFT;
		uint64_t i;

		if (!*chunk && word)
			*chunk = calloc(CHUNK_PAGES, sizeof(**chunk));
		if (*chunk && word)
			for (i = 0; i < n; i++)
				(*chunk)[in + i] = word + (uint32_t)i;
		else if (*chunk)
			memset(*chunk + in, 0, n * sizeof(**chunk));
		if (word)
			word += (uint32_t)n;
		va += n << PAGE_SHIFT;
		len -= n << PAGE_SHIFT;
	}
}

static int set_state(struct emu_as *as, uint64_t va, uint64_t len, uint8_t st)
{
	while (len) {
		uint64_t c = va / EMU_MMU_STATE_CHUNK;
		uint64_t in = va % EMU_MMU_STATE_CHUNK;
		uint64_t n = EMU_MMU_STATE_CHUNK - in < len ?
			     EMU_MMU_STATE_CHUNK - in : len;

		if (!as->state[c] && st) {
			as->state[c] = calloc(CHUNK_PAGES, 1);
			if (!as->state[c])
				return -1;
		}
		if (as->state[c])
			memset(as->state[c] + (in >> PAGE_SHIFT), st, n >> PAGE_SHIFT);
		va += n;
		len -= n;
	}
	return 0;
}

/* A run of pages the walk found alike, mapped with one mmap(). */
struct mmu_run {
	uint64_t va, len;
	int fd;			/* -1: nothing behind it */
	uint64_t off;
	uint8_t st;
};

struct mmu_walk {
	struct emu_card *card;
	struct emu_as *as;
	struct mmu_run run;
	bool failed;		/* a mapping could not be made: NO_ROOM */
};

static void walk_flush(struct mmu_walk *w)
{
	struct mmu_run *run = &w->run;
	uint8_t *at = w->as->mirror + run->va;
	void *p;

	if (!run->len)
		return;
	if (run->fd < 0)
		p = mmap(at, run->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_NORESERVE | MAP_FIXED, -1, 0);
	else
		p = mmap(at, run->len, PROT_READ |
			 (run->st & PG_WRITE ? PROT_WRITE : 0),
			 MAP_SHARED | MAP_FIXED, run->fd, run->off);
	if (p == MAP_FAILED) {
		emu_err("mmu: cannot map %#" PRIx64 "+%#" PRIx64 ": %m",
			run->va, run->len);
		w->failed = true;
		run->st = PG_INVALID(NPU_PF_UNMAPPED);
	}
	set_own(w->as, run->va, run->len, run->st & PG_VALID ? run->fd : -1, run->off);
	if (set_state(w->as, run->va, run->len, run->st))
		w->failed = true;
	run->len = 0;
}

/* Pages [va, va + len) behind fd at off (fd -1: none), page byte st. */
static void walk_add(struct mmu_walk *w, uint64_t va, uint64_t len, int fd,
		     uint64_t off, uint8_t st)
{
	struct mmu_run *run = &w->run;

	if (run->len && run->va + run->len == va && run->fd == fd &&
	    run->st == st && (fd < 0 || run->off + run->len == off)) {
		run->len += len;
		return;
	}
	walk_flush(w);
	*run = (struct mmu_run) { .va = va, .len = len, .fd = fd, .off = off,
				  .st = st };
}

static void walk_invalid(struct mmu_walk *w, uint64_t va, uint64_t len,
			 enum npu_page_fault reason)
{
	walk_add(w, va, len, -1, 0, reason == NPU_PF_UNMAPPED ? 0 :
		 PG_INVALID(reason));
}

/*
 * What a leaf of @span bytes names: a file and the offset of its first
 * byte, or why it names nothing usable.
 */
static enum npu_page_fault leaf_target(struct mmu_walk *w, uint64_t pte,
				       uint64_t span, int *fd, uint64_t *off)
{
	struct emu_card *card = w->card;
	uint64_t addr = pte & NPU_PTE_ADDR_MASK;
	uint32_t target = (pte & NPU_PTE_TARGET_MASK) >> NPU_PTE_TARGET_SHIFT;
	uint32_t peer = (pte & NPU_PTE_PEER_MASK) >> NPU_PTE_PEER_SHIFT;
	struct emu_peer *p;

	if (addr & (span - 1) || (target != NPU_PTE_PEER_MEM && peer))
		return NPU_PF_MALFORMED;
	switch (target) {
	case NPU_PTE_DEVICE:
		if (!emu_dma_dev_ok(card, addr, span))
			return NPU_PF_MALFORMED;
		*fd = card->shm_fd;
		*off = NPU_REG_WINDOW_SIZE + addr;
		return NPU_PF_NONE;
	case NPU_PTE_HOST:
		if (!emu_dma_host_ok(card, addr, span))
			return NPU_PF_MALFORMED;
		*fd = card->ram_fd;
		*off = emu_dma_host_ptr(card, addr) - card->ram;
		return NPU_PF_NONE;
	case NPU_PTE_PEER_MEM:
		if (peer >= EMU_MMU_NUM_PEERS)
			return NPU_PF_MALFORMED;
		p = &card->mmu.peers[peer];
		if (p->fd < 0)
			return NPU_PF_PEER_CLOSED;
		if (addr > p->size || span > p->size - addr)
			return NPU_PF_MALFORMED;
		*fd = p->fd;
		*off = NPU_REG_WINDOW_SIZE + addr;
		return NPU_PF_NONE;
	}
	return NPU_PF_MALFORMED;
}

static void walk_table(struct mmu_walk *w, uint64_t table, unsigned int level,
		       uint64_t base, uint64_t lo, uint64_t hi);

/* Entry @pte covers [start, start + span); the walk wants [lo, hi) of it. */
static void walk_entry(struct mmu_walk *w, uint64_t pte, unsigned int level,
		       uint64_t start, uint64_t lo, uint64_t hi)
{
	const uint64_t rsvd = (1ULL << 3) | (3ULL << 10);
	uint64_t span = level_span(level), next, off;
	enum npu_page_fault why;
	int fd;

	if (!(pte & NPU_PTE_VALID)) {
		walk_invalid(w, lo, hi - lo, NPU_PF_UNMAPPED);
		return;
	}
	if (pte & rsvd) {
		walk_invalid(w, lo, hi - lo, NPU_PF_MALFORMED);
		return;
	}
	if (!(pte & NPU_PTE_LEAF)) {
		next = pte & NPU_PTE_ADDR_MASK;
		if (level == NPU_MMU_LEVELS - 1 ||
		    pte & (NPU_PTE_WRITE | NPU_PTE_TARGET_MASK | NPU_PTE_PEER_MASK) ||
		    !emu_dma_host_ok(w->card, next, PAGE_SIZE))
			walk_invalid(w, lo, hi - lo, NPU_PF_MALFORMED);
		else
			walk_table(w, next, level + 1, start, lo, hi);
		return;
	}
	why = leaf_target(w, pte, span, &fd, &off);
	if (why) {
		walk_invalid(w, lo, hi - lo, why);
		return;
	}
	walk_add(w, lo, hi - lo, fd, off + (lo - start),
		 PG_VALID | (pte & NPU_PTE_WRITE ? PG_WRITE : 0));
}

/* The entries of the table at bus address @table that [lo, hi) touches. */
static void walk_table(struct mmu_walk *w, uint64_t table, unsigned int level,
		       uint64_t base, uint64_t lo, uint64_t hi)
{
	const uint64_t *e = (const uint64_t *)emu_dma_host_ptr(w->card, table);
	uint64_t span = level_span(level);
	uint64_t i;

	for (i = (lo - base) / span; i <= (hi - 1 - base) / span; i++) {
		uint64_t start = base + i * span;
		uint64_t from = lo > start ? lo : start;
		uint64_t to = hi < start + span ? hi : start + span;
		uint64_t pte = le64toh(__atomic_load_n(&e[i], __ATOMIC_RELAXED));

		walk_entry(w, pte, level, start, from, to);
	}
}

/* Rebuild the mirror over [lo, hi): the address space's lock held for writing. */
static int as_rewalk(struct emu_card *card, struct emu_as *as, uint64_t lo,
		     uint64_t hi)
{
	struct mmu_walk w = { .card = card, .as = as };

	if (!as->mirror || lo >= hi)
		return NPU_MMU_OK;
	walk_table(&w, as->root, 0, 0, lo, hi);
	walk_flush(&w);
	return w.failed ? NPU_MMU_NO_ROOM : NPU_MMU_OK;
}

static void as_drop(struct emu_as *as)
{
	unsigned int i;

	if (as->mirror)
		munmap(as->mirror, EMU_MMU_VA_SIZE);
	as->mirror = NULL;
	as->root = 0;
	for (i = 0; i < EMU_MMU_STATE_CHUNKS; i++) {
		free(as->state[i]);
		as->state[i] = NULL;
		free(as->own[i]);
		as->own[i] = NULL;
	}
}

static int as_set_root(struct emu_card *card, struct emu_as *as, uint64_t root)
{
	if (root & (PAGE_SIZE - 1) ||
	    (root && !emu_dma_host_ok(card, root, PAGE_SIZE)))
		return NPU_MMU_BAD_CMD;
	if (!root) {
		as_drop(as);
		return NPU_MMU_OK;
	}
	if (!as->mirror) {
		void *p = mmap(NULL, EMU_MMU_VA_SIZE, PROT_NONE, MAP_PRIVATE |
			       MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED) {
			emu_err("mmu: cannot reserve an address space: %m");
			return NPU_MMU_NO_ROOM;
		}
		as->mirror = p;
	}
	as->root = root;
	return as_rewalk(card, as, 0, EMU_MMU_VA_SIZE);
}

static struct emu_as *as_of(struct emu_card *card, uint32_t index)
{
	if (index < 1 || index > EMU_MMU_NUM_AS)
		return NULL;
	return &card->mmu.as[index - 1];
}

static int as_command(struct emu_card *card, uint32_t cmd, uint32_t index,
		      uint64_t addr, uint64_t size)
{
	struct emu_as *as = as_of(card, index);
	int status = NPU_MMU_BAD_CMD;

	if (!as)
		return NPU_MMU_BAD_CMD;
	pthread_rwlock_wrlock(&as->lock);
	switch (cmd) {
	case NPU_MMU_SET_ROOT:
		status = as_set_root(card, as, addr);
		break;
	case NPU_MMU_INVALIDATE:
		if (addr > EMU_MMU_VA_SIZE || size > EMU_MMU_VA_SIZE - addr)
			break;
		/* whole pages: a partial one is invalidated whole */
		status = as_rewalk(card, as, addr & ~(PAGE_SIZE - 1),
				   (addr + size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
		break;
	case NPU_MMU_INVALIDATE_ALL:
		status = as_rewalk(card, as, 0, EMU_MMU_VA_SIZE);
		break;
	}
	pthread_rwlock_unlock(&as->lock);
	return status;
}

/*
 * Every address space walked again: a window opened or closed changes
 * what its peer leaves name, and a closed one must not stay reachable.
 */
static int mmu_rewalk_all(struct emu_card *card)
{
	int status = NPU_MMU_OK, s;
	uint32_t i;

	for (i = 1; i <= EMU_MMU_NUM_AS; i++) {
		s = as_command(card, NPU_MMU_INVALIDATE_ALL, i, 0, 0);
		if (s)
			status = s;
	}
	return status;
}

static void peer_registers(struct emu_card *card)
{
	uint32_t open = 0, i;

	for (i = 0; i < EMU_MMU_NUM_PEERS; i++) {
		struct emu_peer *p = &card->mmu.peers[i];

		emu_reg_write64(card, NPU_MMU_PEER_SIZE(i), p->fd >= 0 ? p->size : 0);
		if (p->fd >= 0)
			open |= 1u << i;
	}
	emu_reg_write32(card, NPU_MMU_PEER_OPEN, open);
}

static void peer_path(struct emu_card *card, uint64_t serial, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%016" PRIx64, card->cfg.peer_dir, serial);
}

/* The window onto the card of PEER_SERIAL(i), through the peer directory. */
static int peer_open(struct emu_card *card, struct emu_peer *p, uint64_t serial)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (!card->cfg.peer_dir)
		return NPU_MMU_NO_PEER;
	peer_path(card, serial, path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		emu_log("mmu: no peer %#" PRIx64 " at %s: %m", serial, path);
		return NPU_MMU_NO_PEER;
	}
	if (fstat(fd, &st) || (uint64_t)st.st_size <= NPU_REG_WINDOW_SIZE) {
		close(fd);
		return NPU_MMU_NO_PEER;
	}
	p->fd = fd;
	p->size = st.st_size - NPU_REG_WINDOW_SIZE;
	return NPU_MMU_OK;
}

static void peer_close(struct emu_peer *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->size = 0;
}

/* The address spaces are walked with the window gone before its file goes. */
static int peer_command(struct emu_card *card, uint32_t cmd, uint32_t index)
{
	struct emu_peer *p, old;
	int status, s;

	if (index >= EMU_MMU_NUM_PEERS)
		return NPU_MMU_BAD_CMD;
	p = &card->mmu.peers[index];
	old = *p;
	p->fd = -1;
	p->size = 0;
	status = NPU_MMU_OK;
	if (cmd == NPU_MMU_OPEN_PEER)
		status = peer_open(card, p,
				   emu_reg_read64(card, NPU_MMU_PEER_SERIAL(index)));
	s = mmu_rewalk_all(card);
	peer_close(&old);
	peer_registers(card);
	return status ? status : s;
}

static int mmu_command(struct emu_card *card)
{
	uint32_t cmd = emu_reg_read32(card, NPU_MMU_CMD);
	uint32_t index = emu_reg_read32(card, NPU_MMU_CMD_INDEX);
	uint64_t addr = emu_reg_read64(card, NPU_MMU_CMD_ADDR);
	uint64_t size = emu_reg_read64(card, NPU_MMU_CMD_SIZE);

	switch (cmd) {
	case NPU_MMU_SET_ROOT:
	case NPU_MMU_INVALIDATE:
	case NPU_MMU_INVALIDATE_ALL:
		return as_command(card, cmd, index, addr, size);
	case NPU_MMU_OPEN_PEER:
	case NPU_MMU_CLOSE_PEER:
		return peer_command(card, cmd, index);
	}
	return NPU_MMU_BAD_CMD;
}

/*
 * GO is cleared under lock together with busy, so that a control doorbell
 * sees either the command still running or a GO the driver wrote after.
 */
static void *mmu_main(void *arg)
{
	struct emu_card *card = arg;
	struct emu_mmu *mmu = &card->mmu;
	int status;

	pthread_mutex_lock(&mmu->lock);
	for (;;) {
		while (!mmu->pending && !mmu->quit)
			pthread_cond_wait(&mmu->wake, &mmu->lock);
		if (mmu->quit)
			break;
		mmu->pending = false;
		mmu->busy = true;
		pthread_mutex_unlock(&mmu->lock);

		pthread_mutex_lock(&mmu->cmd_lock);
		status = mmu_command(card);
		pthread_mutex_unlock(&mmu->cmd_lock);

		pthread_mutex_lock(&mmu->lock);
		emu_reg_write32(card, NPU_MMU_CMD_STATUS, status);
		emu_reg_write32(card, NPU_MMU_CMD_CTRL, 0);
		mmu->busy = false;
	}
	pthread_mutex_unlock(&mmu->lock);
	return NULL;
}

/* A control doorbell with GO set: the MMU's thread takes the command. */
void emu_mmu_control(struct emu_card *card)
{
	struct emu_mmu *mmu = &card->mmu;

	pthread_mutex_lock(&mmu->lock);
	if (!mmu->busy &&
	    (emu_reg_read32(card, NPU_MMU_CMD_CTRL) & NPU_MMU_CMD_CTRL_GO)) {
		mmu->pending = true;
		pthread_cond_signal(&mmu->wake);
	}
	pthread_mutex_unlock(&mmu->lock);
}

static void mmu_identity(struct emu_card *card)
{
	emu_reg_write32(card, NPU_MMU_NUM_AS, EMU_MMU_NUM_AS);
	emu_reg_write32(card, NPU_MMU_VA_BITS, EMU_MMU_VA_BITS);
	emu_reg_write32(card, NPU_MMU_PAGE_SHIFT, PAGE_SHIFT);
	emu_reg_write32(card, NPU_MMU_NUM_PEERS, EMU_MMU_NUM_PEERS);
	peer_registers(card);
}

/*
 * Publish our device memory in the peer directory under our serial: a
 * link to our BAR2 file, which a peer opens only for OPEN_PEER.
 */
static int mmu_publish(struct emu_card *card)
{
	char path[PATH_MAX], target[64];

	if (!card->cfg.peer_dir)
		return 0;
	peer_path(card, card->cfg.serial, path, sizeof(path));
	snprintf(target, sizeof(target), "/proc/%d/fd/%d", getpid(), card->shm_fd);
	unlink(path);	/* a card of this serial that died */
	if (symlink(target, path)) {
		emu_err("cannot publish device memory as %s: %m", path);
		return -1;
	}
	card->mmu.published = true;
	return 0;
}

int emu_mmu_init(struct emu_card *card)
{
	struct emu_mmu *mmu = &card->mmu;
	pthread_rwlockattr_t attr;
	uint32_t i;
	int err;

	pthread_mutex_init(&mmu->lock, NULL);
	pthread_mutex_init(&mmu->cmd_lock, NULL);
	pthread_cond_init(&mmu->wake, NULL);
	for (i = 0; i < EMU_MMU_NUM_PEERS; i++)
		mmu->peers[i].fd = -1;
	mmu->as = calloc(EMU_MMU_NUM_AS, sizeof(*mmu->as));
	if (!mmu->as)
		return -1;
	/* a stream of accesses must not starve a command */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	for (i = 0; i < EMU_MMU_NUM_AS; i++) {
		mmu->as[i].card = card;
		pthread_rwlock_init(&mmu->as[i].lock, &attr);
	}
	pthread_rwlockattr_destroy(&attr);
	mmu_identity(card);
	if (mmu_publish(card))
		return -1;
	err = pthread_create(&mmu->thread, NULL, mmu_main, card);
	if (err) {
		errno = err;
		emu_err("cannot start the MMU: %m");
		return -1;
	}
	mmu->started = true;
	return 0;
}

/* GLB_CTRL.RESET, once every ring is reset: no root, no window. */
void emu_mmu_reset(struct emu_card *card)
{
	struct emu_mmu *mmu = &card->mmu;
	uint32_t i;

	pthread_mutex_lock(&mmu->cmd_lock);
	for (i = 0; i < EMU_MMU_NUM_AS; i++) {
		pthread_rwlock_wrlock(&mmu->as[i].lock);
		as_drop(&mmu->as[i]);
		pthread_rwlock_unlock(&mmu->as[i].lock);
	}
	for (i = 0; i < EMU_MMU_NUM_PEERS; i++) {
		peer_close(&mmu->peers[i]);
		emu_reg_write64(card, NPU_MMU_PEER_SERIAL(i), 0);
	}
	pthread_mutex_unlock(&mmu->cmd_lock);

	pthread_mutex_lock(&mmu->lock);
	mmu->pending = false;
	emu_reg_write32(card, NPU_MMU_CMD, 0);
	emu_reg_write32(card, NPU_MMU_CMD_INDEX, 0);
	emu_reg_write64(card, NPU_MMU_CMD_ADDR, 0);
	emu_reg_write64(card, NPU_MMU_CMD_SIZE, 0);
	emu_reg_write32(card, NPU_MMU_CMD_STATUS, NPU_MMU_OK);
	emu_reg_write32(card, NPU_MMU_CMD_CTRL, 0);
	mmu_identity(card);
	pthread_mutex_unlock(&mmu->lock);
}

void emu_mmu_destroy(struct emu_card *card)
{
	struct emu_mmu *mmu = &card->mmu;
	char path[PATH_MAX];
	uint32_t i;

	if (mmu->started) {
		pthread_mutex_lock(&mmu->lock);
		mmu->quit = true;
		pthread_cond_signal(&mmu->wake);
		pthread_mutex_unlock(&mmu->lock);
		pthread_join(mmu->thread, NULL);
		mmu->started = false;
	}
	if (mmu->published) {
		peer_path(card, card->cfg.serial, path, sizeof(path));
		unlink(path);
		mmu->published = false;
	}
	if (!mmu->as)
		return;	/* init never got this far */
	for (i = 0; i < EMU_MMU_NUM_AS; i++) {
		as_drop(&mmu->as[i]);
		pthread_rwlock_destroy(&mmu->as[i].lock);
	}
	free(mmu->as);
	mmu->as = NULL;
	for (i = 0; i < EMU_MMU_NUM_PEERS; i++)
		peer_close(&mmu->peers[i]);
}

/* NPU_RING_AS at ENABLE: the address space, NULL for 0; false if none such. */
bool emu_mmu_as_latch(struct emu_card *card, uint32_t index, struct emu_as **as)
{
	*as = NULL;
	if (!index)
		return true;
	*as = as_of(card, index);
	return *as != NULL;
}

/*
 * Hold @as for accesses; gives up (false) when @gone says the access is
 * no longer wanted, for a command may wait behind an access of a hung
 * ring, and the reset that ends it must not wait for us.
 */
bool emu_mmu_enter(struct emu_as *as, bool (*gone)(void *arg), void *arg)
{
	/* the usual case, without reading the clock */
	if (!pthread_rwlock_tryrdlock(&as->lock))
		return true;
	for (;;) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (!pthread_rwlock_timedrdlock(&as->lock, &ts))
			return true;
		if (gone(arg))
			return false;
	}
}

void emu_mmu_leave(struct emu_as *as)
{
	pthread_rwlock_unlock(&as->lock);
}

/*
 * The first page of [va, end) that @as does not allow the access, its
 * NPU_RING_FAULT_ADDR word in *fault; false if there is none.
 */
static bool first_fault(const struct emu_as *as, uint64_t va, uint64_t end,
			bool write, uint64_t *fault)
{
	uint64_t at;

	for (at = va; at < end; at = (at | (PAGE_SIZE - 1)) + 1) {
		uint8_t st = page_state(as, at);
		uint32_t why = NPU_PF_NONE;

		if (!(st & PG_VALID))
			why = st ? st >> PG_REASON_SHIFT : NPU_PF_UNMAPPED;
		else if (write && !(st & PG_WRITE))
			why = NPU_PF_READ_ONLY;
		if (why) {
			*fault = at | ((uint64_t)why << NPU_RING_FAULT_REASON_SHIFT) |
				 (write ? NPU_RING_FAULT_WRITE : 0);
			return true;
		}
	}
	return false;
}

/*
 * Whether the page bytes [first, first + n) all have the bits of @need:
 * one AND over them, eight at a time; which page fails is first_fault()'s
 * to find.
 */
static bool pages_allow(const uint8_t *st, uint64_t first, uint64_t n, uint8_t need)
{
	const uint64_t bytes = 0x0101010101010101ULL;
	uint64_t all = ~0ULL, eight, i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&eight, st + first + i, 8);
		all &= eight;
	}
	for (; i < n; i++)
		all &= st[first + i] * bytes;
	return (all & need * bytes) == need * bytes;
}

/* Whether the own words [first, first + n) are @word, word + 1, ... */
static bool own_follow(const uint32_t *own, uint64_t first, uint64_t n, uint32_t word)
{
	uint32_t diff = 0;
	uint64_t i;

	for (i = 0; i < n; i++)
		diff |= own[first + i] ^ (word + (uint32_t)i);
	return !diff;
}

/*
 * [va, va + len) of @as for a read or a write, between emu_mmu_enter()
 * and emu_mmu_leave(): NPU_ERR_NONE and *ptr, NPU_ERR_DEV_ADDR outside
 * the virtual address space, or NPU_ERR_PAGE_FAULT with *fault the
 * NPU_RING_FAULT_ADDR word.  The range is checked a GiB of page bytes at
 * a time, not page by page: a command's check must cost little beside
 * its bytes (docs/hardware.md, "The MMU").
 */
int emu_mmu_translate(struct emu_as *as, uint64_t va, uint64_t len, bool write,
		      uint8_t **ptr, uint64_t *fault)
{
	uint8_t need = PG_VALID | (write ? PG_WRITE : 0);
	uint64_t end, at;
	uint32_t word = 0;
	bool in_own = true;

	if (va > EMU_MMU_VA_SIZE || len > EMU_MMU_VA_SIZE - va)
		return NPU_ERR_DEV_ADDR;
	end = va + len;
	/* nothing at all, even nothing, without a root */
	if (!as->mirror) {
		*fault = (va & NPU_RING_FAULT_VA_MASK) |
			 ((uint64_t)NPU_PF_UNMAPPED << NPU_RING_FAULT_REASON_SHIFT) |
			 (write ? NPU_RING_FAULT_WRITE : 0);
		return NPU_ERR_PAGE_FAULT;
	}
	for (at = va & ~(PAGE_SIZE - 1); at < end; ) {
		const uint8_t *st = as->state[at / EMU_MMU_STATE_CHUNK];
		const uint32_t *own = as->own[at / EMU_MMU_STATE_CHUNK];
		uint64_t first = (at % EMU_MMU_STATE_CHUNK) >> PAGE_SHIFT;
		uint64_t n = (end - at + PAGE_SIZE - 1) >> PAGE_SHIFT;

		if (n > CHUNK_PAGES - first)
			n = CHUNK_PAGES - first;
		if (!st || !pages_allow(st, first, n, need)) {
			if (first_fault(as, at > va ? at : va, end, write, fault))
				return NPU_ERR_PAGE_FAULT;
			in_own = false;	/* not reached: the bytes said a page fails */
		}
		if (in_own) {
			/* the pages must follow each other there as here */
			if (!word)
				word = own ? own[first] : 0;
			in_own = word && own && own_follow(own, first, n, word);
			word += (uint32_t)n;
		}
		at += n << PAGE_SHIFT;
	}
	*ptr = in_own && word ? own_page(as, va) + (va & (PAGE_SIZE - 1)) : as->mirror + va;
	return NPU_ERR_NONE;
}
