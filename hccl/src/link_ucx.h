/* SPDX-License-Identifier: MIT */
/*
 * The link between ranks on different hosts: UCX (tag messages over
 * whatever transport UCX picks, tcp between our guests), staged through
 * host memory the card copies to and from (aclrtMallocHost).
 *
 * One struct hccl_ucx per rank holds the UCX context and worker; its
 * worker address is the rank's blob for this link kind in the bootstrap.
 * Each link to a peer is opened from the peer's blob.
 */
#ifndef HCCL_LINK_UCX_H
#define HCCL_LINK_UCX_H

#include <stddef.h>
#include <stdint.h>
#include "link.h"

struct hccl_ucx;

/*
 * Opens this rank's UCX worker. *blob (*blob_len bytes, owned by the
 * context) is what the peers pass to hccl_link_ucx_open.
 * timeout_s bounds every wait for a peer (HCCL_EXEC_TIMEOUT; 0: no bound);
 * a link that timed out fails its later calls with HCCL_E_TIMEOUT.
 */
HcclResult hccl_ucx_create(uint32_t rank, uint32_t timeout_s, struct hccl_ucx **ucx,
			   const void **blob, size_t *blob_len);
/* After every link opened on it has been closed. */
void hccl_ucx_destroy(struct hccl_ucx *ucx);

/*
 * A link to peer_rank, whose blob the bootstrap brought. slot_size bytes
 * per message, nslots messages staged on either side.
 */
HcclResult hccl_link_ucx_open(struct hccl_ucx *ucx, uint32_t peer_rank, const void *peer_blob,
			      size_t peer_blob_len, uint64_t slot_size, uint32_t nslots,
			      struct hccl_link **link);

/*
 * HCCL_SUCCESS, or the link's first failure: a transfer that failed on a
 * stream (its stream is then stopped), HCCL_E_NETWORK when UCX found the
 * peer gone, or what hccl_link_ucx_fail said.
 */
HcclResult hccl_link_ucx_error(struct hccl_link *link);
/*
 * Before a clean close: tells the peer, and waits until it says the same
 * (or the link fails), so that neither takes the other's closed endpoint
 * for a failure while it still watches the link.
 */
HcclResult hccl_link_ucx_goodbye(struct hccl_link *link);
/* Fails the link: a transfer waiting gives up, later ones fail at once. */
void hccl_link_ucx_fail(struct hccl_link *link, HcclResult err);
/*
 * Progresses the worker without waiting: a peer that went away is found
 * (its links' error becomes HCCL_E_NETWORK) even while no transfer waits.
 */
void hccl_ucx_progress(struct hccl_ucx *ucx);

#endif /* HCCL_LINK_UCX_H */
