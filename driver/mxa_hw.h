/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA hardware access: registers, device reset, TLB invalidation, interrupts, device
 * loss. The hardware queues are mxa_queue.h's.
 */
#ifndef MXA_HW_H
#define MXA_HW_H

#include <linux/io.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "mxa_regs.h"

struct mxa_device;

u32 mxa_read(struct mxa_device *mdev, u32 reg);
void mxa_write(struct mxa_device *mdev, u32 reg, u32 val);

int mxa_hw_poll_clear(struct mxa_device *mdev, u32 reg, u32 bit);
int mxa_hw_init(struct mxa_device *mdev);
void mxa_hw_fini(struct mxa_device *mdev);
void mxa_hw_tlb_invalidate(struct mxa_device *mdev, u32 ctx);
void mxa_hw_lost(struct mxa_device *mdev, const char *why);

#endif /* MXA_HW_H */
