// SPDX-License-Identifier: GPL-2.0-only
/*
 * An empty program on a tracepoint: what any BPF program there costs
 * before it does any work. The probe-cost benchmark measures our probes
 * and bpftrace's above this floor, so that the tracepoint's own cost
 * (perf's record, the program call) is not counted as theirs.
 */
#include <errno.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

#include "collectors/bpf/bpf-probes.h"
#include "util.h"

#include "empty.skel.h"

struct bpf_floor {
	struct empty_bpf *obj;
	struct bpf_link *link;
};

int bpf_floor__attach(const char *cat, const char *tp, struct bpf_floor **out)
{
	struct bpf_floor *f = xcalloc(1, sizeof(*f));
	int err;

	f->obj = empty_bpf__open_and_load();
	if (!f->obj) {
		err = -errno;
		goto fail;
	}
	f->link = bpf_program__attach_tracepoint(f->obj->progs.empty, cat, tp);
	if (!f->link) {
		err = -errno;
		goto fail;
	}
	*out = f;
	return 0;
fail:
	bpf_floor__detach(f);
	return err;
}

void bpf_floor__detach(struct bpf_floor *f)
{
	if (!f)
		return;
	bpf_link__destroy(f->link);
	empty_bpf__destroy(f->obj);
	free(f);
}
