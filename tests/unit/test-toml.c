/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests for the TOML parser. Conformance is toml-test's job
 * (tests/toml-test.t); this covers what it cannot see: positions, the
 * wording of error messages, the lookup helpers and datetime formatting.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "toml.h"

static struct toml_value *parse(const char *text, struct toml_error *err)
{
	return toml__parse(text, strlen(text), err);
}

/* The value at a dotted path of plain keys, for short test lookups. */
static const struct toml_value *path(const struct toml_value *v,
				     const char *dotted)
{
	char buf[256], *save = NULL, *key;

	snprintf(buf, sizeof(buf), "%s", dotted);
	for (key = strtok_r(buf, ".", &save); key && v;
	     key = strtok_r(NULL, ".", &save))
		v = toml_table__get(v, key);
	return v;
}

static void test_positions(void)
{
	static const char doc[] =
		"# header comment\n"
		"title = \"x\"\n"
		"[owner]\n"
		"  name   =   'Tom'\n"
		"[a.b]\n"
		"c.d = [1,\n"
		"       2]\n"
		"\"\xc3\xa9\" = '\xc3\xbc'  # code points, not bytes\n"
		"[[arr]]\n"
		"x = {y = 1979-05-27}\n";
	struct toml_error err;
	struct toml_value *root = parse(doc, &err);
	const struct toml_kv *kv;
	const struct toml_value *v;

	if (!ok(root, "positions document parses")) {
		tap_diag("%u:%u: %s", err.line, err.col, err.msg);
		return;
	}
	is_int(root->pos.line, 1, "root at line 1");
	kv = toml_table__find(root, "title");
	is_int(kv ? kv->pos.line : 0, 2, "key title: line");
	is_int(kv ? kv->pos.col : 0, 1, "key title: column");
	is_int(kv ? kv->val->pos.col : 0, 9, "value of title: column");
	kv = toml_table__find(path(root, "owner"), "name");
	is_int(kv ? kv->pos.line : 0, 4, "key name: line");
	is_int(kv ? kv->pos.col : 0, 3, "key name: column (after indent)");
	is_int(kv ? kv->val->pos.col : 0, 14, "value 'Tom': column");
	v = path(root, "owner");
	is_int(v ? v->pos.line : 0, 3, "[owner] table starts at its header");
	kv = toml_table__find(path(root, "a.b.c"), "d");
	is_int(kv ? kv->pos.col : 0, 3,
	       "dotted key: position of its last part");
	v = path(root, "a.b.c.d");
	ok(v && v->type == TOML_ARRAY && v->u.arr.n == 2, "c.d is [1, 2]");
	if (v && v->u.arr.n == 2) {
		is_int(v->u.arr.items[1]->pos.line, 7, "2nd element: line");
		is_int(v->u.arr.items[1]->pos.col, 8, "2nd element: column");
	}
	kv = toml_table__find(path(root, "a.b"), "\xc3\xa9");
	is_int(kv ? kv->pos.col : 0, 1, "quoted key: column of its quote");
	is_int(kv ? kv->val->pos.col : 0, 7, "column counts code points");
	v = toml_table__get(root, "arr");
	ok(v && v->type == TOML_ARRAY && v->u.arr.n == 1,
	   "[[arr]] is an array");
	v = v && v->u.arr.n ? v->u.arr.items[0] : NULL;
	is_int(v ? v->pos.line : 0, 9, "array element table at its [[header]]");
	v = path(v, "x.y");
	is_int(v ? (int)v->type : -1, TOML_DATE_LOCAL, "x.y is a local date");
	is_int(v ? v->pos.col : 0, 10, "inline table value: column");
	toml_value__free(root);
}

struct bad_case {
	const char *name;
	const char *doc;
	unsigned int line, col;
	const char *msg; /* a substring of the message */
};

