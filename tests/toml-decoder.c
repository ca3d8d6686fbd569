/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A decoder for the toml-test suite (tests/toml-test): TOML on stdin,
 * the "tagged JSON" form of it on stdout. Invalid input exits 1 with the
 * parser's line:column message on stderr, which is all the suite checks.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "toml.h"

static json_t *decoder__value(const struct toml_value *v);

static json_t *decoder__tagged(const char *type, const char *text)
{
	return json_pack("{s:s, s:s}", "type", type, "value", text);
}

/*
 * The shortest of %.15g..%.17g that reads back as the same double: exact,
 * and without the noise digits %.17g alone would print for 0.1.
 */
static void decoder__format_float(double f, char *buf, size_t size)
{
	int prec;

	if (isnan(f)) {
		snprintf(buf, size, "nan");
		return;
	}
	if (isinf(f)) {
		snprintf(buf, size, "%sinf", f < 0 ? "-" : "");
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, size, "%.*g", prec, f);
		if (strtod(buf, NULL) == f)
			return;
	}
	snprintf(buf, size, "%.17g", f);
}

static json_t *decoder__scalar(const struct toml_value *v)
{
	static const char *const tags[] = {
		[TOML_STRING] = "string",
		[TOML_INTEGER] = "integer",
		[TOML_FLOAT] = "float",
		[TOML_BOOL] = "bool",
		[TOML_DATETIME] = "datetime",
		[TOML_DATETIME_LOCAL] = "datetime-local",
		[TOML_DATE_LOCAL] = "date-local",
		[TOML_TIME_LOCAL] = "time-local",
	};
	char text[64];
	json_t *str;

	switch (v->type) {
	case TOML_STRING:
		/* json_stringn, since a TOML string may hold "\u0000". */
		str = json_stringn(v->u.str.ptr, v->u.str.len);
		return str ? json_pack("{s:s, s:o}", "type", "string", "value",
				       str) :
			     NULL;
	case TOML_INTEGER:
		snprintf(text, sizeof(text), "%" PRId64, v->u.i);
		break;
	case TOML_FLOAT:
		decoder__format_float(v->u.f, text, sizeof(text));
		break;
	case TOML_BOOL:
		snprintf(text, sizeof(text), "%s", v->u.b ? "true" : "false");
		break;
	default:
		if (toml_datetime__format(v, text, sizeof(text)) < 0)
			return NULL;
		break;
	}
	return decoder__tagged(tags[v->type], text);
}

static json_t *decoder__table(const struct toml_value *tab)
{
	json_t *obj = json_object();
	size_t i;

	for (i = 0; obj && i < tab->u.tab.n; i++) {
		const struct toml_kv *kv = &tab->u.tab.items[i];

		if (json_object_setn_new(obj, kv->key, kv->keylen,
					 decoder__value(kv->val))) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

static json_t *decoder__array(const struct toml_value *arr)
{
	json_t *out = json_array();
	size_t i;

	for (i = 0; out && i < arr->u.arr.n; i++) {
		if (json_array_append_new(
			    out, decoder__value(arr->u.arr.items[i]))) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

/* The parser bounds nesting at TOML_MAX_DEPTH, so recursion is safe. */
static json_t *decoder__value(const struct toml_value *v)
{
	if (v->type == TOML_TABLE)
		return decoder__table(v);
	if (v->type == TOML_ARRAY)
		return decoder__array(v);
	return decoder__scalar(v);
}

static int decoder__read(FILE *in, char **bufp, size_t *lenp)
{
	size_t len = 0, alloc = 0, n;
	char *buf = NULL, *grown;

	do {
		if (alloc - len < 4096) {
			alloc = alloc ? alloc * 2 : 65536;
			grown = realloc(buf, alloc);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
		}
		n = fread(buf + len, 1, alloc - len, in);
		len += n;
	} while (n);
	if (ferror(in)) {
		free(buf);
		return -EIO;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

int main(void)
{
	struct toml_error err;
	struct toml_value *root;
	json_t *json = NULL;
	char *buf;
	size_t len;
	int ret = 1;

	if (decoder__read(stdin, &buf, &len)) {
		fprintf(stderr, "toml-decoder: cannot read stdin: %s\n",
			strerror(errno));
		return 2;
	}
	root = toml__parse(buf, len, &err);
	if (!root) {
		fprintf(stderr, "<stdin>:%u:%u: %s\n", err.line, err.col,
			err.msg);
		goto out;
	}
	json = decoder__value(root);
	if (!json || json_dumpf(json, stdout, JSON_INDENT(2)) ||
	    fputc('\n', stdout) == EOF || fflush(stdout)) {
		fprintf(stderr, "toml-decoder: cannot write JSON\n");
		ret = 2;
		goto out;
	}
	ret = 0;
out:
	json_decref(json);
	toml_value__free(root);
	free(buf);
	return ret;
}
