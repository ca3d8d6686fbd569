// SPDX-License-Identifier: GPL-2.0-only
/*
 * A lab machine running: QEMU on an overlay of the image, booting from
 * its disk through firmware and grub, its NIC and disk behind the
 * vIOMMU (iommu_platform=on, so that the guest's DMA API and with it the
 * IOMMU mode decide every transfer), its monitor on a socket for the
 * power switch. Its state lives in /run/iommu-bench/labvm/NAME/vm.json;
 * its overlay, which grows with what runs install, on the cache's disk.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bench/labvm/labvm-priv.h"
#include "cache.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "qmp.h"
#include "strvec.h"
#include "subprocess.h"
#include "toml.h"
#include "util.h"

#define STATE_ROOT "/run/iommu-bench/labvm"
#define QEMU_START_TIMEOUT_MS 60000
#define QMP_TIMEOUT_MS 10000
#define QUIT_WAIT_MS 15000
#define SSH_PROBE_TIMEOUT_MS 20000
#define PROGRESS_MS 15000

bool labvm__name_ok(const char *name)
{
	/* It names a folder, a QEMU -name and a matrix's [hosts.NAME]. */
	return name_is_safe(name) && strlen(name) <= 32 && name[0] != '.';
}

char *labvm__state_dir(const char *name)
{
	return xasprintf(STATE_ROOT "/%s", name);
}

unsigned long long labvm__starttime(int pid)
{
	unsigned long long st = 0;

	if (pid <= 0 || proc__starttime(pid, &st))
		return 0;
	return st;
}

bool labvm__alive(int pid, unsigned long long starttime)
{
	return pid > 0 && starttime && labvm__starttime(pid) == starttime;
}

int labvm__pidfile(const char *path)
{
	char *text = NULL;
	size_t len;
	long pid = 0;

	if (!read_file(path, &text, &len))
		pid = strtol(text, NULL, 10);
	free(text);
	return pid > 0 && pid < (1L << 22) ? (int)pid : 0;
}

static char *overlay_dir(const char *name, char **err)
{
	char *sub = xasprintf("labvm/vms/%s", name), *dir = NULL;
	int ret = cache__dir(sub, &dir);

	free(sub);
	if (ret)
		errmsg__set(err, ret, "no cache folder: %s", strerror(-ret));
	return dir;
}

static int state_load(const char *name, json_t **out, char **err)
{
	char *dir = labvm__state_dir(name), *path;
	json_error_t jerr;

	path = xasprintf("%s/vm.json", dir);
	*out = json_load_file(path, 0, &jerr);
	free_all(dir, path);
	if (!*out)
		return errmsg__set(err, -ENOENT,
				   "no lab machine '%s' is running here "
				   "(`iommu-bench labvm status` lists them)",
				   name);
	return 0;
}

static int jint(const json_t *j, const char *key)
{
	return (int)json_integer_value(json_object_get(j, key));
}

static unsigned long long jull(const json_t *j, const char *key)
{
	return (unsigned long long)json_integer_value(json_object_get(j, key));
}

static const char *jstr(const json_t *j, const char *key)
{
	return json_string_value(json_object_get(j, key));
}

static bool state_running(const json_t *s)
{
	return labvm__alive(jint(s, "qemu_pid"), jull(s, "qemu_start"));
}

static void net_of(const json_t *s, struct labvm_net *n)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->tap, sizeof(n->tap), "%s", jstr(s, "tap") ?: "");
	n->dnsmasq_pid = jint(s, "dnsmasq_pid");
	n->dnsmasq_start = jull(s, "dnsmasq_start");
}

/* A QEMU option and its value, formatted: one pair of argv words. */
static void __attribute__((format(printf, 3, 4)))
qemu_opt(struct strvec *a, const char *opt, const char *fmt, ...)
{
	va_list ap;

	strvec__push(a, opt);
	va_start(ap, fmt);
	strvec__push_nodup(a, xvasprintf(fmt, ap));
	va_end(ap);
}

