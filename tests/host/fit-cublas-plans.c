// SPDX-License-Identifier: MIT
/*
 * fit-cublas-plans - tool, not a test: which struct mxe_hopper_plan reproduces each shape
 * of the H200 cuBLAS plan grid (tests/golden/h200/cublas-grid/), bit for bit, on the
 * outputs the grid kept. Writes the plan table the engine is built with
 * (qemu-device/engine/mxe_cublas_plans.tsv).
 *
 * Built by engine-all as build/tests/host/fit-cublas-plans. Run:
 *   gzip -dc tests/golden/h200/cublas-grid/grid.tsv.gz |
 *       build/tests/host/fit-cublas-plans --trees tests/golden/h200/cublas-grid/gemv-trees.tsv.gz \
 *       > qemu-device/engine/mxe_cublas_plans.tsv
 *
 * The inputs are grid.py's grid_values(): a hash of each element's index (ported here;
 * --selftest prints a few values to compare with it). Candidates, first match wins:
 * one chain; one chain taking a K residue of 32..256 first; consecutive K slices of
 * ceil(K / S) rounded up to 4..32 elements (S = 2..64), with the residue of 8 or 16 of
 * each slice first. F16 outputs with C try both epilogues; BF16 also K = 8 per
 * instruction (CUTLASS's sm75 s1688 kernels). cuBLAS's GEMV, dot and gemmSN kernels
 * try SIMT plans instead (try_simt(); their trees were read off the H200 by
 * tests/golden/h200/cublas-grid/gemv_probe.py). A shape no candidate fits gets "-".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_engine.h"
#include "mxe_formats.h"

#define MAXK 8192
#define MAXMN 192
#define MAXKEPT 64

static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* grid.py's grid_values(): one element of operand @which (1 a, 2 b, 3 c) */
static double grid_value(const char *ty, int which, uint64_t r, uint64_t c)
{
	int bits = !strcmp(ty, "f64") ? 53 : !strcmp(ty, "f16") ? 11 : !strcmp(ty, "bf16") ? 8 : 24;
	uint64_t h = mix((r * (1ull << 20) + c) * 8 + (uint64_t)which);
	double frac = (double)(h >> (64 - (bits - 1)));
	double mant = 1.0 + frac / (double)(1ull << (bits - 1));
	int e = (int)((h & 0xFFFF) % 7) - 3;

	return ((h >> 16) & 1 ? -1.0 : 1.0) * ldexp(mant, e);
}

static enum mxa_isa_dtype dtype(const char *ty)
{
	return !strcmp(ty, "tf32") ? MXA_DTYPE_TF32 : !strcmp(ty, "f64") ? MXA_DTYPE_F64 :
	       !strcmp(ty, "bf16") ? MXA_DTYPE_BF16 : !strcmp(ty, "f16") ? MXA_DTYPE_F16 :
								   MXA_DTYPE_F32;
}

struct gcase {
	char ty[8], td[8], kern[4096];
	unsigned m, n, k, acc, nkept;
	unsigned idx[MAXKEPT];
	uint64_t bits[MAXKEPT];
	/* the rows and columns the kept outputs need, as a small GEMM */
	unsigned rows[MAXKEPT], cols[MAXKEPT], nr, nc;
	uint8_t *a, *b, *c, *d;
	enum mxa_isa_dtype t, tdt;
};

static unsigned add_unique(unsigned *v, unsigned *n, unsigned x)
{
	for (unsigned i = 0; i < *n; i++)
		if (v[i] == x)
			return i;
	v[*n] = x;
	return (*n)++;
}

static void build(struct gcase *g)
{
	size_t es = mxe_dtype_bits(g->t) / 8, eo = mxe_dtype_bits(g->tdt) / 8;

	g->nr = g->nc = 0;
	for (unsigned i = 0; i < g->nkept; i++) {
		add_unique(g->rows, &g->nr, g->idx[i] / g->n);
		add_unique(g->cols, &g->nc, g->idx[i] % g->n);
	}
	g->a = malloc(g->nr * g->k * es);
	g->b = malloc(g->nc * g->k * es);
	g->c = malloc(g->nr * g->nc * eo);
	g->d = malloc(g->nr * g->nc * eo);
	for (unsigned i = 0; i < g->nr; i++)
		for (unsigned kk = 0; kk < g->k; kk++)
			mxe_row_store_code(g->t, g->a + i * g->k * es, kk,
					   mxe_encode_value(g->t == MXA_DTYPE_TF32 ? MXA_DTYPE_F32 : g->t,
							    grid_value(g->ty, 1, g->rows[i], kk), 0));
	for (unsigned j = 0; j < g->nc; j++)
		for (unsigned kk = 0; kk < g->k; kk++)
			mxe_row_store_code(g->t, g->b + j * g->k * es, kk,
					   mxe_encode_value(g->t == MXA_DTYPE_TF32 ? MXA_DTYPE_F32 : g->t,
							    grid_value(g->ty, 2, g->cols[j], kk), 0));
	for (unsigned i = 0; i < g->nr; i++)
		for (unsigned j = 0; j < g->nc; j++)
			mxe_row_store_code(g->tdt, g->c + i * g->nc * eo, j,
					   mxe_encode_value(g->tdt, grid_value(g->td, 3, g->rows[i],
									       g->cols[j]), 0));
}

