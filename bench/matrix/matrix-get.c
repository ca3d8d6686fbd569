// SPDX-License-Identifier: GPL-2.0-only
/*
 * Typed access to the TOML tree for the matrix parsers: each getter
 * checks type, range and form, and says what is wrong where it is wrong.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "matrix-priv.h"
#include "suggest.h"
#include "units.h"
#include "util.h"

static const char *type__article(enum toml_type t)
{
	switch (t) {
	case TOML_TABLE:
		return "a table";
	case TOML_ARRAY:
		return "an array";
	case TOML_STRING:
		return "a string";
	case TOML_INTEGER:
		return "an integer";
	case TOML_FLOAT:
		return "a float";
	case TOML_BOOL:
		return "a boolean";
	default:
		return "a date or time";
	}
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool mx_empty(struct mx *mx, const struct toml_value *v, const char *key,
	      const char *hint)
{
	if (v->u.arr.n)
		return false;
	mx_err(mx, v->pos, "%s: the list is empty; %s", key, hint);
	return true;
}

bool mx_tables(struct mx *mx, const struct toml_value *v, const char *key)
{
	if (v->type == TOML_ARRAY)
		return true;
	mx_err(mx, v->pos, "%s: expected an array of tables ([[%s]]), found %s",
	       key, key, v->type == TOML_TABLE ? "a table" : "another type");
	return false;
}

bool mx_item_name(struct mx *mx, const struct toml_value *tab, size_t i,
		  const char *what, char **name)
{
	if (mx_string(mx, tab, "name", MX_NAME, name) > 0)
		return true;
	if (!toml_table__get(tab, "name"))
		mx_err(mx, tab->pos, "%s #%zu has no name", what, i + 1);
	*name = xasprintf("#%zu", i + 1);
	return false;
}

bool mx_table_key(struct mx *mx, const struct toml_kv *kv, const char *what)
{
	const char *why = mx_kind__check(MX_NAME, kv->key);

	if (why || strlen(kv->key) != kv->keylen) {
		mx_err(mx, kv->pos, "%s name '%s' is not a safe name: %s", what,
		       kv->key, why ? why : "it holds a NUL byte");
		return false;
	}
	return mx_is(mx, kv->val, TOML_TABLE, kv->key);
}

bool mx_is(struct mx *mx, const struct toml_value *v, enum toml_type type,
	   const char *key)
{
	const char *hint = "";

	if (v->type == type)
		return true;
	/* Quotes around a number or a boolean are the usual slip. */
	if (v->type == TOML_STRING &&
	    ((type == TOML_INTEGER && all_digits(v->u.str.ptr)) ||
	     (type == TOML_BOOL && (!strcmp(v->u.str.ptr, "true") ||
				    !strcmp(v->u.str.ptr, "false")))))
		hint = " (remove the quotes)";
	mx_err(mx, v->pos, "%s: expected %s, found %s%s", key,
	       type__article(type), type__article(v->type), hint);
	return false;
}

const struct toml_kv *mx_kv(const struct toml_value *tab, const char *key)
{
	return tab ? toml_table__find(tab, key) : NULL;
}

struct toml_pos mx_key_pos(const struct toml_value *tab, const char *key,
			   struct toml_pos fallback)
{
	const struct toml_kv *kv = mx_kv(tab, key);

	return kv ? kv->pos : fallback;
}

struct toml_pos mx_val_pos(const struct toml_value *tab, const char *key,
			   struct toml_pos fallback)
{
	const struct toml_kv *kv = mx_kv(tab, key);

	return kv ? kv->val->pos : fallback;
}

/* A case slip ("dma-fq") first, then a typo. */
static const char *mx_suggest(const char *word, const char *const *names)
{
	const char *const *n;

	for (n = names; *n; n++)
		if (!strcasecmp(word, *n))
			return *n;
	return suggest__best(word, names);
}

static char *join_names(const char *const *names, size_t nr)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < nr && names[i]; i++)
		len += strlen(names[i]) + 2;
	s = xmalloc(len);
	s[0] = '\0';
	for (i = 0; i < nr && names[i]; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, names[i]);
	}
	return s;
}