/* The QEMU command line of recipe @r's machine for this start. */
static void qemu_argv(const struct labvm_start_opts *o,
		      const struct labvm_net *n, const char *overlay,
		      const char *efi_vars, const char *dir, const char *uuid,
		      struct strvec *a)
{
	const struct labvm_recipe *r = o->img->recipe;
	bool native = arch__find(r->arch) == arch__native();
	bool kvm = native && arch__kvm_works();

	strvec__push(a, r->qemu);
	qemu_opt(a, "-name", "labvm-%s", o->name);
	qemu_opt(a, "-accel", "%s", kvm ? "kvm" : "tcg");
	qemu_opt(a, "-machine", "%s", r->machine);
	qemu_opt(a, "-cpu", "%s", kvm ? "host" : r->tcg_cpu);
	qemu_opt(a, "-m", "%u", o->mem_mib ? o->mem_mib : 1024);
	qemu_opt(a, "-smp", "%u", o->cpus ? o->cpus : 2);
	/*
	 * Its own DMI product UUID: every machine of one image shares the
	 * image's machine-id, as clones of a real installation do, and
	 * the store tells machines apart by both.
	 */
	qemu_opt(a, "-uuid", "%s", uuid);
	if (efi_vars) {
		/* UEFI as flash, its variables the machine's own. */
		qemu_opt(a, "-drive",
			 "if=pflash,format=raw,unit=0,readonly=on,"
			 "file=%s",
			 r->efi_code);
		qemu_opt(a, "-drive", "if=pflash,format=raw,unit=1,file=%s",
			 efi_vars);
	} else if (r->bios) {
		qemu_opt(a, "-bios", "%s", r->bios);
	}
	/* Before the devices it translates. */
	if (r->iommu_device)
		qemu_opt(a, "-device", "%s", r->iommu_device);
	qemu_opt(a, "-drive", "file=%s,format=qcow2,if=none,id=d0,cache=unsafe",
		 overlay);
	qemu_opt(a, "-device",
		 "virtio-blk-pci,drive=d0,iommu_platform=on,"
		 "disable-legacy=on,addr=0x4");
	qemu_opt(a, "-netdev", "tap,id=n0,ifname=%s,script=no,downscript=no",
		 n->tap);
	/* Slot 3: the NIC is enp0s3 in the guest, whatever else is there. */
	qemu_opt(a, "-device",
		 "virtio-net-pci,netdev=n0,mac=%s,iommu_platform=on,"
		 "disable-legacy=on,addr=0x3",
		 n->mac);
	qemu_opt(a, "-display", "none");
	qemu_opt(a, "-vga", "none");
	qemu_opt(a, "-serial", "file:%s/serial.log", dir);
	qemu_opt(a, "-qmp", "unix:%s/qmp.sock,server=on,wait=off", dir);
	qemu_opt(a, "-pidfile", "%s/qemu.pid", dir);
	strvec__push(a, "-daemonize");
}

static int run_quiet(const char *const *argv, int timeout_ms, char **err)
{
	char how[96], last[256];
	struct spawn sp;
	int ret;

	ret = spawn__run(&sp, argv,
			 &(struct spawn_opts){ .flags = SPAWN_NULL_OUT |
							SPAWN_CAPTURE_ERR },
			 timeout_ms);
	if (ret || !spawn__succeeded(&sp))
		ret = errmsg__set(err, ret ? ret : -EIO, "%s failed: %s: %s",
				  argv[0],
				  ret ? strerror(-ret) :
					spawn__describe(&sp, how, sizeof(how)),
				  spawn__last_line(sp.err, last, sizeof(last)));
	spawn__release(&sp);
	return ret;
}

/* The last lines of the VM's console, for an error message. */
static char *console_tail(const char *dir)
{
	char *path = xasprintf("%s/serial.log", dir), *text = NULL, *p;
	size_t len;
	int lines = 4;

	if (read_file(path, &text, &len) || !len) {
		free_all(path, text);
		return xstrdup("(nothing on its console)");
	}
	free(path);
	p = text + len;
	while (p > text && (p[-1] == '\n' || p[-1] == '\r'))
		*--p = '\0';
	while (p > text && !(p[-1] == '\n' && --lines <= 0))
		p--;
	p = xstrdup(p);
	free(text);
	return p;
}

