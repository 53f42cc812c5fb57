/* SPDX-License-Identifier: MIT */
/* The callbacks of aclInit and aclFinalize (init_callback.c), called by init.c. */
#ifndef LIBASCENDCL_INIT_CALLBACK_H
#define LIBASCENDCL_INIT_CALLBACK_H

#include <stddef.h>

#include "acl/acl.h"

/*
 * After aclInit succeeded: runs the init callbacks with the config file's
 * text (NULL: none) and keeps it, taking it over, for callbacks registered
 * later. Returns the first callback's failure, else ACL_SUCCESS.
 */
aclError acl_init_callbacks_run(char *config, size_t len);
/* When the last aclInit reference goes, before the devices close. */
void acl_finalize_callbacks_run(void);

#endif
