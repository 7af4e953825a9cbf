// SPDX-License-Identifier: MIT
/*
 * Host test: accel_mx_quantize() against MX quantisation by other people's code, the
 * vectors of tests/golden/h200/mx-others/ (gen.py there: ml_dtypes 0.6 and PyTorch 2.11
 * casts of each block scaled by the policy's E8M0 scale, clamped as OCP MX saturates).
 * For every block, element type (E4M3, E5M2, E3M2, E2M3, E2M1) and policy (FLOOR,
 * RCEIL): the same scale, and every element code the same as ml_dtypes' and PyTorch's.
 * Blocks with a NaN or Inf, or whose scale would pass 2^127: scale 0xFF, as OCP says;
 * the element codes of such a block are the implementation's (MXA writes NaN codes, or 0
 * where the type has none), so they are not compared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "accel.h"
#include "mxa_isa.h"

#define MAX_BLOCKS 256

static const struct { const char *name; enum mxa_isa_dtype type; } types[] = {
	{ "e4m3", MXA_DTYPE_E4M3 }, { "e5m2", MXA_DTYPE_E5M2 }, { "e3m2", MXA_DTYPE_E3M2 },
	{ "e2m3", MXA_DTYPE_E2M3 }, { "e2m1", MXA_DTYPE_E2M1 },
};

/* Element @i of MX elements of @t (a byte each, FP6 in its low bits; E2M1 two a byte). */
static unsigned code_at(enum mxa_isa_dtype t, const uint8_t *e, unsigned i)
{
	if (t == MXA_DTYPE_E2M1)
		return (e[i / 2] >> (4 * (i % 2))) & 0xf;
	if (t == MXA_DTYPE_E3M2 || t == MXA_DTYPE_E2M3)
		return e[i] & 0x3f;
	return e[i];
}

TEST(accel_mx_quantize_matches_ml_dtypes_and_pytorch)
{
	static float blocks[MAX_BLOCKS][32];
	char path[512], line[2048], tname[8], policy[8];
	unsigned nblocks = 0, cases = 0, specials = 0, ml_codes = 0, torch_codes = 0;
	unsigned per[5][2] = { { 0 } };
	FILE *f;

	snprintf(path, sizeof(path), "%s/mx-others/mx_others.txt", MXA_GOLDEN_DIR_DEFAULT);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *tok;
		unsigned id, scale;

		if (!strncmp(line, "block ", 6)) {
			ASSERT_EQ(1, sscanf(line + 6, "%u", &id));
			ASSERT_LT(id, MAX_BLOCKS);
			strtok(p, " ");
			strtok(NULL, " ");
			for (int i = 0; i < 32; i++) {
				uint32_t u = (uint32_t)strtoul(strtok(NULL, " \n"), NULL, 16);

				memcpy(&blocks[id][i], &u, 4);
			}
			nblocks = id + 1 > nblocks ? id + 1 : nblocks;
			continue;
		}
		if (strncmp(line, "q ", 2))
			continue;
		ASSERT_EQ(4, sscanf(line + 2, "%7s %7s %u %x", tname, policy, &id, &scale));
		ASSERT_LT(id, nblocks);
		for (unsigned t = 0; t < 5; t++) {
			enum accel_mx_scale_policy pol = strcmp(policy, "floor") ?
							 ACCEL_MX_SCALE_RCEIL : ACCEL_MX_SCALE_FLOOR;
			uint8_t got_scale, elems[32];

			if (strcmp(tname, types[t].name))
				continue;
			memset(elems, 0, sizeof(elems));
			ASSERT_EQ(0, accel_mx_quantize(blocks[id], 32, types[t].type, pol,
						       &got_scale, elems));
			EXPECT_EQ(scale, got_scale) TH_LOG("%s %s block %u", tname, policy, id);
			cases++;
			per[t][pol]++;
			if (scale == 0xff) {
				specials++;
				break;
			}
			tok = strtok(p, " ");
			for (int k = 0; k < 4; k++)
				tok = strtok(NULL, " ");
			for (unsigned lib = 0; lib < 2; lib++) {
				for (unsigned i = 0; i < 32; i++) {
					unsigned want;

					tok = strtok(NULL, " \n");
					ASSERT_NE(NULL, tok);
					if (!strcmp(tok, "-"))
						continue;
					want = (unsigned)strtoul(tok, NULL, 16);
					EXPECT_EQ(want, code_at(types[t].type, elems, i))
						TH_LOG("%s %s block %u element %u (%a): %s", tname,
						       policy, id, i, blocks[id][i],
						       lib ? "pytorch" : "ml_dtypes");
					if (lib)
						torch_codes++;
					else
						ml_codes++;
				}
			}
			break;
		}
	}
	fclose(f);
	TH_LOG("%u blocks, %u cases (%u with scale 0xff), %u codes vs ml_dtypes, %u vs "
	       "pytorch", nblocks, cases, specials, ml_codes, torch_codes);
	EXPECT_LT(150, nblocks);
	for (unsigned t = 0; t < 5; t++) {
		EXPECT_EQ(nblocks, per[t][0]) TH_LOG("%s floor", types[t].name);
		EXPECT_EQ(nblocks, per[t][1]) TH_LOG("%s rceil", types[t].name);
	}
	EXPECT_LT(40000, ml_codes);
	EXPECT_LT(15000, torch_codes);
}

TEST_HARNESS_MAIN