/* ssh as a matrix's stanza will: the key, the image's host keys only. */
static int ssh_probe(const json_t *s, char **err)
{
	char *id = xasprintf("IdentityFile=%s", jstr(s, "key"));
	char *kh = xasprintf("UserKnownHostsFile=%s", jstr(s, "known_hosts"));
	char *dest = xasprintf("root@%s", jstr(s, "address"));
	int ret;

	ret = run_quiet((const char *const[]){ "ssh",
					       "-F",
					       "/dev/null",
					       "-o",
					       "BatchMode=yes",
					       "-o",
					       "ConnectTimeout=5",
					       "-o",
					       id,
					       "-o",
					       "IdentitiesOnly=yes",
					       "-o",
					       kh,
					       "-o",
					       "GlobalKnownHostsFile=/dev/null",
					       "-o",
					       "StrictHostKeyChecking=yes",
					       "--",
					       dest,
					       "true",
					       NULL },
			SSH_PROBE_TIMEOUT_MS, err);
	free_all(id, kh, dest);
	return ret;
}

static int wait_ssh(const char *dir, const json_t *s, int wait_ms, char **err)
{
	long long start = mono_ms(), said = start;
	char *last = NULL, *tail;
	int ret;

	for (;;) {
		free(last);
		last = NULL;
		ret = ssh_probe(s, &last);
		if (!ret)
			break;
		if (!state_running(s)) {
			tail = console_tail(dir);
			ret = errmsg__set(err, -ESRCH,
					  "lab machine '%s': QEMU exited "
					  "before ssh answered; its console "
					  "ends:\n%s",
					  jstr(s, "name"), tail);
			free(tail);
			break;
		}
		if (mono_ms() - start > wait_ms) {
			tail = console_tail(dir);
			ret = errmsg__set(err, -ETIMEDOUT,
					  "lab machine '%s': no ssh at %s "
					  "within %d s (last: %s); its "
					  "console ends:\n%s",
					  jstr(s, "name"), jstr(s, "address"),
					  wait_ms / 1000, last, tail);
			free(tail);
			break;
		}
		if (mono_ms() - said >= PROGRESS_MS) {
			said = mono_ms();
			pr_info("labvm: %s booting, %lld s", jstr(s, "name"),
				(said - start) / 1000);
		}
		sleep(2);
	}
	if (!ret)
		pr_info("labvm: %s answers over ssh at %s after %.1f s",
			jstr(s, "name"), jstr(s, "address"),
			(mono_ms() - start) / 1000.0);
	free(last);
	return ret;
}

static int state_write(const char *dir, json_t *s, char **err)
{
	char *path = xasprintf("%s/vm.json", dir);
	int ret = json_dump_file(s, path, JSON_INDENT(2) | JSON_SORT_KEYS);

	if (ret)
		ret = errmsg__set(err, -EIO, "cannot write %s", path);
	free(path);
	return ret;
}

/* Whatever of a start there is, undone; the state folder removed. */
static void teardown(const char *name, const json_t *s)
{
	char *dir = labvm__state_dir(name), *odir = overlay_dir(name, NULL);
	struct labvm_net n;
	int pid = jint(s, "qemu_pid");
	int waited;

	if (state_running(s)) {
		char *sock = xasprintf("%s/qmp.sock", dir);

		qmp__run(sock, "quit", NULL, QMP_TIMEOUT_MS, NULL, NULL);
		free(sock);
		for (waited = 0; waited < QUIT_WAIT_MS && state_running(s);
		     waited += 100)
			usleep(100000);
		if (state_running(s))
			kill(pid, SIGKILL);
	}
	net_of(s, &n);
	labvm_net__down(&n);
	if (odir)
		cache__remove(odir);
	cache__remove(dir);
	free_all(dir, odir);
}

