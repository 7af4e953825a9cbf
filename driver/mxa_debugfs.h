/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA debugfs: /sys/kernel/debug/accel/<minor>/.
 */
#ifndef MXA_DEBUGFS_H
#define MXA_DEBUGFS_H

struct mxa_device;

void mxa_debugfs_init(struct mxa_device *mdev);

#endif /* MXA_DEBUGFS_H */
