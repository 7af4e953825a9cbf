// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "tma": per-queue SRAM, TMA tensor loads and stores through tensor
 * maps (rank 1-5, out-of-bounds fill with zero or NaN, negative coordinates, swizzle),
 * mbarriers with transaction counts (phases and parity driven by registers in a loop),
 * WGMMA on SRAM operands fed by TMA in a K loop (exact against the host), the errors
 * for bad maps, SRAM ranges, mbarrier misuse, accumulator hazards and overwritten WGMMA
 * operands. Tensor maps built by
 * accel_tensor_map_encode() are the device's maps, byte for byte, and load alike.
 */
#include "mxa_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "accel.h"
#include "accel_test.h"
#include "kselftest_harness.h"

#define MBAR	0x30000u

FIXTURE(tma) {
	ACCEL_TEST_FIELDS;
	struct mxa_tensor_map *maps;	/* at data offset 0: up to 8 maps */
};

#define IN_OFF	(64 << 10)
#define OUT_OFF	(512 << 10)

FIXTURE_SETUP(tma)
{
	int ret = accel_test_setup(self, MXA_CAP_TMA, 1 << 20);

	if (ret == 1)
		SKIP(return, "device without MXA_CAP_TMA");
	ASSERT_EQ(0, ret);
	self->maps = (struct mxa_tensor_map *)self->data;
}

FIXTURE_TEARDOWN(tma)
{
	accel_test_teardown(self);
}

static int run(FIXTURE_DATA(tma) *self)
{
	return accel_test_run_self(self);
}

/* A rank-2 map of rows x cols elements of @eb bytes at data offset @off, dense rows. */
static void map2(struct mxa_tensor_map *m, uint64_t va, uint32_t cols, uint32_t rows,
		 uint32_t eb, uint32_t box0, uint32_t box1)
{
	memset(m, 0, sizeof(*m));
	m->global_addr = va;
	m->rank = 2;
	m->elem_bytes = eb;
	m->dims[0] = cols;
	m->dims[1] = rows;
	m->dims[2] = m->dims[3] = m->dims[4] = 1;
	m->box[0] = box0;
	m->box[1] = box1;
	m->box[2] = m->box[3] = m->box[4] = 1;
	m->strides[0] = (uint64_t)cols * eb;
}

/* A new program that starts the TMA load @ld of @bytes on a fresh mbarrier MBAR. */
static void start_load(struct accel_prog *p, const struct accel_tma *ld, uint32_t bytes)
{
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 1);
	accel_prog_mbar_arrive(p, MBAR, bytes);
	accel_prog_tma(p, 0, ld);
}

/* load box at (c0, c1) of map 0 to SRAM 0, wait, store it to map 1 at (0, 0) */
static void load_store(FIXTURE_DATA(tma) *self, int32_t c0, int32_t c1, uint32_t bytes)
{
	struct accel_tma ld = { .map = self->va, .sram = 0, .mbar = MBAR,
				.coord = { c0, c1 } };
	struct accel_tma st = { .map = self->va + 128, .sram = 0 };
	struct accel_prog *p = self->prog;

	start_load(p, &ld, bytes);
	accel_prog_mbar_wait(p, MBAR, 0, 0);
	accel_prog_tma(p, 1, &st);
	accel_prog_commit_group(p, MXA_GROUP_COPY);
	accel_prog_wait_group(p, MXA_GROUP_COPY, 0);
}

static void check_2d(struct __test_metadata *_metadata, FIXTURE_DATA(tma) *self,
		     int32_t c0, int32_t c1, uint32_t fill)
{
	uint32_t *in = (uint32_t *)(self->data + IN_OFF);
	uint32_t *out = (uint32_t *)(self->data + OUT_OFF);
	int bad = 0;

	for (int r = 0; r < 16; r++) {
		for (int c = 0; c < 32; c++) {
			int gr = c1 + r, gc = c0 + c;
			uint32_t want = (gr >= 0 && gr < 100 && gc >= 0 && gc < 72) ?
					in[gr * 72 + gc] : fill;

			if (out[r * 32 + c] != want && bad++ < 5)
				fprintf(stderr, "# [%d][%d] = %#x, want %#x\n", r, c,
					out[r * 32 + c], want);
		}
	}
	EXPECT_EQ(0, bad);
}

