/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's server side (bench/agent/agent-proto.h is the wire contract):
 * a verb table, the state that lives between two requests of one
 * `agent serve` process (running collectors, a background iperf3
 * server), and the pure helpers the verbs are built from, exported for
 * unit tests.
 */
#ifndef IOMMU_BENCH_AGENT_H
#define IOMMU_BENCH_AGENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct collector;
struct iperf3_server;

/* The software events that have sites in hot paths (agent-keys.c). */
#define AGENT_MAX_KEY_FDS 5

struct agent {
	/* collect.start .. collect.stop */
	struct collector **collectors;
	size_t nr_collectors;
	json_t *collect_args; /* keeps the configs the collectors point into */
	/* iperf3.server .. iperf3.wait */
	struct iperf3_server *iperf3;
	json_t *iperf3_args;
	int *iperf3_cpus; /* the server's opts point here */
	/* Run once the answer is out (reboot.now): NULL-terminated argv. */
	char **after_reply;
	/* after_reply is the power button: reboot(2), no command */
	bool power_off;
	bool quit; /* bye */
	/* agent-keys.c: the perf events that hold the static keys on */
	int key_fds[AGENT_MAX_KEY_FDS];
	size_t nr_key_fds;
};

struct agent_verb {
	const char *name;
	/*
	 * 0 and *result (a new reference, may stay NULL for {}), or a
	 * negative errno and *err (malloc'ed, may stay NULL: strerror).
	 */
	int (*fn)(struct agent *a, json_t *args, json_t **result, char **err);
};

const struct agent_verb *agent_verb__find(const char *name);
/* The verb names, NULL-terminated, for "did you mean" and --help. */
extern const struct agent_verb agent_verbs[];

/* Run one verb; the answer object ({"id", "ok", ...}) with @id. */
json_t *agent__dispatch(struct agent *a, json_int_t id, const char *verb,
			json_t *args);
/* One request line in, one response object out (never NULL). */
json_t *agent__handle_line(struct agent *a, const char *line);
/*
 * The decoding half of agent__handle_line(), for the fuzzer: NULL with
 * the request in *@req, its id, its verb (a string of *@req) and its
 * args (a new reference, {} when absent) to dispatch and put; or the
 * error reply to send, *@req NULL.
 */
json_t *agent__parse_request(const char *line, json_t **req, json_int_t *id,
			     const char **verb, json_t **args);
/*
 * The switch @key of a verb's @args: false when absent, else it must be
 * a JSON boolean, or -EINVAL with words that name @verb and @key.
 */
int agent_args__bool(json_t *args, const char *verb, const char *key, bool *out,
		     char **err);
/*
 * The serve loop over @in_fd / @out_fd until EOF or bye. Anything the
 * process or its children print to stdout is moved to stderr first by
 * the caller (see builtin-agent.c). 0, or a negative errno when the
 * output side broke.
 */
int agent__serve(struct agent *a, int in_fd, int out_fd);
/* Stop whatever still runs and free the state. */
void agent__release(struct agent *a);
/*
 * Hold perf's static keys on until agent_keys__release(), taken while the
 * other CPUs spin in user space, so that no collector patches the
 * scheduler's text in a trial (agent-keys.c says why). The number of keys
 * held, or a negative errno: the agent works without them.
 */
int agent_keys__hold(struct agent *a);
void agent_keys__release(struct agent *a);
/* Run a.after_reply, if any (reboot.now, after its answer). */
int agent__run_after_reply(struct agent *a);

/*
 * ---- the verbs, one file per family ----
 * A verb fails with errmsg__set() (src/errmsg.h): -errno and its words.
 */
int agent_verb__hello(struct agent *a, json_t *args, json_t **res, char **err);
int agent_verb__facts(struct agent *a, json_t *args, json_t **res, char **err);
int agent_verb__policy(struct agent *a, json_t *args, json_t **res, char **err);
int agent_verb__bye(struct agent *a, json_t *args, json_t **res, char **err);
int agent_verb__mode_sysfs(struct agent *a, json_t *args, json_t **res,
			   char **err);
int agent_verb__reboot_prepare(struct agent *a, json_t *args, json_t **res,
			       char **err);
int agent_verb__reboot_now(struct agent *a, json_t *args, json_t **res,
			   char **err);
int agent_verb__collect_start(struct agent *a, json_t *args, json_t **res,
			      char **err);
int agent_verb__collect_stop(struct agent *a, json_t *args, json_t **res,
			     char **err);
void agent_collect__release(struct agent *a);
int agent_verb__file_read(struct agent *a, json_t *args, json_t **res,
			  char **err);
int agent_verb__file_remove(struct agent *a, json_t *args, json_t **res,
			    char **err);
int agent_verb__kernel_stage(struct agent *a, json_t *args, json_t **res,
			     char **err);
int agent_verb__kernel_install(struct agent *a, json_t *args, json_t **res,
			       char **err);
int agent_verb__kernel_find(struct agent *a, json_t *args, json_t **res,
			    char **err);
int agent_verb__kernel_pkg_check(struct agent *a, json_t *args, json_t **res,
				 char **err);
int agent_verb__kernel_pkg_install(struct agent *a, json_t *args, json_t **res,
				   char **err);
int agent_verb__kernel_pkg_remove(struct agent *a, json_t *args, json_t **res,
				  char **err);
int agent_verb__iperf3_server(struct agent *a, json_t *args, json_t **res,
			      char **err);
int agent_verb__iperf3_wait(struct agent *a, json_t *args, json_t **res,
			    char **err);
int agent_verb__iperf3_client(struct agent *a, json_t *args, json_t **res,
			      char **err);
void agent_iperf3__release(struct agent *a);
int agent_verb__fio_run(struct agent *a, json_t *args, json_t **res,
			char **err);
int agent_verb__dma_map_check(struct agent *a, json_t *args, json_t **res,
			      char **err);
int agent_verb__dma_map_run(struct agent *a, json_t *args, json_t **res,
			    char **err);
/*
 * The device a killed dma_map.run left lent given back, as the agent
 * starts: 0 and *@done saying what was done (NULL: nothing), or -errno.
 */
int agent_dma_map__restore(char **done, char **err);

/* ---- helpers, for tests ---- */

/*
 * The kernel command line for a reboot: @current minus the IOMMU keys
 * this tool manages (iommu.strict, iommu.passthrough, iommu=pt|nopt,
 * intel_iommu=, amd_iommu=) and minus the BOOT_IMAGE= and initrd= that
 * the boot loader adds, plus @add in order. A new string.
 */
char *agent_reboot__cmdline(const char *current, const char *const *add,
			    size_t nr_add);
/*
 * The sysfs root mode.sysfs works under: $IOMMU_BENCH_SYSFS_ROOT (tests
 * build a scratch tree shaped like / there), else "".
 */
const char *agent_sysfs__root(void);

#endif /* IOMMU_BENCH_AGENT_H */
