/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the TOML parser: parse, check the tree's
 * invariants, exercise the lookup and formatting helpers on every node,
 * free.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz-util.h"
#include "toml.h"

static void fuzz__pos(struct toml_pos pos, unsigned int lines)
{
	CHECK(pos.line >= 1 && pos.line <= lines);
	CHECK(pos.col >= 1);
}

static void fuzz__walk(const struct toml_value *v, unsigned int depth,
		       unsigned int lines)
{
	char buf[96];
	size_t i;
	int n;

	CHECK(depth <= TOML_MAX_DEPTH + 1);
	fuzz__pos(v->pos, lines);
	CHECK(strcmp(toml_type__name(v->type), "unknown"));
	switch (v->type) {
	case TOML_TABLE:
		for (i = 0; i < v->u.tab.n; i++) {
			const struct toml_kv *kv = &v->u.tab.items[i];

			fuzz__pos(kv->pos, lines);
			CHECK(kv->key[kv->keylen] == '\0');
			/* Keys holding a NUL are found under their prefix. */
			if (strlen(kv->key) == kv->keylen)
				CHECK(toml_table__find(v, kv->key) == kv);
			fuzz__walk(kv->val, depth + 1, lines);
		}
		break;
	case TOML_ARRAY:
		for (i = 0; i < v->u.arr.n; i++)
			fuzz__walk(v->u.arr.items[i], depth + 1, lines);
		break;
	case TOML_STRING:
		CHECK(v->u.str.ptr[v->u.str.len] == '\0');
		break;
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		n = toml_datetime__format(v, buf, sizeof(buf));
		CHECK(n > 0 && (size_t)n < sizeof(buf) &&
		      strlen(buf) == (size_t)n);
		CHECK(toml_datetime__format(v, buf, 4) == n);
		CHECK(v->u.dt.nsec >= 0 && v->u.dt.nsec < 1000000000);
		break;
	default:
		CHECK(toml_datetime__format(v, buf, sizeof(buf)) < 0);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml_error err;
	struct toml_value *root;
	unsigned int lines = 1;
	size_t i;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	root = toml__parse((const char *)data, size, &err);
	if (!root) {
		/* Every rejection says where, and why. */
		CHECK(err.line >= 1 && err.line <= lines && err.col >= 1);
		CHECK(err.msg[0] && memchr(err.msg, '\0', sizeof(err.msg)));
		return 0;
	}
	CHECK(root->type == TOML_TABLE);
	fuzz__walk(root, 0, lines);
	toml_value__free(root);
	return 0;
}
