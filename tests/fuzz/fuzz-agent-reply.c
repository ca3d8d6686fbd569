// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the controller's end of the protocol: what an
 * agent sends back, read by agent_conn__call() (bench/agent-client/agent-conn.c)
 * exactly as from the agent's stdout. The input is that stream; calls
 * are made on it until it ends (answers to earlier ids, lines without
 * one and replies split anywhere included), and each must end in a
 * result, or an error with a message, never anything in between.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/agent-client/agent-conn.h"
#include "fuzz/fuzz-util.h"

/* More calls than the stream can answer: it ends first. */
#define MAX_CALLS 32
/* Never reached: the stream is all there is, and a call that waits
 * for more is a hang that libFuzzer's -timeout reports. */
#define CALL_MS 600000

static int null_fd = -1;

/* The requests: written and never read, as a real agent's pipe. */
static void open_null(void)
{
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0)
		abort();
}

FUZZ_INITIALIZE(open_null())

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A memfd is read and polled like the pipe, and never blocks. */
	int from = memfd_create("agent-reply", MFD_CLOEXEC);
	struct agent_conn *c;
	int i, ret = 0;

	CHECK(from >= 0);
	CHECK(!size || write(from, data, size) == (ssize_t)size);
	CHECK(lseek(from, 0, SEEK_SET) == 0);
	c = agent_conn__new(dup(null_fd), from, "fuzz");
	for (i = 0; i < MAX_CALLS && ret != -EPIPE; i++) {
		json_t *result = NULL, *args = json_pack("{s:i}", "n", i);
		char *err = NULL;

		ret = agent_conn__call(c, i % 2 ? "file.read" : "hello", args,
				       CALL_MS, &result, &err);
		json_decref(args);
		if (ret) {
			CHECK(ret < 0 && !result && err && *err);
		} else {
			CHECK(result && !err);
		}
		json_decref(result);
		free(err);
	}
	/* bye, at the end of the stream, then both descriptors closed. */
	agent_conn__close(c);
	return 0;
}
