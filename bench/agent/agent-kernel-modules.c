// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel.install's modules: modules.tar unpacked, checked and moved to
 * MODULES_ROOT/RELEASE. A modules tree is only ever written by GNU tar
 * into a folder of ours and walked before it moves, and a modules
 * folder this tool did not write (no marker of ours) is never replaced.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/agent/agent-file.h"
#include "bench/agent/agent-kernel-priv.h"
#include "bench/agent/agent.h"
#include "errmsg.h"
#include "log.h"
#include "util.h"

/* A whole distribution's modules untar in well under this. */
#define TAR_TIMEOUT_MS (10 * 60 * 1000)
/* modules.tar's extraction folder inside the staging folder. */
#define EXTRACT_NAME "modules.x"

/* The build id in @dir's marker; -ENOENT when there is none of ours. */
int agent_kernel__marker_read(const char *dir, char *out, size_t size)
{
	char *p = xasprintf("%s/%s", dir, AGENT_KERNEL_MARKER);
	struct stat sb;
	ssize_t n;
	int fd, ret = 0;

	/* O_NONBLOCK: a FIFO planted there must not hang the agent. */
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(p);
	if (fd < 0)
		return errno == ELOOP ? -ENOENT : -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	n = read(fd, out, size - 1);
	if (n < 0)
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	out[n] = '\0';
	out[strcspn(out, " \t\r\n")] = '\0';
	return 0;
}

static int marker_write(const char *dir, const char *build_id)
{
	char *p = xasprintf("%s/%s", dir, AGENT_KERNEL_MARKER);
	char *line = xasprintf("%s\n", build_id);
	int fd, ret;

	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	ret = fd < 0 ? -errno : write_all(fd, line, strlen(line));
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	free(line);
	free(p);
	return ret;
}

/* The one entry of directory @fd must be the directory @want. */
static int only_entry(struct kernel_install *in, int fd, const char *at,
		      const char *want, char **err)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	struct dirent *e;
	struct stat sb;
	bool found = false;
	int ret = 0;

	if (!d) {
		ret = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return errmsg__set(err, ret, "%s: %s: %s", in->verb, at,
				   strerror(-ret));
	}
	while (!ret && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strcmp(e->d_name, want))
			ret = errmsg__set(err, -EINVAL,
					  "%s: " AGENT_KERNEL_MODULES
					  " holds %s%.200s; expected "
					  "lib/modules/%s and nothing else",
					  in->verb, at, e->d_name, in->release);
		found = true;
	}
	closedir(d);
	if (ret)
		return ret;
	if (!found || fstatat(fd, want, &sb, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISDIR(sb.st_mode))
		return errmsg__set(err, found ? -EINVAL : -ENOENT,
				   "%s: " AGENT_KERNEL_MODULES " holds no "
				   "directory lib/modules/%s",
				   in->verb, in->release);
	return 0;
}

