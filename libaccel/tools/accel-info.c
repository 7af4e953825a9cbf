// SPDX-License-Identifier: MIT
/*
 * accel-info: what an MXA device is and can do (accel-info(1)).
 */
#include <getopt.h>
#include <inttypes.h>

#include "tool.h"
#include "mxa_isa.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: accel-info [-d DEVICE] [-m uring|ioctl|auto] [-q]\n"
		"Print the device, its driver, hardware queues, engine cores, capabilities,\n"
		"device VA range and limits, and the library's view (submission path, ISA).\n"
		"  -d, --device PATH   device node (default $ACCEL_DEVICE or %s)\n"
		"  -m, --mode MODE     submission path to open with (default auto)\n"
		"  -q, --quiet         only check that the device opens (exit 0 or 1)\n"
		"  -h, --help          this text\n", ACCEL_DEFAULT_DEVICE);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	enum accel_submit_mode mode = ACCEL_SUBMIT_AUTO;
	const char *path = NULL;
	const struct accel_device_info *info;
	struct accel_device *dev;
	int c, quiet = 0, ret;

	tool_name = "accel-info";
	while ((c = getopt_long(argc, argv, "d:m:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': path = optarg; break;
		case 'm': mode = tool_mode(optarg); break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	ret = accel_open(path, mode, &dev);
	if (ret) {
		fprintf(stderr, "accel-info: %s: %s\n", path ? path : "default device",
			accel_strerror(ret));
		return 1;
	}
	if (quiet) {
		accel_close(dev);
		return 0;
	}
	info = accel_device_info(dev);
	printf("device:        %s (%s)\n", path ? path : getenv("ACCEL_DEVICE") ?
	       getenv("ACCEL_DEVICE") : ACCEL_DEFAULT_DEVICE, info->driver_desc);
	printf("driver:        %s, uAPI %u.%u\n", info->driver_name, info->uapi_major,
	       info->uapi_minor);
	printf("hardware:      version %u.%u\n", info->hw_major, info->hw_minor);
	printf("queues:        %u hardware queues (0..%u); %u KiB SRAM per core\n", info->num_queues,
	       info->num_queues ? info->num_queues - 1 : 0, MXA_SRAM_SIZE >> 10);
	printf("cores:         %u (a grid's instances run on them; clusters of up to %u)\n",
	       info->num_cores, info->num_cores < MXA_CLUSTER_MAX ? info->num_cores : MXA_CLUSTER_MAX);
	printf("engine:        %u host threads\n", info->num_engine_threads);
	printf("capabilities:  0x%" PRIx64 ":", info->caps);
	for (unsigned int bit = 0; bit < 64; bit++) {
		if (!(info->caps & (1ull << bit)))
			continue;
		if (accel_cap_name(bit))
			printf(" %s", accel_cap_name(bit));
		else
			printf(" bit%u", bit);
	}
	printf("\n");
	printf("device VM:     0x%" PRIx64 " - 0x%" PRIx64 "\n", info->va_start, info->va_end);
	printf("largest BO:    %" PRIu64 " MiB\n", info->max_bo_size >> 20);
	printf("submission:    %s\n", accel_submit_mode_name(accel_submit_mode(dev)));
	printf("program limit: %u MiB, %u registers, loops %u deep, %u commands per job\n",
	       MXA_PROG_MAX_SIZE >> 20, MXA_NUM_REGS, MXA_LOOP_MAX_DEPTH, MXA_JOB_CMD_BUDGET);
	accel_close(dev);
	return 0;
}