static void setup_2d(FIXTURE_DATA(tma) *self, uint8_t fill)
{
	uint32_t *in = (uint32_t *)(self->data + IN_OFF);

	for (int i = 0; i < 100 * 72; i++)
		in[i] = (i / 72) * 1000 + i % 72 + 1;
	map2(&self->maps[0], self->va + IN_OFF, 72, 100, 4, 32, 16);
	self->maps[0].oob_fill = fill;
	map2(&self->maps[1], self->va + OUT_OFF, 32, 16, 4, 32, 16);
	memset(self->data + OUT_OFF, 0x55, 32 * 16 * 4);
}

/*
 * Using a TMA box before the MBAR_WAIT that observes its load is MXA_ERR_TMA_HAZARD at
 * the using command's offset, on every run (the device decides by program order, not
 * by whether the bytes have landed): a TILE_LOAD from the box, a TMA_STORE of it, a
 * second load into it, and the second phase of the same mbarrier. After the wait the
 * same commands run and see the whole box.
 */
TEST_F(tma, box_used_before_its_mbarrier_wait_is_a_hazard)
{
	struct accel_tma ld = { .map = self->va, .sram = 0, .mbar = MBAR, .coord = { 3, 7 } };
	struct accel_tma st = { .map = self->va + 128, .sram = 0 };
	const uint32_t bytes = 32 * 16 * 4;
	struct accel_prog *p = self->prog;
	size_t at;

	setup_2d(self, MXA_TMA_OOB_ZERO);
	for (int run_no = 0; run_no < 3; run_no++) {
		/* TILE_LOAD of the box's first rows, no MBAR_WAIT */
		start_load(p, &ld, bytes);
		at = accel_prog_size(p);
		accel_prog_tile_load(p, MXA_TILE(MXA_TILE_T, 0), 0, 0x400, 0, 4, 128, 0);
		ASSERT_EQ(0, run(self));
		EXPECT_EQ(-EIO, self->r.status);
		EXPECT_EQ(MXA_ERR_TMA_HAZARD, self->r.error) TH_LOG("run %d", run_no);
		EXPECT_EQ(at, self->r.err_offset);
		EXPECT_EQ(0, self->r.err_addr);
		EXPECT_EQ(bytes, self->r.err_info);
	}
	/* a TMA_STORE of the box, and a second load into it, before the wait */
	for (int second_load = 0; second_load < 2; second_load++) {
		start_load(p, &ld, bytes);
		at = accel_prog_size(p);
		if (second_load)
			accel_prog_tma(p, 0, &ld);
		else
			accel_prog_tma(p, 1, &st);
		ASSERT_EQ(0, run(self));
		EXPECT_EQ(MXA_ERR_TMA_HAZARD, self->r.error);
		EXPECT_EQ(at, self->r.err_offset);
	}
	/* phase 0 waited for; phase 1's load is used before its wait */
	start_load(p, &ld, bytes);
	accel_prog_mbar_wait(p, MBAR, 0, 0);
	accel_prog_tile_load(p, MXA_TILE(MXA_TILE_T, 0), 0, 0, 0, 16, 128, 0);
	accel_prog_mbar_arrive(p, MBAR, bytes);
	accel_prog_tma(p, 0, &ld);
	at = accel_prog_size(p);
	accel_prog_tile_load(p, MXA_TILE(MXA_TILE_T, 1), 0, 0, 0, 16, 128, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_TMA_HAZARD, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	/* with the waits: the box, whole, through a tile and back out */
	start_load(p, &ld, bytes);
	accel_prog_mbar_wait(p, MBAR, 0, 0);
	accel_prog_tile_load(p, MXA_TILE(MXA_TILE_T, 0), 0, 0, 0, 16, 128, 0);
	accel_prog_tile_store(p, MXA_TILE(MXA_TILE_T, 0), 1, self->va + OUT_OFF, 0, 16, 128, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status) TH_LOG("error %u", self->r.error);
	check_2d(_metadata, self, 3, 7, 0);
}

TEST_F(tma, load_2d_out_of_bounds_zero)
{
	setup_2d(self, MXA_TMA_OOB_ZERO);
	load_store(self, 60, 90, 32 * 16 * 4);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	check_2d(_metadata, self, 60, 90, 0);
	load_store(self, 3, 7, 32 * 16 * 4);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	check_2d(_metadata, self, 3, 7, 0);
}

TEST_F(tma, encoded_maps_and_expect_tx)
{
	struct accel_tensor_map_desc d = {
		.global_va = self->va + IN_OFF, .rank = 2, .elem_bytes = 4,
		.dims = { 72, 100 }, .strides = { 72 * 4 }, .box = { 32, 16 },
		.oob_fill = MXA_TMA_OOB_ZERO,
	};
	struct accel_tma ld = { .map = self->va, .sram = 0, .mbar = MBAR, .coord = { 60, 90 } };
	struct accel_tma st = { .map = self->va + 128, .sram = 0 };
	struct mxa_tensor_map by_hand;
	char why[256] = "";
	uint8_t before[128];

	setup_2d(self, MXA_TMA_OOB_ZERO);
	by_hand = self->maps[0];
	memset(&self->maps[0], 0xee, 256);
	ASSERT_EQ(0, accel_tensor_map_encode(&self->maps[0], &d, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(0, memcmp(&by_hand, &self->maps[0], sizeof(by_hand)));
	d.global_va = self->va + OUT_OFF;
	d.dims[0] = 32;
	d.dims[1] = 16;
	d.strides[0] = 32 * 4;
	ASSERT_EQ(0, accel_tensor_map_encode(&self->maps[1], &d, why, sizeof(why))) TH_LOG("%s", why);

	/* the transaction count set by MBAR_EXPECT_TX, the arrival by MBAR_ARRIVE 0 */
	accel_prog_reset(self->prog);
	ASSERT_EQ(0, accel_prog_mbar_init(self->prog, MBAR, 1));
	ASSERT_EQ(0, accel_prog_mbar_expect_tx(self->prog, MBAR, 32 * 16 * 4));
	ASSERT_EQ(0, accel_prog_mbar_arrive(self->prog, MBAR, 0));
	ASSERT_EQ(0, accel_prog_tma(self->prog, 0, &ld));
	ASSERT_EQ(0, accel_prog_mbar_wait(self->prog, MBAR, 0, 0));
	ASSERT_EQ(0, accel_prog_tma(self->prog, 1, &st));
	ASSERT_EQ(0, accel_prog_commit_group(self->prog, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_wait_group(self->prog, MXA_GROUP_COPY, 0));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	check_2d(_metadata, self, 60, 90, 0);
	EXPECT_EQ(-EINVAL, accel_prog_mbar_expect_tx(self->prog, MBAR + 4, 16));

	/* a bad field: -EINVAL, named, the map untouched */
	memcpy(before, &self->maps[1], 128);
	d.box[0] = 3;	/* 12 bytes: not a multiple of 16 */
	why[0] = 0;
	EXPECT_EQ(-EINVAL, accel_tensor_map_encode(&self->maps[1], &d, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "box")) TH_LOG("%s", why);
	EXPECT_EQ(0, memcmp(before, &self->maps[1], 128));
}

TEST_F(tma, load_2d_negative_coords_nan)
{
	setup_2d(self, MXA_TMA_OOB_NAN);
	load_store(self, -4, -2, 32 * 16 * 4);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	check_2d(_metadata, self, -4, -2, 0xffffffffu);
}

TEST_F(tma, swizzle_128b)
{
	uint8_t *in = self->data + IN_OFF, *out = self->data + OUT_OFF;
	int bad = 0;

	for (int i = 0; i < 8 * 128; i++)
		in[i] = i * 7 + (i >> 8);
	map2(&self->maps[0], self->va + IN_OFF, 32, 8, 4, 32, 8);
	self->maps[0].swizzle = MXA_TMA_SWIZZLE_128B;
	map2(&self->maps[1], self->va + OUT_OFF, 32, 8, 4, 32, 8);
	load_store(self, 0, 0, 1024);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	/* SRAM[a ^ ((a >> 7 & 7) << 4)] = in[a]: 16-byte unit u of row r holds unit u ^ r */
	for (int r = 0; r < 8; r++)
		for (int u = 0; u < 8; u++)
			if (memcmp(out + r * 128 + u * 16, in + r * 128 + (u ^ r) * 16, 16))
				bad++;
	EXPECT_EQ(0, bad);
}

/* SRAM offset of byte @a of a dense box under swizzle @swz (uapi/mxa_isa.h's formula). */
static uint32_t swizzled(uint32_t a, uint8_t swz)
{
	uint32_t mask = swz ? (2u << swz) / 2 - 1 : 0;	/* 32B: 1, 64B: 3, 128B: 7 */

	return a ^ (((a >> 7) & mask) << 4);
}

#define DST_OFF	(256 << 10)

/*
 * Every rank (1..5) with every swizzle, on load and on store, and a 256-element box:
 * the box is partly out of bounds in its last dimension (and in dim 0 for rank 1).
 * The load's SRAM bytes (read back through a tile) are the documented swizzle of the
 * dense box, out-of-bounds elements zero; the store of that SRAM to a zeroed tensor
 * writes exactly the in-bounds elements, and the same values.
 */
TEST_F(tma, swizzle_every_rank_load_and_store)
{
	static const uint8_t swizzles[] = { MXA_TMA_SWIZZLE_NONE, MXA_TMA_SWIZZLE_32B,
					     MXA_TMA_SWIZZLE_64B, MXA_TMA_SWIZZLE_128B };
	const uint32_t eb = 2;
	int cases = 0;

	for (int rank = 1; rank <= 5; rank++) {
		for (unsigned si = 0; si < sizeof(swizzles); si++) {
			uint8_t swz = swizzles[si];
			uint32_t box[5] = { 1, 1, 1, 1, 1 }, dims[5] = { 1, 1, 1, 1, 1 };
			int32_t c[5] = { 0 };
			uint64_t stride = 0, total = 1, bytes;
			uint16_t *in = (uint16_t *)(self->data + IN_OFF);
			uint16_t *dst = (uint16_t *)(self->data + DST_OFF);
			uint8_t *sram = self->data + OUT_OFF;
			struct accel_tma ld = { .map = self->va, .sram = 0, .mbar = MBAR };
			struct accel_tma st = { .map = self->va + 128, .sram = 0 };
			struct accel_prog *p = self->prog;
			int bad = 0;

			/* dim 0: 256 elements unswizzled (rank 1), else one swizzle span */
			box[0] = swz ? (16u << swz) / eb : rank == 1 ? 256 : 32;
			dims[0] = box[0] + 8;
			c[0] = rank == 1 ? 12 : 4;	/* rank 1: the last 4 out of bounds */
			for (int d = 1; d < rank; d++) {
				box[d] = d == 1 ? 3 : 2;
				dims[d] = box[d] + 1;
				c[d] = d == rank - 1 ? 2 : 1;	/* the last dim: 1 row out */
			}
			for (int k = 0; k < 2; k++) {
				struct mxa_tensor_map *m = &self->maps[k];

				memset(m, 0, sizeof(*m));
				m->global_addr = self->va + (k ? DST_OFF : IN_OFF);
				m->rank = rank;
				m->elem_bytes = eb;
				m->swizzle = swz;
				stride = eb;
				for (int d = 0; d < 5; d++) {
					m->dims[d] = dims[d];
					m->box[d] = box[d];
					if (d && d < rank)
						m->strides[d - 1] = stride;
					stride *= dims[d];
				}
			}
			for (int d = 0; d < 5; d++)
				total *= dims[d];
			bytes = eb;
			for (int d = 0; d < 5; d++)
				bytes *= box[d];
			for (uint64_t i = 0; i < total; i++)
				in[i] = (uint16_t)(0x8001 + i * 40503u);
			memset(dst, 0, total * eb);
			memset(sram, 0xee, bytes);
			memcpy(ld.coord, c, sizeof(c));
			memcpy(st.coord, c, sizeof(c));

			start_load(p, &ld, bytes);
			accel_prog_mbar_wait(p, MBAR, 0, 0);
			accel_prog_tile_load(p, MXA_TILE(MXA_TILE_T, 0), 0, 0, 0, bytes / 16, 16, 0);
			accel_prog_tile_store(p, MXA_TILE(MXA_TILE_T, 0), 1, self->va + OUT_OFF, 0,
					      bytes / 16, 16, 0);
			accel_prog_tma(p, 1, &st);
			accel_prog_commit_group(p, MXA_GROUP_COPY);
			accel_prog_wait_group(p, MXA_GROUP_COPY, 0);
			ASSERT_EQ(0, run(self));
			ASSERT_EQ(0, self->r.status) TH_LOG("rank %d swizzle %u: error %u info %u",
							   rank, swz, self->r.error, self->r.err_info);
			/* every element of the box: where the load put it, and where it went */
			for (uint64_t e = 0; e < bytes / eb; e++) {
				uint64_t rest = e, gi = 0, gstride = 1;
				int inside = 1;
				uint16_t want, got;

				for (int d = 0; d < 5; d++) {
					int64_t g = c[d] + (int64_t)(rest % box[d]);

					rest /= box[d];
					inside &= g >= 0 && g < dims[d];
					gi += (uint64_t)g * gstride;
					gstride *= dims[d];
				}
				want = inside ? in[gi] : 0;
				memcpy(&got, sram + swizzled(e * eb, swz), 2);
				if (got != want && bad++ < 3)
					TH_LOG("rank %d swizzle %u: box element %llu in SRAM %#x, want %#x",
					       rank, swz, (unsigned long long)e, got, want);
				if (inside && dst[gi] != in[gi] && bad++ < 3)
					TH_LOG("rank %d swizzle %u: stored element %llu = %#x, want %#x",
					       rank, swz, (unsigned long long)gi, dst[gi], in[gi]);
				if (inside)
					dst[gi] = 0;	/* seen: what remains must be untouched */
			}
			for (uint64_t i = 0; i < total; i++)
				if (dst[i] && bad++ < 3)
					TH_LOG("rank %d swizzle %u: element %llu outside the box written",
					       rank, swz, (unsigned long long)i);
			EXPECT_EQ(0, bad);
			cases++;
		}
	}
	EXPECT_EQ(20, cases);
}

TEST_F(tma, rank5_round_trip)
{
	const uint32_t dims[5] = { 8, 3, 2, 2, 2 };
	uint16_t *in = (uint16_t *)(self->data + IN_OFF);
	struct mxa_tensor_map *m;
	uint64_t stride = 16;

	for (int k = 0; k < 2; k++) {
		m = &self->maps[k];
		memset(m, 0, sizeof(*m));
		m->global_addr = self->va + (k ? OUT_OFF : IN_OFF);
		m->rank = 5;
		m->elem_bytes = 2;
		stride = 16;
		for (int d = 0; d < 5; d++) {
			m->dims[d] = dims[d];
			m->box[d] = dims[d];
			if (d) {
				m->strides[d - 1] = stride;
				stride *= dims[d];
			}
		}
	}
	for (int i = 0; i < 8 * 3 * 2 * 2 * 2; i++)
		in[i] = 0x1000 + i;
	memset(self->data + OUT_OFF, 0, 4096);
	load_store(self, 0, 0, 8 * 3 * 8 * 2);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(0, memcmp(self->data + IN_OFF, self->data + OUT_OFF, 8 * 3 * 8 * 2));
}

/* Four tiles through one mbarrier: coordinates and parity come from registers. */
TEST_F(tma, loop_phases_from_registers)
{
	struct accel_tma ld = { .map = self->va, .sram = 0, .mbar = MBAR,
				.coord_reg = { 0, 1 } };
	struct accel_tma st = { .map = self->va + 128, .sram = 0, .coord_reg = { 0, 1 } };
	struct accel_prog *p = self->prog;
	uint32_t *in = (uint32_t *)(self->data + IN_OFF);
	uint32_t *out = (uint32_t *)(self->data + OUT_OFF);

	for (int i = 0; i < 64 * 32; i++)
		in[i] = i * 3 + 1;
	map2(&self->maps[0], self->va + IN_OFF, 32, 64, 4, 32, 16);
	map2(&self->maps[1], self->va + OUT_OFF, 32, 64, 4, 32, 16);
	memset(out, 0, 64 * 32 * 4);
	ASSERT_EQ(0, accel_prog_mbar_init(p, MBAR, 1));
	ASSERT_EQ(0, accel_prog_loop(p, 4, 0));
	ASSERT_EQ(0, accel_prog_mbar_arrive(p, MBAR, 32 * 16 * 4));
	ASSERT_EQ(0, accel_prog_tma(p, 0, &ld));
	ASSERT_EQ(0, accel_prog_mbar_wait(p, MBAR, 0, 2));	/* parity R2 & 1 */
	ASSERT_EQ(0, accel_prog_tma(p, 1, &st));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_COPY));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_COPY, 0));	/* SRAM reused */
	ASSERT_EQ(0, accel_prog_reg_add(p, 1, 1, 0, 16));
	ASSERT_EQ(0, accel_prog_reg_add(p, 2, 2, 0, 1));
	ASSERT_EQ(0, accel_prog_endloop(p));
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	EXPECT_EQ(0, memcmp(in, out, 64 * 32 * 4));
}

