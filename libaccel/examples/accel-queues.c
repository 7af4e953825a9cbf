// SPDX-License-Identifier: MIT
/*
 * accel-queues: a producer and a consumer on two hardware queues, ordered by a device
 * semaphore (SEM_SIGNAL / SEM_WAIT), with programs written as text.
 *
 *   accel-queues [ROUNDS]
 *
 * The consumer is submitted first, on queue 1: for each round it waits until the
 * semaphore reaches the round number, then copies the producer's block to the output.
 * The producer, on queue 0, fills block r (an asynchronous COPY, waited for with
 * commit/wait groups) and then adds 1 to the semaphore. Without the semaphore the
 * consumer would copy blocks before they are written; the output says it did not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"

#define BLOCK	4096u

static const char producer_s[] =
	"; queue 0: fill block r of mid from src, then signal\n"
	"    REG_SET r1, 0                       ; r1: byte offset of block r\n"
	"    LOOP ROUNDS\n"
	"        COPY r1+mid, r1+src, BLOCK\n"
	"        cp.async.commit_group;\n"
	"        cp.async.wait_group 0;\n"
	"        SEM_SIGNAL.ADD sem, 1           ; after the copy: block r is there\n"
	"        REG_ADD r1, r1+BLOCK\n"
	"    ENDLOOP\n";

struct syms {
	uint64_t src, mid, out, sem, rounds;
};

static int resolve(void *arg, const char *name, uint64_t *v)
{
	const struct syms *s = arg;

	if (!strcmp(name, "src")) *v = s->src;
	else if (!strcmp(name, "mid")) *v = s->mid;
	else if (!strcmp(name, "out")) *v = s->out;
	else if (!strcmp(name, "sem")) *v = s->sem;
	else if (!strcmp(name, "ROUNDS")) *v = s->rounds;
	else if (!strcmp(name, "BLOCK")) *v = BLOCK;
	else return -1;
	return 0;
}

static void die(const char *what, int ret, const char *err)
{
	fprintf(stderr, "accel-queues: %s: %s\n", what, err ? err : accel_strerror(ret));
	exit(1);
}

int main(int argc, char **argv)
{
	uint32_t rounds = argc > 1 ? (uint32_t)atoi(argv[1]) : 16;
	struct accel_device *dev;
	struct accel_bo *data, *code;
	struct accel_prog *prod, *cons;
	struct accel_job *jc, *jp;
	struct syms s;
	char err[256];
	uint8_t *map;
	int ret, bad = 0;

	if (!rounds || rounds > 64) {
		fprintf(stderr, "usage: accel-queues [ROUNDS (1..64)]\n");
		return 2;
	}
	if ((ret = accel_open(NULL, ACCEL_SUBMIT_AUTO, &dev)))
		die("open", ret, NULL);
	if (accel_device_info(dev)->num_queues < 2) {
		printf("accel-queues: needs two hardware queues; SKIP\n");
		return 0;
	}
	if ((ret = accel_bo_alloc(dev, 3 * 64 * BLOCK + 4096, &data)) ||
	    (ret = accel_bo_alloc(dev, 8192, &code)))
		die("alloc", ret, NULL);
	map = accel_bo_map(data);
	s.src = accel_bo_va(data);
	s.mid = s.src + 64 * BLOCK;
	s.out = s.mid + 64 * BLOCK;
	s.sem = s.out + 64 * BLOCK;
	s.rounds = rounds;
	for (uint32_t i = 0; i < rounds * BLOCK; i++)
		map[i] = (uint8_t)(i * 7 + i / BLOCK);

	struct accel_asm_opts o = { .resolve = resolve, .arg = &s };

	accel_prog_new(&prod);
	accel_prog_new(&cons);
	o.filename = "producer";
	if ((ret = accel_asm_ex(producer_s, &o, prod, err, sizeof(err))))
		die("assemble", ret, err);
	o.filename = "consumer";
	/*
	 * SEM_WAIT compares with an immediate, so the consumer is unrolled here: one copy
	 * of the loop body per round, each waiting for its own value.
	 */
	for (uint32_t r = 1; r <= rounds; r++) {
		char body[512];

		snprintf(body, sizeof(body),
			 "    SEM_WAIT sem, %u, 5000000\n"
			 "    COPY out+%u, mid+%u, BLOCK\n"
			 "    cp.async.commit_group;\n"
			 "    cp.async.wait_group 0;\n", r, (r - 1) * BLOCK, (r - 1) * BLOCK);
		if ((ret = accel_asm_ex(body, &o, cons, err, sizeof(err))))
			die("assemble", ret, err);
	}
	accel_prog_upload(cons, code, 0);
	accel_prog_upload(prod, code, 4096);

	if ((ret = accel_submit(dev, 1, code, 0, accel_prog_size(cons), &jc)))
		die("submit consumer", ret, NULL);
	if ((ret = accel_flush(dev)))
		die("flush", ret, NULL);
	if ((ret = accel_submit(dev, 0, code, 4096, accel_prog_size(prod), &jp)))
		die("submit producer", ret, NULL);
	if ((ret = accel_wait_all(dev, 60ll * 1000000000)))
		die("wait", ret, NULL);
	for (int i = 0; i < 2; i++) {
		const struct accel_job_result *r = accel_job_result(i ? jp : jc);
		const struct accel_prog *p = i ? prod : cons;
		char why[2048];

		accel_job_explain_prog(r, accel_prog_dwords(p), accel_prog_size(p) / 4, why,
				       sizeof(why));
		printf("%s (queue %d): %s\n", i ? "producer" : "consumer", i ? 0 : 1, why);
		bad |= r->status != 0;
	}
	if (!bad)
		bad = memcmp(map, map + 128 * BLOCK, rounds * BLOCK) != 0;
	printf("%u blocks of %u bytes through the semaphore, semaphore = %" PRIu64 ": %s\n",
	       rounds, BLOCK, *(uint64_t *)(map + 192 * BLOCK), bad ? "FAIL" : "PASS");
	accel_job_free(jc);
	accel_job_free(jp);
	accel_prog_free(prod);
	accel_prog_free(cons);
	accel_bo_free(code);
	accel_bo_free(data);
	accel_close(dev);
	return bad;
}
