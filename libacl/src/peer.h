/* SPDX-License-Identifier: MIT */
/*
 * Peer access between the cards of this process (peer.c): what the rest
 * of the runtime tells it, and asks it.
 */
#ifndef LIBASCENDCL_PEER_H
#define LIBASCENDCL_PEER_H

#include "acl_internal.h"

/*
 * A device allocation m of owner came or is about to go: the devices that
 * enabled access to owner map it, or unmap it (before the owner frees it).
 */
aclError acl_peer_devmem_added(struct acl_device *owner, struct acl_devmem *m);
void acl_peer_devmem_removed(struct acl_device *owner, uint64_t addr);
/* d closes: its peer buffers go, both those it maps and those of it. */
void acl_peer_drop_device(struct acl_device *d);
/*
 * Whether stream work of d may name the len bytes of operand o: when they
 * lie in another card's window, d must have enabled access to that card.
 */
aclError acl_peer_check_operand(const char *fn, struct acl_device *d,
				const struct acl_opnd *o, uint64_t len);

/*
 * Card-to-card waits (peer_wait.c): a stream of s's device waits on the
 * card for ev, an event of another device.
 */
aclError acl_peer_wait_event(struct acl_stream *s, struct acl_event *ev);
/* Releases with an error d's waits whose other card failed to signal them. */
void acl_peer_signal_check(struct acl_device *d);
/* d closes: the signals it writes or waits on go first. */
void acl_peer_signal_drop(struct acl_device *d);

#endif
