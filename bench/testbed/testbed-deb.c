// SPDX-License-Identifier: GPL-2.0-only
/*
 * Debian packages for the guest, fetched never installed: `apt-get
 * download` into a folder of the cache, `dpkg -x` where they are wanted.
 * Guest kernels and a foreign arch's busybox come this way.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench/testbed/testbed.h"
#include "errmsg.h"
#include "log.h"
#include "subprocess.h"
#include "util.h"

#define DOWNLOAD_TIMEOUT_MS (10 * 60 * 1000)
#define UNPACK_TIMEOUT_MS (5 * 60 * 1000)

/* Debian's version syntax, as far as it may reach a file name. */
bool testbed__version_is_valid(const char *version)
{
	size_t len = strlen(version), i;

	if (!len || len > 100 || !(version[0] >= '0' && version[0] <= '9'))
		return false;
	for (i = 0; i < len; i++) {
		char c = version[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '+' ||
		      c == '~' || c == ':' || c == '-'))
			return false;
	}
	return true;
}

/*
 * apt's own error, else the last line. Its first "E:" line is the cause
 * ("E: Unable to locate package ..."); later ones are its fallbacks
 * failing too (by glob, by regex).
 */
static const char *apt_error(const char *text, char *buf, size_t size)
{
	const char *line, *end;

	for (line = text; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, "E: ", 3)) {
			end = strchrnul(line, '\n');
			snprintf(buf, size, "%.*s", (int)(end - line), line);
			return buf;
		}
	}
	return spawn__last_line(text, buf, size);
}

/* "apt-get download linux-image-...", for messages. */
static char *argv_join(const char *const *argv)
{
	char *s = xstrdup(argv[0]), *p;
	size_t i;

	for (i = 1; argv[i]; i++) {
		p = s;
		s = xasprintf("%s %s", p, argv[i]);
		free(p);
	}
	return s;
}

int testbed__run(const char *const *argv, const char *dir, int timeout_ms,
		 char **out, char **err)
{
	return testbed__run_std(argv, dir, timeout_ms, out, NULL, err);
}

int testbed__run_std(const char *const *argv, const char *dir, int timeout_ms,
		     char **out, char **errout, char **err)
{
	struct spawn_opts opts = {
		.flags = SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR,
		.pdeathsig = SIGKILL,
		.cwd = dir,
	};
	char how[96], last[512], *cmd;
	struct spawn sp;
	int ret;

	ret = spawn__argv(&sp, argv, &opts);
	if (ret)
		return errmsg__set(err, ret, "cannot run %s: %s", argv[0],
				   strerror(-ret));
	ret = spawn__wait(&sp, timeout_ms);
	if (ret == -ETIMEDOUT) {
		spawn__stop(&sp, SIGTERM, 2000);
		errmsg__set(err, 0, "%s %s did not finish in %d s", argv[0],
			    argv[1], timeout_ms / 1000);
	} else if (ret) {
		errmsg__set(err, 0, "%s %s: %s", argv[0], argv[1],
			    strerror(-ret));
	} else if (!spawn__succeeded(&sp)) {
		ret = -EIO;
		cmd = argv_join(argv);
		/* apt warns about its _apt sandbox as root: keep its E: line. */
		errmsg__set(err, 0, "%s failed (%s): %s", cmd,
			    spawn__describe(&sp, how, sizeof(how)),
			    apt_error(sp.err, last, sizeof(last)));
		free(cmd);
	} else if (out) {
		*out = sp.out ? sp.out : xstrdup("");
		sp.out = NULL;
	}
	/* Ran, failed or not: apt's warnings are there too. */
	if (errout && (!ret || ret == -EIO))
		*errout = xstrdup(sp.err ? sp.err : "");
	spawn__release(&sp);
	return ret;
}

/*
 * "pkg:arm64" for another arch than this machine's: apt downloads the
 * native one of a name unless told, and knows the other only when
 * dpkg was told of it (multiarch).
 */
static int download(const char *package, const struct arch *arch,
		    const char *dir, char **err)
{
	const struct arch *native = arch__native();
	char *spec = arch && arch != native ?
			     xasprintf("%s:%s", package, arch->deb) :
			     xstrdup(package);
	/* No "--": a valid name starts with a letter, not '-'. */
	const char *argv[] = { "apt-get", "download", spec, NULL };
	char *why;
	int ret;

	pr_info("testbed: downloading %s", spec);
	ret = testbed__run(argv, dir, DOWNLOAD_TIMEOUT_MS, NULL, err);
	if (ret && arch && arch != native) {
		why = *err;
		errmsg__set(err, 0,
			    "%s (apt finds %s packages once dpkg "
			    "--add-architecture %s and apt-get update "
			    "have run: scripts/install-deps.sh does both)",
			    why, arch->deb, arch->deb);
		free(why);
	}
	free(spec);
	return ret;
}

int testbed__find_deb(const char *dir, const char *package, char **deb,
		      char **err)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errmsg__set(err, -errno, "cannot read %s: %s", dir,
				   strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 4 && !strcmp(de->d_name + len - 4, ".deb") && !n++)
			*deb = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n == 1)
		return 0;
	if (n)
		free(*deb);
	return errmsg__set(err, -EIO,
			   "apt-get download %s left %d .deb files, not one",
			   package, n);
}

int testbed__deb_field(const char *deb, const char *field, char **value,
		       char **err)
{
	const char *argv[] = { "dpkg-deb", "-f", deb, field, NULL };
	char *out = NULL;
	size_t len;
	int ret;

	ret = testbed__run(argv, NULL, UNPACK_TIMEOUT_MS, &out, err);
	if (ret)
		return ret;
	/* One field asked for: dpkg-deb prints its value alone. */
	len = strlen(out);
	while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
		out[--len] = '\0';
	*value = out;
	return 0;
}

int testbed__deb_version(const char *deb, char **version, char **err)
{
	char *out = NULL;
	int ret;

	ret = testbed__deb_field(deb, "Version", &out, err);
	if (ret)
		return ret;
	out[strcspn(out, "\r\n")] = '\0';
	if (!testbed__version_is_valid(out)) {
		errmsg__set(err, 0, "%s: '%.40s' is not a package version", deb,
			    out);
		free(out);
		return -EINVAL;
	}
	*version = out;
	return 0;
}

int testbed__deb_fetch(const char *package, const struct arch *arch,
		       const char *dir, char **deb, char **err)
{
	int ret = download(package, arch, dir, err);

	return ret ? ret : testbed__find_deb(dir, package, deb, err);
}

int testbed__deb_unpack(const char *deb, const char *dir, char **err)
{
	const char *argv[] = { "dpkg", "-x", deb, dir, NULL };

	return testbed__run(argv, NULL, UNPACK_TIMEOUT_MS, NULL, err);
}
