// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "lifecycle": device removal (unbind) with files, mappings and jobs
 * still alive, and rmmod/insmod with jobs in flight. The kernel log must stay free of
 * WARN/BUG/oops (the harness checks). Runs last: it reloads mxa.ko.
 */
#include "mxa_test.h"

#include <dirent.h>
#include <liburing.h>
#include <libgen.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "../stress/mxa_counters.h"

#define MXA_KO		"/lib/modules/mxa.ko"
#define DRIVER_DIR	"/sys/bus/pci/drivers/mxa"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The PCI address of accel0 ("0000:00:01.0"). */
static int accel0_pci_addr(char *buf, size_t len)
{
	char link[256];
	ssize_t n = readlink("/sys/class/accel/accel0/device", link, sizeof(link) - 1);

	if (n < 0)
		return -errno;
	link[n] = 0;
	snprintf(buf, len, "%s", basename(link));
	return 0;
}

static int wait_for_node_ms(int present, int ms)
{
	int i;

	for (i = 0; i < ms / 50; i++) {
		if ((access(MXA_TEST_DEVICE, F_OK) == 0) == present)
			return 0;
		usleep(50 * 1000);
	}
	return -ETIMEDOUT;
}

/* 20 s: probing is quick, but a loaded host can stall a TCG guest for seconds */
static int wait_for_node(int present)
{
	return wait_for_node_ms(present, 20000);
}

/*
 * The DMA API debug dump (debug kernels: CONFIG_DMA_API_DEBUG) lists every DMA mapping
 * and coherent buffer a device holds. dma_snapshot() keeps the device's entries (their
 * type and physical address) in @snap; dma_new_entries() counts those that were not
 * there, logging the first few: what the test itself left behind, whatever earlier
 * tests left. -ENOENT without the dump.
 */
#define DMA_SNAP_MAX	4096

struct dma_snap {
	int n;
	char key[DMA_SNAP_MAX][48];
};

/* "type P=0x..." of a dump line of the device at @addr, or 0 if it is not one */
static int dma_entry_key(const char *line, const char *addr, char *key, size_t len)
{
	const char *at = strstr(line, addr), *phys = strstr(line, " P=");
	char type[24];

	if (!at || !phys || sscanf(at + strlen(addr), " %23s", type) != 1)
		return 0;
	snprintf(key, len, "%s %.*s", type, (int)strcspn(phys + 1, " "), phys + 1);
	return 1;
}

static int dma_snapshot(const char *addr, struct dma_snap *snap)
{
	FILE *f = fopen("/sys/kernel/debug/dma-api/dump", "r");
	char line[512];

	if (!f)
		return -ENOENT;
	snap->n = 0;
	while (fgets(line, sizeof(line), f) && snap->n < DMA_SNAP_MAX)
		snap->n += dma_entry_key(line, addr, snap->key[snap->n], sizeof(snap->key[0]));
	fclose(f);
	return 0;
}

static int dma_new_entries(struct __test_metadata *_metadata, const char *addr,
			   const struct dma_snap *before)
{
	FILE *f = fopen("/sys/kernel/debug/dma-api/dump", "r");
	char line[512], key[48];
	int n = 0, i;

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (!dma_entry_key(line, addr, key, sizeof(key)))
			continue;
		for (i = 0; i < before->n && strcmp(key, before->key[i]); i++)
			;
		if (i < before->n)
			continue;
		if (n++ < 4)	/* which ones: the first few */
			TH_LOG("%s", line);
	}
	fclose(f);
	return n;
}

/* Submit @n jobs of many NOPs through the ioctl, and as many through io_uring. */
static int start_long_jobs(int fd, struct mxa_bo *prog, struct io_uring *ring, int n)
{
	struct drm_mxa_device_info info;
	uint32_t *p = prog->map;
	uint32_t size;
	int i, ret;

	ret = mxa_query_device(fd, &info);
	if (ret)
		return ret;
	for (i = 0; i < 50000; i++)
		p = mxa_put_nop(p);
	size = mxa_bytes(prog->map, p);
	for (i = 0; i < n; i++) {
		ret = mxa_submit(fd, prog->handle, i % info.num_queues, 0, size, NULL);
		if (ret)
			return ret;
	}
	if (!ring)
		return 0;
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		struct drm_mxa_submit s = {
			.prog_handle = prog->handle, .queue = i % info.num_queues,
			.prog_size = size,
		};

		if (!sqe)
			break;
		memset(sqe, 0, 2 * sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = fd;
		sqe->cmd_op = MXA_URING_CMD_SUBMIT;
		memcpy(sqe->cmd, &s, sizeof(s));
	}
	ret = io_uring_submit(ring);
	return ret < 0 ? ret : 0;
}

