// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "grid": a job as a grid of instances (CTAs) on the device's cores.
 * Each instance finds its place with REG_CTA; the instances of a cluster run at the
 * same time (they meet at a semaphore that needs all of them), grids of two queues run
 * side by side, while a grid larger than the cores runs in waves; the first failing instance is named in the result and
 * stops the placing of the rest; the grid's modelled cycles schedule its instances on
 * the cores; bad shapes are refused by libaccel and the driver with the limit named.
 * Clusters: distributed SRAM (an all-gather with TILE_STORE to peers), remote mbarrier
 * arrivals, TMA multicast (read once, counted by the device), the cluster barrier and
 * its errors (misuse, a peer that ends, an address or a mask outside the cluster).
 */
#include "mxa_test.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "accel.h"
#include "accel_test.h"
#include "kselftest_harness.h"

#define DATA_SIZE	(4u << 20)
#define SEM_OFF		(3u << 20)	/* semaphores */
#define TABLE_OFF	(2u << 20)	/* table[i] = i (8 bytes each) */

FIXTURE(grid) {
	ACCEL_TEST_FIELDS;
	uint32_t cores;
};

FIXTURE_SETUP(grid)
{
	int ret = accel_test_setup(self, MXA_CAP_GRID, DATA_SIZE);

	if (ret == 1)
		SKIP(return, "device without MXA_CAP_GRID");
	ASSERT_EQ(0, ret);
	self->cores = accel_device_info(self->dev)->num_cores;
	ASSERT_LE(1, self->cores);
	for (uint64_t i = 0; i < 4096; i++)
		((uint64_t *)(self->data + TABLE_OFF))[i] = i;
}

FIXTURE_TEARDOWN(grid)
{
	accel_test_teardown(self);
}

/* Run the fixture's program as @grid; its result in self->r. */
static int run_grid(FIXTURE_DATA(grid) *self, const struct accel_grid *grid)
{
	struct accel_job *job;
	int ret = accel_prog_upload(self->prog, self->prog_bo, 0);

	if (!ret)
		ret = accel_submit_grid(self->dev, 0, self->prog_bo, 0,
					accel_prog_size(self->prog), grid, &job);
	if (ret)
		return ret;
	ret = accel_wait(job, 60ll * 1000000000);
	if (!ret) {
		self->r = *accel_job_result(job);
		if (self->r.status) {
			char why[256];

			accel_job_explain(&self->r, why, sizeof(why));
			fprintf(stderr, "# %s (instance %u)\n", why, self->r.err_instance);
		}
	}
	accel_job_free(job);
	return ret;
}

/*
 * Every instance writes each of its special registers: out[cta][s] = table[sreg s],
 * copied with the register as the offset into the table (so that the values come from
 * REG_CTA alone). A 4x2 grid of 2x2 clusters.
 */