/*
 * What this machine needs to run recipe @r's machine: its QEMU, and for
 * UEFI a firmware (*@efi: as flash, with variables to copy).
 */
static int machine_check(const struct labvm_recipe *r, bool *efi, char **err)
{
	*efi = false;
	if (!labvm__have(r->qemu))
		return errmsg__set(err, -ENOENT,
				   "%s is not installed: the %s lab machine "
				   "cannot run here (scripts/install-deps.sh)",
				   r->qemu, r->arch);
	if (r->firmware != LABVM_UEFI)
		return 0;
	if (r->efi_code && r->efi_vars && !access(r->efi_code, R_OK) &&
	    !access(r->efi_vars, R_OK)) {
		*efi = true;
		return 0;
	}
	if (r->bios && !access(r->bios, R_OK))
		return 0;
	return errmsg__set(err, -ENOENT,
			   "no UEFI firmware for the %s lab machine: neither "
			   "%s nor %s is here (package qemu-efi-aarch64)",
			   r->arch, r->efi_code ? r->efi_code : "-",
			   r->bios ? r->bios : "-");
}

/* @src copied to @dst (the firmware's variables, 64 MiB). */
static int copy_file(const char *src, const char *dst, char **err)
{
	char *text = NULL;
	struct iovec iov;
	size_t len;
	int ret;

	ret = read_file(src, &text, &len);
	if (ret)
		return errmsg__set(err, ret, "cannot read %s: %s", src,
				   strerror(-ret));
	iov = (struct iovec){ text, len };
	ret = cache__write(dst, &iov, 1, err);
	free(text);
	return ret;
}

/* A start's pieces, as its steps make them. */
struct start {
	const struct labvm_start_opts *o;
	bool efi;      /* UEFI as flash, with a copy of the variables */
	char *dir;     /* the state folder */
	char *odir;    /* the overlay's folder */
	char *overlay; /* odir/overlay.qcow2 */
	char *vars;    /* odir/efivars.fd, or NULL */
	struct labvm_net n;
	json_t *s; /* the state, once there is one to undo */
};

/*
 * The name is free: a machine of that name that runs is -EEXIST, what
 * one that died left is undone. And this machine can run the recipe.
 */
static int start__claim(struct start *st, char **err)
{
	const struct labvm_start_opts *o = st->o;
	json_t *old = NULL;

	if (!labvm__name_ok(o->name))
		return errmsg__set(err, -EINVAL,
				   "'%s' is not a lab machine name (expected "
				   "[A-Za-z0-9._-], at most 32, not starting "
				   "with '.' or '-')",
				   o->name);
	if (!state_load(o->name, &old, NULL)) {
		if (state_running(old)) {
			json_decref(old);
			return errmsg__set(err, -EEXIST,
					   "lab machine '%s' runs already "
					   "(`iommu-bench labvm stop %s` "
					   "first)",
					   o->name, o->name);
		}
		/* Left by a machine that died or a killed start. */
		teardown(o->name, old);
		json_decref(old);
	}
	return machine_check(o->img->recipe, &st->efi, err);
}

/* The state folder (private), the overlay, the firmware's variables. */
static int start__disks(struct start *st, char **err)
{
	const struct labvm_start_opts *o = st->o;
	int ret;

	st->dir = labvm__state_dir(o->name);
	ret = cache__mkdirs(st->dir, err);
	if (!ret && chmod(st->dir, 0700))
		ret = errmsg__set(err, -errno, "cannot chmod %s: %s", st->dir,
				  strerror(errno));
	st->odir = ret ? NULL : overlay_dir(o->name, err);
	if (!ret && !st->odir)
		ret = -ENOENT;
	if (!ret)
		ret = cache__mkdirs(st->odir, err);
	if (ret)
		return ret;
	st->overlay = xasprintf("%s/overlay.qcow2", st->odir);
	unlink(st->overlay);
	/* The image is never written: everything lands in the overlay. */
	ret = run_quiet((const char *const[]){ "qemu-img", "create", "-q", "-f",
					       "qcow2", "-b", o->img->disk,
					       "-F", "raw", st->overlay, NULL },
			QEMU_START_TIMEOUT_MS, err);
	if (!ret && st->efi) {
		st->vars = xasprintf("%s/efivars.fd", st->odir);
		ret = copy_file(o->img->recipe->efi_vars, st->vars, err);
	}
	return ret;
}

