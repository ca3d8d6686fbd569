// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernels of any Debian suite without touching the machine's apt: one
 * private apt configuration per suite and guest arch in the testbed
 * cache (testbed.h says what it holds). Verification is apt's own:
 * the sources.list entry is signed-by Debian's keyring, so a Release
 * file it does not sign fails `apt-get update`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bench/testbed/testbed.h"
#include "cache.h"
#include "debian-suite.h"
#include "errmsg.h"
#include "log.h"
#include "suggest.h"
#include "util.h"

#define APT_SUB "apt"
#define UPDATE_TIMEOUT_MS (5 * 60 * 1000)
#define QUERY_TIMEOUT_MS (60 * 1000)
#define DOWNLOAD_TIMEOUT_MS (10 * 60 * 1000)
#define DEBIAN_KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"
/* Tests only: a keyring without Debian's key makes the signature fail. */
#define KEYRING_ENV "IOMMU_BENCH_TEST_KEYRING"

static int keyring(const char **path, char **err)
{
	const char *env = getenv(KEYRING_ENV);

	*path = env && *env ? env : DEBIAN_KEYRING;
	if (*path[0] != '/' ||
	    strspn(*path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "0123456789._/+-") != strlen(*path)) {
		return errmsg__set(err, -EINVAL,
				   "%s='%.80s' is not a keyring path",
				   KEYRING_ENV, *path);
	}
	if (!cache__has_file(*path))
		return errmsg__set(
			err, -ENOENT,
			"%s is missing: install debian-archive-keyring", *path);
	return 0;
}

void testbed_apt__release(struct testbed_apt *apt)
{
	free(apt->dir);
	free(apt->suite);
	strvec__release(&apt->opts);
	memset(apt, 0, sizeof(*apt));
}

static void opt(struct testbed_apt *apt, const char *key, const char *value)
{
	strvec__push(&apt->opts, "-o");
	strvec__pushf(&apt->opts, "%s=%s", key, value);
}

/* Where apt looks, each in the private folder: none of this machine's. */
static const char *const apt_dirs[][2] = {
	{ "Dir::State", "state" },
	{ "Dir::State::status", "status" },
	{ "Dir::Cache", "cache" },
	{ "Dir::Etc::sourcelist", "sources.list" },
	{ "Dir::Etc::sourceparts", "sources.list.d" },
	{ "Dir::Etc::preferences", "preferences" },
	{ "Dir::Etc::preferencesparts", "preferences.d" },
};

static void opt_dirs(struct testbed_apt *apt)
{
	char *path;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(apt_dirs); i++) {
		path = xasprintf("%s/%s", apt->dir, apt_dirs[i][1]);
		opt(apt, apt_dirs[i][0], path);
		free(path);
	}
}

static int write_file(const char *path, const char *text, char **err)
{
	struct iovec iov = { (void *)text, strlen(text) };

	return cache__write(path, &iov, 1, err);
}

int testbed_apt__open(struct testbed_apt *apt, const char *cache,
		      const char *suite, const struct arch *arch, char **err)
{
	static const char *const dirs[] = { "state/lists/partial",
					    "cache/archives/partial",
					    "sources.list.d", "preferences.d" };
	char *path, *uri = NULL, *text;
	const char *keys;
	size_t i;
	int ret;

	memset(apt, 0, sizeof(*apt));
	if (!debian_suite__is_valid(suite) || !arch)
		return errmsg__set(
			err, -EINVAL,
			"'%.60s' is not a Debian suite name ([a-z0-9-])",
			suite);
	ret = keyring(&keys, err);
	if (!ret)
		ret = debian__mirror(&uri, err);
	if (ret)
		return ret;
	apt->suite = xstrdup(suite);
	apt->arch = arch;
	apt->dir = xasprintf("%s/" APT_SUB "/%s-%s", cache, suite, arch->deb);
	for (i = 0; i < ARRAY_SIZE(dirs) && !ret; i++) {
		path = xasprintf("%s/%s", apt->dir, dirs[i]);
		ret = cache__mkdirs(path, err);
		free(path);
	}
	if (ret)
		goto out;
	/* An empty dpkg status: what this machine has installed is no input. */
	path = xasprintf("%s/status", apt->dir);
	ret = cache__has_file(path) ? 0 : write_file(path, "", err);
	free(path);
	if (ret)
		goto out;
	path = xasprintf("%s/sources.list", apt->dir);
	text = xasprintf("deb [signed-by=%s] %s %s main\n", keys, uri, suite);
	ret = write_file(path, text, err);
	free(text);
	free(path);
	if (ret)
		goto out;
	opt_dirs(apt);
	/* The guest's arch alone: no multiarch set up on this machine. */
	opt(apt, "APT::Architecture", arch->deb);
	opt(apt, "APT::Architectures", arch->deb);
	/* Translations are the bulk of an update and nothing reads them. */
	opt(apt, "Acquire::Languages", "none");
out:
	free(uri);
	if (ret)
		testbed_apt__release(apt);
	return ret;
}

/* The first line of @text that starts with @prefix, in @buf; or NULL. */
static const char *line_with(const char *text, const char *prefix,
			     const char *needle, char *buf, size_t size)
{
	const char *line, *end;
	size_t plen = strlen(prefix);

	for (line = text; line && *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (strncmp(line, prefix, plen))
			continue;
		if (needle && !memmem(line, end - line, needle, strlen(needle)))
			continue;
		snprintf(buf, size, "%.*s", (int)(end - line - plen),
			 line + plen);
		return buf;
	}
	return NULL;
}