TEST_F(grid, every_instance_sees_its_place)
{
	enum { GX = 4, GY = 2, CX = 2, CY = 2, N = GX * GY };
	const struct accel_grid g = { .x = GX, .y = GY, .cluster_x = CX, .cluster_y = CY };
	const uint64_t *out = (const uint64_t *)self->data;

	ASSERT_LE(CX * CY, self->cores);
	ASSERT_EQ(0, accel_prog_reg_cta(self->prog, 1, MXA_SREG_CTA, MXA_SREG_COUNT * 8));
	for (unsigned int s = 0; s < MXA_SREG_COUNT; s++) {
		ASSERT_EQ(0, accel_prog_reg_cta(self->prog, 2, s, 8));
		ASSERT_EQ(0, accel_prog_copy(self->prog, self->va + s * 8, 1,
					     self->va + TABLE_OFF, 2, 8, 0));
	}
	ASSERT_EQ(0, accel_prog_commit_group(self->prog, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_wait_group(self->prog, MXA_GROUP_COPY, 0));
	memset(self->data, 0xff, N * MXA_SREG_COUNT * 8);
	ASSERT_EQ(0, run_grid(self, &g));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(N, self->r.instances);
	EXPECT_EQ(N * (1 + 2 * MXA_SREG_COUNT + 2), self->r.commands);
	for (uint32_t y = 0; y < GY; y++) {
		for (uint32_t x = 0; x < GX; x++) {
			const uint64_t *o = out + (x + y * GX) * MXA_SREG_COUNT;
			const uint64_t want[MXA_SREG_COUNT] = {
				[MXA_SREG_CTAID_X] = x, [MXA_SREG_CTAID_Y] = y,
				[MXA_SREG_NCTAID_X] = GX, [MXA_SREG_NCTAID_Y] = GY,
				[MXA_SREG_CLUSTERID_X] = x / CX, [MXA_SREG_CLUSTERID_Y] = y / CY,
				[MXA_SREG_NCLUSTERID_X] = GX / CX, [MXA_SREG_NCLUSTERID_Y] = GY / CY,
				[MXA_SREG_CLUSTER_CTAID_X] = x % CX,
				[MXA_SREG_CLUSTER_CTAID_Y] = y % CY,
				[MXA_SREG_CLUSTER_NCTAID_X] = CX, [MXA_SREG_CLUSTER_NCTAID_Y] = CY,
				[MXA_SREG_CLUSTER_CTARANK] = x % CX + (y % CY) * CX,
				[MXA_SREG_CLUSTER_NCTARANK] = CX * CY, [MXA_SREG_CTA] = x + y * GX,
			};

			for (unsigned int s = 0; s < MXA_SREG_COUNT; s++) {
				EXPECT_EQ(want[s], o[s]) TH_LOG("instance (%u, %u), sreg %u", x, y, s);
			}
		}
	}
}

/* The usual use: each instance copies its own 4 KiB slice, found with one REG_CTA. */
TEST_F(grid, instances_split_a_copy)
{
	const struct accel_grid g = { .x = 64 };
	const uint32_t slice = 4096;

	for (uint32_t i = 0; i < 64 * slice; i++)
		self->data[i] = (uint8_t)(i * 7 + (i >> 12));
	memset(self->data + (1 << 20), 0, 64 * slice);
	ASSERT_EQ(0, accel_prog_reg_cta(self->prog, 1, MXA_SREG_CTAID_X, slice));
	ASSERT_EQ(0, accel_prog_copy(self->prog, self->va + (1 << 20), 1, self->va, 1, slice, 0));
	ASSERT_EQ(0, accel_prog_commit_group(self->prog, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_wait_group(self->prog, MXA_GROUP_COPY, 0));
	ASSERT_EQ(0, run_grid(self, &g));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(64, self->r.instances);
	EXPECT_EQ(0, memcmp(self->data, self->data + (1 << 20), 64 * slice));
}

/*
 * The instances of a cluster run at once: each adds 1 to a semaphore and waits for it
 * to reach the cluster's size, which only happens if all of them are running. Every
 * core in one cluster.
 */
TEST_F(grid, a_cluster_runs_at_once)
{
	const uint32_t n = self->cores < MXA_CLUSTER_MAX ? self->cores : MXA_CLUSTER_MAX;
	const struct accel_grid g = { .x = 2 * n, .cluster_x = n };
	uint64_t *sem = (uint64_t *)(self->data + SEM_OFF);

	*sem = 0;
	ASSERT_EQ(0, accel_prog_sem_signal(self->prog, self->va + SEM_OFF, 1, 1));
	ASSERT_EQ(0, accel_prog_sem_wait(self->prog, self->va + SEM_OFF, n, 5000000));
	ASSERT_EQ(0, run_grid(self, &g));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(2 * n, self->r.instances);
	EXPECT_EQ(2 * n, *sem);
}

/*
 * Jobs of two queues run side by side on free cores: a 2-instance grid on queue 1
 * and one on queue 0 each signal their own semaphore and wait for the other's to reach
 * 2, which needs all four instances running at once.
 */
TEST_F(grid, two_queues_share_the_cores)
{
	const struct accel_grid g = { .x = 2 };
	uint64_t sem_a = self->va + SEM_OFF, sem_b = self->va + SEM_OFF + 8;
	struct accel_job *job[2];
	struct accel_bo *bo[2];
	struct accel_prog *p[2];

	ASSERT_LE(4, self->cores);
	memset(self->data + SEM_OFF, 0, 16);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, accel_prog_new(&p[i]));
		ASSERT_EQ(0, accel_prog_sem_signal(p[i], i ? sem_b : sem_a, 1, 1));
		ASSERT_EQ(0, accel_prog_sem_wait(p[i], i ? sem_a : sem_b, 2, 5000000));
		ASSERT_EQ(0, accel_bo_alloc(self->dev, 4096, &bo[i]));
		ASSERT_EQ(0, accel_prog_upload(p[i], bo[i], 0));
	}
	ASSERT_LE(2, accel_device_info(self->dev)->num_queues);
	ASSERT_EQ(0, accel_submit_grid(self->dev, 1, bo[0], 0, accel_prog_size(p[0]), &g, &job[0]));
	ASSERT_EQ(0, accel_submit_grid(self->dev, 0, bo[1], 0, accel_prog_size(p[1]), &g, &job[1]));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, accel_wait(job[i], 60ll * 1000000000));
		EXPECT_EQ(0, accel_job_result(job[i])->status) TH_LOG("queue %d", 1 - i);
		EXPECT_EQ(2, accel_job_result(job[i])->instances);
		accel_job_free(job[i]);
		accel_bo_free(bo[i]);
		accel_prog_free(p[i]);
	}
	EXPECT_EQ(2, ((uint64_t *)(self->data + SEM_OFF))[0]);
	EXPECT_EQ(2, ((uint64_t *)(self->data + SEM_OFF))[1]);
}