/* What the state says of the machine before anything of it runs. */
static json_t *start__state(const struct start *st)
{
	const struct labvm_start_opts *o = st->o;
	const struct labvm_net *n = &st->n;
	json_t *s;

	s = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, "
		      "s:s, s:s, s:s, s:s}",
		      "name", o->name, "recipe", o->img->recipe->name, "arch",
		      o->img->recipe->arch, "image", o->img->dir, "overlay",
		      st->overlay, "key", o->img->key, "known_hosts",
		      o->img->known_hosts, "address", n->vm_ip, "host_address",
		      n->host_ip, "subnet", (int)n->subnet, "tap", n->tap,
		      "mac", n->mac, "nic", o->img->recipe->nic, "release",
		      o->img->release);
	/* What its serial port writes (qemu_argv()): the boot wait reads it. */
	json_object_set_new(s, "console",
			    json_sprintf("%s/serial.log", st->dir));
	return s;
}

/*
 * The link up and QEMU started, each step's PIDs in the state as they
 * come (written first: a start killed from here on is undone by the
 * next); 0 once QEMU runs.
 */
static int start__qemu(struct start *st, char **err)
{
	const struct labvm_start_opts *o = st->o;
	struct strvec a = { 0 };
	char uuid[37], *pidf, *tail;
	int ret, pid;

	ret = state_write(st->dir, st->s, err);
	if (!ret)
		ret = labvm_net__up(&st->n, st->dir, err);
	if (ret)
		return ret;
	json_object_set_new(st->s, "dnsmasq_pid",
			    json_integer(st->n.dnsmasq_pid));
	json_object_set_new(st->s, "dnsmasq_start",
			    json_integer((json_int_t)st->n.dnsmasq_start));
	state_write(st->dir, st->s, NULL);
	labvm__uuid(uuid);
	json_object_set_new(st->s, "uuid", json_string(uuid));
	qemu_argv(o, &st->n, st->overlay, st->vars, st->dir, uuid, &a);
	pr_info("labvm: starting %s (%s) on %s, address %s", o->name,
		o->img->recipe->name, st->n.tap, st->n.vm_ip);
	ret = run_quiet(strvec__argv(&a), QEMU_START_TIMEOUT_MS, err);
	strvec__release(&a);
	if (ret)
		return ret;
	pidf = xasprintf("%s/qemu.pid", st->dir);
	pid = labvm__pidfile(pidf);
	free(pidf);
	json_object_set_new(st->s, "qemu_pid", json_integer(pid));
	json_object_set_new(st->s, "qemu_start",
			    json_integer((json_int_t)labvm__starttime(pid)));
	ret = state_write(st->dir, st->s, err);
	if (!ret && !state_running(st->s)) {
		tail = console_tail(st->dir);
		ret = errmsg__set(err, -ESRCH,
				  "lab machine '%s': QEMU is gone right after "
				  "its start; its console ends:\n%s",
				  o->name, tail);
		free(tail);
	}
	return ret;
}

int labvm__start(const struct labvm_start_opts *o, json_t **state, char **err)
{
	struct start st = { .o = o };
	int ret;

	*state = NULL;
	ret = start__claim(&st, err);
	if (ret)
		return ret;
	ret = start__disks(&st, err);
	if (!ret)
		ret = labvm_net__plan(o->name, o->subnet, &st.n, err);
	if (ret)
		goto out;
	st.s = start__state(&st);
	ret = start__qemu(&st, err);
	if (!ret && o->wait_ms)
		ret = wait_ssh(st.dir, st.s, o->wait_ms, err);
	if (ret)
		goto fail;
	*state = st.s;
	st.s = NULL;
	goto out;
fail:
	teardown(o->name, st.s);
out:
	json_decref(st.s);
	free_all(st.dir, st.odir, st.overlay, st.vars);
	return ret;
}