static const struct bad_case bad_cases[] = {
	{ "missing '='", "name x = 1\n", 1, 6,
	  "expected '=' after key 'name', found 'x'" },
	{ "missing '=' at end of line", "\n  name\n", 2, 7,
	  "expected '=' after key 'name', found end of line" },
	{ "unterminated string", "a = 1\nb = \"abc\nc = 2\n", 2, 5,
	  "unterminated string: expected closing '\"' before end of line" },
	{ "unterminated multi-line string", "a = '''\nabc\n", 1, 5,
	  "expected closing ''' before end of file" },
	{ "duplicate key", "a = 1\nb = 2\n\na = 3\n", 4, 1,
	  "duplicate key 'a' (first defined at line 1)" },
	{ "duplicate dotted key", "x.y = 1\nx.y = 2\n", 2, 3,
	  "duplicate key 'x.y' (first defined at line 1)" },
	{ "bad escape", "a = \"x\\qy\"\n", 1, 7,
	  "invalid escape sequence '\\q' in string" },
	{ "surrogate escape", "a = \"\\uD800\"\n", 1, 6,
	  "escape \\uD800 is not a Unicode scalar value" },
	{ "escape above U+10FFFF", "a = \"\\U00110000\"\n", 1, 6,
	  "is not a Unicode scalar value" },
	{ "integer overflow", "n = 99999999999999999999\n", 1, 5,
	  "integer 99999999999999999999 out of range for a 64-bit integer" },
	{ "integer overflow by one", "n = 9223372036854775808\n", 1, 5,
	  "out of range for a 64-bit integer" },
	{ "leading zero", "n = 007\n", 1, 5,
	  "invalid number '007': leading zeros are not allowed" },
	{ "double underscore", "n = 1__0\n", 1, 5,
	  "an underscore must sit between two digits" },
	{ "bad date", "d = 2021-02-30\n", 1, 5,
	  "invalid date 2021-02-30: February 2021 has days 01 to 28" },
	{ "bad time", "t = 24:00:00\n", 1, 5,
	  "invalid time 24:00:00: hour out of range" },
	{ "invalid UTF-8", "# ok\na = \"\xff\"\n", 2, 6,
	  "invalid UTF-8 (byte 0xff)" },
	{ "overlong UTF-8", "a = \"\xc0\xaf\"\n", 1, 6, "overlong encoding" },
	{ "UTF-8 surrogate", "a = \"\xed\xa0\x80\"\n", 1, 6,
	  "encoded surrogate" },
	{ "control character in comment", "a = 1 # \x01\n", 1, 9,
	  "control character U+0001 is not allowed" },
	{ "bare carriage return", "a = 1\rb = 2\n", 1, 6,
	  "carriage return not followed by a line feed" },
	{ "table redefined", "[a]\nx = 1\n[b]\n[a]\n", 4, 1,
	  "duplicate table [a] (first defined at line 1)" },
	{ "table made by dotted keys reopened", "[a]\nb.c = 1\n[a.b]\n", 3, 1,
	  "cannot define table [a.b]: dotted keys already defined it at line 2" },
	{ "header table extended by dotted keys", "[a.b]\n[a]\nb.c = 1\n", 3, 1,
	  "cannot add to table 'b' with dotted keys" },
	{ "key after an inline table", "a = {b = 1} c = 2\n", 1, 13,
	  "expected end of line after the value of 'a', found 'c'" },
	{ "inline table extended", "a = {b = 1}\na.c = 2\n", 2, 1,
	  "cannot add to inline table 'a' (defined at line 1)" },
	{ "inline table extended by header", "a = {}\n[a.b]\n", 2, 2,
	  "'a' already holds an inline table (line 1)" },
	{ "inline table over two lines", "a = {b = 1,\nc = 2}\n", 1, 12,
	  "expected a key, found end of line" },
	{ "trailing comma in inline table", "a = {b = 1,}\n", 1, 12,
	  "trailing comma not allowed in an inline table" },
	{ "[[x]] onto a static array", "a = [1]\n[[a]]\n", 2, 1,
	  "cannot define array of tables [[a]]: the key already holds an array (line 1)" },
	{ "[x] onto an array of tables", "[[a]]\n[a]\n", 2, 1,
	  "the key already holds an array of tables (line 1)" },
	{ "value missing", "a =\n", 1, 4,
	  "expected a value after '=' for key 'a', found end of line" },
	{ "unquoted string", "a = hello\n", 1, 5,
	  "expected a value, found 'hello'" },
	{ "missing comma in array", "a = [1 2]\n", 1, 8,
	  "expected ',' or ']' after array element, found '2'" },
	{ "unclosed header", "[a\n", 1, 3,
	  "expected ']' after table name 'a', found end of line" },
	{ "column in code points", "s = \"\xc3\xa4\" x\n", 1, 9, "found 'x'" },
	{ "CRLF counts one line", "a = 1\r\nb = 2\r\na = 3\r\n", 3, 1,
	  "duplicate key 'a'" },
	{ "multi-line key", "\"\"\"k\"\"\" = 1\n", 1, 1,
	  "a multi-line string cannot be a key" },
	{ "float out of range", "f = 1e999\n", 1, 5,
	  "float 1e999 out of range for a 64-bit float" },
	{ "sign on hex", "n = -0x1\n", 1, 5,
	  "a sign is not allowed before 0x, 0o or 0b" },
};

