// SPDX-License-Identifier: GPL-2.0-only
/*
 * The debs of a foreign arch's image, fetched by an apt of their own:
 * its sources, index, status (empty: nothing is installed) and
 * downloads all in $cache/labvm/debs/SUITE-ARCH/, so that this
 * machine's /etc/apt and its dpkg database are never written, and a
 * rebuild finds every deb already there. Only the Debian mirror is
 * asked (debian__mirror()).
 *
 *   apt/sources.list, apt/status   the private apt's configuration
 *   apt/state/, apt/cache/          its index
 *   archives/                       the debs, kept between builds
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bench/labvm/labvm-priv.h"
#include "cache.h"
#include "debian-suite.h"
#include "errmsg.h"
#include "strvec.h"
#include "subprocess.h"
#include "util.h"

#define APT_TIMEOUT_MS (20 * 60 * 1000)
#define FIELD_TIMEOUT_MS 30000
/* Trixie's archive key is in bookworm's keyring as well. */
#define KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"

/* Debian policy's package names, and versions as dpkg takes them. */
static bool deb_name_ok(const char *s, size_t len)
{
	size_t i;

	if (len < 2 || len > 128 || !isalnum((unsigned char)s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && !strchr("+-.", s[i]))
			return false;
	return true;
}

static bool deb_version_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len > 128 || !isalnum((unsigned char)s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(".+~:-", s[i]))
			return false;
	return true;
}

static bool deb_arch_ok(const char *s, size_t len)
{
	size_t i;

	if (!len || len > 16)
		return false;
	for (i = 0; i < len; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]))
			return false;
	return true;
}

int labvm_debs__parse_sim(const char *text, const char *archives,
			  struct labvm_debs *out, char **err)
{
	const char *line, *end, *name, *ver, *arch, *p;
	size_t name_len, ver_len, arch_len, alloc = 0, o;
	char quoted[3 * 128 + 1];

	memset(out, 0, sizeof(*out));
	for (line = text; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (strncmp(line, "Inst ", 5))
			continue;
		/* "Inst NAME (VERSION RELEASE [ARCH])" */
		name = line + 5;
		name_len = strcspn(name, " \n");
		ver = name + name_len;
		if (strncmp(ver, " (", 2))
			goto bad;
		ver += 2;
		ver_len = strcspn(ver, " )\n");
		arch = strchr(ver, '[');
		if (!arch || (end && arch > end))
			goto bad;
		arch++;
		arch_len = strcspn(arch, "]\n");
		if (!deb_name_ok(name, name_len) ||
		    !deb_version_ok(ver, ver_len) ||
		    !deb_arch_ok(arch, arch_len))
			goto bad;
		/* apt's file name: the version's ':' quoted as %3a. */
		for (p = ver, o = 0; p < ver + ver_len; p++) {
			if (*p == ':') {
				memcpy(quoted + o, "%3a", 3);
				o += 3;
			} else {
				quoted[o++] = *p;
			}
		}
		quoted[o] = '\0';
		ALLOC_GROW(out->v, out->nr + 1, alloc);
		out->v[out->nr++] = (struct labvm_deb){
			.name = xstrndup(name, name_len),
			.file = xasprintf("%s/%.*s_%s_%.*s.deb", archives,
					  (int)name_len, name, quoted,
					  (int)arch_len, arch),
			.rank = LABVM_DEB_REST,
		};
	}
	if (!out->nr)
		return errmsg__set(err, -ENOENT,
				   "apt would install nothing: no 'Inst' line "
				   "in its answer");
	return 0;
bad:
	labvm_debs__release(out);
	o = end ? (size_t)(end - line) : strlen(line);
	return errmsg__set(err, -EINVAL,
			   "apt's answer has a line we do not take as a "
			   "package: '%.*s'",
			   (int)(o > 120 ? 120 : o), line);
}

/* @field's value in @control is @value (case aside). */
static bool field_is(const char *control, const char *field, const char *value)
{
	size_t flen = strlen(field), vlen = strlen(value);
	const char *p;

	for (p = control; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v = p + flen;

		if (strncasecmp(p, field, flen) || *v != ':')
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		if (!strncasecmp(v, value, vlen) &&
		    (!v[vlen] || isspace((unsigned char)v[vlen])))
			return true;
	}
	return false;
}

enum labvm_deb_rank labvm_debs__rank(const char *name, const char *control)
{
	if (!strcmp(name, "base-passwd"))
		return LABVM_DEB_PASSWD;
	if (!strcmp(name, "base-files"))
		return LABVM_DEB_FILES;
	if (field_is(control, "Essential", "yes") ||
	    field_is(control, "Priority", "required"))
		return LABVM_DEB_ESSENTIAL;
	return LABVM_DEB_REST;
}