TEST_F(tma, errors)
{
	struct accel_tma ld = { .map = self->va, .sram = 0, .mbar = MBAR };
	struct accel_prog *p = self->prog;
	uint32_t at;

	/* box of 257 */
	map2(&self->maps[0], self->va + IN_OFF, 512, 4, 1, 32, 4);
	self->maps[0].box[0] = 257;
	accel_prog_mbar_init(p, MBAR, 1);
	at = accel_prog_size(p);
	accel_prog_tma(p, 0, &ld);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_BAD_TENSOR_MAP, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(6, self->r.err_info);

	/* stride not a multiple of 16 */
	map2(&self->maps[0], self->va + IN_OFF, 36, 4, 1, 32, 4);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_BAD_TENSOR_MAP, self->r.error);
	EXPECT_EQ(8, self->r.err_info);

	/* box past the end of SRAM */
	map2(&self->maps[0], self->va + IN_OFF, 256, 64, 4, 64, 64);	/* 16 KiB */
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 1);
	ld.sram = MXA_SRAM_SIZE - 8192;
	at = accel_prog_size(p);
	accel_prog_tma(p, 0, &ld);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_SRAM_RANGE, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);

	/* an mbarrier nobody initialised */
	accel_prog_reset(p);
	accel_prog_mbar_arrive(p, MBAR, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MBARRIER, self->r.error);
	EXPECT_EQ(MXA_MBAR_ERR_UNINIT, self->r.err_info);

	/* waiting for an arrival that only this queue could make */
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 2);
	accel_prog_mbar_arrive(p, MBAR, 0);
	at = accel_prog_size(p);
	accel_prog_mbar_wait(p, MBAR, 0, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MBARRIER, self->r.error);
	EXPECT_EQ(MXA_MBAR_ERR_DEADLOCK, self->r.err_info);
	EXPECT_EQ(at, self->r.err_offset);

	/* waiting for bytes no load will bring */
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 1);
	accel_prog_mbar_arrive(p, MBAR, 4096);
	accel_prog_mbar_wait(p, MBAR, 0, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MBARRIER, self->r.error);
	EXPECT_EQ(MXA_MBAR_ERR_DEADLOCK, self->r.err_info);

	/* one arrival too many */
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 1);
	accel_prog_mbar_arrive(p, MBAR, 0);
	accel_prog_mbar_wait(p, MBAR, 0, 0);
	accel_prog_mbar_wait(p, MBAR, 1, 0);	/* phase 1 is in progress: would block */
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MBARRIER, self->r.error);
	EXPECT_EQ(MXA_MBAR_ERR_DEADLOCK, self->r.err_info);
	/* more arrivals than the count in one phase (its bytes still missing) */
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 2);
	accel_prog_mbar_arrive(p, MBAR, 64);
	accel_prog_mbar_arrive(p, MBAR, 0);
	at = accel_prog_size(p);
	accel_prog_mbar_arrive(p, MBAR, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MBARRIER, self->r.error);
	EXPECT_EQ(MXA_MBAR_ERR_ARRIVALS, self->r.err_info);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(MBAR, self->r.err_addr);

	/* a transaction count beyond 2^30 */
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 1);
	accel_prog_mbar_expect_tx(p, MBAR, MXA_MBAR_MAX_TX);
	at = accel_prog_size(p);
	accel_prog_mbar_expect_tx(p, MBAR, 1);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MBARRIER, self->r.error);
	EXPECT_EQ(MXA_MBAR_ERR_TX, self->r.err_info);
	EXPECT_EQ(at, self->r.err_offset);
}