static void test_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct toml_error err;
		struct toml_value *root = parse(c->doc, &err);

		ok(!root, "%s: rejected", c->name);
		toml_value__free(root);
		is_int(err.line, c->line, "%s: line", c->name);
		is_int(err.col, c->col, "%s: column", c->name);
		has_str(err.msg, c->msg, "%s: message", c->name);
	}
}

static void test_nesting(void)
{
	char doc[2 * (TOML_MAX_DEPTH + 1) + 16];
	struct toml_error err;
	struct toml_value *root;
	int n;

	/* a = [[...]]: the array itself is level 1 under the root table. */
	for (n = TOML_MAX_DEPTH; n <= TOML_MAX_DEPTH + 1; n++) {
		strcpy(doc, "a = ");
		memset(doc + 4, '[', n);
		memset(doc + 4 + n, ']', n);
		doc[4 + 2 * n] = '\0';
		root = parse(doc, &err);
		if (n == TOML_MAX_DEPTH) {
			ok(root, "%d nested arrays are fine", n);
		} else {
			ok(!root, "%d nested arrays are too deep", n);
			is_int(err.col, 4 + n,
			       "nesting error at the deepest '['");
			has_str(err.msg, "nested too deeply",
				"nesting error message");
		}
		toml_value__free(root);
	}
}

/*
 * Headers and dotted keys nest tables too, and count toward the limit;
 * a scalar at the end of a key is no level of its own.
 */
static void test_key_nesting(void)
{
	static const struct {
		const char *fmt;
		int parts;
		bool good;
	} cases[] = {
		{ "[%s]", TOML_MAX_DEPTH, true },
		{ "[%s]", TOML_MAX_DEPTH + 1, false },
		{ "[%s]", 3 * TOML_MAX_DEPTH, false },
		{ "[[%s]]", TOML_MAX_DEPTH - 1, true },
		{ "[[%s]]", TOML_MAX_DEPTH, false },
		{ "%s = 1", TOML_MAX_DEPTH + 1, true },
		{ "%s = 1", TOML_MAX_DEPTH + 2, false },
		{ "%s = []", TOML_MAX_DEPTH, true },
		{ "%s = []", TOML_MAX_DEPTH + 1, false },
	};
	char key[2 * 3 * TOML_MAX_DEPTH + 8], doc[sizeof(key) + 16];
	size_t i;
	int j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct toml_error err;
		struct toml_value *root;

		for (j = 0; j < cases[i].parts; j++)
			memcpy(key + 2 * j, "a.", 2);
		key[2 * cases[i].parts - 1] = '\0';
		snprintf(doc, sizeof(doc), cases[i].fmt, key);
		root = parse(doc, &err);
		ok(!root == !cases[i].good, "%s with %d parts: %s",
		   cases[i].fmt, cases[i].parts,
		   cases[i].good ? "accepted" : "rejected");
		if (!cases[i].good)
			has_str(err.msg, "nested too deeply", "  says why");
		toml_value__free(root);
	}
}