/*
 * More instances than cores run in waves: a grid of 2 x cores instances that each wait
 * for all of them cannot finish. The first to time out is named; it stops the placing,
 * so only the first wave ran.
 */
TEST_F(grid, more_instances_than_cores_run_in_waves)
{
	const struct accel_grid g = { .x = 2 * self->cores };
	uint64_t *sem = (uint64_t *)(self->data + SEM_OFF);

	*sem = 0;
	ASSERT_EQ(0, accel_prog_sem_signal(self->prog, self->va + SEM_OFF, 1, 1));
	ASSERT_EQ(0, accel_prog_sem_wait(self->prog, self->va + SEM_OFF, 2 * self->cores,
					 100000));
	ASSERT_EQ(0, run_grid(self, &g));
	EXPECT_EQ(-EIO, self->r.status);
	EXPECT_EQ(MXA_ERR_SEM_TIMEOUT, self->r.error);
	EXPECT_EQ(accel_prog_size(self->prog) - 24, self->r.err_offset);
	EXPECT_GT(self->cores, self->r.err_instance);
	EXPECT_EQ(self->cores, self->r.instances);
	EXPECT_EQ(self->cores, *sem);
}

/* Only instance 1 of two reads outside the VM: the job faults there, instance 1. */
TEST_F(grid, the_failing_instance_is_named)
{
	const struct accel_grid g = { .x = 2 };

	memset(self->data, 0x5a, 64);
	memset(self->data + 4096, 0, 64);
	ASSERT_EQ(0, accel_prog_reg_cta(self->prog, 1, MXA_SREG_CTAID_X, 1u << 31));
	ASSERT_EQ(0, accel_prog_reg_add(self->prog, 1, 1, 1, 0));	/* 2^32 x ctaid.x */
	ASSERT_EQ(0, accel_prog_copy(self->prog, self->va + 4096, 0, self->va, 1, 64, 0));
	ASSERT_EQ(0, accel_prog_commit_group(self->prog, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_wait_group(self->prog, MXA_GROUP_COPY, 0));
	ASSERT_EQ(0, run_grid(self, &g));
	EXPECT_EQ(-EFAULT, self->r.status);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, self->r.error);
	EXPECT_EQ(1, self->r.err_instance);
	EXPECT_EQ(self->va + (1ull << 32), self->r.err_addr);
	EXPECT_EQ(12 + 16, self->r.err_offset);	/* the COPY, after REG_CTA and REG_ADD */
	EXPECT_EQ(0, memcmp(self->data, self->data + 4096, 64)) TH_LOG("instance 0 copied");
}

/*
 * Modelled time: instances with the same program take the same cycles, and a grid of
 * 2 x cores of them takes two waves of one instance's cycles (cluster size 1), while a
 * grid that fits the cores takes one.
 */
TEST_F(grid, modelled_cycles_schedule_the_cores)
{
	const struct accel_grid one = { 0 }, fits = { .x = self->cores },
				waves = { .x = 2 * self->cores };
	uint64_t c1;

	ASSERT_EQ(0, accel_prog_copy(self->prog, self->va + 65536, 0, self->va, 0, 65536, 0));
	ASSERT_EQ(0, accel_prog_commit_group(self->prog, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_wait_group(self->prog, MXA_GROUP_COPY, 0));
	ASSERT_EQ(0, run_grid(self, &one));
	ASSERT_EQ(0, self->r.status);
	c1 = self->r.cycles;
	ASSERT_LT(0, c1);
	ASSERT_EQ(0, run_grid(self, &fits));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(c1, self->r.cycles);
	ASSERT_EQ(0, run_grid(self, &waves));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(2 * c1, self->r.cycles);
	EXPECT_EQ(2 * self->cores, self->r.instances);
}

/*
 * Distributed SRAM: an all-gather. Each instance of a cluster stores its 256-byte tile
 * into every instance's SRAM at 256 x its rank (TILE_STORE to MXA_DSMEM(t, ...), a loop
 * over t), the cluster meets at its barrier, and each instance writes its own SRAM's
 * n tiles out: every instance of a cluster must hold all of its cluster's tiles. Two
 * clusters of min(cores, 8).
 */
TEST_F(grid, cluster_all_gather_through_dsmem)
{
	const uint32_t n = self->cores < MXA_CLUSTER_MAX ? self->cores : MXA_CLUSTER_MAX;
	const struct accel_grid g = { .x = 2 * n, .cluster_x = n };
	const uint32_t t0 = MXA_TILE(MXA_TILE_T, 0), t1 = MXA_TILE(MXA_TILE_T, 1);
	uint8_t *in = self->data, *out = self->data + (1 << 20);
	struct accel_prog *p = self->prog;

	for (uint32_t i = 0; i < 2 * n * 256; i++)
		in[i] = (uint8_t)(i * 13 + (i >> 8) * 7 + 1);
	memset(out, 0, 2 * n * n * 256);
	ASSERT_EQ(0, accel_prog_reg_cta(p, 1, MXA_SREG_CTA, 256));
	ASSERT_EQ(0, accel_prog_tile_load(p, t0, 1, self->va, 1, 4, 64, 0));
	ASSERT_EQ(0, accel_prog_reg_cta(p, 2, MXA_SREG_CLUSTER_CTARANK, 256));
	ASSERT_EQ(0, accel_prog_loop(p, n, 0));		/* r4: the target's rank x stride */
	ASSERT_EQ(0, accel_prog_reg_add(p, 3, 2, 4, 0));
	ASSERT_EQ(0, accel_prog_tile_store(p, t0, 0, MXA_DSMEM_BASE, 3, 4, 64, 0));
	ASSERT_EQ(0, accel_prog_reg_add(p, 4, 4, 0, MXA_DSMEM_STRIDE));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, accel_prog_cluster_arrive(p));
	ASSERT_EQ(0, accel_prog_cluster_wait(p));
	ASSERT_EQ(0, accel_prog_tile_load(p, t1, 0, 0, 0, 4 * n, 64, 0));
	ASSERT_EQ(0, accel_prog_reg_cta(p, 5, MXA_SREG_CTA, n * 256));
	ASSERT_EQ(0, accel_prog_tile_store(p, t1, 1, self->va + (1 << 20), 5, 4 * n, 64, 0));
	ASSERT_EQ(0, run_grid(self, &g));
	ASSERT_EQ(0, self->r.status);
	for (uint32_t cta = 0; cta < 2 * n; cta++) {
		for (uint32_t r = 0; r < n; r++) {
			EXPECT_EQ(0, memcmp(out + (cta * n + r) * 256, in + ((cta / n) * n + r) * 256,
					    256)) TH_LOG("instance %u, rank %u's tile", cta, r);
		}
	}
}

