// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel.stage, kernel.install, kernel.find (bench/agent/agent-kernel.h has
 * the layout) and their arguments, every one checked before it reaches
 * a path or a command. The controller uploads a build in chunks, then
 * asks for it to be checked and put in place; a second run asks
 * kernel.find first and skips the upload. Nothing is installed until
 * every staged file matches its sha256; the modules tree and the copies
 * grub boots have their own files, bench/agent/agent-kernel-modules.c and
 * bench/agent/agent-kernel-boot.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic-file.h"
#include "base64.h"
#include "bench/agent/agent-file.h"
#include "bench/agent/agent-kernel-priv.h"
#include "bench/agent/agent.h"
#include "clock.h"
#include "errmsg.h"
#include "log.h"
#include "sha256.h"
#include "util.h"

#define DIR_MAX_LEN 1024
#define NAME_MAX_LEN 128
#define BUILD_ID_MIN 16
#define INITRD_TIMEOUT_MS (10 * 60 * 1000)
#define STAGING_SUFFIX ".staging"

static const char *const stage_files[] = { AGENT_KERNEL_IMAGE,
					   AGENT_KERNEL_INITRD,
					   AGENT_KERNEL_MODULES, NULL };

static bool only_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return false;
	return true;
}

static bool is_hex(const char *s, size_t min, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	return n >= min && n <= max && strspn(s, "0123456789abcdefABCDEF") == n;
}

bool agent_kernel__dir_is_safe(const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	return n > 1 && n <= DIR_MAX_LEN && dir[0] == '/' &&
	       only_chars(dir, "._+-/") && !strstr(dir, "..") &&
	       !strstr(dir, "//");
}

bool agent_kernel__name_is_safe(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return n >= 1 && n <= NAME_MAX_LEN && name[0] != '.' &&
	       name[0] != '-' && only_chars(name, "._+-");
}

bool agent_kernel__build_id_is_safe(const char *id)
{
	return is_hex(id, BUILD_ID_MIN, AGENT_KERNEL_BUILD_ID_MAX);
}

bool agent_kernel__deb_is_safe(const char *file)
{
	size_t n = file ? strlen(file) : 0;

	return agent_kernel__name_is_safe(file) && n > 4 &&
	       !strcmp(file + n - 4, ".deb") && file[0] >= 'a' &&
	       file[0] <= 'z';
}

/* A build's three files, or a package's .debs (kernel.pkg_install). */
static bool stage_file_is_known(const char *file)
{
	const char *const *f;

	for (f = stage_files; file && *f; f++)
		if (!strcmp(file, *f))
			return true;
	return agent_kernel__deb_is_safe(file);
}

static bool sha_is_safe(const char *s)
{
	return is_hex(s, 64, 64);
}

/* "@verb: bad "@key" VALUE (expected @expect)", with the value as JSON. */
static int bad_arg(char **err, const char *verb, const char *key, json_t *v,
		   const char *expect)
{
	char *shown = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	int ret;

	ret = errmsg__set(err, -EINVAL, "%s: bad \"%s\" %.200s (expected %s)",
			  verb, key, shown ? shown : "(missing)", expect);
	free(shown);
	return ret;
}

#define DIR_EXPECT                                                     \
	"an absolute path of [A-Za-z0-9._+/-], without '..' or '//', " \
	"not '/'"
#define NAME_EXPECT "1 to 128 of [A-Za-z0-9._+-], not starting with '.' or '-'"

/*
 * @v (@dflt when missing) as a folder, without its one trailing '/'; a
 * new string. @key names it in *@err.
 */
static int dir_value(const char *verb, const char *key, json_t *v,
		     const char *dflt, char **out, char **err)
{
	const char *s = v ? json_string_value(v) : dflt;
	size_t n;

	if (!agent_kernel__dir_is_safe(s))
		return bad_arg(err, verb, key, v, DIR_EXPECT);
	*out = xstrdup(s);
	n = strlen(*out);
	if ((*out)[n - 1] == '/')
		(*out)[n - 1] = '\0';
	return 0;
}

