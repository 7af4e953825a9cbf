/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA job timeouts, the reset workqueue and context banning.
 */
#ifndef MXA_RESET_H
#define MXA_RESET_H

#include <linux/types.h>

struct mxa_device;
struct mxa_vm;

extern unsigned int mxa_job_timeout_ms;

int mxa_reset_init(struct mxa_device *mdev);
void mxa_reset_fini(struct mxa_device *mdev);
void mxa_reset_schedule_error(struct mxa_device *mdev);
void mxa_reset_note_result(struct mxa_vm *vm, int status);
void mxa_reset_note_hang(struct mxa_vm *vm);

#endif /* MXA_RESET_H */