static void test_values(void)
{
	static const char doc[] =
		"i = -9223372036854775808\n"
		"h = 0xDEAD_beef\n"
		"o = 0o755\n"
		"b = 0b1010\n"
		"f = -1_000.5e-3\n"
		"inf = -inf\n"
		"s = \"tab\\there \\u00e9 \\U0001F600\"\n"
		"nul = \"a\\u0000b\"\n"
		"ml = \"\"\"\r\nline one\r\n  line \\\r\n    two\"\"\"\n"
		"lit = '''\n'quoted'''''\n"
		"t = true\n"
		"mixed = [1, 'two', 3.0, [4], {five = 5},]\n";
	struct toml_error err;
	struct toml_value *root = parse(doc, &err);
	const struct toml_value *v;

	if (!ok(root, "values document parses")) {
		tap_diag("%u:%u: %s", err.line, err.col, err.msg);
		return;
	}
	v = toml_table__get(root, "i");
	ok(v && v->type == TOML_INTEGER && v->u.i == INT64_MIN,
	   "-9223372036854775808 is INT64_MIN");
	v = toml_table__get(root, "h");
	ok(v && v->u.i == 0xdeadbeef, "hex with underscores");
	v = toml_table__get(root, "o");
	ok(v && v->u.i == 0755, "octal");
	v = toml_table__get(root, "b");
	ok(v && v->u.i == 10, "binary");
	v = toml_table__get(root, "f");
	ok(v && v->type == TOML_FLOAT && v->u.f == -1.0005, "float");
	v = toml_table__get(root, "inf");
	ok(v && v->type == TOML_FLOAT && v->u.f < -1e308, "-inf");
	v = toml_table__get(root, "s");
	is_str(v ? v->u.str.ptr : NULL, "tab\there \xc3\xa9 \xf0\x9f\x98\x80",
	       "escapes decoded");
	v = toml_table__get(root, "nul");
	ok(v && v->u.str.len == 3 && !memcmp(v->u.str.ptr, "a\0b", 4),
	   "\\u0000 kept, with the length");
	v = toml_table__get(root, "ml");
	is_str(v ? v->u.str.ptr : NULL, "line one\n  line two",
	       "multi-line: first newline trimmed, CRLF -> LF, backslash joins");
	v = toml_table__get(root, "lit");
	is_str(v ? v->u.str.ptr : NULL, "'quoted''",
	       "literal multi-line ends in two quotes");
	v = toml_table__get(root, "t");
	ok(v && v->type == TOML_BOOL && v->u.b, "true");
	v = toml_table__get(root, "mixed");
	ok(v && v->type == TOML_ARRAY && v->u.arr.n == 5,
	   "mixed array with trailing comma");
	toml_value__free(root);
}

static void test_lookups(void)
{
	struct toml_value *root = parse(
		"[server]\nport = 8080\n[server.tls]\non = false\n", NULL);
	const struct toml_value *server, *port;
	const struct toml_kv *kv;

	if (!ok(root, "lookup document parses"))
		return;
	server = toml_table__get(root, "server");
	ok(server && server->type == TOML_TABLE, "get a table");
	port = toml_table__get(server, "port");
	ok(port && port->type == TOML_INTEGER && port->u.i == 8080,
	   "get an integer in it");
	ok(!toml_table__get(server, "missing"), "absent key: NULL");
	ok(!toml_table__get(port, "x"), "lookup in a non-table: NULL");
	ok(!toml_table__get(NULL, "x"), "lookup in NULL: NULL");
	kv = toml_table__find(server, "tls");
	ok(kv && kv->keylen == 3 && !strcmp(kv->key, "tls"), "find a kv");
	is_int(kv ? kv->pos.line : 0, 3, "kv of [server.tls] is at its header");
	ok(path(root, "server.tls.on") && !path(root, "server.tls.on")->u.b,
	   "nested lookup");
	is_str(toml_type__name(TOML_DATETIME_LOCAL), "local date-time",
	       "type name");
	is_str(toml_type__name(TOML_BOOL), "boolean", "type name of bool");
	toml_value__free(root);
}

static void test_datetime_format(void)
{
	static const struct {
		const char *in, *out;
		enum toml_type type;
	} cases[] = {
		{ "1979-05-27T07:32:00Z", "1979-05-27T07:32:00Z",
		  TOML_DATETIME },
		{ "1979-05-27 07:32:00.5+05:30", "1979-05-27T07:32:00.5+05:30",
		  TOML_DATETIME },
		{ "1979-05-27t00:32:00.999999-07:00",
		  "1979-05-27T00:32:00.999999-07:00", TOML_DATETIME },
		{ "1979-05-27T07:32:00z", "1979-05-27T07:32:00Z",
		  TOML_DATETIME },
		{ "1979-05-27T07:32:00-00:00", "1979-05-27T07:32:00Z",
		  TOML_DATETIME },
		{ "2000-02-29T23:59:60.1234567891",
		  "2000-02-29T23:59:60.123456789", TOML_DATETIME_LOCAL },
		{ "1979-05-27", "1979-05-27", TOML_DATE_LOCAL },
		{ "00:32:00.010", "00:32:00.010", TOML_TIME_LOCAL },
	};
	char doc[128], buf[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct toml_value *root;
		const struct toml_value *v;
		int n;

		snprintf(doc, sizeof(doc), "d = %s\n", cases[i].in);
		root = parse(doc, NULL);
		v = toml_table__get(root, "d");
		is_int(v ? (int)v->type : -1, cases[i].type, "type of %s",
		       cases[i].in);
		n = toml_datetime__format(v, buf, sizeof(buf));
		is_str(n > 0 ? buf : NULL, cases[i].out, "format %s",
		       cases[i].in);
		is_int(n, strlen(cases[i].out), "length of %s", cases[i].in);
		toml_value__free(root);
	}
	{
		struct toml_value *root =
			parse("d = 1979-05-27T07:32:00Z", NULL);
		const struct toml_value *v = toml_table__get(root, "d");

		is_int(toml_datetime__format(v, buf, 5), 20,
		       "small buffer: full length returned");
		is_str(buf, "1979", "small buffer: truncated, terminated");
		is_int(toml_datetime__format(root, buf, sizeof(buf)), -EINVAL,
		       "not a datetime: -EINVAL");
		toml_value__free(root);
	}
}