/*
 * Bind @addr again: a working device at accel0. An unplugged device's minor is freed
 * only when its last reference goes, and a closed file's aborted jobs may still hold
 * one for a moment: a bind before that gets accel1. Then unbind and retry.
 */
static void rebind(struct __test_metadata *_metadata, const char *addr)
{
	int i;

	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, write_file(DRIVER_DIR "/bind", addr));
		if (wait_for_node_ms(1, 1500) == 0)
			break;
		TH_LOG("bind %d: no accel0 yet (old minor still held), rebinding", i);
		ASSERT_EQ(0, write_file(DRIVER_DIR "/unbind", addr));
		usleep(250 * 1000);
	}
	ASSERT_LT(i, 8);
}

static void run_one_job(struct __test_metadata *_metadata)
{
	struct drm_mxa_job_result r;
	struct mxa_bo prog, data;
	uint64_t id;
	uint32_t *p;
	int fd = mxa_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, mxa_bo_new(fd, 4096, &prog));
	ASSERT_EQ(0, mxa_bo_new(fd, 4096, &data));
	p = mxa_put_fence(prog.map, data.va, 0x600d);
	ASSERT_EQ(0, mxa_submit(fd, prog.handle, 0, 0, mxa_bytes(prog.map, p), &id));
	ASSERT_EQ(0, mxa_wait(fd, id, 10 * NSEC_PER_SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0x600d, *(volatile uint64_t *)data.map);
	mxa_bo_free(fd, &data);
	mxa_bo_free(fd, &prog);
	close(fd);
}

TEST(unbind_with_open_file_and_jobs)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };
	struct drm_mxa_bo_create c = { .size = 4096 };
	struct drm_mxa_vm_bind bind = { .op = DRM_MXA_VM_BIND_OP_MAP,
					.flags = DRM_MXA_VM_BIND_READ_ONLY, .size = 4096 };
	struct drm_prime_handle exp = { .flags = DRM_CLOEXEC }, imp = { 0 };
	struct mxa_bo prog, data;
	struct io_uring ring;
	static struct dma_snap before;
	char addr[64];
	int fd, mappings, snap;

	ASSERT_EQ(0, accel0_pci_addr(addr, sizeof(addr)));
	snap = dma_snapshot(addr, &before);
	fd = mxa_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, mxa_bo_new(fd, 1 << 20, &prog));
	ASSERT_EQ(0, mxa_bo_new(fd, 4096, &data));
	exp.handle = data.handle;
	/* a read-only import of its own BO: an object over a dma-buf attachment, bound */
	ASSERT_EQ(0, mxa_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp));
	imp.fd = exp.fd;
	ASSERT_EQ(0, mxa_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp));
	close(exp.fd);
	bind.handle = imp.handle;
	bind.va = data.va + (1ull << 30);
	ASSERT_EQ(0, mxa_ioctl(fd, DRM_IOCTL_MXA_VM_BIND, &bind));
	ASSERT_EQ(0, io_uring_queue_init_params(64, &ring, &p));
	ASSERT_EQ(0, start_long_jobs(fd, &prog, &ring, 40));

	/* Remove the device under the open file, its mappings and its jobs. */
	ASSERT_EQ(0, write_file(DRIVER_DIR "/unbind", addr));
	ASSERT_EQ(0, wait_for_node(0));
	/*
	 * The file keeps its BOs, but not their DMA mappings nor its page tables: the
	 * device let go of every DMA address before its driver went (checked where the
	 * kernel keeps the list: debug kernels).
	 */
	mappings = snap ? snap : dma_new_entries(_metadata, addr, &before);
	if (mappings != -ENOENT)
		EXPECT_EQ(0, mappings) TH_LOG("%d DMA mappings of %s made by this test left "
					      "after its removal (/sys/kernel/debug/dma-api/dump)",
					      mappings, addr);

	/* The file is dead but safe. */
	EXPECT_EQ(-ENODEV, mxa_ioctl(fd, DRM_IOCTL_MXA_BO_CREATE, &c));
	((volatile uint32_t *)data.map)[0] = 1;	/* mapping still valid memory */
	/* Every uring command completes (aborted or refused), none hangs. */
	{
		struct __kernel_timespec ts = { .tv_sec = 10 };
		struct io_uring_cqe *cqe;
		int got = 0;

		while (got < 40 && !io_uring_wait_cqe_timeout(&ring, &cqe, &ts)) {
			io_uring_cqe_seen(&ring, cqe);
			got++;
		}
		EXPECT_EQ(40, got);
	}
	io_uring_queue_exit(&ring);
	munmap(prog.map, prog.size);
	munmap(data.map, data.size);
	close(fd);

	rebind(_metadata, addr);
	run_one_job(_metadata);
}