/* 1 when @p gives every kept output's bits */
static int fits(struct mxe_engine *eng, struct gcase *g, const struct mxe_hopper_plan *p)
{
	size_t eo = mxe_dtype_bits(g->tdt) / 8;
	struct mxe_gemm_desc d = {
		.m = g->nr, .n = g->nc, .k = g->k,
		.type_a = g->t, .type_b = g->t, .type_c = g->tdt, .type_d = g->tdt,
		.flags = g->acc ? MXA_GEMM_F_ACCUMULATE : 0,
		.a = g->a, .b = g->b, .c = g->acc ? g->c : NULL, .d = g->d,
		.tf32_input = MXE_TF32_IN_RNE, .nthreads = 1,
	};

	if (mxe_hopper_gemm(eng, &d, p))
		return 0;
	for (unsigned i = 0; i < g->nkept; i++) {
		unsigned r = 0, c = 0;

		while (g->rows[r] != g->idx[i] / g->n)
			r++;
		while (g->cols[c] != g->idx[i] % g->n)
			c++;
		if (mxe_row_code(g->tdt, g->d + r * g->nc * eo, c) != g->bits[i])
			return 0;
	}
	return 1;
}

static int search(struct mxe_engine *eng, struct gcase *g, struct mxe_hopper_plan *out)
{
	static const unsigned res[] = { 32, 64, 128, 256 }, grain[] = { 4, 8, 16, 32 };
	unsigned insts[2] = { 0, 8 }, ninst = g->t == MXA_DTYPE_BF16 ? 2 : 1;
	unsigned epis = g->tdt == MXA_DTYPE_F16 && g->acc ? 2 : 1;

	for (unsigned e = 0; e < epis; e++)
		for (unsigned ii = 0; ii < ninst; ii++) {
			struct mxe_hopper_plan p = { .inst_k = insts[ii], .epilogue_f32 = e };

			if (fits(eng, g, &p))
				goto found;
			for (unsigned r = 0; r < 4; r++) {
				p.residue_k = res[r];
				if (g->k % res[r] && g->k > res[r] && fits(eng, g, &p))
					goto found;
			}
			p.residue_k = 0;
			for (unsigned s = 2; s <= 64; s++)
				for (unsigned q = 0; q < 4; q++) {
					unsigned w = ((g->k + s - 1) / s + grain[q] - 1) / grain[q] * grain[q];
					unsigned inst = insts[ii] ? insts[ii] :
						g->t == MXA_DTYPE_TF32 ? 8 : g->t == MXA_DTYPE_F64 ? 4 : 16;

					if (w >= g->k)
						continue;
					p.slice_k = w;
					for (unsigned rk = inst; rk <= 16; rk *= 2) {
						p.residue_k = rk;
						if (fits(eng, g, &p))
							goto found;
					}
				}
			continue;
found:
			*out = p;
			return 1;
		}
	return 0;
}

/*
 * The summation trees gemv_probe.py read off the H200: per probed shape, size(i, j),
 * the number of products below the node that joins products i and j.
 */
struct tree_probe {
	char ty[8], sig[160];
	unsigned k, npairs;
	unsigned *i, *j, *size;
};

static struct tree_probe *probes;
static unsigned nprobes;

/* A kernel's class and its template arguments after the element types: what the GEMV
 * kernels of one structure share across input and output types. */