/* The buffer need not be NUL-terminated: parse from an exact-size copy. */
static void test_unterminated_buffer(void)
{
	static const char *const docs[] = { "a = 1",	  "a = tru",
					    "a = \"x",	  "a = 1979-05-",
					    "[a",	  "a = 0x",
					    "a = '''x''", "a = \"\\u00" };
	size_t i;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		size_t len = strlen(docs[i]);
		char *buf = malloc(len);
		struct toml_value *root;
		struct toml_error err;

		if (!buf)
			continue;
		memcpy(buf, docs[i], len);
		root = toml__parse(buf, len, &err);
		ok(i == 0 ? root != NULL : root == NULL,
		   "exact-size buffer '%s'", docs[i]);
		toml_value__free(root);
		free(buf);
	}
	{
		struct toml_value *root = toml__parse(NULL, 0, NULL);

		ok(root && root->type == TOML_TABLE && !root->u.tab.n,
		   "empty input: empty table");
		toml_value__free(root);
	}
}

static void test_files(void)
{
	char tmpl[] = "/tmp/test-toml-XXXXXX";
	struct toml_error err;
	struct toml_value *root;
	int fd;

	root = toml__parse_file("/nonexistent/file.toml", &err);
	ok(!root, "missing file: NULL");
	is_int(err.line, 0, "missing file: line 0");
	has_str(err.msg, strerror(ENOENT), "missing file: strerror text");
	has_str(err.msg, "/nonexistent/file.toml", "missing file: path");

	root = toml__parse_file("/", &err);
	ok(!root, "directory: NULL");
	has_str(err.msg, strerror(EISDIR), "directory: strerror text");

	fd = mkstemp(tmpl);
	if (!ok(fd >= 0, "temporary file"))
		return;
	if (write(fd, "x = 1\ny = [\n", 12) != 12)
		tap_diag("short write");
	close(fd);
	root = toml__parse_file(tmpl, &err);
	ok(!root, "file with an error: NULL");
	is_int(err.line, 3, "file error: line");
	unlink(tmpl);
}

/* Many keys: duplicates are still found once the key index has grown. */
static void test_many_keys(void)
{
	size_t size = 3000 * 24, len = 0;
	char *doc = malloc(size);
	struct toml_error err;
	struct toml_value *root;
	int i;

	if (!ok(doc, "buffer for 3000 keys"))
		return;
	for (i = 0; i < 3000; i++)
		len += snprintf(doc + len, size - len, "k%d = %d\n", i, i);
	root = toml__parse(doc, len, &err);
	ok(root && root->u.tab.n == 3000, "3000 keys parse");
	ok(toml_table__get(root, "k2999") &&
		   toml_table__get(root, "k2999")->u.i == 2999,
	   "last of 3000 keys found");
	toml_value__free(root);
	len += snprintf(doc + len, size - len, "[t]\nk1 = 1\nk1500 = 2\n");
	root = toml__parse(doc, len, &err);
	ok(root, "same key names in another table are fine");
	toml_value__free(root);
	len += snprintf(doc + len, size - len, "k1 = 3\n");
	root = toml__parse(doc, len, &err);
	ok(!root, "duplicate among many keys rejected");
	is_int(err.line, 3004, "duplicate among many keys: line");
	has_str(err.msg, "duplicate key 'k1' (first defined at line 3002)",
		"duplicate among many keys: message");
	toml_value__free(root);
	free(doc);
}

int main(void)
{
	test_positions();
	test_errors();
	test_nesting();
	test_key_nesting();
	test_values();
	test_lookups();
	test_datetime_format();
	test_unterminated_buffer();
	test_files();
	test_many_keys();
	return tap_done();
}
