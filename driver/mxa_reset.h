/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA job timeouts, per-queue reset and context banning.
 */
#ifndef MXA_RESET_H
#define MXA_RESET_H

#include <linux/types.h>

struct mxa_device;
struct mxa_queue;
struct mxa_vm;

/**
 * enum mxa_reset_state - where a queue's reset state machine is (mxa_queue.reset_state).
 * @MXA_RESET_IDLE: the queue runs normally.
 * @MXA_RESET_QUEUED: the watchdog, the error interrupt or debugfs asked for a reset.
 * @MXA_RESET_HALTED: the driver stopped feeding the ring and harvested what completed.
 * @MXA_RESET_RESETTING: MXA_QCTRL_RESET written, waiting for the device.
 * @MXA_RESET_RESTARTING: ring re-enabled, jobs being requeued.
 */
enum mxa_reset_state {
	MXA_RESET_IDLE,
	MXA_RESET_QUEUED,
	MXA_RESET_HALTED,
	MXA_RESET_RESETTING,
	MXA_RESET_RESTARTING,
};

extern unsigned int mxa_job_timeout_ms;

int mxa_reset_init(struct mxa_device *mdev);
void mxa_reset_fini(struct mxa_device *mdev);
void mxa_reset_queue_init(struct mxa_queue *q);
void mxa_reset_watch(struct mxa_queue *q);
void mxa_reset_schedule_error(struct mxa_device *mdev);
void mxa_reset_note_result(struct mxa_vm *vm, int status);
int mxa_reset_force(struct mxa_queue *q);
void mxa_reset_stopped(struct mxa_queue *q);
const char *mxa_reset_state_name(int state);

#endif /* MXA_RESET_H */