/*
 * Remote mbarrier arrivals (mbarrier.arrive.shared::cluster): each instance inits a
 * barrier for n arrivals, the cluster meets (so every barrier exists), then each
 * arrives on every instance's barrier and waits on its own: it completes only with the
 * arrivals of all n instances.
 */
TEST_F(grid, cluster_remote_mbarrier_arrivals)
{
	const uint32_t n = self->cores < MXA_CLUSTER_MAX ? self->cores : MXA_CLUSTER_MAX;
	const struct accel_grid g = { .x = n, .cluster_x = n };
	struct accel_prog *p = self->prog;

	ASSERT_EQ(0, accel_prog_mbar_init(p, 0x100, n));
	ASSERT_EQ(0, accel_prog_cluster_arrive(p));
	ASSERT_EQ(0, accel_prog_cluster_wait(p));
	for (uint32_t t = 0; t < n; t++)
		ASSERT_EQ(0, accel_prog_mbar_arrive(p, MXA_DSMEM(t, 0x100), 0));
	ASSERT_EQ(0, accel_prog_mbar_wait(p, 0x100, 0, 0));
	ASSERT_EQ(0, accel_prog_fence_write(p, self->va + SEM_OFF, 1));
	ASSERT_EQ(0, run_grid(self, &g));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(n, self->r.instances);
}

/*
 * Remote complete_tx (mbarrier.complete_tx.shared::cluster): each instance expects n x
 * 64 bytes on its own barrier, the cluster meets, then each completes 64 bytes on every
 * instance's barrier and waits on its own: it completes only when all n have. A rank
 * the cluster does not have is MXA_ERR_CLUSTER at that command.
 */
TEST_F(grid, cluster_remote_complete_tx)
{
	const uint32_t n = self->cores < MXA_CLUSTER_MAX ? self->cores : MXA_CLUSTER_MAX;
	const struct accel_grid g = { .x = n, .cluster_x = n };
	struct accel_prog *p = self->prog;

	ASSERT_EQ(0, accel_prog_mbar_init(p, 0x100, 1));
	ASSERT_EQ(0, accel_prog_mbar_arrive(p, 0x100, 64 * n));
	ASSERT_EQ(0, accel_prog_cluster_arrive(p));
	ASSERT_EQ(0, accel_prog_cluster_wait(p));
	for (uint32_t t = 0; t < n; t++)
		ASSERT_EQ(0, accel_prog_mbar_complete_tx(p, MXA_DSMEM(t, 0x100), 64));
	ASSERT_EQ(0, accel_prog_mbar_wait(p, 0x100, 0, 0));
	/* no instance leaves while a peer may still complete on its barrier */
	ASSERT_EQ(0, accel_prog_cluster_arrive(p));
	ASSERT_EQ(0, accel_prog_cluster_wait(p));
	ASSERT_EQ(0, run_grid(self, &g));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(n, self->r.instances);

	/* the instance's own barrier: complete_tx without a cluster address */
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_mbar_init(p, 0x100, 1));
	ASSERT_EQ(0, accel_prog_mbar_arrive(p, 0x100, 64));
	ASSERT_EQ(0, accel_prog_mbar_complete_tx(p, 0x100, 32));
	ASSERT_EQ(0, accel_prog_mbar_complete_tx(p, 0x100, 32));
	ASSERT_EQ(0, accel_prog_mbar_wait(p, 0x100, 0, 0));
	ASSERT_EQ(0, run_grid(self, &(struct accel_grid){ .x = 1 }));
	EXPECT_EQ(0, self->r.status);	/* locally: 64 expected, 2 x 32 done */

	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_mbar_init(p, 0x100, 1));
	ASSERT_EQ(0, accel_prog_mbar_complete_tx(p, MXA_DSMEM(n, 0x100), 64));
	ASSERT_EQ(0, run_grid(self, &g));
	EXPECT_EQ(MXA_ERR_CLUSTER, self->r.error);
	EXPECT_EQ(MXA_CLUSTER_ERR_OUTSIDE, self->r.err_info);
	EXPECT_EQ(12, self->r.err_offset);
}

