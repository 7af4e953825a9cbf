// SPDX-License-Identifier: MIT
/*
 * accel-llm: one decode step after another of a small transformer with MXFP4 weights.
 * Every matrix product runs on the device (accel_gemm(): the GEMM command): the weights'
 * (BF16 activations x MXFP4 weights with E8M0 scales, the engine's GEMV path) and
 * attention's two (the query against the f32 KV cache, kept on the device, and the
 * softmax weights against its values); the rest (RMS norm, softmax, SiLU, residuals)
 * runs on the CPU. The logits of the last step are checked against the same model
 * computed on the CPU (the weights dequantised, the activations rounded to BF16 as the
 * device gets them), each product in the GEMMs' numerics: in float64 rounded once to
 * f32 (EXACT), or in FAST's f32 chains in FAST's order. --weights nvfp4 gives the model
 * NVFP4 weights (E2M1, UE4M3 scales per 16) and quantises each weight GEMM's BF16
 * activations to NVFP4 on the CPU (accel_nvfp4_quantize(), the same for device and
 * reference), whose tensor scale then multiplies the GEMM's f32 outputs.
 *
 *   accel-llm [--layers L] [--dim D] [--vocab V] [--context T] [--steps S]
 *             [--numerics exact|fast] [--weights mxfp4|nvfp4] [--csv] [--profile]
 *             [--gemms-only]
 *
 * Defaults: 8 layers, d = 2048 (QKV d x 3d, O d x d, MLP d x 4d and 4d x d), vocab 4096,
 * 16 cached tokens, 3 steps, the GEMMs' default numerics (EXACT: each output the exact
 * sum rounded once); --numerics fast asks for FAST (f32 chains, Documentation/numerics.rst),
 * whose logits differ from the reference by f32 roundings, within the same check. Prints
 * tokens/s (wall time of a step), the device time of its weight GEMMs and the weight
 * bytes per second of that time, and the device time of attention's GEMMs; --csv prints
 * "llm,MODEL,bytes,ns,step_ns" (MODEL: mxfp4|nvfp4[-fast]-LxD: the weights' bytes, the
 * device time of a step's weight GEMMs, the step's wall time) for make bench
 * (bench/ratios.py sets it against memcpy); --profile adds, for the best step, each kind
 * of matrix (QKV, O, up, down, head; attention's score and value products against the
 * cache) with its shape, its device time and GB/s, and the step's wall time split into
 * its accel_gemm() calls and the CPU's parts; --gemms-only times a step's weight
 * GEMMs alone as well, on the activations each got in the step, whose outputs must
 * equal the step's (gemms_only()).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accel.h"

static int nvfp4;	/* --weights nvfp4 */

/* Elements per weight scale: MX's 32, NVFP4's 16. */
static uint32_t wblock(void)
{
	return nvfp4 ? 16 : 32;
}

/* the kinds of weight matrix, then attention's products against the KV cache (score:
 * q K^T, value: the softmax weights times V), for --profile */
enum mat_kind { MAT_QKV, MAT_O, MAT_UP, MAT_DOWN, MAT_HEAD, MAT_WEIGHT_KINDS,
		MAT_SCORE = MAT_WEIGHT_KINDS, MAT_VALUE, MAT_KINDS };

static const char *const mat_kind_name[MAT_KINDS] = { "qkv", "o", "up", "down", "head",
						      "score", "value" };

struct mat {		/* an MXFP4 (NVFP4) weight matrix on the device, N x K (K contiguous) */
	uint32_t n, k;
	enum mat_kind kind;
	size_t bytes;		/* codes and scales */
	uint64_t va, scales_va;
	const uint8_t *codes, *scales;	/* the CPU's view, for the reference */
};