/*
 * A queue reset that does not complete (debugfs inject_reset_timeout) loses the device:
 * bus mastering goes off before anything the device may still use is freed (found in
 * review: the timeout was ignored and the device kept walking freed page tables), its
 * jobs end with -ENODEV, new submissions get -ENODEV, and a rebind brings it back.
 */
TEST(reset_that_does_not_complete_loses_the_device)
{
	struct drm_mxa_job_result r;
	struct mxa_bo prog, data;
	char addr[64], dir[512], path[600];
	volatile uint64_t *d;
	unsigned char cfg[8];
	uint64_t id, id2;
	uint32_t *p;
	int fd, cfd;

	ASSERT_EQ(0, accel0_pci_addr(addr, sizeof(addr)));
	ASSERT_EQ(0, mxa_debugfs_dir(MXA_TEST_DEVICE, dir, sizeof(dir)));
	fd = mxa_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, mxa_bo_new(fd, 4096, &prog));
	ASSERT_EQ(0, mxa_bo_new(fd, 4096, &data));
	d = data.map;
	/* a gate job: says it runs, then waits for data[0] */
	p = mxa_put_fence(prog.map, data.va + 8, 1);
	p = mxa_put_sem_wait(p, data.va, 1, MXA_SEM_MAX_TIMEOUT_US);
	ASSERT_EQ(0, mxa_submit(fd, prog.handle, 0, 0, mxa_bytes(prog.map, p), &id));
	ASSERT_TRUE(mxa_wait_until(d[1] == 1, 10000));
	snprintf(path, sizeof(path), "%s/inject_reset_timeout", dir);
	ASSERT_EQ(0, mxa_write_text(path, "1"));
	snprintf(path, sizeof(path), "%s/reset_queue", dir);
	ASSERT_EQ(0, mxa_write_text(path, "0"));
	ASSERT_EQ(0, mxa_wait(fd, id, 20 * NSEC_PER_SEC, &r));
	/* aborted by the reset the driver gave up on, or failed with the device */
	EXPECT_TRUE(r.status == -ECANCELED || r.status == -ENODEV) TH_LOG("status %d", r.status);
	EXPECT_EQ(1, mxa_counter("lost"));
	/* bus mastering is off (PCI_COMMAND bit 2) */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", addr);
	cfd = open(path, O_RDONLY);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(8, pread(cfd, cfg, 8, 0));
	close(cfd);
	EXPECT_EQ(0, cfg[4] & 0x4) TH_LOG("PCI_COMMAND 0x%02x%02x", cfg[5], cfg[4]);
	/* nothing runs any more */
	EXPECT_EQ(-ENODEV, mxa_submit(fd, prog.handle, 1, 0, mxa_bytes(prog.map, p), &id2));
	mxa_bo_free(fd, &data);
	mxa_bo_free(fd, &prog);
	close(fd);
	ASSERT_EQ(0, write_file(DRIVER_DIR "/unbind", addr));
	ASSERT_EQ(0, wait_for_node(0));
	rebind(_metadata, addr);
	EXPECT_EQ(0, mxa_counter("lost"));
	run_one_job(_metadata);
}

TEST(rmmod_with_jobs_in_flight)
{
	struct mxa_bo prog;
	int fd, ko, ret, i;

	fd = mxa_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, mxa_bo_new(fd, 1 << 20, &prog));
	ASSERT_EQ(0, start_long_jobs(fd, &prog, NULL, 100));
	munmap(prog.map, prog.size);
	close(fd);	/* jobs still queued and running */

	/* Unload: the jobs are aborted; nothing may leak or warn. */
	for (i = 0; i < 50; i++) {
		ret = syscall(SYS_delete_module, "mxa", O_NONBLOCK);
		if (ret == 0 || errno != EWOULDBLOCK)
			break;
		usleep(100 * 1000);
	}
	ASSERT_EQ(0, ret) TH_LOG("delete_module: %s", strerror(errno));
	ASSERT_EQ(0, wait_for_node(0));

	ko = open(MXA_KO, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(ko, 0);
	ASSERT_EQ(0, syscall(SYS_finit_module, ko, "", 0)) TH_LOG("finit_module: %s",
								 strerror(errno));
	close(ko);
	ASSERT_EQ(0, wait_for_node(1));
	run_one_job(_metadata);
}

TEST_HARNESS_MAIN