/* Arriving twice, or waiting without arriving: MXA_ERR_CLUSTER at that command. */
TEST_F(grid, cluster_barrier_misuse)
{
	const struct accel_grid g = { .x = 2, .cluster_x = 2 };

	ASSERT_EQ(0, accel_prog_cluster_wait(self->prog));
	ASSERT_EQ(0, run_grid(self, &g));
	EXPECT_EQ(MXA_ERR_CLUSTER, self->r.error);
	EXPECT_EQ(MXA_CLUSTER_ERR_WAIT, self->r.err_info);
	EXPECT_EQ(0, self->r.err_offset);

	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_prog_cluster_arrive(self->prog));
	ASSERT_EQ(0, accel_prog_cluster_arrive(self->prog));
	ASSERT_EQ(0, run_grid(self, &g));
	EXPECT_EQ(MXA_ERR_CLUSTER, self->r.error);
	EXPECT_EQ(MXA_CLUSTER_ERR_ARRIVE, self->r.err_info);
	EXPECT_EQ(4, self->r.err_offset);
}

/*
 * An instance that ends while its peer waits for it: rank 0 skips the barrier (a loop
 * of %cluster_ctarank trips), rank 1 arrives and waits; its wait fails naming rank 0,
 * and the job names instance 1. No hang.
 */
TEST_F(grid, a_peer_that_ends_fails_the_wait)
{
	const struct accel_grid g = { .x = 2, .cluster_x = 2 };
	struct accel_prog *p = self->prog;

	ASSERT_EQ(0, accel_prog_reg_cta(p, 1, MXA_SREG_CLUSTER_CTARANK, 1));
	ASSERT_EQ(0, accel_prog_loop(p, 0, 1));
	ASSERT_EQ(0, accel_prog_cluster_arrive(p));
	ASSERT_EQ(0, accel_prog_cluster_wait(p));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, run_grid(self, &g));
	EXPECT_EQ(-EIO, self->r.status);
	EXPECT_EQ(MXA_ERR_CLUSTER, self->r.error);
	EXPECT_EQ(MXA_CLUSTER_ERR_PEER_ENDED, self->r.err_info);
	EXPECT_EQ(0, self->r.err_addr);			/* rank 0 */
	EXPECT_EQ(1, self->r.err_instance);
	EXPECT_EQ(12 + 12 + 4, self->r.err_offset);	/* the CLUSTER_WAIT */
}

/*
 * An MBAR_WAIT for a peer's arrival that will never come: rank 0 ends at once, rank 1
 * arrives at its own barrier (count 2) and waits for rank 0's. Once every peer has
 * ended nothing can complete the phase: MXA_MBAR_ERR_DEADLOCK at once, not a wait for
 * the timeout.
 */
TEST_F(grid, a_wait_no_peer_can_complete_fails)
{
	const struct accel_grid g = { .x = 2, .cluster_x = 2 };
	struct accel_prog *p = self->prog;

	ASSERT_EQ(0, accel_prog_reg_cta(p, 1, MXA_SREG_CLUSTER_CTARANK, 1));
	ASSERT_EQ(0, accel_prog_mbar_init(p, 0x100, 2));
	ASSERT_EQ(0, accel_prog_loop(p, 0, 1));		/* rank 1 only */
	ASSERT_EQ(0, accel_prog_mbar_arrive(p, 0x100, 0));
	ASSERT_EQ(0, accel_prog_mbar_wait(p, 0x100, 0, 0));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, run_grid(self, &g));
	EXPECT_EQ(MXA_ERR_MBARRIER, self->r.error);
	EXPECT_EQ(MXA_MBAR_ERR_DEADLOCK, self->r.err_info);
	EXPECT_EQ(1, self->r.err_instance);
	EXPECT_EQ(12 + 12 + 12 + 12, self->r.err_offset);	/* the MBAR_WAIT */
}