void mx_check_keys(struct mx *mx, const struct toml_value *tab,
		   const char *const *allowed, const char *where)
{
	size_t i, nr_allowed = 0;

	while (allowed[nr_allowed])
		nr_allowed++;
	for (i = 0; i < tab->u.tab.n; i++) {
		const struct toml_kv *kv = &tab->u.tab.items[i];
		const char *best;
		size_t j;
		char *list;

		for (j = 0; j < nr_allowed; j++)
			if (strlen(allowed[j]) == kv->keylen &&
			    !memcmp(allowed[j], kv->key, kv->keylen))
				break;
		if (j < nr_allowed)
			continue;
		best = mx_suggest(kv->key, allowed);
		if (best) {
			mx_err(mx, kv->pos,
			       "unknown key '%s' in %s; did you mean '%s'?",
			       kv->key, where, best);
			continue;
		}
		list = join_names(allowed, nr_allowed);
		mx_err(mx, kv->pos, "unknown key '%s' in %s (known keys: %s)",
		       kv->key, where, list);
		free(list);
	}
}

int mx_bool(struct mx *mx, const struct toml_value *tab, const char *key,
	    bool *out)
{
	const struct toml_value *v = toml_table__get(tab, key);

	if (!v)
		return 0;
	if (!mx_is(mx, v, TOML_BOOL, key))
		return -1;
	*out = v->u.b;
	return 1;
}

int mx_uint(struct mx *mx, const struct toml_value *tab, const char *key,
	    uint64_t min, uint64_t max, uint64_t *out)
{
	const struct toml_value *v = toml_table__get(tab, key);

	if (!v)
		return 0;
	if (!mx_is(mx, v, TOML_INTEGER, key))
		return -1;
	if (v->u.i < 0 || (uint64_t)v->u.i < min || (uint64_t)v->u.i > max) {
		mx_err(mx, v->pos,
		       "%s: %" PRId64 " is out of range (%" PRIu64 "..%" PRIu64
		       ")",
		       key, v->u.i, min, max);
		return -1;
	}
	*out = v->u.i;
	return 1;
}

int mx_uint32(struct mx *mx, const struct toml_value *tab, const char *key,
	      unsigned int min, unsigned int max, unsigned int *out)
{
	uint64_t v;
	int ret = mx_uint(mx, tab, key, min, max, &v);

	if (ret > 0)
		*out = v;
	return ret;
}

static int cpu_of(struct mx *mx, const struct toml_value *v, const char *key)
{
	if (!mx_is(mx, v, TOML_INTEGER, key))
		return -1;
	if (v->u.i < 0 || v->u.i > MATRIX_MAX_CPU) {
		mx_err(mx, v->pos, "%s: CPU %lld is out of range (0..%d)", key,
		       (long long)v->u.i, MATRIX_MAX_CPU);
		return -1;
	}
	return v->u.i;
}

int mx_cpus(struct mx *mx, const struct toml_value *tab, const char *key,
	    unsigned int count, const char *one, const char *many, int **cpus,
	    size_t *nr)
{
	const struct toml_value *v = toml_table__get(tab, key);
	size_t i, n;
	int cpu;

	if (!v)
		return 0;
	if (v->type == TOML_INTEGER) {
		cpu = cpu_of(mx, v, key);
		if (cpu < 0)
			return -1;
		if (count > 1) {
			mx_err(mx, v->pos,
			       "%s: %u %s need one CPU each, like [2, 3]", key,
			       count, many);
			return -1;
		}
		*cpus = xcalloc(1, sizeof(int));
		(*cpus)[0] = cpu;
		*nr = 1;
		return 1;
	}
	if (v->type != TOML_ARRAY) {
		mx_err(mx, v->pos,
		       "%s: expected a CPU number or a list of them", key);
		return -1;
	}
	n = v->u.arr.n;
	if (n != count) {
		mx_err(mx, v->pos, "%s: %zu CPUs for %u %s; give one per %s",
		       key, n, count, count == 1 ? one : many, one);
		return -1;
	}
	*cpus = xcalloc(n, sizeof(int));
	for (i = 0; i < n; i++) {
		cpu = cpu_of(mx, v->u.arr.items[i], key);
		if (cpu < 0) {
			free(*cpus);
			*cpus = NULL;
			return -1;
		}
		(*cpus)[i] = cpu;
	}
	*nr = n;
	return 1;
}