#define A_OFF	(IN_OFF)
#define B_OFF	(IN_OFF + (16 << 10))
#define D_SRAM	0x10000u

static const uint16_t f16_int[5] = { 0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000 };	/* -2..2 */

/* A (64 x 64) and B (64 x 64) f16 K-major, maps 2-4; a K loop of 4 WGMMAs (K = 16). */
static void wgmma_program(FIXTURE_DATA(tma) *self, uint32_t policy)
{
	struct accel_tma lda = { .map = self->va + 256, .sram = 0, .sram_reg = 3, .mbar = MBAR,
				 .coord_reg = { 1, 0 } };
	struct accel_tma ldb = { .map = self->va + 384, .sram = 2048, .sram_reg = 3,
				 .mbar = MBAR, .coord_reg = { 1, 0 } };
	struct accel_tma std = { .map = self->va + 512, .sram = D_SRAM };
	struct accel_wgmma w = {
		.flags = MXA_WGMMA_F_ACCUMULATE | policy, .type_a = MXA_DTYPE_F16,
		.type_b = MXA_DTYPE_F16, .type_d = MXA_DTYPE_F32, .n = 64,
		.a = 0, .a_reg = 3, .b = 2048, .b_reg = 3, .d = D_SRAM,
	};
	struct accel_prog *p = self->prog;

	map2(&self->maps[2], self->va + A_OFF, 64, 64, 2, 16, 64);
	map2(&self->maps[3], self->va + B_OFF, 64, 64, 2, 16, 64);
	map2(&self->maps[4], self->va + OUT_OFF, 64, 64, 4, 64, 64);
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 1);
	accel_prog_loop(p, 4, 0);
	accel_prog_mbar_arrive(p, MBAR, 4096);
	accel_prog_tma(p, 0, &lda);
	accel_prog_tma(p, 0, &ldb);
	accel_prog_mbar_wait(p, MBAR, 0, 2);
	accel_prog_wgmma(p, &w);
	accel_prog_reg_add(p, 1, 1, 0, 16);
	accel_prog_reg_add(p, 2, 2, 0, 1);
	accel_prog_reg_add(p, 3, 3, 0, 4096);
	accel_prog_endloop(p);
	accel_prog_commit_group(p, MXA_GROUP_MMA);
	accel_prog_wait_group(p, MXA_GROUP_MMA, 0);
	accel_prog_tma(p, 1, &std);
	accel_prog_commit_group(p, MXA_GROUP_COPY);
	accel_prog_wait_group(p, MXA_GROUP_COPY, 0);
}