int labvm__status(const char *name, json_t **state, char **err)
{
	int ret;

	if (!labvm__name_ok(name))
		return errmsg__set(err, -EINVAL,
				   "'%s' is not a lab machine name", name);
	ret = state_load(name, state, err);
	if (!ret)
		json_object_set_new(*state, "running",
				    json_boolean(state_running(*state)));
	return ret;
}

int labvm__list(json_t **out, char **err)
{
	DIR *d = opendir(STATE_ROOT);
	struct dirent *de;
	json_t *s;

	(void)err;
	*out = json_array();
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !labvm__name_ok(de->d_name))
			continue;
		if (!labvm__status(de->d_name, &s, NULL))
			json_array_append_new(*out, s);
	}
	if (d)
		closedir(d);
	return 0;
}

int labvm__reset(const char *name, char **err)
{
	json_t *s = NULL;
	char *dir, *sock;
	int ret;

	ret = labvm__status(name, &s, err);
	if (ret)
		return ret;
	if (!json_is_true(json_object_get(s, "running"))) {
		json_decref(s);
		return errmsg__set(err, -ESRCH,
				   "lab machine '%s' is not running (its QEMU "
				   "is gone): nothing to power-cycle",
				   name);
	}
	dir = labvm__state_dir(name);
	sock = xasprintf("%s/qmp.sock", dir);
	ret = qmp__run(sock, "system_reset", NULL, QMP_TIMEOUT_MS, NULL, err);
	if (!ret)
		pr_info("labvm: %s power-cycled (system_reset)", name);
	free_all(dir, sock);
	json_decref(s);
	return ret;
}

int labvm__stop(const char *name, char **err)
{
	json_t *s = NULL;
	int ret;

	ret = labvm__status(name, &s, err);
	if (ret)
		return ret;
	teardown(name, s);
	json_decref(s);
	return 0;
}

char *labvm__stanza(const json_t *s, const char *exe)
{
	const char *name = jstr(s, "name");
	char *q[8], *out;

	/* Every value quoted as TOML wants: paths come from $HOME. */
	q[0] = toml__quote(jstr(s, "address"));
	q[1] = toml__quote(jstr(s, "key"));
	q[2] = toml__quote(jstr(s, "known_hosts"));
	q[3] = toml__quote(jstr(s, "nic"));
	q[4] = toml__quote(exe);
	q[5] = toml__quote(name);
	q[6] = toml__quote(jstr(s, "host_address"));
	/* An older state has none: the key is left out, not empty. */
	if (jstr(s, "console")) {
		char *c = toml__quote(jstr(s, "console"));

		q[7] = xasprintf("# its serial console, logged: a boot that "
				 "panics or halts is\n"
				 "# given up when it says so there\n"
				 "console = %s\n",
				 c);
		free(c);
	} else {
		q[7] = xstrdup("");
	}
	out = xasprintf("# lab machine '%s': %s, Debian's kernel %s\n"
			"[hosts.%s]\n"
			"transport = \"ssh\"\n"
			"role = \"sut\"\n"
			"address = %s\n"
			"user = \"root\"\n"
			"ssh_key = %s\n"
			"known_hosts = %s\n"
			"nic = %s\n"
			"allow_reboot = true\n"
			"reboot = \"grub\"\n"
			"# QEMU's system_reset, as an IPMI power cycle is\n"
			"power_cycle = [%s, \"labvm\", \"reset\", %s]\n"
			"%s"
			"\n"
			"# this machine, at its end of the lab machine's link\n"
			"[hosts.%s-peer]\n"
			"transport = \"local\"\n"
			"role = \"peer\"\n"
			"address = %s\n",
			name, jstr(s, "recipe"), jstr(s, "release"), name, q[0],
			q[1], q[2], q[3], q[4], q[5], q[7], name, q[6]);
	free_all(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]);
	return out;
}