/* The extraction is lib/modules/RELEASE and nothing beside it. */
static int check_top(struct kernel_install *in, char **err)
{
	const char *level[] = { "lib", "modules", in->release };
	const char *at[] = { "", "lib/", "lib/modules/" };
	int fd, sub, ret = 0;
	size_t i;

	fd = open(in->extract, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errmsg__set(err, -errno, "%s: %s: %s", in->verb,
				   in->extract, strerror(errno));
	for (i = 0; i < ARRAY_SIZE(level) && !ret; i++) {
		ret = only_entry(in, fd, at[i], level[i], err);
		if (ret || i + 1 == ARRAY_SIZE(level))
			break;
		sub = openat(fd, level[i],
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			ret = errmsg__set(err, -errno, "%s: %s%s: %s", in->verb,
					  at[i], level[i], strerror(errno));
		close(fd);
		fd = sub;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static const char *type_name(mode_t m)
{
	return S_ISCHR(m)  ? "a character device" :
	       S_ISBLK(m)  ? "a block device" :
	       S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" :
			     "of an unknown type";
}

/*
 * Under the modules tree @fd (@at for messages): symlinks removed (the
 * build/source links modules_install leaves point into a build tree
 * this host does not have), anything but files and folders refused.
 */
static int walk_in(struct kernel_install *in, int fd, const char *at, int depth,
		   long *links, char **err)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct stat sb;
	char *sub_at;
	int ret = 0, sub;

	if (!d) {
		ret = -errno;
		close(fd);
		return errmsg__set(err, ret, "%s: %s: %s", in->verb, at,
				   strerror(-ret));
	}
	while (!ret && (errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub_at = xasprintf("%s/%s", at, e->d_name);
		if (fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW)) {
			ret = errmsg__set(err, -errno, "%s: %s: %s", in->verb,
					  sub_at, strerror(errno));
		} else if (S_ISLNK(sb.st_mode)) {
			if (unlinkat(fd, e->d_name, 0))
				ret = errmsg__set(err, -errno, "%s: %s: %s",
						  in->verb, sub_at,
						  strerror(errno));
			(*links)++;
		} else if (S_ISDIR(sb.st_mode)) {
			sub = depth >= AGENT_KERNEL_WALK_MAX_DEPTH ?
				      (errno = ELOOP, -1) :
				      openat(fd, e->d_name,
					     O_RDONLY | O_DIRECTORY |
						     O_NOFOLLOW | O_CLOEXEC);
			ret = sub < 0 ? errmsg__set(err, -errno, "%s: %s: %s",
						    in->verb, sub_at,
						    strerror(errno)) :
					walk_in(in, sub, sub_at, depth + 1,
						links, err);
		} else if (!S_ISREG(sb.st_mode)) {
			ret = errmsg__set(err, -EINVAL,
					  "%s: " AGENT_KERNEL_MODULES
					  " holds %.300s, %s; only files, "
					  "folders and symlinks belong in a "
					  "modules tree",
					  in->verb, sub_at,
					  type_name(sb.st_mode));
		} else if (sb.st_nlink > 1) {
			/* A tree of ours has none; one may reach elsewhere. */
			ret = errmsg__set(err, -EINVAL,
					  "%s: " AGENT_KERNEL_MODULES
					  " holds %.300s, a hard link; a "
					  "modules tree has none",
					  in->verb, sub_at);
		}
		free(sub_at);
	}
	if (!ret && !e && errno)
		ret = errmsg__set(err, -errno, "%s: %s: %s", in->verb, at,
				  strerror(errno));
	closedir(d);
	return ret;
}

/* GNU tar refuses members that climb out ("..", links outside). */
static int check_tar(struct kernel_install *in, char **err)
{
	const char *argv[] = { "tar", "--version", NULL };
	char *out = NULL;
	int ret;

	ret = agent_kernel__run_argv(in->verb, argv, 30000, NULL, &out, err);
	if (!ret && !strstr(out, "GNU tar"))
		ret = errmsg__set(err, -EOPNOTSUPP,
				  "%s: this host's tar is not GNU tar (%.80s); "
				  "unpacking " AGENT_KERNEL_MODULES
				  " relies on GNU tar's refusal of members "
				  "that escape the folder",
				  in->verb, out);
	free(out);
	return ret;
}

/*
 * modules.tar unpacked into a fresh folder of ours, on the filesystem
 * of the modules root so that the tree can be renamed into place, and
 * checked. Then MODULES_ROOT/RELEASE: ours with this build: kept;
 * ours with another: replaced; not ours: refused.
 */
int agent_kernel__install_modules(struct kernel_install *in, char **err)
{
	const char *tar_argv[] = { "tar",
				   "-x",
				   "-f",
				   NULL,
				   "-C",
				   NULL,
				   "--no-same-owner",
				   "--no-same-permissions",
				   NULL };
	char marker[AGENT_KERNEL_BUILD_ID_MAX + 2], *tar = NULL, *tree = NULL;
	char *aside = NULL;
	struct stat st_stage, st_root;
	long links = 0;
	int fd, ret;

	ret = agent_kernel__dir_make(in->verb, in->modules_root, 0755, err);
	if (ret)
		return ret;
	in->modules_dir = xasprintf("%s/%s", in->modules_root, in->release);
	ret = agent_kernel__marker_read(in->modules_dir, marker,
					sizeof(marker));
	if (!ret && !strcasecmp(marker, in->build_id)) {
		pr_info("agent: %s already holds build %s; kept",
			in->modules_dir, in->build_id);
		return 0;
	}
	if (ret == -ENOENT && !lstat(in->modules_dir, &st_root))
		return errmsg__set(err, -EEXIST,
				   "%s: %s was not installed by iommu-bench "
				   "(no " AGENT_KERNEL_MARKER " in it) and "
				   "will not be replaced; remove it or choose "
				   "another release",
				   in->verb, in->modules_dir);
	if (ret && ret != -ENOENT)
		return errmsg__set(err, ret,
				   "%s: %s/" AGENT_KERNEL_MARKER ": %s",
				   in->verb, in->modules_dir, strerror(-ret));
	ret = check_tar(in, err);
	if (ret)
		return ret;

	if (!stat(in->kp.staging, &st_stage) &&
	    !stat(in->modules_root, &st_root) &&
	    st_stage.st_dev == st_root.st_dev)
		in->extract = xasprintf("%s/%s", in->kp.staging, EXTRACT_NAME);
	else /* a name no release can have: it starts with '.' */
		in->extract = xasprintf("%s/.%s.iommu-bench-new",
					in->modules_root, in->release);
	ret = agent_file__remove_tree(in->extract, NULL);
	if (!ret && mkdir(in->extract, 0700))
		ret = -errno;
	if (ret) {
		ret = errmsg__set(err, ret, "%s: %s: %s", in->verb, in->extract,
				  strerror(-ret));
		goto out;
	}
	tar = xasprintf("%s/%s", in->kp.staging, AGENT_KERNEL_MODULES);
	tar_argv[3] = tar;
	tar_argv[5] = in->extract;
	ret = agent_kernel__run_argv(in->verb, tar_argv, TAR_TIMEOUT_MS,
				     "Exiting with failure status", NULL, err);
	if (!ret)
		ret = check_top(in, err);
	if (ret)
		goto out;
	tree = xasprintf("%s/lib/modules/%s", in->extract, in->release);
	fd = open(tree, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = errmsg__set(err, -errno, "%s: %s: %s", in->verb, tree,
				  strerror(errno));
		goto out;
	}
	ret = walk_in(in, fd, tree + strlen(in->extract) + 1, 0, &links, err);
	if (!ret && (chmod(tree, 0755) || marker_write(tree, in->build_id)))
		ret = errmsg__set(err, -errno, "%s: %s: %s", in->verb, tree,
				  strerror(errno));
	if (ret)
		goto out;
	aside = xasprintf("%s/.%s.iommu-bench-old", in->modules_root,
			  in->release);
	ret = agent_kernel__replace_dir(tree, in->modules_dir, aside);
	if (ret) {
		ret = errmsg__set(err, ret,
				  "%s: cannot move the modules to %s: %s",
				  in->verb, in->modules_dir, strerror(-ret));
		goto out;
	}
	pr_info("agent: modules of %s in %s (%ld symlinks dropped)",
		in->release, in->modules_dir, links);
out:
	free_all(aside, tree, tar);
	return ret;
}