TEST_F(tma, wgmma_k_loop_exact)
{
	uint16_t *a = (uint16_t *)(self->data + A_OFF), *b = (uint16_t *)(self->data + B_OFF);
	float *d = (float *)(self->data + OUT_OFF);
	int ia[64 * 64], ib[64 * 64], bad = 0;

	if (!(accel_device_info(self->dev)->caps & MXA_CAP_WGMMA))
		SKIP(return, "no WGMMA");
	for (int i = 0; i < 64 * 64; i++) {
		ia[i] = (i * 7 + i / 64) % 5 - 2;
		ib[i] = (i * 3 + i / 64 * 5) % 5 - 2;
		a[i] = f16_int[ia[i] + 2];
		b[i] = f16_int[ib[i] + 2];
	}
	wgmma_program(self, 0);
	ASSERT_EQ(0, run(self));
	ASSERT_EQ(0, self->r.status);
	for (int m = 0; m < 64; m++) {
		for (int n = 0; n < 64; n++) {
			int want = 0;

			for (int k = 0; k < 64; k++)
				want += ia[m * 64 + k] * ib[n * 64 + k];
			if (d[m * 64 + n] != (float)want && bad++ < 5)
				fprintf(stderr, "# D[%d][%d] = %g, want %d\n", m, n, d[m * 64 + n],
					want);
		}
	}
	EXPECT_EQ(0, bad);
}

