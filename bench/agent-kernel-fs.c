// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel verbs and the modules install share: folders made,
 * checked, removed and swapped into place, and commands run with their
 * complaint kept for the error. The agent is root in folders others
 * may reach, so nothing here follows a symlink it did not make.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/agent-kernel-priv.h"
#include "bench/agent.h"
#include "collectors/spawn.h"
#include "log.h"
#include "util.h"

/*
 * A real directory of ours that nobody else can write: the agent runs
 * as root, and a folder someone else made first in a shared place
 * would let them swap what we install for their own.
 */
int agent_kernel__dir_check(const char *verb, const char *dir, char **err)
{
	struct stat sb;

	if (lstat(dir, &sb))
		return agent__err(err, -errno, "%s: %s: %s", verb, dir,
				  strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return agent__err(err, -ENOTDIR,
				  "%s: %s is not a directory (a symlink?); "
				  "refusing it",
				  verb, dir);
	if (sb.st_uid != geteuid() || (sb.st_mode & 022))
		return agent__err(err, -EACCES,
				  "%s: %s belongs to uid %u or is writable by "
				  "others (mode %03o); refusing it",
				  verb, dir, (unsigned int)sb.st_uid,
				  (unsigned int)(sb.st_mode & 0777));
	return 0;
}

/* mkdir -p: parents 0755, @dir itself @mode, then the check above. */
int agent_kernel__dir_make(const char *verb, const char *dir, mode_t mode,
			   char **err)
{
	char *p = xstrdup(dir), *s;
	int ret = 0;

	for (s = p + 1; *s && !ret; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			ret = agent__err(err, -errno,
					 "%s: cannot create %s: %s", verb, p,
					 strerror(errno));
		*s = '/';
	}
	if (!ret && mkdir(p, mode) && errno != EEXIST)
		ret = agent__err(err, -errno, "%s: cannot create %s: %s", verb,
				 p, strerror(errno));
	if (!ret)
		ret = agent_kernel__dir_check(verb, dir, err);
	free(p);
	return ret;
}

/*
 * Everything in the directory @fd, by names relative to it: nothing is
 * followed, so a symlink is removed, never what it points to.
 */
static int rm_in(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (!ret && (errno = 0, e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!unlinkat(fd, e->d_name, 0) || errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			ret = -errno;
			break;
		}
		if (depth >= AGENT_KERNEL_WALK_MAX_DEPTH) {
			ret = -ELOOP;
			break;
		}
		sub = openat(fd, e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		ret = sub < 0 ? -errno : rm_in(sub, depth + 1);
		if (!ret && unlinkat(fd, e->d_name, AT_REMOVEDIR))
			ret = -errno;
	}
	if (!ret && !e && errno)
		ret = -errno;
	closedir(d);
	return ret;
}

/* rm -rf @path without following anything; a missing one is fine. */
int agent_kernel__rm_tree(const char *path)
{
	struct stat sb;
	int fd, ret;

	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) && errno != ENOENT ? -errno : 0;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 ? -errno : rm_in(fd, 0);
	if (!ret && rmdir(path))
		ret = -errno;
	return ret;
}

/*
 * @from becomes @to, an older @to gone. Swapped in one step where the
 * filesystem can, so that @to is never missing or half there; else the
 * old one is moved to @aside first and back should the move fail.
 */
int agent_kernel__replace_dir(const char *from, const char *to,
			      const char *aside)
{
	const char *old = from;
	struct stat sb;
	int ret;

	if (lstat(to, &sb)) {
		if (errno != ENOENT)
			return -errno;
		return rename(from, to) ? -errno : 0;
	}
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE)) {
		if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -errno;
		ret = agent_kernel__rm_tree(aside);
		if (ret)
			return ret;
		if (rename(to, aside))
			return -errno;
		if (rename(from, to)) {
			ret = -errno;
			if (rename(aside, to))
				pr_err("agent: %s is left at %s: %s", to, aside,
				       strerror(errno));
			return ret;
		}
		old = aside;
	}
	/* Installed either way; what is left of the old one only costs disk. */
	ret = agent_kernel__rm_tree(old);
	if (ret)
		pr_warn("agent: cannot remove the old %s at %s: %s", to, old,
			strerror(-ret));
	return 0;
}

/*
 * The last line of @text that does not contain @skip: tar ends with a
 * summary ("Exiting with failure status...") after the line that says
 * what went wrong.
 */
static const char *last_line(const char *text, const char *skip, char *buf,
			     size_t size)
{
	const char *end, *start;

	buf[0] = '\0';
	if (!text)
		return buf;
	end = text + strlen(text);
	while (end > text) {
		while (end > text && strchr(" \t\r\n", end[-1]))
			end--;
		start = end;
		while (start > text && start[-1] != '\n')
			start--;
		if (!skip ||
		    !memmem(start, (size_t)(end - start), skip, strlen(skip))) {
			snprintf(buf, size, "%.*s", (int)(end - start), start);
			break;
		}
		end = start;
	}
	return buf;
}

/*
 * @argv to its end within @ms. On failure *@err names it and quotes
 * the last line of its stderr without @skip, where tar and initramfs
 * tools say what broke. *@out takes stdout when non-NULL.
 */
int agent_kernel__run_argv(const char *verb, const char *const *argv, int ms,
			   const char *skip, char **out, char **err)
{
	struct spawn sp = { 0 };
	char how[96], line[512];
	int ret;

	ret = spawn__run(
		&sp, argv,
		&(struct spawn_opts){
			.flags = SPAWN_CAPTURE_ERR |
				 (out ? SPAWN_CAPTURE_OUT : SPAWN_NULL_OUT) },
		ms);
	if (ret < 0 || !spawn__succeeded(&sp)) {
		ret = agent__err(err, ret < 0 ? ret : -EIO,
				 "%s: %s failed: %s: %s", verb, argv[0],
				 ret < 0 ?
					 strerror(-ret) :
					 spawn__describe(&sp, how, sizeof(how)),
				 last_line(sp.err, skip, line, sizeof(line)));
	} else if (out) {
		*out = sp.out ? sp.out : xstrdup("");
		sp.out = NULL;
	}
	spawn__release(&sp);
	return ret;
}

/* @prog's path in $PATH, or NULL. */
char *agent_kernel__which(const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs, *d, *save = NULL, *f = NULL;
	struct stat sb;

	dirs = xstrdup(path ? path :
			      "/usr/local/sbin:/usr/local/bin:"
			      "/usr/sbin:/usr/bin:/sbin:/bin");
	for (d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		/* A relative entry would run whatever the cwd holds. */
		if (d[0] != '/')
			continue;
		f = xasprintf("%s/%s", d, prog);
		if (!stat(f, &sb) && S_ISREG(sb.st_mode) && !access(f, X_OK))
			break;
		free(f);
		f = NULL;
	}
	free(dirs);
	return f;
}