static int deb_cmp(const void *a, const void *b)
{
	const struct labvm_deb *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

void labvm_debs__order(struct labvm_debs *d)
{
	if (d->nr)
		qsort(d->v, d->nr, sizeof(*d->v), deb_cmp);
}

void labvm_debs__release(struct labvm_debs *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free_all(d->v[i].name, d->v[i].file);
	free(d->v);
	memset(d, 0, sizeof(*d));
}

static void push_all(struct strvec *a, const char *const *v)
{
	for (; *v; v++)
		strvec__push(a, *v);
}

/* apt-get with the private configuration of folder @dir. */
static void apt_argv(struct strvec *a, const char *dir, const char *arch)
{
	strvec__push(a, "apt-get");
	strvec__push(a, "-q");
	strvec__pushf(a, "-oDir::Etc::sourcelist=%s/apt/sources.list", dir);
	strvec__push(a, "-oDir::Etc::sourceparts=-");
	strvec__pushf(a, "-oDir::Etc::preferences=%s/apt/preferences", dir);
	strvec__push(a, "-oDir::Etc::preferencesparts=-");
	strvec__pushf(a, "-oDir::State=%s/apt/state", dir);
	strvec__pushf(a, "-oDir::State::status=%s/apt/status", dir);
	strvec__pushf(a, "-oDir::Cache=%s/apt/cache", dir);
	strvec__pushf(a, "-oDir::Cache::archives=%s/archives", dir);
	strvec__pushf(a, "-oAPT::Architecture=%s", arch);
	strvec__pushf(a, "-oAPT::Architectures::=%s", arch);
	strvec__push(a, "-oAPT::Install-Recommends=false");
	strvec__push(a, "-oAcquire::Languages=none");
}

static int setup(const struct labvm_recipe *r, const char *dir, char **err)
{
	static const char *const subs[] = { "apt/state/lists/partial",
					    "apt/cache", "archives/partial" };
	char *mirror = NULL, *path, *text;
	struct iovec iov;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(subs); i++) {
		path = xasprintf("%s/%s", dir, subs[i]);
		ret = cache__mkdirs(path, err);
		free(path);
		if (ret)
			return ret;
	}
	ret = debian__mirror(&mirror, err);
	if (ret)
		return ret;
	text = xasprintf("deb [signed-by=" KEYRING "] %s %s main\n", mirror,
			 r->suite);
	path = xasprintf("%s/apt/sources.list", dir);
	iov = (struct iovec){ text, strlen(text) };
	ret = cache__write(path, &iov, 1, err);
	free(path);
	/* Nothing installed: apt resolves the whole set. */
	path = xasprintf("%s/apt/status", dir);
	iov = (struct iovec){ "", 0 };
	if (!ret)
		ret = cache__write(path, &iov, 1, err);
	free_all(path, text, mirror);
	return ret;
}

/* Each deb's rank, from its control fields. */
static int rank_all(struct labvm_debs *d, char **err)
{
	struct spawn sp;
	size_t i;
	int ret = 0;

	for (i = 0; i < d->nr && !ret; i++) {
		ret = spawn__run(
			&sp,
			(const char *const[]){ "dpkg-deb", "-f", d->v[i].file,
					       "Essential", "Priority", NULL },
			&(struct spawn_opts){ .flags = SPAWN_CAPTURE_OUT |
						       SPAWN_NULL_ERR },
			FIELD_TIMEOUT_MS);
		if (!ret && !spawn__succeeded(&sp))
			ret = -EIO;
		if (ret)
			errmsg__set(err, ret, "dpkg-deb -f %s failed",
				    d->v[i].file);
		else
			d->v[i].rank = labvm_debs__rank(d->v[i].name,
							sp.out ? sp.out : "");
		spawn__release(&sp);
	}
	return ret;
}

int labvm_debs__fetch(struct labvm_build *b, const struct labvm_recipe *r,
		      const char *const *pkgs, bool update,
		      struct labvm_debs *out, char **err)
{
	const struct arch *a = arch__find(r->arch);
	struct strvec base = { 0 }, cmd = { 0 };
	char *sub, *dir = NULL, *archives = NULL, *sim = NULL;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	sub = xasprintf("debs/%s-%s", r->suite, a->deb);
	dir = labvm__dir(sub, err);
	free(sub);
	ret = dir ? setup(r, dir, err) : -ENOENT;
	if (ret)
		goto out;
	archives = xasprintf("%s/archives", dir);
	apt_argv(&base, dir, a->deb);
	if (update) {
		push_all(&cmd, strvec__argv(&base));
		strvec__push(&cmd, "update");
		ret = labvm_build__run(b, strvec__argv(&cmd), APT_TIMEOUT_MS,
				       NULL, err);
		strvec__release(&cmd);
		if (ret)
			goto out;
	}
	/* What it would install, exactly: those files and no others. */
	push_all(&cmd, strvec__argv(&base));
	strvec__push(&cmd, "-s");
	strvec__push(&cmd, "install");
	push_all(&cmd, pkgs);
	ret = labvm_build__capture(b, strvec__argv(&cmd), APT_TIMEOUT_MS, &sim,
				   err);
	strvec__release(&cmd);
	if (!ret)
		ret = labvm_debs__parse_sim(sim, archives, out, err);
	if (ret)
		goto out;
	/* What the archives lack, downloaded; the rest kept from before. */
	push_all(&cmd, strvec__argv(&base));
	strvec__push(&cmd, "-y");
	strvec__push(&cmd, "--download-only");
	strvec__push(&cmd, "install");
	push_all(&cmd, pkgs);
	ret = labvm_build__run(b, strvec__argv(&cmd), APT_TIMEOUT_MS, NULL,
			       err);
	strvec__release(&cmd);
	for (i = 0; !ret && i < out->nr; i++)
		if (!cache__has_file(out->v[i].file))
			ret = errmsg__set(err, -ENOENT, "apt downloaded no %s",
					  out->v[i].file);
	if (!ret)
		ret = rank_all(out, err);
	if (!ret)
		labvm_debs__order(out);
out:
	if (ret)
		labvm_debs__release(out);
	strvec__release(&base);
	strvec__release(&cmd);
	free_all(dir, archives, sim);
	return ret;
}
