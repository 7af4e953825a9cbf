// SPDX-License-Identifier: MIT
/*
 * Host test: accel_tensor_map_encode() writes the uapi tensor-map layout and rejects
 * every bad field with a message that names it.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"

#include "accel.h"
#include "mxa_isa.h"

/* A valid 2-D map: 1000 x 300 f16 rows of 2048 bytes, 64 x 32 boxes. */
static struct accel_tensor_map_desc good(void)
{
	struct accel_tensor_map_desc d = {
		.global_va = 0x200000, .rank = 2, .elem_bytes = 2,
		.dims = { 1000, 300 }, .strides = { 2048 }, .box = { 64, 32 },
		.oob_fill = MXA_TMA_OOB_NAN, .swizzle = MXA_TMA_SWIZZLE_128B,
	};
	return d;
}

TEST(encodes_the_uapi_layout)
{
	struct accel_tensor_map_desc d = good();
	struct mxa_tensor_map m;
	char why[160];

	memset(&m, 0xaa, sizeof(m));
	ASSERT_EQ(0, accel_tensor_map_encode(&m, &d, why, sizeof(why)));
	EXPECT_STREQ("", why);
	EXPECT_EQ(0x200000, m.global_addr);
	EXPECT_EQ(2, m.rank);
	EXPECT_EQ(2, m.elem_bytes);
	EXPECT_EQ(MXA_TMA_OOB_NAN, m.oob_fill);
	EXPECT_EQ(MXA_TMA_SWIZZLE_128B, m.swizzle);
	EXPECT_EQ(1000, m.dims[0]);
	EXPECT_EQ(300, m.dims[1]);
	EXPECT_EQ(1, m.dims[4]);
	EXPECT_EQ(64, m.box[0]);
	EXPECT_EQ(32, m.box[1]);
	EXPECT_EQ(1, m.box[2]);
	EXPECT_EQ(2048, m.strides[0]);
	EXPECT_EQ(0, m.strides[1]);
	EXPECT_EQ(0, m.reserved0);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(0, m.reserved[i]);
}

TEST(rank5_and_rank1)
{
	struct accel_tensor_map_desc d = {
		.global_va = 0x10000, .rank = 5, .elem_bytes = 4,
		.dims = { 8, 3, 2, 2, 2 }, .strides = { 32, 96, 192, 384 }, .box = { 4, 3, 2, 2, 2 },
	};
	struct mxa_tensor_map m;

	ASSERT_EQ(0, accel_tensor_map_encode(&m, &d, NULL, 0));
	EXPECT_EQ(384, m.strides[3]);
	d = (struct accel_tensor_map_desc){ .global_va = 0x10000, .rank = 1, .elem_bytes = 1,
					    .dims = { 100 }, .box = { 256 } };
	ASSERT_EQ(0, accel_tensor_map_encode(&m, &d, NULL, 0));
	EXPECT_EQ(0, m.strides[0]);
}

/* Each bad field: -EINVAL, the output untouched, and a message naming the field. */
static void expect_bad(struct __test_metadata *_metadata, struct accel_tensor_map_desc d,
		       const char *field)
{
	unsigned char m[sizeof(struct mxa_tensor_map)], before[sizeof(struct mxa_tensor_map)];
	char why[160];

	memset(m, 0x5a, sizeof(m));
	memcpy(before, m, sizeof(m));
	EXPECT_EQ(-EINVAL, accel_tensor_map_encode(m, &d, why, sizeof(why)));
	EXPECT_EQ(0, memcmp(m, before, sizeof(m)));
	EXPECT_NE(NULL, strstr(why, field)) {
		TH_LOG("expected '%s' in \"%s\"", field, why);
	}
}

TEST(every_bad_field_is_named)
{
	struct accel_tensor_map_desc d;

	d = good(); d.rank = 0;			expect_bad(_metadata, d, "rank");
	d = good(); d.rank = 6;			expect_bad(_metadata, d, "rank");
	d = good(); d.elem_bytes = 3;		expect_bad(_metadata, d, "elem_bytes");
	d = good(); d.global_va = 0x200008;	expect_bad(_metadata, d, "global_va");
	d = good(); d.oob_fill = 2;		expect_bad(_metadata, d, "oob_fill");
	d = good(); d.swizzle = 4;		expect_bad(_metadata, d, "swizzle");
	d = good(); d.dims[1] = 0;		expect_bad(_metadata, d, "dims[1]");
	d = good(); d.box[1] = 0;		expect_bad(_metadata, d, "box[1]");
	d = good(); d.box[0] = 257;		expect_bad(_metadata, d, "box[0]");
	d = good(); d.strides[0] = 2056;	expect_bad(_metadata, d, "multiple of 16");
	d = good(); d.strides[0] = 1 << 30; d.strides[0] <<= 10;
						expect_bad(_metadata, d, "2^40");
	d = good(); d.strides[0] = 1024;	expect_bad(_metadata, d, "overlap");
	d = good(); d.box[0] = 4;		expect_bad(_metadata, d, "multiple of 16");
	d = good(); d.box[0] = 128;		expect_bad(_metadata, d, "swizzle span");
	d = good(); d.swizzle = 0; d.box[0] = 256; d.box[1] = 256;	/* 512 KiB */
	d.rank = 3; d.dims[2] = 4; d.strides[1] = 2048 * 300; d.box[2] = 4;
						expect_bad(_metadata, d, "SRAM");
	d = good(); d.global_va = ~0ull - 15;	expect_bad(_metadata, d, "address space");
}

TEST_HARNESS_MAIN