/*
 * An MBAR_WAIT that waits longer than the device's mbar-timeout-us fails the job with
 * MXA_MBAR_ERR_TIMEOUT at the wait (not a deadlock: the copy engine is busy). The
 * load waits behind 64 COPYs of 64 MiB on the copy engine (8 GiB moved: at least 250 ms
 * at 32 GB/s); the boot with mbar-timeout-us=100000 (100 ms) runs this, others skip it.
 */
TEST_F(tma, mbar_wait_times_out)
{
	struct accel_tma ld = { .map = self->va, .sram = 0, .mbar = MBAR };
	struct accel_bo *big;
	struct accel_prog *p = self->prog;
	char buf[32];
	long timeout;
	size_t at;
	FILE *f = fopen("/sys/class/accel/accel0/device/mxa/mbar_timeout_us", "r");

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	timeout = strtol(buf, NULL, 10);
	ASSERT_LT(0, timeout);
	if (timeout > 100000)
		SKIP(return, "mbar-timeout-us %ld: the boot with mbar-timeout-us=100000 runs this",
		     timeout);
	ASSERT_EQ(0, accel_bo_alloc(self->dev, 128u << 20, &big));
	map2(&self->maps[0], self->va + IN_OFF, 256, 64, 4, 256, 64);
	accel_prog_reset(p);
	for (int c = 0; c < 64; c++)
		accel_prog_copy(p, accel_bo_va(big) + (64u << 20), 0, accel_bo_va(big), 0,
				64u << 20, 0);
	accel_prog_mbar_init(p, MBAR, 1);
	accel_prog_mbar_arrive(p, MBAR, 64 << 10);
	accel_prog_tma(p, 0, &ld);
	at = accel_prog_size(p);
	accel_prog_mbar_wait(p, MBAR, 0, 0);
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_MBARRIER, self->r.error);
	EXPECT_EQ(MXA_MBAR_ERR_TIMEOUT, self->r.err_info);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(MBAR, self->r.err_addr);
	accel_bo_free(big);
}

