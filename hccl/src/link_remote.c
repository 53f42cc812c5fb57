// SPDX-License-Identifier: MIT
/*
 * The link to a rank on another host: the UCX link (issue 29, item 3)
 * takes this place. Until then such a communicator cannot be made.
 */
#include "hccl_internal.h"

HcclResult hccl_link_remote_open(struct hccl_comm *c, uint32_t peer, struct hccl_link **out)
{
	(void)out;
	return HCCL_FAIL(HCCL_E_NOT_SUPPORT, "rank %u is on another host than rank %u: links "
			 "between hosts are not supported yet", peer, c->rank);
}