int mx_enum(struct mx *mx, const struct toml_value *tab, const char *key,
	    const char *const *names, int *out)
{
	const struct toml_value *v = toml_table__get(tab, key);
	const char *best;
	size_t nr = 0;
	char *list;

	if (!v)
		return 0;
	if (!mx_is(mx, v, TOML_STRING, key))
		return -1;
	for (nr = 0; names[nr]; nr++) {
		if (!strcmp(names[nr], v->u.str.ptr) &&
		    strlen(v->u.str.ptr) == v->u.str.len) {
			*out = nr;
			return 1;
		}
	}
	list = join_names(names, nr);
	best = mx_suggest(v->u.str.ptr, names);
	if (best)
		mx_err(mx, v->pos,
		       "%s: '%s' is not one of %s; did you mean '%s'?", key,
		       v->u.str.ptr, list, best);
	else
		mx_err(mx, v->pos, "%s: '%s' is not one of %s", key,
		       v->u.str.ptr, list);
	free(list);
	return -1;
}

static bool has_ctrl(const char *s)
{
	for (; *s; s++)
		if (iscntrl((unsigned char)*s))
			return true;
	return false;
}

/* A string value, NUL bytes refused: C would silently cut it there. */
static const struct toml_value *
get_string(struct mx *mx, const struct toml_value *v, const char *key)
{
	if (!mx_is(mx, v, TOML_STRING, key))
		return NULL;
	if (strlen(v->u.str.ptr) != v->u.str.len) {
		mx_err(mx, v->pos, "%s: the string holds a NUL byte", key);
		return NULL;
	}
	return v;
}

int mx_text(struct mx *mx, const struct toml_value *tab, const char *key,
	    char **out)
{
	const struct toml_value *v = toml_table__get(tab, key);

	if (!v)
		return 0;
	if (!get_string(mx, v, key))
		return -1;
	/* Descriptions may span lines; other control characters, no. */
	for (const char *p = v->u.str.ptr; *p; p++) {
		if (iscntrl((unsigned char)*p) && *p != '\n' && *p != '\t') {
			mx_err(mx, v->pos,
			       "%s: control characters are not "
			       "allowed",
			       key);
			return -1;
		}
	}
	free(*out);
	*out = xstrdup(v->u.str.ptr);
	return 1;
}

static bool chars_in(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

static bool is_ip(const char *s)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, s, buf) == 1 ||
	       inet_pton(AF_INET6, s, buf) == 1;
}

static const char *check_cidr(const char *s)
{
	static const char why[] = "write it like '10.77.0.1/24'";
	unsigned char buf[sizeof(struct in6_addr)];
	const char *slash = strchr(s, '/');
	char addr[INET6_ADDRSTRLEN + 1];
	size_t len;
	char *end;
	int max;
	long bits;

	if (!slash || slash == s || !isdigit((unsigned char)slash[1]))
		return why;
	len = slash - s;
	if (len >= sizeof(addr))
		return why;
	memcpy(addr, s, len);
	addr[len] = '\0';
	if (inet_pton(AF_INET, addr, buf) == 1)
		max = 32;
	else if (inet_pton(AF_INET6, addr, buf) == 1)
		max = 128;
	else
		return why;
	bits = strtol(slash + 1, &end, 10);
	if (*end || bits < 1 || bits > max)
		return "the prefix length is out of range";
	return NULL;
}

/*
 * A lab's address: scheme, host, port, a path; no credentials (they
 * would be stored with the run) and no query.
 */
static const char *check_url(const char *s)
{
	static const char why[] = "write it like 'http://lava.example:8000'";
	const char *host = http__url_host(s), *p;

	if (!host)
		return "it must start with http:// or https://";
	for (p = host; *p && *p != '/'; p++)
		if (*p == '@')
			return "no user or password in the URL: the token "
			       "goes in token_file or token_env";
	if (p == host || !chars_in(host, "._:/[]-"))
		return why;
	return NULL;
}

/* The kinds that are letters, digits and a few more characters. */
static const struct charset {
	const char *extra;
	bool dash_first; /* may it start with '-'? */
	const char *words;
} charsets[] = {
	[MX_HOSTADDR] = { ".:_-%", false,
			  "use letters, digits, '.', ':', '_' and '-', not "
			  "starting with '-'" },
	[MX_RELEASE] = { "._+~-", true,
			 "use letters, digits, '.', '_', '+', '~' and '-'" },
	[MX_EVENT] = { "_.:/=,-", false,
		       "use letters, digits, '_', '.', ':', '/', '=', ',' and "
		       "'-', not starting with '-'" },
	[MX_PREFIX] = { "._/+-", false,
			"use letters, digits, '.', '_', '/', '+' and '-', not "
			"starting with '-'" },
};