static uint64_t rs = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)(rs >> 16);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint16_t to_bf16(float f)	/* round to nearest even */
{
	uint32_t u;

	memcpy(&u, &f, 4);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static float from_bf16(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static const double e2m1[16] = { 0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6 };

struct model {
	uint32_t layers, d, vocab, ctx;
	struct mat *qkv, *o, *up, *down, head;
	/* per layer the K rows then the V rows, ctx + 1 of d each: the cached tokens', then
	 * the new token's (written by each step); on the device at kv_va */
	float *kv;
	uint64_t kv_va;
	uint8_t *base;		/* the weights buffer, mapped */
	uint64_t va;
	size_t weight_bytes;
};

/* The GEMMs of a decode step (QKV, O, up, down a layer, the head), and the widest
 * output of one (N floats). */
static uint32_t step_gemms(const struct model *m)
{
	return 4 * m->layers + 1;
}

static uint32_t widest_output(const struct model *m)
{
	return m->vocab > 4 * m->d ? m->vocab : 4 * m->d;
}

/* The offset in floats of layer @l's K rows (@v 0) or V rows (@v 1) in the cache. */
static size_t kv_off(const struct model *m, uint32_t l, int v)
{
	return ((size_t)2 * l + v) * (m->ctx + 1) * m->d;
}

/* Carve an N x K MXFP4 (NVFP4) matrix with random codes and scales 2^-6 .. 2^-3 (UE4M3
 * 2^-6 .. 2^-2) out of the buffer. */
static void mat_make(struct model *m, struct mat *w, enum mat_kind kind, uint32_t n, uint32_t k,
		     size_t *off)
{
	size_t cb = (size_t)n * k / 2, sb = (size_t)n * k / wblock();

	w->n = n, w->k = k, w->kind = kind, w->bytes = cb + sb;
	w->va = m->va + *off;
	w->codes = m->base + *off;
	for (size_t i = 0; i < cb; i++)
		m->base[*off + i] = (uint8_t)rnd();
	*off += cb;
	w->scales_va = m->va + *off;
	w->scales = m->base + *off;
	for (size_t i = 0; i < sb; i++)
		m->base[*off + i] = (uint8_t)(nvfp4 ? 0x08 + rnd() % 0x20 : 121 + rnd() % 4);
	*off += sb;
	m->weight_bytes += w->bytes;
}

static double gemm_wall;	/* seconds in accel_gemm() calls since the step began */

/* One GEMM on the device; returns its device ns (0 and *@err on an error). */
static double dev_gemm(struct accel_device *dev, const struct accel_gemm *g, int *err)
{
	struct accel_job_result r;
	double t0 = now();
	int ret = accel_gemm(dev, 0, g, &r);

	gemm_wall += now() - t0;
	if (ret) {
		char why[256];

		accel_job_explain(&r, why, sizeof(why));
		fprintf(stderr, "accel-llm: %s\n", why);
		*err = ret;
		return 0;
	}
	return (double)(r.end_ns - r.start_ns);
}

/*
 * y (N floats) = W x (K activations: BF16, or NVFP4 codes with their UE4M3 scales at
 * @xs_va) on the device; returns its device ns.
 */
static double dev_gemv(struct accel_device *dev, const struct mat *w, uint64_t x_va,
		       uint64_t xs_va, uint64_t y_va, uint8_t accum, int *err)
{
	struct accel_gemm g = {
		.m = 1, .n = w->n, .k = w->k, .type_a = MXA_DTYPE_BF16, .type_b = MXA_DTYPE_E2M1,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .scale_block = wblock(),
		.a = x_va, .b = w->va, .scale_b = w->scales_va, .d = y_va, .accum = accum,
	};

	if (nvfp4) {
		g.type_a = g.type_b = MXA_DTYPE_NVFP4;
		g.scale_a = xs_va;
	}
	return dev_gemm(dev, &g, err);
}

/*
 * NVFP4: @x (K BF16 activations) quantised to codes @xc and UE4M3 scales @xsc with the
 * vector's own amax; returns the tensor scale.
 */
static float quant_x(const uint16_t *x, uint32_t k, uint8_t *xc, uint8_t *xsc)
{
	float *f = malloc(sizeof(float) * k), ts = 0;

	for (uint32_t i = 0; i < k; i++)
		f[i] = from_bf16(x[i]);
	accel_nvfp4_quantize(f, k, accel_nvfp4_amax(f, k), xsc, xc, &ts);
	free(f);
	return ts;
}

/*
 * FAST's sum of a[i] b[i @bstride] over @k (Documentation/numerics.rst "FAST"): per 32 k
 * an f32 chain q = fma(a, b, q) from +0 in increasing k, the chains of 256 k added in
 * order into p, and the p into the sum in order.
 */
static float fast_dot(const float *a, const float *b, size_t bstride, uint32_t k)
{
	float acc = 0, p = 0;

	for (uint32_t s = 0; 32 * s < k; s++) {
		float q = 0;

		for (uint32_t i = 32 * s; i < 32 * s + 32 && i < k; i++)
			q = fmaf(a[i], b[i * bstride], q);
		p = s % 8 ? p + q : q;
		if (s % 8 == 7 || 32 * (s + 1) >= k)
			acc = s < 8 ? p : acc + p;
	}
	return acc;
}

/* EXACT's reference of the same: float64, rounded once (the device's exact sum). */
static float exact_dot(const float *a, const float *b, size_t bstride, uint32_t k)
{
	double s = 0;

	for (uint32_t i = 0; i < k; i++)
		s += (double)a[i] * b[i * bstride];
	return (float)s;
}

/*
 * The NVFP4 references: x quantised as the device gets it, every element times its
 * block scale (exact in f32), then EXACT's float64 sum rounded once, or FAST's chains;
 * either times the tensor scale in f32, as dev_fn() does.
 */
static void ref_gemv_nvfp4(const struct mat *w, const uint16_t *x, int fast, float *y)
{
	uint8_t *xc = malloc(w->k / 2), *xsc = malloc(w->k / 16);
	float *xf = malloc(sizeof(float) * 2 * w->k), *wf = xf + w->k;
	float ts = quant_x(x, w->k, xc, xsc);

	accel_nvfp4_dequantize(xsc, xc, w->k, 1.0f, xf);
	for (uint32_t j = 0; j < w->n; j++) {
		accel_nvfp4_dequantize(w->scales + (size_t)j * w->k / 16,
				       w->codes + (size_t)j * w->k / 2, w->k, 1.0f, wf);
		y[j] = (fast ? fast_dot(xf, wf, 1, w->k) : exact_dot(xf, wf, 1, w->k)) * ts;
	}
	free(xc);
	free(xsc);
	free(xf);
}

/* The reference of EXACT: y = W x in float64 on the dequantised weights. */
static void ref_gemv(const struct mat *w, const uint16_t *x, double *y)
{
	double *xf = malloc(sizeof(double) * w->k);

	for (uint32_t k = 0; k < w->k; k++)
		xf[k] = from_bf16(x[k]);
	for (uint32_t j = 0; j < w->n; j++) {
		const uint8_t *row = w->codes + (size_t)j * w->k / 2;
		const uint8_t *sc = w->scales + (size_t)j * w->k / 32;
		double s = 0;

		for (uint32_t b = 0; b < w->k / 32; b++) {
			double blk = 0;

			for (uint32_t k = 32 * b; k < 32 * b + 32; k += 2)
				blk += e2m1[row[k / 2] & 15] * xf[k] + e2m1[row[k / 2] >> 4] * xf[k + 1];
			s += blk * ldexp(1.0, sc[b] - 127);
		}
		y[j] = s;
	}
	free(xf);
}

/* The reference of FAST: fast_dot() of x and each row of W, scaled exactly in f32. */
static void ref_gemv_fast(const struct mat *w, const uint16_t *x, float *y)
{
	float *xf = malloc(sizeof(float) * 2 * w->k), *wf = xf + w->k;

	for (uint32_t k = 0; k < w->k; k++)
		xf[k] = from_bf16(x[k]);
	for (uint32_t j = 0; j < w->n; j++) {
		const uint8_t *row = w->codes + (size_t)j * w->k / 2;
		const uint8_t *sc = w->scales + (size_t)j * w->k / 32;

		for (uint32_t b = 0; b < w->k / 32; b++) {	/* a block's scale once */
			float f = ldexpf(1.0f, sc[b] - 127);

			for (uint32_t k = 32 * b; k < 32 * b + 32; k++)
				wf[k] = (float)e2m1[(row[k / 2] >> (4 * (k & 1))) & 15] * f;
		}
		y[j] = fast_dot(xf, wf, 1, w->k);
	}
	free(xf);
}

static void rms_norm(const float *x, uint32_t d, float *out)
{
	double s = 0;

	for (uint32_t i = 0; i < d; i++)
		s += (double)x[i] * x[i];
	s = 1.0 / sqrt(s / d + 1e-6);
	for (uint32_t i = 0; i < d; i++)
		out[i] = (float)(x[i] * s);
}

/* The softmax of @n scores / sqrt(@d), in float64, as the f32 weights of the values. */
static void softmax_weights(const float *score, uint32_t n, uint32_t d, float *w)
{
	double e[65], mx = -INFINITY, sum = 0;

	for (uint32_t t = 0; t < n; t++) {
		e[t] = score[t] / sqrt(d);
		mx = e[t] > mx ? e[t] : mx;
	}
	for (uint32_t t = 0; t < n; t++)
		sum += (e[t] = exp(e[t] - mx));
	for (uint32_t t = 0; t < n; t++)	/* the sum's reciprocal once, not once a weight */
		w[t] = (float)(e[t] / sum);
}

/*
 * One decode step from the hidden state @h (d floats). @gemv computes y = W x for BF16
 * x, @attn layer l's attention head over its cache, whose last rows hold the new k and
 * v: out = softmax(q K^T / sqrt d) V (the device, or the references); the CPU parts
 * are shared.
 */
typedef int (*gemv_fn)(void *ctx, const struct mat *w, const uint16_t *x, float *y);
typedef int (*attn_fn)(void *ctx, const struct model *m, uint32_t l, const float *q,
		       float *out);

/* The references' attention: both products in the numerics of @p (FAST: 1). */
static int ref_attn(void *p, const struct model *m, uint32_t l, const float *q, float *out)
{
	const float *kc = m->kv + kv_off(m, l, 0), *vc = m->kv + kv_off(m, l, 1);
	uint32_t n = m->ctx + 1, d = m->d;
	int fast = *(const uint8_t *)p;
	float score[65], w[65];

	for (uint32_t t = 0; t < n; t++)
		score[t] = fast ? fast_dot(q, kc + (size_t)t * d, 1, d) :
				  exact_dot(q, kc + (size_t)t * d, 1, d);
	softmax_weights(score, n, d, w);
	for (uint32_t i = 0; i < d; i++)
		out[i] = fast ? fast_dot(w, vc + i, d, n) : exact_dot(w, vc + i, d, n);
	return 0;
}

static int decode_step(const struct model *m, float *h, float *logits, gemv_fn gemv,
		       attn_fn attn, void *ctx)
{
	uint32_t d = m->d;
	float *t = malloc(sizeof(float) * (3 * d + 4 * d + d + d));
	float *qkv = t, *up = qkv + 3 * d, *a = up + 4 * d, *o = a + d;
	uint16_t *x = malloc(2 * 4 * d);
	int ret = 0;

	for (uint32_t l = 0; l < m->layers && !ret; l++) {
		rms_norm(h, d, a);
		for (uint32_t i = 0; i < d; i++)
			x[i] = to_bf16(a[i]);
		ret |= gemv(ctx, &m->qkv[l], x, qkv);
		/* the new token's k and v: the cache's last rows */
		memcpy(m->kv + kv_off(m, l, 0) + (size_t)m->ctx * d, qkv + d, sizeof(float) * d);
		memcpy(m->kv + kv_off(m, l, 1) + (size_t)m->ctx * d, qkv + 2 * d, sizeof(float) * d);
		ret |= attn(ctx, m, l, qkv, a);
		for (uint32_t i = 0; i < d; i++)
			x[i] = to_bf16(a[i]);
		ret |= gemv(ctx, &m->o[l], x, o);
		for (uint32_t i = 0; i < d; i++)
			h[i] += o[i];
		rms_norm(h, d, a);
		for (uint32_t i = 0; i < d; i++)
			x[i] = to_bf16(a[i]);
		ret |= gemv(ctx, &m->up[l], x, up);
		for (uint32_t i = 0; i < 4 * d; i++)	/* SiLU */
			x[i] = to_bf16(up[i] / (1.0f + expf(-up[i])));
		ret |= gemv(ctx, &m->down[l], x, o);
		for (uint32_t i = 0; i < d; i++)
			h[i] += o[i];
	}
	rms_norm(h, d, a);
	for (uint32_t i = 0; i < d; i++)
		x[i] = to_bf16(a[i]);
	ret |= gemv(ctx, &m->head, x, logits);
	free(t);
	free(x);
	return ret;
}

struct dev_ctx {
	struct accel_device *dev;
	uint16_t *x;		/* activations buffer, mapped */
	float *y;
	uint64_t x_va, y_va;
	uint8_t accum;		/* struct accel_gemm's */
	double device_ns;		/* this step's weight GEMMs' device time */
	double attn_ns;			/* and attention's */
	double kind_ns[MAT_KINDS];	/* this step's device time by kind of matrix */
	/* --gemms-only: each GEMM of a step, its matrix, activations and outputs (rec_nx
	 * and rec_ny apart), the next GEMM's slot */
	const struct mat **rec_w;
	uint16_t *rec_x;
	float *rec_y;
	uint32_t rec_i, rec_nx, rec_ny;
};

static int dev_fn(void *p, const struct mat *w, const uint16_t *x, float *y)
{
	struct dev_ctx *c = p;
	/* NVFP4: the codes where BF16 would go, their scales right after them */
	uint8_t *xs = (uint8_t *)c->x + w->k / 2;
	float ts = 1.0f;
	int err = 0;

	if (nvfp4)
		ts = quant_x(x, w->k, (uint8_t *)c->x, xs);
	else
		memcpy(c->x, x, 2 * w->k);
	double ns = dev_gemv(c->dev, w, c->x_va, c->x_va + w->k / 2, c->y_va, c->accum, &err);

	c->device_ns += ns;
	c->kind_ns[w->kind] += ns;
	for (uint32_t j = 0; j < w->n; j++)
		y[j] = nvfp4 ? c->y[j] * ts : c->y[j];
	if (c->rec_x) {
		c->rec_w[c->rec_i] = w;
		memcpy(c->rec_x + (size_t)c->rec_i * c->rec_nx, x, 2 * w->k);
		memcpy(c->rec_y + (size_t)c->rec_i * c->rec_ny, y, sizeof(float) * w->n);
		c->rec_i++;
	}
	return err;
}

/*
 * Layer @l's attention head on the device: the scores q K^T (1 x (ctx + 1), K = d: the
 * cache's K rows are B as stored, N x K), their softmax on the CPU, then the weights
 * times V (1 x d, K = ctx + 1: the V rows are B stored K x N, MXA_GEMM_F_B_KN), f32
 * operands, in the numerics of the weight GEMMs.
 */
static int dev_attn(void *p, const struct model *m, uint32_t l, const float *q, float *out)
{
	struct dev_ctx *c = p;
	uint32_t n = m->ctx + 1, d = m->d;
	float *xf = (float *)(void *)c->x, w[65];
	struct accel_gemm g = {
		.m = 1, .n = n, .k = d, .type_a = MXA_DTYPE_F32, .type_b = MXA_DTYPE_F32,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .a = c->x_va,
		.b = m->kv_va + sizeof(float) * kv_off(m, l, 0), .d = c->y_va, .accum = c->accum,
	};
	double ns[2];
	int err = 0;

	memcpy(xf, q, sizeof(float) * d);
	ns[0] = dev_gemm(c->dev, &g, &err);
	softmax_weights(c->y, n, d, w);
	memcpy(xf, w, sizeof(float) * n);
	g.n = d, g.k = n, g.flags = MXA_GEMM_F_B_KN;
	g.b = m->kv_va + sizeof(float) * kv_off(m, l, 1);
	ns[1] = err ? 0 : dev_gemm(c->dev, &g, &err);
	memcpy(out, c->y, sizeof(float) * d);
	c->kind_ns[MAT_SCORE] += ns[0];
	c->kind_ns[MAT_VALUE] += ns[1];
	c->attn_ns += ns[0] + ns[1];
	return err;
}

/*
 * --gemms-only: a step's weight GEMMs alone, back to back, as the last decode step
 * made them (dev_fn() recorded each one's matrix, activations and outputs in @c, so the
 * same integer parts and proofs in EXACT), @steps times: the best step's wall and
 * device time, what each call took beyond its device time (submission, the interrupt,
 * the copies in and out; NVFP4: the activations' quantisation), which a decode step
 * hides among its CPU parts, and in *@differ the outputs that differ from the step's.
 */
static int gemms_only(struct dev_ctx *c, uint32_t steps, double *best, double *best_dev,
		      uint64_t *differ)
{
	const struct mat **rw = c->rec_w;
	const uint16_t *rx = c->rec_x;
	const float *ry = c->rec_y;
	uint32_t calls = c->rec_i, nx = c->rec_nx, ny = c->rec_ny;
	float *y = malloc(sizeof(float) * ny);
	int ret = 0;

	c->rec_x = NULL;	/* replayed, not recorded again */
	*differ = 0;
	for (uint32_t s = 0; s < steps && !ret; s++) {
		double t0 = now(), t;

		c->device_ns = 0;
		for (uint32_t i = 0; i < calls && !ret; i++) {
			const struct mat *w = rw[i];

			ret |= dev_fn(c, w, rx + (size_t)i * nx, y);
			for (uint32_t j = 0; j < w->n; j++)
				*differ += memcmp(&y[j], &ry[(size_t)i * ny + j], sizeof(float)) != 0;
		}
		t = now() - t0;
		if (t < *best)
			*best = t, *best_dev = c->device_ns;
	}
	free(y);
	return ret;
}

static int ref_fn(void *p, const struct mat *w, const uint16_t *x, float *y)
{
	double *t;

	if (nvfp4) {
		ref_gemv_nvfp4(w, x, *(const uint8_t *)p, y);
		return 0;
	}
	if (*(const uint8_t *)p) {	/* struct accel_gemm's accum: FAST */
		ref_gemv_fast(w, x, y);
		return 0;
	}
	t = malloc(sizeof(double) * w->n);
	ref_gemv(w, x, t);
	for (uint32_t j = 0; j < w->n; j++)
		y[j] = (float)t[j];	/* the device rounds each exact sum once to f32 */
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	struct model m = { .layers = 8, .d = 2048, .vocab = 4096, .ctx = 16 };
	uint32_t steps = 3;
	int csv = 0, profile = 0, gemms = 0, ret;
	struct accel_device *dev;
	struct accel_bo *wbo, *iobo, *kvbo;
	struct dev_ctx c = { 0 };
	size_t off = 0, total;
	float *h, *h0, *logits, *want;
	double best = 1e30, best_dev = 0, best_attn = 0, best_wall = 0, best_kind[MAT_KINDS] = { 0 };
	double maxerr = 0, scale = 0, tol;
	double gbest = 1e30, gbest_dev = 0;	/* --gemms-only */
	uint64_t gdiffer = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--layers") && i + 1 < argc)
			m.layers = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dim") && i + 1 < argc)
			m.d = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--vocab") && i + 1 < argc)
			m.vocab = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--context") && i + 1 < argc)
			m.ctx = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--numerics") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "exact") || !strcmp(argv[i + 1], "fast")))
			c.accum = !strcmp(argv[++i], "fast");
		else if (!strcmp(argv[i], "--weights") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "mxfp4") || !strcmp(argv[i + 1], "nvfp4")))
			nvfp4 = !strcmp(argv[++i], "nvfp4");
		else if (!strcmp(argv[i], "--csv"))
			csv = 1;
		else if (!strcmp(argv[i], "--profile"))
			profile = 1;
		else if (!strcmp(argv[i], "--gemms-only"))
			gemms = 1;
		else {
			fprintf(stderr, "usage: %s [--layers L] [--dim D] [--vocab V] [--context T] "
				"[--steps S] [--numerics exact|fast] [--weights mxfp4|nvfp4] [--csv] "
				"[--profile] [--gemms-only]\n",
				argv[0]);
			return 2;
		}
	}
	if (m.d % 64 || !m.layers || m.ctx > 64 || !steps) {
		fprintf(stderr, "accel-llm: --dim must be a multiple of 64, --context at most 64\n");
		return 2;
	}
	ret = accel_open(NULL, ACCEL_SUBMIT_AUTO, &dev);
	if (ret) {
		fprintf(stderr, "accel-llm: %s\n", accel_strerror(ret));
		return 1;
	}
	/* codes (1/2 byte an element) and scales (1/32 or 1/16) */
	total = (size_t)m.layers * 12 * m.d * m.d * 18 / 32 + (size_t)m.vocab * m.d * 18 / 32 + 4096;
	if ((ret = accel_bo_alloc(dev, total, &wbo)) ||
	    (ret = accel_bo_alloc(dev, 2 * 4 * m.d + 4 * widest_output(&m), &iobo)) ||
	    (ret = accel_bo_alloc(dev, sizeof(float) * kv_off(&m, m.layers, 0), &kvbo))) {
		fprintf(stderr, "accel-llm: %zu MiB of weights: %s\n", total >> 20, accel_strerror(ret));
		return 1;
	}
	m.base = accel_bo_map(wbo);
	m.va = accel_bo_va(wbo);
	m.qkv = calloc(4 * m.layers, sizeof(struct mat));
	m.o = m.qkv + m.layers, m.up = m.o + m.layers, m.down = m.up + m.layers;
	for (uint32_t l = 0; l < m.layers; l++) {
		mat_make(&m, &m.qkv[l], MAT_QKV, 3 * m.d, m.d, &off);
		mat_make(&m, &m.o[l], MAT_O, m.d, m.d, &off);
		mat_make(&m, &m.up[l], MAT_UP, 4 * m.d, m.d, &off);
		mat_make(&m, &m.down[l], MAT_DOWN, m.d, 4 * m.d, &off);
	}
	mat_make(&m, &m.head, MAT_HEAD, m.vocab, m.d, &off);
	m.kv = accel_bo_map(kvbo);
	m.kv_va = accel_bo_va(kvbo);
	for (uint32_t l = 0; l < m.layers; l++)		/* the cached tokens' rows */
		for (int v = 0; v < 2; v++)
			for (size_t i = 0; i < (size_t)m.ctx * m.d; i++)
				m.kv[kv_off(&m, l, v) + i] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
	c.dev = dev;
	c.x = accel_bo_map(iobo);
	c.x_va = accel_bo_va(iobo);
	c.y = (float *)((uint8_t *)c.x + 2 * 4 * m.d);
	c.y_va = c.x_va + 2 * 4 * m.d;
	h0 = malloc(sizeof(float) * m.d);
	h = malloc(sizeof(float) * m.d);
	logits = malloc(sizeof(float) * m.vocab);
	want = malloc(sizeof(float) * m.vocab);
	for (uint32_t i = 0; i < m.d; i++)
		h0[i] = (float)((int)(rnd() % 2001) - 1000) / 1000.0f;
	if (gemms) {	/* each GEMM's matrix, activations and outputs, for gemms_only() */
		c.rec_nx = 4 * m.d;
		c.rec_ny = widest_output(&m);
		c.rec_w = malloc(sizeof(*c.rec_w) * step_gemms(&m));
		c.rec_x = malloc(sizeof(uint16_t) * c.rec_nx * step_gemms(&m));
		c.rec_y = malloc(sizeof(float) * c.rec_ny * step_gemms(&m));
	}
	for (uint32_t s = 0; s < steps; s++) {
		double t0 = now(), t;

		memcpy(h, h0, sizeof(float) * m.d);	/* the same token each step */
		c.device_ns = c.attn_ns = 0;
		gemm_wall = 0;
		c.rec_i = 0;
		memset(c.kind_ns, 0, sizeof(c.kind_ns));
		if (decode_step(&m, h, logits, dev_fn, dev_attn, &c)) {
			printf("result: FAIL, a device GEMM failed\n");
			return 1;
		}
		t = now() - t0;
		if (t < best) {
			best = t, best_dev = c.device_ns, best_attn = c.attn_ns, best_wall = gemm_wall;
			memcpy(best_kind, c.kind_ns, sizeof(best_kind));
		}
	}
	if (gemms) {
		uint16_t *rx = c.rec_x;

		if (gemms_only(&c, steps, &gbest, &gbest_dev, &gdiffer)) {
			printf("result: FAIL, a device GEMM failed\n");
			return 1;
		}
		free(c.rec_w);
		free(rx);
		free(c.rec_y);
	}
	memcpy(h, h0, sizeof(float) * m.d);
	decode_step(&m, h, want, ref_fn, ref_attn, &c.accum);
	for (uint32_t i = 0; i < m.vocab; i++) {
		maxerr = fmax(maxerr, fabs((double)logits[i] - want[i]));
		scale = fmax(scale, fabs((double)want[i]));
	}
	printf("model: %u layers, d = %u, vocab %u, %u cached tokens, %.1f MiB of %s weights "
	       "(with scales), %s numerics\n", m.layers, m.d, m.vocab, m.ctx,
	       m.weight_bytes / 1048576.0, nvfp4 ? "NVFP4" : "MXFP4", c.accum ? "FAST" : "EXACT");
	printf("decode step: %.1f ms (%.2f tokens/s), device GEMMs %.1f ms: %.2f GB/s of weights; "
	       "attention's %u GEMMs %.1f ms\n", best * 1e3, 1.0 / best, best_dev / 1e6,
	       m.weight_bytes / best_dev, 2 * m.layers, best_attn / 1e6);
	if (profile) {
		const struct mat *one[MAT_WEIGHT_KINDS] = { m.qkv, m.o, m.up, m.down, &m.head };

		printf("%-5s %12s %5s %9s %9s %8s\n", "kind", "N x K", "calls", "ms a call",
		       "ms a step", "GB/s");
		for (int kd = 0; kd < MAT_KINDS; kd++) {
			uint32_t calls = kd == MAT_HEAD ? 1 : m.layers;
			/* attention's B: the layer's f32 K or V rows */
			uint32_t n = kd == MAT_SCORE ? m.ctx + 1 : kd == MAT_VALUE ? m.d : one[kd]->n;
			uint32_t k = kd == MAT_SCORE ? m.d : kd == MAT_VALUE ? m.ctx + 1 : one[kd]->k;
			size_t bytes = kd >= MAT_WEIGHT_KINDS ? sizeof(float) * n * k : one[kd]->bytes;

			printf("%-5s %5u x %-5u %5u %9.3f %9.2f %8.2f\n", mat_kind_name[kd], n, k,
			       calls, best_kind[kd] / calls / 1e6, best_kind[kd] / 1e6,
			       (double)bytes * calls / best_kind[kd]);
		}
		printf("step: %.1f ms = accel_gemm() calls %.1f ms (%.1f ms of them on the device) "
		       "+ the CPU's parts %.1f ms\n", best * 1e3, best_wall * 1e3,
		       (best_dev + best_attn) / 1e6, (best - best_wall) * 1e3);
	}
	if (gemms) {
		uint32_t calls = step_gemms(&m);

		printf("GEMMs alone: %u calls a step, best of %u: %.1f ms of wall time, %.1f ms of "
		       "device time, %.0f us a call beyond the device\n", calls, steps, gbest * 1e3,
		       gbest_dev / 1e6, (gbest - gbest_dev / 1e9) / calls * 1e6);
		printf("GEMMs alone: on the step's activations, %llu outputs differ from the "
		       "step's\n", (unsigned long long)gdiffer);
	}
	/* EXACT's reference sums in float64, which may round a sum to the other side of an
	 * f32 boundary: an activation then rounds differently to BF16, so that check allows
	 * a little. FAST's reference does what the device does: the bits must agree. */
	tol = c.accum ? 0 : 1e-3 * scale;
	printf("logits: max |device - reference (%s)| = %.3g (of max |logit| %.3g)\n",
	       c.accum ? "FAST's f32 chains" : "float64, rounded once", maxerr, scale);
	printf("result: %s\n", maxerr <= tol && !gdiffer ? "PASS" : "FAIL");
	if (csv)
		printf("llm,%s%s-%ux%u,%zu,%.0f,%.0f\n", nvfp4 ? "nvfp4" : "mxfp4",
		       c.accum ? "-fast" : "", m.layers, m.d, m.weight_bytes, best_dev, best * 1e9);
	accel_bo_free(kvbo);
	accel_bo_free(iobo);
	accel_bo_free(wbo);
	accel_close(dev);
	return maxerr <= tol && !gdiffer ? 0 : 1;
}