static void kernel_signature(const char *kern, char *out, size_t n)
{
	static const char *const cls[] = { "gemvx::kernel<", "dot_kernel<", "gemmSN_TN_kernel<" };
	static const unsigned skip[] = { 6, 0, 0 };	/* gemvx: int, int and four types */
	const char *s = NULL;
	unsigned c;

	for (c = 0; c < 3 && !s; c++)
		s = strstr(kern, cls[c]);
	if (!s) {
		snprintf(out, n, "-");
		return;
	}
	c--;
	s = strchr(s, '<') + 1;
	for (unsigned a = 0; a < skip[c] && s; a++)
		if ((s = strchr(s, ',')))
			s++;
	snprintf(out, n, "%.*s%.*s%s", (int)strcspn(cls[c], "<"), cls[c],
		 s ? (int)strcspn(s, "c(") : 0, s ? s : "",	/* up to "cublas..." */
		 strstr(kern, "splitKreduce") ? " +splitKreduce" : "");
}

static void load_probes(const char *path)
{
	char cmd[4200], *line = NULL;
	size_t cap = 0;
	struct tree_probe *cur = NULL;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#') {
			char ty[8], td[8];
			unsigned m, n, k;
			char *kern = line;

			for (int t = 0; t < 6 && kern; t++)
				if ((kern = strchr(kern, '\t')))
					kern++;
			if (!kern || sscanf(line, "#\t%7s\t%7s\t%u\t%u\t%u", ty, td, &m, &n, &k) != 5)
				continue;
			probes = realloc(probes, (nprobes + 1) * sizeof(*probes));
			cur = &probes[nprobes++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->ty, sizeof(cur->ty), "%s", ty);
			kernel_signature(kern, cur->sig, sizeof(cur->sig));
			cur->k = k;
		} else if (cur) {
			char *js = strchr(line, '\t'), *ss;
			unsigned i = atoi(line);

			if (!js || !(ss = strchr(js + 1, '\t')))
				continue;
			for (char *a = js + 1, *b = ss + 1; *a && *a != '\t' && *b && *b != '\n';) {
				cur->i = realloc(cur->i, (cur->npairs + 1) * sizeof(unsigned));
				cur->j = realloc(cur->j, (cur->npairs + 1) * sizeof(unsigned));
				cur->size = realloc(cur->size, (cur->npairs + 1) * sizeof(unsigned));
				cur->i[cur->npairs] = i;
				cur->j[cur->npairs] = strtoul(a, &a, 10);
				cur->size[cur->npairs++] = strtoul(b, &b, 10);
				a += *a == ',';
				b += *b == ',';
			}
		}
	}
	free(line);
	pclose(f);
}

static const struct tree_probe *probe_for(const struct gcase *g)
{
	char sig[160];

	kernel_signature(g->kern, sig, sizeof(sig));
	for (unsigned p = 0; p < nprobes; p++)
		if (!strcmp(probes[p].ty, g->ty) && probes[p].k == g->k && !strcmp(probes[p].sig, sig))
			return &probes[p];
	return NULL;
}

/* 1 when SIMT plan @p has the tree @pr measured: size(i, j) for every probed pair. */
static int tree_fits(const struct tree_probe *pr, const struct mxe_hopper_plan *p)
{
	size_t nt = p->simt_threads, nv = p->simt_vec, nb = p->simt_blocks, nl = p->simt_lanes;
	size_t k = pr->k, round = nb * nt * nv;
	unsigned *cnt = calloc(nb * nt, sizeof(unsigned)), *blk_total = calloc(nb, sizeof(unsigned));
	unsigned *lane_total = calloc(nl, sizeof(unsigned));
	int ok = 1;

	for (size_t e = 0; e < k; e++) {
		cnt[(e / (nt * nv)) % nb * nt + (e / nv) % nt]++;
		blk_total[(e / (nt * nv)) % nb]++;
		lane_total[(e / (nt * nv)) % nb % nl]++;
	}
	for (unsigned q = 0; q < pr->npairs; q++) {
		size_t i = pr->i[q], j = pr->j[q], want = pr->size[q], got = 0;
		size_t bi = (i / (nt * nv)) % nb, bj = (j / (nt * nv)) % nb;
		size_t ti = (i / nv) % nt, tj = (j / nv) % nt;

		if (bi == bj && ti == tj) {
			size_t pi = i / round * nv + i % nv, pj = j / round * nv + j % nv;

			got = (pi > pj ? pi : pj) + 1;
		} else if (bi == bj) {
			if (p->simt_block_seq) {
				for (size_t t = 0; t <= (ti > tj ? ti : tj); t++)
					got += cnt[bi * nt + t];
			} else {
				size_t m = (size_t)1 << __builtin_ctzl(ti ^ tj);

				for (size_t t = ti % m; t < nt; t += m)
					got += cnt[bi * nt + t];
			}
		} else if (bi % nl == bj % nl) {
			for (size_t b = bi % nl; b <= (bi > bj ? bi : bj); b += nl)
				got += blk_total[b];
		} else {
			for (size_t l = 0; l <= (bi % nl > bj % nl ? bi % nl : bj % nl); l++)
				got += lane_total[l];
		}
		if (got != want) {
			ok = 0;
			break;
		}
	}
	free(cnt), free(blk_total), free(lane_total);
	return ok;
}