TEST_F(tma, wgmma_accumulator_hazard)
{
	struct accel_tma std = { .map = self->va + 512, .sram = D_SRAM };
	struct accel_wgmma w = {
		.type_a = MXA_DTYPE_F16, .type_b = MXA_DTYPE_F16, .type_d = MXA_DTYPE_F32,
		.n = 64, .a = 0, .b = 2048, .d = D_SRAM,
	};
	struct accel_prog *p = self->prog;
	uint32_t at;

	if (!(accel_device_info(self->dev)->caps & MXA_CAP_WGMMA))
		SKIP(return, "no WGMMA");
	map2(&self->maps[4], self->va + OUT_OFF, 64, 64, 4, 64, 64);
	ASSERT_EQ(0, accel_prog_wgmma(p, &w));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_MMA));
	at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_tma(p, 1, &std));	/* D read before WAIT_GROUP */
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_ACC_HAZARD, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(D_SRAM, self->r.err_addr);

	/* and D as the next WGMMA's A */
	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_wgmma(p, &w));
	w.a = D_SRAM;
	at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_wgmma(p, &w));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_ACC_HAZARD, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);

	/* after the wait, the same store is fine */
	accel_prog_reset(p);
	w.a = 0;
	ASSERT_EQ(0, accel_prog_wgmma(p, &w));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_MMA));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_MMA, 0));
	ASSERT_EQ(0, accel_prog_tma(p, 1, &std));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(0, self->r.status);
}