static const char *check_charset(const struct charset *c, const char *s)
{
	if ((c->dash_first || s[0] != '-') && chars_in(s, c->extra))
		return NULL;
	return c->words;
}

const char *mx_kind__check(enum mx_kind kind, const char *s)
{
	if (!*s)
		return "it is empty";
	if (has_ctrl(s))
		return "it holds control characters";
	switch (kind) {
	case MX_NAME:
		if (s[0] != '-' && name_is_safe(s))
			return NULL;
		return "use only letters, digits, '.', '_' and '-' (at most 64, "
		       "not starting with '-')";
	case MX_IFNAME:
		if (s[0] != '-' && name_is_safe(s) && strlen(s) <= 15)
			return NULL;
		return "use 1-15 letters, digits, '.', '_' or '-'";
	case MX_PATH:
		if (s[0] == '-')
			return "a path must not start with '-'";
		if (s[0] == '~')
			return "'~' is not expanded; write the path in full";
		return NULL;
	case MX_KARG:
		for (const char *p = s; *p; p++)
			if (!isgraph((unsigned char)*p) || strchr("\"'\\", *p))
				return "one argument, without spaces, quotes "
				       "or backslashes";
		return NULL;
	case MX_ARGV:
		return NULL;
	case MX_HOSTADDR:
	case MX_RELEASE:
	case MX_EVENT:
	case MX_PREFIX:
		return check_charset(&charsets[kind], s);
	case MX_IP:
		return is_ip(s) ? NULL : "not an IPv4 or IPv6 address";
	case MX_CIDR:
		return check_cidr(s);
	case MX_REVISION:
		if (s[0] != '-' && !strstr(s, "..") && chars_in(s, "._/~^-"))
			return NULL;
		return "use letters, digits, '.', '_', '/', '~', '^' and '-', "
		       "not starting with '-', no '..' (one revision)";
	case MX_HOSTPATH:
		/* It reaches the agent's mkdir and rename as root. */
		if (s[0] == '/' && s[1] && chars_in(s, "._+/-") &&
		    !strstr(s, "..") && !strstr(s, "//"))
			return NULL;
		return "an absolute path of letters, digits, '.', '_', '+', "
		       "'/' and '-', without '..' or '//', not '/' itself";
	case MX_URL:
		return check_url(s);
	case MX_ENVNAME:
		if (!isdigit((unsigned char)s[0]) && chars_in(s, "_"))
			return NULL;
		return "use letters, digits and '_', not starting with a "
		       "digit";
	}
	return NULL;
}

static const char *const kind_names[] = {
	[MX_NAME] = "a safe name",
	[MX_IFNAME] = "an interface name",
	[MX_PATH] = "a usable path",
	[MX_KARG] = "a kernel argument",
	[MX_ARGV] = "a command argument",
	[MX_HOSTADDR] = "a host address",
	[MX_IP] = "an IP address",
	[MX_CIDR] = "an address with a prefix length",
	[MX_REVISION] = "a git revision",
	[MX_RELEASE] = "a kernel release",
	[MX_EVENT] = "a perf event",
	[MX_PREFIX] = "a CROSS_COMPILE prefix",
	[MX_HOSTPATH] = "a path on the host",
	[MX_URL] = "a server's URL",
	[MX_ENVNAME] = "a variable name",
};

/* Check, resolve and copy one string of @kind. */
static char *take(struct mx *mx, const struct toml_value *v, const char *key,
		  enum mx_kind kind)
{
	const char *why;

	if (!get_string(mx, v, key))
		return NULL;
	why = mx_kind__check(kind, v->u.str.ptr);
	if (why) {
		mx_err(mx, v->pos, "%s: '%s' is not %s: %s", key, v->u.str.ptr,
		       kind_names[kind], why);
		return NULL;
	}
	if (kind == MX_PATH && v->u.str.ptr[0] != '/' &&
	    strcmp(mx->m->dir, "."))
		return xasprintf("%s/%s", mx->m->dir, v->u.str.ptr);
	return xstrdup(v->u.str.ptr);
}