/* A cluster address of a rank the cluster does not have. */
TEST_F(grid, dsmem_outside_the_cluster)
{
	const struct accel_grid g = { .x = 2, .cluster_x = 2 };
	const uint32_t t0 = MXA_TILE(MXA_TILE_T, 0);

	ASSERT_EQ(0, accel_prog_tile_load(self->prog, t0, 1, self->va, 0, 1, 64, 0));
	ASSERT_EQ(0, accel_prog_tile_store(self->prog, t0, 0, MXA_DSMEM(2, 0), 0, 1, 64, 0));
	ASSERT_EQ(0, run_grid(self, &g));
	EXPECT_EQ(MXA_ERR_CLUSTER, self->r.error);
	EXPECT_EQ(MXA_CLUSTER_ERR_OUTSIDE, self->r.err_info);
	EXPECT_EQ(MXA_DSMEM(2, 0), self->r.err_addr);
	EXPECT_EQ(8 * 4, self->r.err_offset);
}

/*
 * TMA multicast: each instance of a cluster loads its 16-row slice of a 64-byte-wide
 * matrix once, multicast to every instance at 1 KiB x its rank; each instance expects
 * all n slices on its own mbarrier and writes what it holds. Every instance must hold
 * the whole matrix while the device read each slice once per cluster.
 */
TEST_F(grid, tma_multicast_reads_once)
{
	const uint32_t n = self->cores < MXA_CLUSTER_MAX ? self->cores : MXA_CLUSTER_MAX;
	const struct accel_grid g = { .x = 2 * n, .cluster_x = n };
	const uint32_t rows = 16, box = 64 * rows, t0 = MXA_TILE(MXA_TILE_T, 0);
	const uint64_t map_va = self->va + (3u << 20) + 4096;
	struct accel_tensor_map_desc d = {
		.global_va = self->va, .rank = 2, .elem_bytes = 1, .dims = { 64, rows * n },
		.strides = { 64 }, .box = { 64, rows },
	};
	struct accel_tma ld = {
		.map = map_va, .sram = 0, .sram_reg = 2, .mbar = 0x20000,
		.coord_reg = { 0, 3 }, .cta_mask = (uint8_t)((1u << n) - 1),
	};
	uint8_t *out = self->data + (1 << 20);
	struct accel_prog *p = self->prog;
	char why[160];

	for (uint32_t i = 0; i < n * box; i++)
		self->data[i] = (uint8_t)(i * 5 + (i >> 10) + 3);
	memset(out, 0, 2 * n * n * box);
	ASSERT_EQ(0, accel_tensor_map_encode(self->data + (3u << 20) + 4096, &d, why, sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, accel_prog_mbar_init(p, 0x20000, 1));
	ASSERT_EQ(0, accel_prog_mbar_arrive(p, 0x20000, n * box));
	ASSERT_EQ(0, accel_prog_cluster_arrive(p));	/* every barrier exists */
	ASSERT_EQ(0, accel_prog_cluster_wait(p));
	ASSERT_EQ(0, accel_prog_reg_cta(p, 2, MXA_SREG_CLUSTER_CTARANK, box));
	ASSERT_EQ(0, accel_prog_reg_cta(p, 3, MXA_SREG_CLUSTER_CTARANK, rows));
	ASSERT_EQ(0, accel_prog_tma(p, 0, &ld));
	ASSERT_EQ(0, accel_prog_mbar_wait(p, 0x20000, 0, 0));
	ASSERT_EQ(0, accel_prog_tile_load(p, t0, 0, 0, 0, n * rows, 64, 0));
	ASSERT_EQ(0, accel_prog_reg_cta(p, 5, MXA_SREG_CTA, n * box));
	ASSERT_EQ(0, accel_prog_tile_store(p, t0, 1, self->va + (1 << 20), 5, n * rows, 64, 0));
	/* no instance may leave while a peer's multicast can still land in its SRAM */
	ASSERT_EQ(0, accel_prog_cluster_arrive(p));
	ASSERT_EQ(0, accel_prog_cluster_wait(p));
	ASSERT_EQ(0, run_grid(self, &g));
	ASSERT_EQ(0, self->r.status);
	for (uint32_t cta = 0; cta < 2 * n; cta++) {
		EXPECT_EQ(0, memcmp(out + cta * n * box, self->data, n * box)) TH_LOG("instance %u", cta);
	}
	EXPECT_EQ(2ull * n * box, self->r.tma_load_bytes);	/* each slice once per cluster */

	/*
	 * a mask naming a rank the cluster does not have (a cluster of 8 has every rank
	 * the 8-bit mask can name: then a cluster of 4)
	 */
	const uint32_t m = n < MXA_CLUSTER_MAX ? n : 4;
	const struct accel_grid gm = { .x = m, .cluster_x = m };

	accel_prog_reset(p);
	ld.cta_mask = (uint8_t)(1u << m);
	ASSERT_EQ(0, accel_prog_mbar_init(p, 0x20000, 1));
	ASSERT_EQ(0, accel_prog_tma(p, 0, &ld));
	ASSERT_EQ(0, run_grid(self, &gm));
	EXPECT_EQ(MXA_ERR_CLUSTER, self->r.error);
	EXPECT_EQ(MXA_CLUSTER_ERR_OUTSIDE, self->r.err_info);
	EXPECT_EQ(1u << m, self->r.err_addr);
	EXPECT_EQ(12, self->r.err_offset);
}

/*
 * Contention in modelled time: up to 4 cores loading at once each keep their own path
 * from memory, more share it (84% each: the H200's SMs, bench/h200/contention.csv). A
 * program that streams 16 boxes of 64 KiB: a grid of up to 4 instances takes one
 * instance's cycles; on more than 4 cores, a grid as wide as the cores takes about
 * 100/84 of them (the path is what bounds it). The same at any host load: the grid's
 * shape decides, not which instances the host happened to run together.
 */
TEST_F(grid, modelled_tma_contention_between_cores)
{
	const uint32_t rows = 256, box = 256 * rows;	/* 64 KiB boxes of 256-byte rows */
	const uint64_t map_va = self->va + (3u << 20) + 4096;
	struct accel_tensor_map_desc d = {
		.global_va = self->va, .rank = 2, .elem_bytes = 1, .dims = { 256, 16 * rows },
		.strides = { 256 }, .box = { 256, rows },
	};
	struct accel_tma ld = { .map = map_va, .mbar = 0x20000, .coord_reg = { 0, 2 } };
	const struct accel_grid one = { 0 }, four = { .x = self->cores < 4 ? self->cores : 4 },
				all = { .x = self->cores };
	struct accel_prog *p = self->prog;
	uint64_t c1;
	char why[160];

	ASSERT_EQ(0, accel_tensor_map_encode(self->data + (3u << 20) + 4096, &d, why, sizeof(why)))
		TH_LOG("%s", why);
	ASSERT_EQ(0, accel_prog_mbar_init(p, 0x20000, 1));
	ASSERT_EQ(0, accel_prog_loop(p, 16, 0));
	ASSERT_EQ(0, accel_prog_mbar_arrive(p, 0x20000, box));
	ASSERT_EQ(0, accel_prog_tma(p, 0, &ld));
	ASSERT_EQ(0, accel_prog_mbar_wait(p, 0x20000, 0, 3));
	ASSERT_EQ(0, accel_prog_reg_add(p, 3, 3, 0, 1));
	ASSERT_EQ(0, accel_prog_reg_add(p, 2, 2, 0, rows));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, run_grid(self, &one));
	ASSERT_EQ(0, self->r.status);
	c1 = self->r.cycles;
	ASSERT_EQ(0, run_grid(self, &four));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(c1, self->r.cycles);
	ASSERT_EQ(0, run_grid(self, &all));
	ASSERT_EQ(0, self->r.status);
	TH_LOG("%u cores: one instance %llu modelled cycles, %u at once %llu", self->cores,
	       (unsigned long long)c1, self->cores, (unsigned long long)self->r.cycles);
	if (self->cores <= 4) {
		EXPECT_EQ(c1, self->r.cycles);
	} else {
		EXPECT_LT(c1 * 110 / 100, self->r.cycles);
		EXPECT_GT(c1 * 100 / 84 + 1, self->r.cycles);
	}
}