/* Overwriting a pending WGMMA's A or B (TMA load, CVT, MMA D) is a hazard too. */
TEST_F(tma, wgmma_operand_overwrite_hazard)
{
	struct accel_tma lda = { .map = self->va, .sram = 0, .mbar = MBAR };
	struct accel_wgmma w = {
		.type_a = MXA_DTYPE_F16, .type_b = MXA_DTYPE_F16, .type_d = MXA_DTYPE_F32,
		.n = 64, .a = 0, .b = 2048, .d = D_SRAM,
	};
	struct accel_cvt c = {
		.src_type = MXA_DTYPE_F32, .dst_type = MXA_DTYPE_BF16, .n = 64,
		.src = 0x8000, .dst = 2048 + 64,
	};
	struct accel_prog *p = self->prog;
	uint32_t at;

	if (!(accel_device_info(self->dev)->caps & MXA_CAP_CVT))
		SKIP(return, "no CVT");
	map2(&self->maps[0], self->va + IN_OFF, 16, 64, 2, 16, 64);
	accel_prog_mbar_init(p, MBAR, 1);
	ASSERT_EQ(0, accel_prog_wgmma(p, &w));
	at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_tma(p, 0, &lda));	/* the next stage into A, too early */
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_OPERAND_HAZARD, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(0, self->r.err_addr);

	accel_prog_reset(p);
	ASSERT_EQ(0, accel_prog_wgmma(p, &w));
	at = accel_prog_size(p);
	ASSERT_EQ(0, accel_prog_cvt(p, &c));		/* into B */
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(MXA_ERR_OPERAND_HAZARD, self->r.error);
	EXPECT_EQ(at, self->r.err_offset);
	EXPECT_EQ(2048, self->r.err_addr);

	/* after the WAIT_GROUP both are fine */
	accel_prog_reset(p);
	accel_prog_mbar_init(p, MBAR, 1);
	ASSERT_EQ(0, accel_prog_wgmma(p, &w));
	ASSERT_EQ(0, accel_prog_fence(p));
	ASSERT_EQ(0, accel_prog_commit_group(p, MXA_GROUP_MMA));
	ASSERT_EQ(0, accel_prog_wait_group(p, MXA_GROUP_MMA, 0));
	ASSERT_EQ(0, accel_prog_cvt(p, &c));
	ASSERT_EQ(0, accel_prog_mbar_arrive(p, MBAR, 16 * 64 * 2));
	ASSERT_EQ(0, accel_prog_tma(p, 0, &lda));
	ASSERT_EQ(0, accel_prog_mbar_wait(p, MBAR, 0, 0));
	ASSERT_EQ(0, run(self));
	EXPECT_EQ(0, self->r.status);
}

TEST_HARNESS_MAIN