int testbed__apt_failure(const char *text, char *buf, size_t size)
{
	static const char *const sig[] = { "NO_PUBKEY",
					   "BADSIG",
					   "EXPKEYSIG",
					   "is not signed",
					   "signatures were invalid",
					   "GPG error" };
	size_t i;

	if (line_with(text, "E: ", "does not have a Release file", buf, size))
		return 1;
	/* apt's W: GPG error says why; its E: only that it is unsigned. */
	if (line_with(text, "W: ", "GPG error", buf, size))
		return 2;
	for (i = 0; i < ARRAY_SIZE(sig); i++)
		if (line_with(text, "E: ", sig[i], buf, size))
			return 2;
	if (!line_with(text, "E: ", NULL, buf, size))
		snprintf(buf, size, "apt-get said no more");
	return 0;
}

/*
 * @tool with the private options and @args (NULL-terminated), in @dir.
 * Its stderr in *@text (may be NULL); a failure says the command
 * without the options, which say nothing the reader needs.
 */
static int apt_run(const struct testbed_apt *apt, const char *tool,
		   const char *const *args, const char *dir, int timeout_ms,
		   char **out, char **text, char **err)
{
	struct strvec argv = { 0 }, shown = { 0 };
	char *stderr_text = NULL, *cmd, line[512];
	size_t i;
	int ret;

	strvec__push(&argv, tool);
	strvec__push(&shown, tool);
	for (i = 0; i < apt->opts.nr; i++)
		strvec__push(&argv, apt->opts.v[i]);
	for (i = 0; args[i]; i++) {
		strvec__push(&argv, args[i]);
		strvec__push(&shown, args[i]);
	}
	ret = testbed__run_std(strvec__argv(&argv), dir, timeout_ms, out,
			       &stderr_text, err);
	if (ret == -EIO) {
		testbed__apt_failure(stderr_text, line, sizeof(line));
		cmd = strvec__join(&shown, " ");
		errmsg__set(err, ret, "%s (%s, %s): %s", cmd, apt->suite,
			    apt->arch->deb, line);
		free(cmd);
	}
	if (text)
		*text = stderr_text;
	else
		free(stderr_text);
	strvec__release(&argv);
	strvec__release(&shown);
	return ret;
}

/* A fetch that failed is only a warning to apt-get update. */
static const char *fetch_failure(const char *text, char *buf, size_t size)
{
	const char *w = line_with(text, "W: ", "Failed to fetch", buf, size);

	return w ? w : line_with(text, "E: ", NULL, buf, size);
}

int testbed_apt__update(struct testbed_apt *apt, char **err)
{
	const char *args[] = { "update", NULL };
	char *text = NULL, line[512];
	const char *near;
	int ret;

	pr_info("testbed: apt-get update of %s (%s)", apt->suite,
		apt->arch->deb);
	ret = apt_run(apt, "apt-get", args, NULL, UPDATE_TIMEOUT_MS, NULL,
		      &text, err);
	if (ret == -EIO) {
		switch (testbed__apt_failure(text, line, sizeof(line))) {
		case 1:
			near = debian_suite__suggest(apt->suite);
			ret = errmsg__set(
				err, -ENOENT, "unknown suite '%s'%s%s%s: %s",
				apt->suite, near ? " (did you mean '" : "",
				near ? near : "", near ? "'?)" : "", line);
			break;
		case 2:
			ret = errmsg__set(err, -EPERM,
					  "the Release file of %s failed its "
					  "signature check: %s",
					  apt->suite, line);
			break;
		}
	} else if (!ret && fetch_failure(text, line, sizeof(line))) {
		ret = errmsg__set(err, -EIO, "apt-get update of %s: %s",
				  apt->suite, line);
	}
	free(text);
	return ret;
}

/* The linux-image-* name of the suite nearest @package. */
static char *nearest_image(struct testbed_apt *apt, const char *package)
{
	const char *args[] = { "pkgnames", "linux-image-", NULL };
	char *out = NULL, *why = NULL, *line, *save = NULL, *best = NULL;
	unsigned int d, best_d = ~0u;

	if (!apt_run(apt, "apt-cache", args, NULL, QUERY_TIMEOUT_MS, &out, NULL,
		     &why)) {
		for (line = strtok_r(out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			d = suggest__distance(package, line);
			/* Ties: the greater name, the newer kernel. */
			if (d < best_d ||
			    (d == best_d && best && strcmp(line, best) > 0)) {
				best_d = d;
				free(best);
				best = xstrdup(line);
			}
		}
	}
	free(out);
	free(why);
	return best;
}

int testbed_apt__show(struct testbed_apt *apt, const char *package,
		      char **stanza, char **err)
{
	const char *args[] = { "show", "--no-all-versions", package, NULL };
	char *near;
	int ret;

	ret = apt_run(apt, "apt-cache", args, NULL, QUERY_TIMEOUT_MS, stanza,
		      NULL, err);
	if (!ret && !**stanza) {
		free(*stanza);
		ret = -EIO;
	}
	if (ret != -EIO)
		return ret;
	near = nearest_image(apt, package);
	ret = errmsg__set(err, -ENOENT, "%s has no package %s for %s%s%s%s",
			  apt->suite, package, apt->arch->deb,
			  near ? " (did you mean '" : "", near ? near : "",
			  near ? "'?)" : "");
	free(near);
	return ret;
}

int testbed_apt__download(struct testbed_apt *apt, const char *package,
			  const char *dir, char **deb, char **err)
{
	const char *args[] = { "download", package, NULL };
	int ret;

	pr_info("testbed: downloading %s from %s", package, apt->suite);
	ret = apt_run(apt, "apt-get", args, dir, DOWNLOAD_TIMEOUT_MS, NULL,
		      NULL, err);
	return ret ? ret : testbed__find_deb(dir, package, deb, err);
}