/*
 * TIMESTAMP with a register (va + R[reg]): after REG_CTA each instance writes its own
 * record, as accel-trace --grid does; a sum that is not 8-byte aligned fails the job.
 */
TEST_F(grid, timestamp_per_instance)
{
	const struct accel_grid g = { .x = self->cores };
	const struct mxa_timestamp_model *rec = (const void *)(self->data + (1 << 20));
	struct accel_prog *p = self->prog;

	memset(self->data + (1 << 20), 0, self->cores * sizeof(*rec));
	ASSERT_EQ(0, accel_prog_reg_cta(p, 7, MXA_SREG_CTA, sizeof(*rec)));
	ASSERT_EQ(0, accel_prog_nop(p));
	ASSERT_EQ(0, accel_prog_timestamp_reg(p, 1, self->va + (1 << 20), 7));
	ASSERT_EQ(0, run_grid(self, &g));
	ASSERT_EQ(0, self->r.status);
	for (uint32_t i = 0; i < self->cores; i++) {
		EXPECT_LE(self->r.start_ns, rec[i].ns) TH_LOG("instance %u", i);
		EXPECT_GE(self->r.end_ns, rec[i].ns) TH_LOG("instance %u", i);
		EXPECT_EQ(2, rec[i].cycles) TH_LOG("instance %u", i);	/* REG_CTA, NOP */
	}
	EXPECT_EQ(-EINVAL, accel_prog_timestamp_reg(p, 0, self->va, MXA_NUM_REGS));
	/* of two instances, instance 1 writes at va + 4: misaligned (it alone fails) */
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_reg_cta(p, 7, MXA_SREG_CTA, 4));
	ASSERT_EQ(0, accel_prog_timestamp_reg(p, 0, self->va + (1 << 20), 7));
	ASSERT_EQ(0, run_grid(self, &(struct accel_grid){ .x = 2 }));
	EXPECT_EQ(MXA_ERR_MISALIGNED, self->r.error);
	EXPECT_EQ(1, self->r.err_instance);
	EXPECT_EQ(self->va + (1 << 20) + 4, self->r.err_addr);
}

