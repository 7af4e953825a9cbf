// SPDX-License-Identifier: MIT
/*
 * test-engine-wgmma-desc - the engine reads wgmma operands through shared-memory matrix
 * descriptors where an H200 does: every case recorded by
 * tests/golden/h200/wgmma-desc/wgmma_desc.cu (random descriptors of every swizzle,
 * K-major and MN-major, random LBO, SBO, start and base offset, on 64 KiB of small
 * integers) gives the H200's D through mxe_smem_desc_gather() and mxe_wgmma().
 *
 * The layout was chosen on wgmma_desc_fit.bin (seed 1); wgmma_desc_holdout.bin
 * (seed 2) was never looked at while choosing it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_engine.h"
#include "host_check.h"

#define SMEM 65536
#define N 32

struct probe_case {
	uint32_t type, trans_a, trans_b, n;
	uint64_t desc_a, desc_b;
};

/* D of @k on @smem the engine's way; -1 when a descriptor is refused. */
static int run_case(struct mxe_engine *eng, const uint8_t *smem, const struct probe_case *k,
		    float *d)
{
	uint8_t a[64 * 32], b[N * 32];
	struct mxe_gemm_desc g = { 0 };

	if (mxe_smem_desc_span(k->desc_a, k->trans_a, 64, SMEM, NULL, NULL) ||
	    mxe_smem_desc_span(k->desc_b, k->trans_b, N, SMEM, NULL, NULL))
		return -1;
	mxe_smem_desc_gather(smem, k->desc_a, k->trans_a, 64, a);
	mxe_smem_desc_gather(smem, k->desc_b, k->trans_b, N, b);
	g.m = 64;
	g.n = N;
	g.type_a = g.type_b = k->type ? MXA_DTYPE_E4M3 : MXA_DTYPE_BF16;
	g.k = k->type ? 32 : 16;
	g.type_c = g.type_d = MXA_DTYPE_F32;
	g.a = a;
	g.b = b;
	g.d = d;
	return mxe_wgmma(eng, &g);
}

static void check_file(struct mxe_engine *eng, const char *dir, const char *name)
{
	static uint8_t smem[SMEM];
	char path[4096], magic[4];
	uint32_t hdr[3], ok = 0, based = 0, base_matters = 0;
	unsigned layouts[2][4] = { { 0 } };
	FILE *f;

	snprintf(path, sizeof(path), "%s/wgmma-desc/%s", dir, name);
	f = fopen(path, "rb");
	if (!host_check(f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "MXWD", 4) &&
			fread(hdr, 4, 3, f) == 3 && hdr[0] == 1 && hdr[1] == SMEM &&
			fread(smem, 1, SMEM, f) == SMEM, "%s: an MXWD file of 64 KiB", name)) {
		if (f)
			fclose(f);
		return;
	}
	for (uint32_t c = 0; c < hdr[2]; c++) {
		struct probe_case k, k0;
		int16_t want[64 * N];
		float d[64 * N], d0[64 * N];
		int same = 1;

		if (fread(&k, sizeof(k), 1, f) != 1 || fread(want, 2, 64 * N, f) != 64 * N ||
		    k.n != N)
			break;
		if (run_case(eng, smem, &k, d))
			continue;
		for (int i = 0; i < 64 * N && same; i++)
			same = d[i] == want[i];
		if (!same) {
			host_diag("%s case %u: type %u trans %u/%u desc %016llx %016llx differs",
				  name, c, k.type, k.trans_a, k.trans_b,
				  (unsigned long long)k.desc_a, (unsigned long long)k.desc_b);
			continue;
		}
		ok++;
		layouts[k.trans_a][MXA_SMEM_DESC_SWIZZLE(k.desc_a)]++;
		layouts[k.trans_b][MXA_SMEM_DESC_SWIZZLE(k.desc_b)]++;
		/* the data can tell the base offset's reading: drop it, D changes */
		k0 = k;
		k0.desc_a &= ~(7ull << 49);
		k0.desc_b &= ~(7ull << 49);
		if (k0.desc_a != k.desc_a || k0.desc_b != k.desc_b) {
			based++;
			if (!run_case(eng, smem, &k0, d0) && memcmp(d, d0, sizeof(d)))
				base_matters++;
		}
	}
	fclose(f);
	host_check(ok == hdr[2] && hdr[2] >= 256, "%s: %u of %u H200 cases bit for bit", name,
		   ok, hdr[2]);
	for (int t = 0; t < 2; t++)
		host_diag("  %s operands: swizzle none %u, 128B %u, 64B %u, 32B %u",
			  t ? "MN-major" : "K-major", layouts[t][0], layouts[t][1],
			  layouts[t][2], layouts[t][3]);
	host_check(base_matters > 0, "%s: the base offset changes D in %u of the %u cases "
		   "that set one", name, base_matters, based);
}

int main(void)
{
	const char *dir = getenv("MXA_GOLDEN_DIR");
	struct mxe_engine *eng = mxe_engine_create(1);

	if (!dir || !*dir)
		dir = MXA_GOLDEN_DIR_DEFAULT;
	ksft_print_header();
	check_file(eng, dir, "wgmma_desc_fit.bin");
	check_file(eng, dir, "wgmma_desc_holdout.bin");
	host_check(mxe_smem_desc_span(MXA_SMEM_DESC(SMEM - 16, 16, 16, 0, 0), 0, 64, SMEM,
				      NULL, NULL) == MXE_ENGINE_EINVAL_LAYOUT,
		   "a descriptor past the end of SRAM is refused");
	host_check(mxe_smem_desc_span(MXA_SMEM_DESC(0, 16, 128, 0, 0) | 1ull << 14, 0, 64,
				      SMEM, NULL, NULL) == MXE_ENGINE_EINVAL_LAYOUT,
		   "a descriptor with reserved bits is refused");
	mxe_engine_destroy(eng);
	return host_check_end();
}