static int arg_dir(const char *verb, json_t *args, const char *key,
		   const char *dflt, char **out, char **err)
{
	return dir_value(verb, key, json_object_get(args, key), dflt, out, err);
}

static int arg_name(const char *verb, json_t *args, const char *key,
		    const char **out, char **err)
{
	json_t *v = json_object_get(args, key);

	if (!agent_kernel__name_is_safe(json_string_value(v)))
		return bad_arg(err, verb, key, v, NAME_EXPECT);
	*out = json_string_value(v);
	return 0;
}

int agent_kernel__paths(const char *verb, json_t *args, struct kernel_paths *kp,
			char **err)
{
	size_t n;
	int ret;

	ret = arg_dir(verb, args, "dir", NULL, &kp->dir, err);
	if (!ret)
		ret = arg_name(verb, args, "name", &kp->name, err);
	if (ret)
		return ret;
	/* NAME.staging would be another name's staging folder. */
	n = strlen(kp->name);
	if (n >= strlen(STAGING_SUFFIX) &&
	    !strcmp(kp->name + n - strlen(STAGING_SUFFIX), STAGING_SUFFIX))
		return bad_arg(err, verb, "name", json_object_get(args, "name"),
			       NAME_EXPECT ", not ending in " STAGING_SUFFIX);
	kp->staging = xasprintf("%s/%s%s", kp->dir, kp->name, STAGING_SUFFIX);
	kp->final = xasprintf("%s/%s", kp->dir, kp->name);
	return 0;
}

void agent_kernel__paths_release(struct kernel_paths *kp)
{
	free_all(kp->dir, kp->staging, kp->final);
}

/* ---- kernel.stage ---- */

/* The base64 chunk of args, decoded; AGENT_KERNEL_STAGE_MAX at most. */
static int stage_data(json_t *args, unsigned char **buf, size_t *n, char **err)
{
	const char *verb = "kernel.stage";
	const char *data = json_string_value(json_object_get(args, "data"));
	size_t len = data ? strlen(data) : 0;

	if (!data)
		return errmsg__set(err, -EINVAL,
				   "%s: \"data\" must be a base64 string",
				   verb);
	if (len > BASE64_ENCODED_LEN(AGENT_KERNEL_STAGE_MAX))
		return errmsg__set(err, -EMSGSIZE,
				   "%s: a chunk of %zu base64 characters is "
				   "more than %u bytes; send at most "
				   "AGENT_KERNEL_STAGE_MAX a call",
				   verb, len, AGENT_KERNEL_STAGE_MAX);
	*buf = xmalloc(BASE64_DECODED_MAX(len) + 1);
	if (base64__decode(data, len, *buf, n)) {
		free(*buf);
		*buf = NULL;
		return errmsg__set(err, -EINVAL, "%s: \"data\" is not base64",
				   verb);
	}
	if (*n > AGENT_KERNEL_STAGE_MAX) {
		free(*buf);
		*buf = NULL;
		return errmsg__set(err, -EMSGSIZE,
				   "%s: a chunk of %zu bytes is more than %u",
				   verb, *n, AGENT_KERNEL_STAGE_MAX);
	}
	return 0;
}

