// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "stress": short runs of the driver fuzzer (/bin/fuzz-driver) and of
 * the concurrency stress with fault injection, the kernel's fault injection in the driver
 * (debug guest kernel) and rmmod/insmod cycles (/bin/mxa-stress);
 * each checks results and the driver's debugfs counters itself and exits non-zero on a
 * wrong result or a leak. The long runs are make fuzz-driver and make stress
 * (Documentation/hardening.rst).
 */
#include "mxa_test.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mxa_counters.h"

/* Run @argv, its output as TAP comments; its exit status or -1. */
static int run(char *const argv[])
{
	char line[512];
	int pipefd[2], status;
	FILE *out;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	while (out && fgets(line, sizeof(line), out))
		printf("# %s", line);
	if (out)
		fclose(out);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

FIXTURE(stress) {
	char dir[512];
	struct mxa_counters base;
};

FIXTURE_SETUP(stress)
{
	ASSERT_EQ(0, mxa_debugfs_dir(MXA_TEST_DEVICE, self->dir, sizeof(self->dir)));
	ASSERT_EQ(0, mxa_read_counters(self->dir, &self->base));
}

FIXTURE_TEARDOWN(stress)
{
}

TEST_F_TIMEOUT(stress, fuzz_driver_short, 120)
{
	char *argv[] = { "/bin/fuzz-driver", "--seconds", "12", "--workers", "3", NULL };
	struct mxa_counters now;

	EXPECT_EQ(0, run(argv));
	EXPECT_TRUE(mxa_counters_settle(self->dir, &self->base, &now, 30));
}

TEST_F_TIMEOUT(stress, procs_threads_ioctl_uring_with_faults, 120)
{
	char *argv[] = { "/bin/mxa-stress", "--seconds", "10", "--procs", "2", "--threads", "2",
			 "--faults", NULL };

	EXPECT_EQ(0, run(argv));
}

/*
 * The kernel's own fault injection in mxa.ko's allocations and user copies (the debug
 * guest kernel has it; Debian's has not): every call fails cleanly or works, accepted
 * jobs end exact, nothing leaks.
 */
TEST_F_TIMEOUT(stress, kernel_fault_injection_in_the_driver, 240)
{
	char *argv[] = { "/bin/mxa-stress", "--seconds", "15", "--procs", "2", "--threads", "2",
			 "--kernel-faults", "3", NULL };

	if (access("/sys/kernel/debug/failslab", F_OK))
		SKIP(return, "the kernel has no fault injection (CONFIG_FAULT_INJECTION_DEBUG_FS): the debug-kernel boot runs this");
	EXPECT_EQ(0, run(argv));
}

TEST_F_TIMEOUT(stress, rmmod_insmod_cycles, 120)
{
	char *argv[] = { "/bin/mxa-stress", "--reload", "10", NULL };

	EXPECT_EQ(0, run(argv));
	ASSERT_EQ(0, mxa_debugfs_dir(MXA_TEST_DEVICE, self->dir, sizeof(self->dir)));
}

TEST_HARNESS_MAIN