/* The SIMT candidates: a plan is tried on the bits only when its tree matches the probe. */
static int simt_candidate(struct mxe_engine *eng, struct gcase *g, const struct tree_probe *pr,
			  struct mxe_hopper_plan *p)
{
	if (pr && !tree_fits(pr, p))
		return 0;
	return fits(eng, g, p);
}

/* 1 when one of the SIMT plans below fits; SIMT candidates in the order tried */
static int try_simt(struct mxe_engine *eng, struct gcase *g, struct mxe_hopper_plan *p)
{
	const struct tree_probe *pr = probe_for(g);

	if (!pr && g->nkept < 8)	/* a few outputs alone would take chance for a fit */
		return 0;
	/* dot_kernel<T, 128, ...>: blocks of 128 threads, first as its name says, so that
	 * the plan scales with K as the kernel does (mxe_cublas_plan.c's scale_to_k()) */
	if (strstr(g->kern, "dot_kernel"))
		for (unsigned v = 2; v >= 1; v--)
			for (unsigned l = 0; l < 4; l++) {	/* reduce_1Block: 4 lanes */
				static const unsigned lanes[] = { 4, 1, 2, 8 };

				p->simt_threads = 128, p->simt_vec = v;
				p->simt_blocks = (g->k + 128 * v - 1) / (128 * v);
				p->simt_lanes = lanes[l] <= p->simt_blocks ? lanes[l] : p->simt_blocks;
				p->simt_block_seq = 0;
				if (simt_candidate(eng, g, pr, p))
					return 1;
			}
	static const unsigned vecs[] = { 0 /* ceil(K / T) */, 1, 2, 4, 8 };

	/* one block: T threads, V elements at a time, a butterfly or in order (gemvx) */
	for (unsigned seq = 0; seq < 2; seq++)
		for (unsigned t = 32, n = 0; n < 10; n++, t = t == 512 ? 1 : t * 2) {
			if (t == 32 && n > 0)
				break;
			for (unsigned v = 0; v < 5; v++) {
				p->simt_threads = t;
				p->simt_vec = vecs[v] ? vecs[v] : (g->k + t - 1) / t;
				p->simt_blocks = p->simt_lanes = 1;
				p->simt_block_seq = seq;
				if (simt_candidate(eng, g, pr, p))
					return 1;
			}
		}
	/* blocks of 128 threads, their sums in lanes (dot_kernel + reduce_1Block) */
	for (unsigned v = 1; v <= 2; v++)
		for (unsigned nb = 2; nb <= 64; nb *= 2)
			for (unsigned nl = 1; nl <= 8 && nl <= nb; nl *= 2) {
				p->simt_threads = 128, p->simt_vec = v;
				p->simt_blocks = nb, p->simt_lanes = nl;
				p->simt_block_seq = 0;
				if (simt_candidate(eng, g, pr, p))
					return 1;
			}
	/* K cut into slices of U elements, each a small tree, added in order (split-K GEMV) */
	for (unsigned u = 1; u <= 32; u *= 2)
		for (unsigned seq = 0; seq < 2; seq++) {
			p->simt_threads = u, p->simt_vec = 1;
			p->simt_blocks = (g->k + u - 1) / u, p->simt_lanes = 1;
			p->simt_block_seq = seq;
			if (simt_candidate(eng, g, pr, p))
				return 1;
		}
	return 0;
}

static int search_simt(struct mxe_engine *eng, struct gcase *g, struct mxe_hopper_plan *out)
{
	unsigned epis = g->tdt == MXA_DTYPE_F16 && g->acc ? 2 : 1;

	for (unsigned mul_add = 0; mul_add < 2; mul_add++)
		for (unsigned e = 0; e < epis; e++) {
			struct mxe_hopper_plan p = { .simt = 1, .epilogue_f32 = e,
						     .simt_mul_add = mul_add };

			if (try_simt(eng, g, &p)) {
				*out = p;
				return 1;
			}
		}
	return 0;
}