int agent_verb__kernel_stage(struct agent *a, json_t *args, json_t **res,
			     char **err)
{
	const char *verb = "kernel.stage";
	struct kernel_paths kp = { 0 };
	json_t *fj = json_object_get(args, "file");
	json_t *oj = json_object_get(args, "offset");
	const char *file = json_string_value(fj);
	unsigned char *buf = NULL;
	char *path = NULL;
	json_int_t off;
	struct stat sb;
	size_t n = 0;
	int fd = -1, ret;

	(void)a;
	ret = agent_kernel__paths(verb, args, &kp, err);
	if (ret)
		goto out;
	if (!stage_file_is_known(file)) {
		ret = bad_arg(
			err, verb, "file", fj,
			"\"" AGENT_KERNEL_IMAGE "\", \"" AGENT_KERNEL_INITRD
			"\", \"" AGENT_KERNEL_MODULES "\" or a .deb's name");
		goto out;
	}
	if (!json_is_integer(oj) || json_integer_value(oj) < 0) {
		ret = bad_arg(err, verb, "offset", oj, "an integer >= 0");
		goto out;
	}
	off = json_integer_value(oj);
	ret = stage_data(args, &buf, &n, err);
	if (!ret)
		ret = agent_kernel__dir_make(verb, kp.dir, 0755, err);
	if (!ret)
		ret = agent_kernel__dir_make(verb, kp.staging, 0700, err);
	if (ret)
		goto out;
	path = xasprintf("%s/%s", kp.staging, file);
	/* Offset 0 starts the file again: a retried upload. */
	fd = open(path,
		  O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
			  (off ? 0 : O_TRUNC),
		  0600);
	if (fd < 0 || fstat(fd, &sb)) {
		ret = errmsg__set(err, -errno, "%s: %s: %s", verb, path,
				  strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		ret = errmsg__set(err, -EINVAL, "%s: %s is not a regular file",
				  verb, path);
		goto out;
	}
	if (off != sb.st_size) {
		ret = errmsg__set(err, -EINVAL,
				  "%s: offset %lld, but %s holds %lld bytes; "
				  "send from %lld, or from 0 to start again",
				  verb, (long long)off, path,
				  (long long)sb.st_size, (long long)sb.st_size);
		goto out;
	}
	if (lseek(fd, (off_t)off, SEEK_SET) < 0)
		ret = -errno;
	if (!ret)
		ret = write_all(fd, buf, n);
	if (ret) {
		/* Leave the file as it was, so that the offsets still agree. */
		if (ftruncate(fd, (off_t)off))
			pr_warn("agent: %s: cannot truncate: %s", path,
				strerror(errno));
		ret = errmsg__set(err, ret, "%s: %s: %s", verb, path,
				  strerror(-ret));
		goto out;
	}
	*res = json_pack("{s:I}", "size", off + (json_int_t)n);
out:
	if (fd >= 0)
		close(fd);
	free(path);
	free(buf);
	agent_kernel__paths_release(&kp);
	return ret;
}

/* ---- kernel.install ---- */

static void kernel_install__release(struct kernel_install *in)
{
	if (in->extract)
		agent_file__remove_tree(in->extract, NULL);
	agent_kernel__paths_release(&in->kp);
	free(in->modules_root);
	json_decref(in->sha256);
	free_all(in->gen, in->modules_dir, in->extract);
	agent_kernel__boot_release(&in->boot);
}

/* args.sha256: vmlinuz required, the other two staged files optional. */
static int install_sha256(struct kernel_install *in, json_t *args, char **err)
{
	json_t *o = json_object_get(args, "sha256"), *v;
	const char *key;
	char *low;
	size_t i;

	if (!json_is_object(o) || !json_object_get(o, AGENT_KERNEL_IMAGE))
		return bad_arg(err, in->verb, "sha256", o,
			       "an object with \"" AGENT_KERNEL_IMAGE
			       "\" and maybe \"" AGENT_KERNEL_INITRD
			       "\", \"" AGENT_KERNEL_MODULES "\"");
	in->sha256 = json_object();
	json_object_foreach(o, key, v) {
		if (!stage_file_is_known(key))
			return errmsg__set(err, -EINVAL,
					   "%s: bad \"sha256\" key \"%.128s\" "
					   "(expected " AGENT_KERNEL_IMAGE
					   ", " AGENT_KERNEL_INITRD
					   " or " AGENT_KERNEL_MODULES ")",
					   in->verb, key);
		if (!sha_is_safe(json_string_value(v)))
			return bad_arg(err, in->verb, "sha256", v,
				       "64 hex digits for each file");
		low = xstrdup(json_string_value(v));
		for (i = 0; low[i]; i++)
			if (low[i] >= 'A' && low[i] <= 'F')
				low[i] += 'a' - 'A';
		json_object_set_new(in->sha256, key, json_string(low));
		free(low);
	}
	return 0;
}

/* args.initrd; missing: "staged" when one was sent, else "none". */
static int install_initrd(struct kernel_install *in, json_t *args, char **err)
{
	json_t *v = json_object_get(args, "initrd");
	bool sent = json_object_get(in->sha256, AGENT_KERNEL_INITRD);

	in->initrd = v ? json_string_value(v) : sent ? "staged" : "none";
	if (!in->initrd ||
	    (strcmp(in->initrd, "staged") && strcmp(in->initrd, "generate") &&
	     strcmp(in->initrd, "none")))
		return bad_arg(err, in->verb, "initrd", v,
			       "\"staged\", \"generate\" or \"none\"");
	if (sent != !strcmp(in->initrd, "staged"))
		return errmsg__set(err, -EINVAL,
				   "%s: \"initrd\" is \"%s\" but \"sha256\" "
				   "%s \"" AGENT_KERNEL_INITRD "\" (a staged "
				   "initrd, and only that, has its sha256)",
				   in->verb, in->initrd,
				   sent ? "lists" : "does not list");
	return 0;
}

#define BOOT_EXPECT "{\"dir\"?: a folder (\"/boot\"), \"grub\"?: true}"

/* args.boot, where grub's menu finds the kernel; missing or null: none. */
static int install_boot(struct kernel_install *in, json_t *args, char **err)
{
	json_t *b = json_object_get(args, "boot"), *v;
	const char *key;

	if (!b || json_is_null(b))
		return 0;
	if (!json_is_object(b))
		return bad_arg(err, in->verb, "boot", b, BOOT_EXPECT);
	json_object_foreach(b, key, v) {
		if (strcmp(key, "dir") && strcmp(key, "grub"))
			return errmsg__set(err, -EINVAL,
					   "%s: bad \"boot\" key \"%.128s\" "
					   "(expected " BOOT_EXPECT ")",
					   in->verb, key);
	}
	v = json_object_get(b, "grub");
	if (v && !json_is_true(v))
		return bad_arg(err, in->verb, "boot.grub", v,
			       "true: only grub is supported");
	return dir_value(in->verb, "boot.dir", json_object_get(b, "dir"),
			 "/boot", &in->boot.dir, err);
}

static int install_args(struct kernel_install *in, json_t *args, char **err)
{
	json_t *v;
	int ret;

	ret = agent_kernel__paths(in->verb, args, &in->kp, err);
	if (!ret)
		ret = arg_name(in->verb, args, "release", &in->release, err);
	if (ret)
		return ret;
	v = json_object_get(args, "build_id");
	if (!agent_kernel__build_id_is_safe(json_string_value(v)))
		return bad_arg(err, in->verb, "build_id", v,
			       "16 to 64 hex digits");
	in->build_id = json_string_value(v);
	ret = install_sha256(in, args, err);
	if (!ret)
		ret = install_initrd(in, args, err);
	if (!ret)
		ret = arg_dir(in->verb, args, "modules_root",
			      AGENT_KERNEL_MODULES_ROOT, &in->modules_root,
			      err);
	if (!ret)
		ret = install_boot(in, args, err);
	return ret;
}

/* The host's own initramfs tool, the first in $PATH: ENOENT if none. */
static int find_generator(struct kernel_install *in, char **err)
{
	static const char *const tools[] = { "mkinitramfs", "dracut",
					     "mkinitcpio", NULL };

	return agent_kernel__find_tool(
		in->verb, tools, "initramfs generator",
		"; install initramfs-tools or dracut, or send an initrd "
		"(\"initrd\": \"staged\")",
		&in->gen, &in->gen_name, err);
}

static int run_generator(struct kernel_install *in, const char *out, char **err)
{
	const char *mkinitramfs[] = { in->gen, "-o", out, in->release, NULL };
	const char *dracut[] = { in->gen, "--force", out, in->release, NULL };
	const char *mkinitcpio[] = {
		in->gen, "-k", in->release, "-g", out, NULL
	};
	const char *const *argv = !strcmp(in->gen_name, "dracut") ? dracut :
				  !strcmp(in->gen_name, "mkinitcpio") ?
								    mkinitcpio :
								    mkinitramfs;
	struct stat sb;
	int ret;

	if (unlink(out) && errno != ENOENT)
		return errmsg__set(err, -errno, "%s: %s: %s", in->verb, out,
				   strerror(errno));
	ret = agent_kernel__run_argv(in->verb, argv, INITRD_TIMEOUT_MS, NULL,
				     NULL, err);
	if (ret)
		return ret;
	if (lstat(out, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size)
		return errmsg__set(err, -EIO,
				   "%s: %s succeeded but wrote no initrd at %s",
				   in->verb, in->gen_name, out);
	in->initrd_by = in->gen_name;
	return 0;
}

/* Every file listed in sha256 is staged, a regular file, and matches. */
static int check_staged(struct kernel_install *in, char **err)
{
	char got[SHA256_HEX_SIZE];
	const char *file;
	struct stat sb;
	uint64_t size = 0;
	json_t *v;
	char *p;
	int ret = 0;

	json_object_foreach(in->sha256, file, v) {
		p = xasprintf("%s/%s", in->kp.staging, file);
		if (lstat(p, &sb))
			ret = errmsg__set(err, -errno,
					  "%s: %s was not staged (%s: %s)",
					  in->verb, file, p, strerror(errno));
		else if (!S_ISREG(sb.st_mode))
			ret = errmsg__set(err, -EINVAL,
					  "%s: %s is not a regular file",
					  in->verb, p);
		else if ((ret = sha256__file(p, got, &size)))
			ret = errmsg__set(err, ret, "%s: %s: %s", in->verb, p,
					  strerror(-ret));
		else if (strcmp(got, json_string_value(v)))
			ret = errmsg__set(err, -EBADMSG,
					  "%s: %s does not match: sha256 %s "
					  "wanted, %s got (%llu bytes staged); "
					  "stage it again",
					  in->verb, file, json_string_value(v),
					  got, (unsigned long long)size);
		free(p);
		if (ret)
			return ret;
	}
	return 0;
}

/* Staged leftovers the install folder does not keep. */
static int tidy_staging(struct kernel_install *in, char **err)
{
	const char *drop[] = { AGENT_KERNEL_MODULES, AGENT_KERNEL_INSTALLED,
			       !strcmp(in->initrd, "none") ?
				       AGENT_KERNEL_INITRD :
				       NULL };
	size_t i;
	char *p;
	int ret = 0;

	if (in->extract) {
		ret = agent_file__remove_tree(in->extract, NULL);
		free(in->extract);
		in->extract = NULL;
	}
	for (i = 0; i < ARRAY_SIZE(drop) && !ret; i++) {
		if (!drop[i])
			continue;
		p = xasprintf("%s/%s", in->kp.staging, drop[i]);
		ret = agent_file__remove_tree(p, NULL);
		free(p);
	}
	if (ret)
		return errmsg__set(err, ret, "%s: %s: %s", in->verb,
				   in->kp.staging, strerror(-ret));
	return 0;
}

/*
 * @folder/installed.json, whole or not at all: it is rewritten in the
 * live DIR/NAME once grub has run, and it vouches for the copies in
 * BOOTDIR that a later install may replace.
 */
static int write_installed(struct kernel_install *in, const char *folder,
			   char **err)
{
	char *p = xasprintf("%s/%s", folder, AGENT_KERNEL_INSTALLED);
	char *text = NULL;
	struct iovec iov;
	json_t *j;
	int ret;

	j = json_pack("{s:s, s:s, s:O, s:s?, s:s?, s:I}", "release",
		      in->release, "build_id", in->build_id, "sha256",
		      in->sha256, "initrd_by", in->initrd_by, "modules_dir",
		      in->modules_dir, "installed_at", (json_int_t)time(NULL));
	if (j) {
		agent_kernel__boot_json(in, j, true);
		text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	}
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	iov = (struct iovec){ text, strlen(text) };
	ret = atomic_file__write(p, &iov, 1);
out:
	if (ret)
		ret = errmsg__set(err, ret, "%s: cannot write %s: %s", in->verb,
				  p, strerror(-ret));
	json_decref(j);
	free(text);
	free(p);
	return ret;
}

int agent_verb__kernel_install(struct agent *a, json_t *args, json_t **res,
			       char **err)
{
	struct kernel_install in = { .verb = "kernel.install" };
	long long t0 = mono_ms();
	char *aside = NULL, *image = NULL, *initrd = NULL;
	int ret;

	(void)a;
	ret = install_args(&in, args, err);
	if (!ret && !strcmp(in.initrd, "generate"))
		ret = find_generator(&in, err);
	if (!ret && in.boot.dir)
		ret = agent_kernel__boot_prepare(&in, err);
	if (!ret && access(in.kp.staging, F_OK))
		ret = errmsg__set(err, -ENOENT,
				  "%s: nothing staged at %s (kernel.stage "
				  "first)",
				  in.verb, in.kp.staging);
	if (!ret)
		ret = agent_file__check_private(in.verb, "", in.kp.dir, err);
	if (!ret)
		ret = agent_file__check_private(in.verb, "", in.kp.staging,
						err);
	if (!ret)
		ret = check_staged(&in, err);
	if (!ret && json_object_get(in.sha256, AGENT_KERNEL_MODULES))
		ret = agent_kernel__install_modules(&in, err);
	if (ret)
		goto out;

	image = xasprintf("%s/%s", in.kp.final, AGENT_KERNEL_IMAGE);
	if (strcmp(in.initrd, "none"))
		initrd = xasprintf("%s/%s", in.kp.final, AGENT_KERNEL_INITRD);
	if (!strcmp(in.initrd, "generate")) {
		char *out =
			xasprintf("%s/%s", in.kp.staging, AGENT_KERNEL_INITRD);

		ret = run_generator(&in, out, err);
		free(out);
	} else if (!strcmp(in.initrd, "staged")) {
		in.initrd_by = "staged";
	}
	if (!ret && in.boot.dir)
		ret = agent_kernel__boot_hash(&in, err);
	if (!ret)
		ret = tidy_staging(&in, err);
	if (!ret)
		ret = write_installed(&in, in.kp.staging, err);
	/*
	 * Copied while the older DIR/NAME and the staging folder both
	 * record what BOOTDIR holds, so that a failure here leaves nothing
	 * there that the next try would take for someone else's.
	 */
	if (!ret && in.boot.dir)
		ret = agent_kernel__boot_place(&in, err);
	if (ret)
		goto out;
	/* A name no install can have: it starts with '.'. */
	aside = xasprintf("%s/.%s.old", in.kp.dir, in.kp.name);
	ret = agent_kernel__replace_dir(in.kp.staging, in.kp.final, aside);
	if (ret) {
		ret = errmsg__set(err, ret, "%s: cannot move %s to %s: %s",
				  in.verb, in.kp.staging, in.kp.final,
				  strerror(-ret));
		goto out;
	}
	/* grub_by is only recorded once the menu has the copies. */
	if (in.boot.dir) {
		ret = agent_kernel__boot_grub(&in, err);
		if (!ret)
			ret = write_installed(&in, in.kp.final, err);
		if (ret)
			goto out;
	}
	*res = json_pack("{s:s, s:s?, s:s?, s:s?, s:I}", "image", image,
			 "initrd", initrd, "modules_dir", in.modules_dir,
			 "initrd_by", in.initrd_by, "elapsed_ms",
			 (json_int_t)(mono_ms() - t0));
	if (*res)
		agent_kernel__boot_json(&in, *res, false);
out:
	free_all(aside, image, initrd);
	kernel_install__release(&in);
	return ret;
}

/* ---- kernel.find ---- */

static bool is_file(const char *path)
{
	struct stat sb;

	return !lstat(path, &sb) && S_ISREG(sb.st_mode);
}

/* Why DIR/NAME does not hold @build_id ready to boot; NULL when it does. */
static char *find_why(const struct kernel_paths *kp, const char *build_id,
		      json_t *j, char **image, char **initrd)
{
	const char *got = json_string_value(json_object_get(j, "build_id"));
	const char *by = json_string_value(json_object_get(j, "initrd_by"));
	const char *mods = json_string_value(json_object_get(j, "modules_dir"));
	char marker[AGENT_KERNEL_BUILD_ID_MAX + 2];

	if (!got || strcasecmp(got, build_id))
		return xasprintf("%s holds build %s", kp->final,
				 got ? got : "(none)");
	*image = xasprintf("%s/%s", kp->final, AGENT_KERNEL_IMAGE);
	if (!is_file(*image))
		return xasprintf("%s is missing", *image);
	if (by) {
		*initrd = xasprintf("%s/%s", kp->final, AGENT_KERNEL_INITRD);
		if (!is_file(*initrd))
			return xasprintf("%s is missing", *initrd);
	}
	if (mods && (!agent_kernel__dir_is_safe(mods) ||
		     agent_kernel__marker_read(mods, marker, sizeof(marker)) ||
		     strcasecmp(marker, build_id)))
		return xasprintf("%s no longer holds this build's modules",
				 mods);
	return NULL;
}

int agent_verb__kernel_find(struct agent *a, json_t *args, json_t **res,
			    char **err)
{
	const char *verb = "kernel.find", *build_id;
	struct kernel_paths kp = { 0 };
	char *path = NULL, *why = NULL, *image = NULL, *initrd = NULL;
	char *boot_dir = NULL;
	json_t *v, *j = NULL;
	int ret;

	(void)a;
	ret = agent_kernel__paths(verb, args, &kp, err);
	if (!ret && json_object_get(args, "boot_dir"))
		ret = arg_dir(verb, args, "boot_dir", NULL, &boot_dir, err);
	if (ret)
		goto out;
	v = json_object_get(args, "build_id");
	build_id = json_string_value(v);
	if (!agent_kernel__build_id_is_safe(build_id)) {
		ret = bad_arg(err, verb, "build_id", v, "16 to 64 hex digits");
		goto out;
	}
	path = xasprintf("%s/%s", kp.final, AGENT_KERNEL_INSTALLED);
	if (is_file(path))
		j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(j))
		why = xasprintf("no readable %s", path);
	else
		why = find_why(&kp, build_id, j, &image, &initrd);
	/* Asked by a host that boots by grub, which reads BOOTDIR only. */
	if (!why && boot_dir)
		why = agent_kernel__boot_why(boot_dir, j);
	if (why)
		*res = json_pack("{s:b, s:s}", "installed", 0, "why", why);
	else
		*res = json_pack("{s:b, s:s, s:s?, s:O?, s:O?, s:O?, s:O?, "
				 "s:O?, s:O?}",
				 "installed", 1, "image", image, "initrd",
				 initrd, "modules_dir",
				 json_object_get(j, "modules_dir"), "initrd_by",
				 json_object_get(j, "initrd_by"), "release",
				 json_object_get(j, "release"), "boot_image",
				 json_object_get(j, "boot_image"),
				 "boot_initrd",
				 json_object_get(j, "boot_initrd"), "grub_by",
				 json_object_get(j, "grub_by"));
	if (!*res)
		ret = -ENOMEM;
out:
	json_decref(j);
	free_all(why, image, initrd, path, boot_dir);
	agent_kernel__paths_release(&kp);
	return ret;
}