/* REG_CTA's text form round trips; an unknown special register is a job error. */
TEST_F(grid, reg_cta_text_and_errors)
{
	char err[256], text[512];
	const uint32_t *dw;

	ASSERT_EQ(0, accel_asm("REG_CTA r3, %cluster_ctarank, 4096\n"
			       "REG_CTA a1, %nctaid.y, 1\n"
			       "barrier.cluster.arrive.release\nbarrier.cluster.wait\n",
			       self->prog, err, sizeof(err)))
		TH_LOG("%s", err);
	dw = accel_prog_dwords(self->prog);
	EXPECT_EQ(MXA_CMD_HEADER(MXA_OP_REG_CTA, MXA_REG_CTA_DWORDS, 0), dw[0]);
	EXPECT_EQ(3u | MXA_SREG_CLUSTER_CTARANK << 8, dw[1]);
	EXPECT_EQ(4096, dw[2]);
	ASSERT_LT(0, accel_disasm(dw, accel_prog_size(self->prog) / 4, 0, text, sizeof(text)));
	EXPECT_NE(NULL, strstr(text, "REG_CTA r3, %cluster_ctarank, 4096")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "REG_CTA a1, %nctaid.y, 1")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "CLUSTER_ARRIVE\n")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "CLUSTER_WAIT\n")) TH_LOG("%s", text);
	EXPECT_NE(0, accel_asm("barrier.cluster.arrive.relaxed", self->prog, err, sizeof(err)));
	EXPECT_NE(0, accel_asm("REG_CTA r1, ctaid.x, 1", self->prog, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "special register")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, accel_prog_reg_cta(self->prog, 1, MXA_SREG_COUNT, 1));

	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_asm("NOP\nREG_CTA r1, %99, 1", self->prog, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, accel_test_run_self(self));
	EXPECT_EQ(-EIO, self->r.status);
	EXPECT_EQ(MXA_ERR_BAD_OPERAND, self->r.error);
	EXPECT_EQ(4, self->r.err_offset);
	EXPECT_EQ(99, self->r.err_info);
}

/* Shapes the device cannot run: libaccel says which limit, the driver refuses them. */
TEST_F(grid, bad_shapes_are_refused)
{
	const struct accel_grid bad[] = {
		{ .x = 6, .cluster_x = 4 },			/* does not divide */
		{ .x = 16, .cluster_x = 16 },			/* more than MXA_CLUSTER_MAX */
		{ .x = 65535, .y = 3 },				/* too many instances */
		{ .x = 64, .cluster_x = 2, .cluster_y = 2, .y = 3 },	/* y not divided */
	};
	struct drm_mxa_submit s = { 0 };
	struct accel_job *job;
	char why[160];

	ASSERT_EQ(0, accel_prog_nop(self->prog));
	ASSERT_EQ(0, accel_prog_upload(self->prog, self->prog_bo, 0));
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, accel_grid_check(self->dev, &bad[i], why, sizeof(why)));
		TH_LOG("%s", why);
		EXPECT_EQ(-EINVAL, accel_submit_grid(self->dev, 0, self->prog_bo, 0, 4, &bad[i],
						     &job));
	}
	accel_grid_check(self->dev, &bad[0], why, sizeof(why));
	EXPECT_NE(NULL, strstr(why, "does not divide grid 6x1")) TH_LOG("%s", why);

	/* the driver checks them too: the raw ioctl */
	s.prog_handle = accel_bo_handle(self->prog_bo);
	s.prog_size = 4;
	s.grid_x = 6;
	s.cluster_x = 4;
	EXPECT_EQ(-1, ioctl(accel_device_fd(self->dev), DRM_IOCTL_MXA_SUBMIT, &s));
	EXPECT_EQ(EINVAL, errno);
	s.cluster_x = 0;
	s.pad = 1;
	EXPECT_EQ(-1, ioctl(accel_device_fd(self->dev), DRM_IOCTL_MXA_SUBMIT, &s));
	EXPECT_EQ(EINVAL, errno);
	s.pad = 0;
	s.cluster_x = self->cores + 1;
	s.grid_x = self->cores + 1;
	EXPECT_EQ(-1, ioctl(accel_device_fd(self->dev), DRM_IOCTL_MXA_SUBMIT, &s));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