/* a short name for the table: the GEMM kernel's, without templates and arguments */
static void short_kernel(const char *kern, char *out, size_t n)
{
	static const char *const names[] = { "Kernel2<", "nvjet", "xmma", "gemvx", "dot_kernel",
					     "gemmSN" };
	const char *s = NULL;
	size_t len;

	for (unsigned i = 0; i < 6 && !s; i++)
		if ((s = strstr(kern, names[i])) && i == 0)
			s += 8;
	if (!s)
		s = kern;
	len = strcspn(s, "<>( |");
	snprintf(out, n, "%.*s", (int)(len < n - 1 ? len : n - 1), s);
}

int main(int argc, char **argv)
{
	struct mxe_engine *eng = mxe_engine_create(1);
	static char line[1 << 16];
	struct gcase g;
	unsigned nfit = 0, nall = 0;

	if (argc > 2 && !strcmp(argv[1], "--trees")) {
		load_probes(argv[2]);
		fprintf(stderr, "fit-cublas-plans: %u probed trees from %s\n", nprobes, argv[2]);
	}
	if (argc > 1 && !strcmp(argv[1], "--selftest")) {
		/* grid.py: grid_values("f16", "a", 1, 3), ("tf32", "b", 1, 2), ("f64", "c", 1, 1) */
		printf("%.17g %.17g %.17g %.17g %.17g %.17g\n", grid_value("f16", 1, 0, 0),
		       grid_value("f16", 1, 0, 1), grid_value("f16", 1, 0, 2),
		       grid_value("tf32", 2, 0, 0), grid_value("tf32", 2, 0, 1),
		       grid_value("f64", 3, 0, 0));
		return 0;
	}
	/* from inst_k on, the columns are struct mxe_hopper_plan's fields, by name
	 * (scripts/gen-cublas-plans.sh initialises them so) */
	printf("# type\tout\tm\tn\tk\tC\tinst_k\tslice_k\tresidue_k\tepilogue_f32\tsimt\t"
	       "simt_threads\tsimt_vec\tsimt_blocks\tsimt_lanes\tsimt_block_seq\tsimt_mul_add\tkernel\n");
	while (fgets(line, sizeof(line), stdin)) {
		char *f[9], *save = NULL, *tok, kshort[96];
		struct mxe_hopper_plan p;
		unsigned nf = 0;
		int simt;

		for (tok = strtok_r(line, "\t\n", &save); tok && nf < 9; tok = strtok_r(NULL, "\t\n", &save))
			f[nf++] = tok;
		if (nf != 9)
			continue;
		memset(&g, 0, sizeof(g));
		snprintf(g.ty, sizeof(g.ty), "%s", f[0]);
		snprintf(g.td, sizeof(g.td), "%s", f[1]);
		g.m = atoi(f[2]), g.n = atoi(f[3]), g.k = atoi(f[4]), g.acc = atoi(f[5]);
		snprintf(g.kern, sizeof(g.kern), "%s", f[6]);
		g.t = dtype(g.ty), g.tdt = dtype(g.td);
		for (char *s = f[7]; *s && g.nkept < MAXKEPT; g.nkept++) {
			g.idx[g.nkept] = strtoul(s, &s, 10);
			s += *s == ',';
		}
		for (unsigned i = 0; i < g.nkept; i++) {
			char *s = f[8];

			for (unsigned j = 0; j < i; j++)
				s = strchr(s, ',') + 1;
			g.bits[i] = strtoull(s, NULL, 16);
		}
		if (g.m > MAXMN || g.n > MAXMN || g.k > MAXK)
			continue;
		build(&g);
		short_kernel(g.kern, kshort, sizeof(kshort));
		nall++;
		/* cuBLAS's GEMV, dot and gemmSN kernels are FP32/FP64 SIMT code */
		simt = strstr(g.kern, "gemvx") || strstr(g.kern, "dot_kernel") ||
		       strstr(g.kern, "gemmSN");
		if (simt ? search_simt(eng, &g, &p) : search(eng, &g, &p)) {
			nfit++;
			printf("%s\t%s\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%s\n",
			       g.ty, g.td, g.m, g.n, g.k, g.acc, p.inst_k, p.slice_k, p.residue_k,
			       p.epilogue_f32, p.simt, p.simt_threads, p.simt_vec, p.simt_blocks,
			       p.simt_lanes, p.simt_block_seq, p.simt_mul_add, kshort);
		} else {
			printf("%s\t%s\t%u\t%u\t%u\t%u\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t%s\n",
			       g.ty, g.td, g.m, g.n, g.k, g.acc, kshort);
		}
		fflush(stdout);
		free(g.a), free(g.b), free(g.c), free(g.d);
	}
	fprintf(stderr, "fit-cublas-plans: %u of %u shapes fitted\n", nfit, nall);
	mxe_engine_destroy(eng);
	return 0;
}