int mx_string(struct mx *mx, const struct toml_value *tab, const char *key,
	      enum mx_kind kind, char **out)
{
	const struct toml_value *v = toml_table__get(tab, key);
	char *s;

	if (!v)
		return 0;
	s = take(mx, v, key, kind);
	if (!s)
		return -1;
	free(*out);
	*out = s;
	return 1;
}

int mx_strings(struct mx *mx, const struct toml_value *tab, const char *key,
	       enum mx_kind kind, char ***out, size_t *nr)
{
	const struct toml_value *v = toml_table__get(tab, key);
	char **strv;
	size_t i, n = 0;
	bool bad = false;

	if (!v)
		return 0;
	if (v->type != TOML_ARRAY) {
		mx_err(mx, v->pos, "%s: expected an array of strings, found %s",
		       key, type__article(v->type));
		return -1;
	}
	strv = xcalloc(v->u.arr.n + 1, sizeof(*strv));
	for (i = 0; i < v->u.arr.n; i++) {
		char *s = take(mx, v->u.arr.items[i], key, kind);

		if (s)
			strv[n++] = s;
		else
			bad = true;
	}
	if (bad) {
		strv_free(strv, n);
		return -1;
	}
	strv_free(*out, *nr);
	*out = strv;
	*nr = n;
	return 1;
}

typedef int units_fn(const char *, uint64_t *, char *, size_t);

static int get_unit(struct mx *mx, const struct toml_value *tab,
		    const char *key, units_fn *fn, bool int_ok,
		    const char *example, uint64_t *out)
{
	const struct toml_value *v = toml_table__get(tab, key);
	char err[UNITS_ERR_MAX];
	uint64_t val;

	if (!v)
		return 0;
	if (v->type == TOML_INTEGER && int_ok) {
		if (v->u.i < 0) {
			mx_err(mx, v->pos, "%s: %" PRId64 " cannot be negative",
			       key, v->u.i);
			return -1;
		}
		*out = v->u.i;
		return 1;
	}
	if (v->type == TOML_INTEGER) {
		/* A bare number of what? iperf3 says seconds, sleep too... */
		mx_err(mx, v->pos,
		       "%s: expected %s, found an integer "
		       "(write \"%" PRId64 "s\" for seconds)",
		       key, example, v->u.i);
		return -1;
	}
	if (v->type != TOML_STRING) {
		mx_err(mx, v->pos, "%s: expected %s, found %s", key, example,
		       type__article(v->type));
		return -1;
	}
	if (!get_string(mx, v, key))
		return -1;
	if (fn(v->u.str.ptr, &val, err, sizeof(err))) {
		mx_err(mx, v->pos, "%s: %s", key, err);
		return -1;
	}
	*out = val;
	return 1;
}

int mx_duration(struct mx *mx, const struct toml_value *tab, const char *key,
		uint64_t *ms)
{
	return get_unit(mx, tab, key, units__parse_duration, false,
			"a duration like '30s' or '5m'", ms);
}

int mx_size(struct mx *mx, const struct toml_value *tab, const char *key,
	    uint64_t *bytes)
{
	return get_unit(mx, tab, key, units__parse_size, true,
			"a size like '128K' or 9000", bytes);
}

int mx_bitrate(struct mx *mx, const struct toml_value *tab, const char *key,
	       uint64_t *bps)
{
	return get_unit(mx, tab, key, units__parse_bitrate, true,
			"a bitrate like '10G' or '500M'", bps);
}

long mx_ref(struct mx *mx, struct toml_pos pos, const char *key,
	    const char *what, const char *name, const char *const *names,
	    size_t nr)
{
	const char *best;
	const char **list;
	char *joined;
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return i;
	list = xcalloc(nr + 1, sizeof(*list));
	memcpy(list, names, nr * sizeof(*list));
	joined = join_names(list, nr);
	best = mx_suggest(name, list);
	if (!nr)
		mx_err(mx, pos, "%s: unknown %s '%s' (none is defined)", key,
		       what, name);
	else if (best)
		mx_err(mx, pos,
		       "%s: unknown %s '%s' (defined: %s); did you "
		       "mean '%s'?",
		       key, what, name, joined, best);
	else
		mx_err(mx, pos, "%s: unknown %s '%s' (defined: %s)", key, what,
		       name, joined);
	free(joined);
	free(list);
	return -1;
}
