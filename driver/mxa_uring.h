/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA io_uring commands (file_operations.uring_cmd).
 */
#ifndef MXA_URING_H
#define MXA_URING_H

struct io_uring_cmd;

int mxa_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);

#endif /* MXA_URING_H */
