// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel verbs and the modules install share: folders made,
 * checked, removed and swapped into place, and commands run with their
 * complaint kept for the error. The agent is root in folders others
 * may reach, so nothing here follows a symlink it did not make.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/agent/agent-file.h"
#include "bench/agent/agent-kernel-priv.h"
#include "bench/agent/agent.h"
#include "errmsg.h"
#include "log.h"
#include "strvec.h"
#include "subprocess.h"
#include "util.h"

/* mkdir -p: parents 0755, @dir itself @mode, then checked as private. */
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
			ret = errmsg__set(err, -errno,
					  "%s: cannot create %s: %s", verb, p,
					  strerror(errno));
		*s = '/';
	}
	if (!ret && mkdir(p, mode) && errno != EEXIST)
		ret = errmsg__set(err, -errno, "%s: cannot create %s: %s", verb,
				  p, strerror(errno));
	if (!ret)
		ret = agent_file__check_private(verb, "", dir, err);
	free(p);
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
		ret = agent_file__remove_tree(aside, NULL);
		if (ret)
			return ret;
		if (rename(to, aside))
			return -errno;
		if (rename(from, to)) {
			ret = -errno;
			if (rename(aside, to))
				pr_warn("agent: %s is left at %s: %s", to,
					aside, strerror(errno));
			return ret;
		}
		old = aside;
	}
	/* Installed either way; what is left of the old one only costs disk. */
	ret = agent_file__remove_tree(old, NULL);
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
		ret = errmsg__set(err, ret < 0 ? ret : -EIO,
				  "%s: %s failed: %s: %s", verb, argv[0],
				  ret < 0 ? strerror(-ret) :
					    spawn__describe(&sp, how,
							    sizeof(how)),
				  last_line(sp.err, skip, line, sizeof(line)));
	} else if (out) {
		*out = sp.out ? sp.out : xstrdup("");
		sp.out = NULL;
	}
	spawn__release(&sp);
	return ret;
}

int agent_kernel__find_tool(const char *verb, const char *const *tools,
			    const char *what, const char *hint, char **found,
			    const char **name, char **err)
{
	const char *path = getenv("PATH");
	struct strvec names = { 0 };
	const char *const *t;
	char *list;
	int ret;

	for (t = tools; *t; t++) {
		*found = path__which(*t);
		*name = *t;
		if (*found)
			return 0;
		strvec__push(&names, *t);
	}
	list = strvec__join(&names, ", ");
	ret = errmsg__set(err, -ENOENT,
			  "%s: no %s (%s) on this host: none in PATH=%s%s",
			  verb, what, list, path ? path : "(unset)", hint);
	free(list);
	strvec__release(&names);
	return ret;
}
