/* SPDX-License-Identifier: MIT */
/*
 * libascendcl: the umbrella header. Applications include "acl/acl.h" and
 * get the runtime API (acl_rt.h) and the operator/model type headers.
 */
#ifndef LIBASCENDCL_ACL_H
#define LIBASCENDCL_ACL_H

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* LIBASCENDCL_ACL_H */
