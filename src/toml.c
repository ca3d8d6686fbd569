/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A TOML 1.0.0 parser: a hand-written recursive descent over the raw bytes.
 *
 * TOML's grammar depends on context (a key and a number can look alike), so
 * there is no separate tokenizer; each parse function looks at the bytes it
 * expects. The whole document is checked for UTF-8 and control characters
 * first, which lets everything after assume well-formed input text and
 * keeps the column count (in code points) trivial.
 *
 * This file depends on libc alone: the fuzzer builds it on its own.
 */
#include "toml.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Value flags, for the rules on what may be defined or extended later.
 * A table is created either by a [header] (explicitly, or implicitly as a
 * parent of a deeper header), by dotted keys, or as an inline table; each
 * origin allows different later additions.
 */
#define TF_IMPLICIT 0x01 /* parent of a header, not yet defined itself */
#define TF_HEADER 0x02	 /* defined by [header] or [[header]] */
#define TF_DOTTED 0x04	 /* created by a dotted key */
#define TF_FROZEN 0x08	 /* inline table or array literal: immutable */
#define TF_AOT 0x10	 /* array created by [[header]] */

/* Room for a described key or token in a message; longer ones are cut. */
#define DESC_MAX 80

struct sbuf {
	char *ptr;
	size_t len;
	size_t alloc;
};

struct key_part {
	char *str;
	size_t len;
	struct toml_pos pos;
};

struct key {
	struct key_part *parts;
	size_t n;
	size_t alloc;
};

/*
 * Every key of every table, hashed by (table, key), so that a table with
 * many keys does not make duplicate checks quadratic. It lives only as
 * long as the parse; lookups after it (toml_table__find) are linear.
 */
struct index_slot {
	const struct toml_value *tab; /* NULL: free slot */
	size_t idx;		      /* into tab->u.tab.items */
	uint64_t hash;
};

struct key_index {
	struct index_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t used;
};

struct parser {
	const char *buf;
	size_t len;
	size_t off;
	struct toml_pos pos; /* of buf[off] */
	struct toml_error *err;
	struct toml_value *root;
	struct toml_value *cur; /* table of the current [section] */
	unsigned int cur_depth;
	struct key_index index;
	locale_t c_locale;	     /* for strtod_l(), made on first float */
	char context[DESC_MAX + 32]; /* what came last, for messages */
};

/* ---- errors --------------------------------------------------------- */

static int parser__fail(struct parser *p, struct toml_pos pos, const char *fmt,
			...) __attribute__((format(printf, 3, 4)));

static int parser__fail(struct parser *p, struct toml_pos pos, const char *fmt,
			...)
{
	va_list ap;

	p->err->line = pos.line;
	p->err->col = pos.col;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parser__nomem(struct parser *p)
{
	p->err->line = p->pos.line;
	p->err->col = p->pos.col;
	snprintf(p->err->msg, sizeof(p->err->msg), "out of memory");
	return -ENOMEM;
}

/* ---- low-level cursor ----------------------------------------------- */

static int parser__peek_at(const struct parser *p, size_t ahead)
{
	if (p->len - p->off <= ahead)
		return -1;
	return (unsigned char)p->buf[p->off + ahead];
}

static int parser__peek(const struct parser *p)
{
	return parser__peek_at(p, 0);
}

static void parser__advance(struct parser *p, size_t n)
{
	while (n-- && p->off < p->len) {
		unsigned char c = p->buf[p->off++];

		if (c == '\n') {
			p->pos.line++;
			p->pos.col = 1;
		} else if ((c & 0xc0) != 0x80) {
			/* Continuation bytes belong to the code point before. */
			p->pos.col++;
		}
	}
}

static bool parser__at_newline(const struct parser *p)
{
	int c = parser__peek(p);

	/* The pre-scan guarantees that every CR is followed by LF. */
	return c == '\n' || c == '\r';
}

static void parser__skip_newline(struct parser *p)
{
	parser__advance(p, parser__peek(p) == '\r' ? 2 : 1);
}

static void parser__skip_ws(struct parser *p)
{
	int c;

	while ((c = parser__peek(p)) == ' ' || c == '\t')
		parser__advance(p, 1);
}

static void parser__skip_comment(struct parser *p)
{
	while (parser__peek(p) >= 0 && !parser__at_newline(p))
		parser__advance(p, 1);
}

/* Whitespace, comments and newlines: what may sit between array items. */
static void parser__skip_blank(struct parser *p)
{
	for (;;) {
		parser__skip_ws(p);
		if (parser__peek(p) == '#')
			parser__skip_comment(p);
		if (!parser__at_newline(p))
			return;
		parser__skip_newline(p);
	}
}

static size_t utf8__len(unsigned char lead)
{
	if (lead < 0x80)
		return 1;
	if (lead < 0xe0)
		return 2;
	if (lead < 0xf0)
		return 3;
	return 4;
}

/* Describe the character at the cursor for a "found ..." message. */
static const char *parser__found(const struct parser *p, char *buf, size_t size)
{
	int c = parser__peek(p);
	size_t n;

	if (c < 0)
		return "end of file";
	if (c == '\n' || c == '\r')
		return "end of line";
	if (c == '\t')
		return "a tab";
	n = utf8__len(c);
	if (n > p->len - p->off)
		n = p->len - p->off;
	snprintf(buf, size, "'%.*s'", (int)n, p->buf + p->off);
	return buf;
}

/* ---- growable byte buffer ------------------------------------------- */

static int sbuf__reserve(struct sbuf *sb, size_t more)
{
	size_t want;
	char *ptr;

	if (sb->alloc - sb->len > more)
		return 0;
	want = sb->alloc ? sb->alloc : 32;
	while (want - sb->len <= more) {
		if (want > SIZE_MAX / 2)
			return -ENOMEM;
		want *= 2;
	}
	ptr = realloc(sb->ptr, want);
	if (!ptr)
		return -ENOMEM;
	sb->ptr = ptr;
	sb->alloc = want;
	return 0;
}

static int sbuf__add(struct sbuf *sb, const char *data, size_t n)
{
	if (sbuf__reserve(sb, n))
		return -ENOMEM;
	memcpy(sb->ptr + sb->len, data, n);
	sb->len += n;
	sb->ptr[sb->len] = '\0';
	return 0;
}

static int sbuf__addc(struct sbuf *sb, char c)
{
	return sbuf__add(sb, &c, 1);
}

/* An empty buffer still hands out a valid, NUL-terminated string. */
static char *sbuf__take(struct sbuf *sb, size_t *len)
{
	char *ptr;

	if (!sb->ptr && sbuf__reserve(sb, 0))
		return NULL;
	sb->ptr[sb->len] = '\0';
	ptr = sb->ptr;
	*len = sb->len;
	memset(sb, 0, sizeof(*sb));
	return ptr;
}

static void sbuf__free(struct sbuf *sb)
{
	free(sb->ptr);
	memset(sb, 0, sizeof(*sb));
}

static int sbuf__add_utf8(struct sbuf *sb, uint32_t cp)
{
	char out[4];
	size_t n;

	if (cp < 0x80) {
		out[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		out[0] = 0xc0 | (cp >> 6);
		out[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		out[0] = 0xe0 | (cp >> 12);
		out[1] = 0x80 | ((cp >> 6) & 0x3f);
		out[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		out[0] = 0xf0 | (cp >> 18);
		out[1] = 0x80 | ((cp >> 12) & 0x3f);
		out[2] = 0x80 | ((cp >> 6) & 0x3f);
		out[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	return sbuf__add(sb, out, n);
}

/*
 * Append @len bytes of a key or token to the message fragment in @buf:
 * printable text as is, control characters escaped, and "..." when it is
 * cut short (never in the middle of a UTF-8 sequence).
 */
static void desc__append(char *buf, size_t size, const char *s, size_t len)
{
	size_t at = strnlen(buf, size - 1);
	size_t i, need;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];
		bool ctl = c < 0x20 || c == 0x7f;

		need = ctl ? 6 : (c & 0xc0) == 0x80 ? 1 : utf8__len(c);
		if (at + need + 4 > size) {
			if (at + 4 <= size) {
				memcpy(buf + at, "...", 3);
				at += 3;
			}
			break;
		}
		if (ctl)
			at += snprintf(buf + at, size - at, "\\u%04x", c);
		else
			buf[at++] = c;
	}
	buf[at] = '\0';
}

/* ---- UTF-8 and control character pre-scan -------------------------- */

/*
 * Length of the well-formed UTF-8 sequence at @s, or 0 with *@why set.
 * Follows the well-formed byte sequences table of the Unicode standard
 * (3.9, table 3-7): no overlongs, no surrogates, nothing past U+10FFFF.
 */
static size_t utf8__check(const unsigned char *s, size_t avail,
			  const char **reason)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c < 0xc2) {
		*reason = c < 0xc0 ? "stray continuation byte" :
				     "overlong encoding";
		return 0;
	}
	if (c >= 0xf5) {
		*reason = "byte never valid in UTF-8";
		return 0;
	}
	n = utf8__len(c);
	if (c == 0xe0 || c == 0xf0)
		lo = c == 0xe0 ? 0xa0 : 0x90;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++) {
		unsigned char b = i < avail ? s[i] : 0;

		if (i == 1 && b >= 0x80 && b <= 0xbf && (b < lo || b > hi)) {
			*reason = c == 0xed ? "encoded surrogate" :
				  c == 0xf4 ? "code point above U+10FFFF" :
					      "overlong encoding";
			return 0;
		}
		if (b < 0x80 || b > 0xbf) {
			*reason = "truncated sequence";
			return 0;
		}
	}
	return n;
}

/*
 * Reject invalid UTF-8 and the control characters TOML allows nowhere
 * (all but tab, LF and CRLF): no rule of the grammar admits them, in
 * strings and comments included, so one pass over the text covers all.
 */
static int parser__prescan(struct parser *p)
{
	const unsigned char *s = (const unsigned char *)p->buf;
	const char *why = NULL;

	while (p->off < p->len) {
		unsigned char c = s[p->off];
		size_t n = 1;

		if (c >= 0x80) {
			n = utf8__check(s + p->off, p->len - p->off, &why);
			if (!n)
				return parser__fail(
					p, p->pos,
					"invalid UTF-8 (byte 0x%02x): %s", c,
					why);
		} else if (c == '\r' && parser__peek_at(p, 1) != '\n') {
			return parser__fail(
				p, p->pos,
				"carriage return not followed by a line feed");
		} else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
			   c == 0x7f) {
			return parser__fail(
				p, p->pos,
				"control character U+%04X is not allowed", c);
		}
		parser__advance(p, n);
	}
	return 0;
}

/* ---- the value tree ------------------------------------------------- */

static struct toml_value *value__new(enum toml_type type, struct toml_pos pos)
{
	struct toml_value *v = calloc(1, sizeof(*v));

	if (v) {
		v->type = type;
		v->pos = pos;
	}
	return v;
}

void toml_value__free(struct toml_value *v)
{
	size_t i;

	if (!v)
		return;
	switch (v->type) {
	case TOML_STRING:
		free(v->u.str.ptr);
		break;
	case TOML_ARRAY:
		/* Depth is bounded by TOML_MAX_DEPTH, so recursion is fine. */
		for (i = 0; i < v->u.arr.n; i++)
			toml_value__free(v->u.arr.items[i]);
		free(v->u.arr.items);
		break;
	case TOML_TABLE:
		for (i = 0; i < v->u.tab.n; i++) {
			free(v->u.tab.items[i].key);
			toml_value__free(v->u.tab.items[i].val);
		}
		free(v->u.tab.items);
		break;
	default:
		break;
	}
	free(v);
}

static struct toml_kv *table__lookup(const struct toml_value *tab,
				     const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < tab->u.tab.n; i++) {
		struct toml_kv *kv = &tab->u.tab.items[i];

		if (kv->keylen == len && !memcmp(kv->key, key, len))
			return kv;
	}
	return NULL;
}

/* Add @val under a copy of @part's name; takes @val, even on failure. */
static int table__add(struct toml_value *tab, const struct key_part *part,
		      struct toml_value *val)
{
	struct toml_kv *kv;
	char *key;

	if (!val)
		return -ENOMEM;
	key = malloc(part->len + 1);
	if (!key)
		goto nomem;
	memcpy(key, part->str, part->len);
	key[part->len] = '\0';
	if (tab->u.tab.n == tab->u.tab.alloc) {
		size_t want = tab->u.tab.alloc ? tab->u.tab.alloc * 2 : 8;

		kv = reallocarray(tab->u.tab.items, want, sizeof(*kv));
		if (!kv)
			goto nomem;
		tab->u.tab.items = kv;
		tab->u.tab.alloc = want;
	}
	kv = &tab->u.tab.items[tab->u.tab.n++];
	kv->key = key;
	kv->keylen = part->len;
	kv->pos = part->pos;
	kv->val = val;
	return 0;
nomem:
	free(key);
	toml_value__free(val);
	return -ENOMEM;
}

/* Append @val to an array; takes @val, even on failure. */
static int array__push(struct toml_value *arr, struct toml_value *val)
{
	if (!val)
		return -ENOMEM;
	if (arr->u.arr.n == arr->u.arr.alloc) {
		size_t want = arr->u.arr.alloc ? arr->u.arr.alloc * 2 : 8;
		struct toml_value **items;

		items = reallocarray(arr->u.arr.items, want, sizeof(*items));
		if (!items) {
			toml_value__free(val);
			return -ENOMEM;
		}
		arr->u.arr.items = items;
		arr->u.arr.alloc = want;
	}
	arr->u.arr.items[arr->u.arr.n++] = val;
	return 0;
}

/* ---- the key index ------------------------------------------------ */

static uint64_t index__hash(const struct toml_value *tab, const char *key,
			    size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3ULL;
	}
	h ^= (uint64_t)(uintptr_t)tab * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

static void index__place(struct key_index *ix, const struct index_slot *slot)
{
	size_t i = slot->hash & (ix->cap - 1);

	while (ix->slots[i].tab)
		i = (i + 1) & (ix->cap - 1);
	ix->slots[i] = *slot;
}

/* Record the last key added to @tab. Kept at most half full. */
static int index__add(struct key_index *ix, const struct toml_value *tab)
{
	const struct toml_kv *kv = &tab->u.tab.items[tab->u.tab.n - 1];
	struct index_slot slot = { tab, tab->u.tab.n - 1,
				   index__hash(tab, kv->key, kv->keylen) };

	if ((ix->used + 1) * 2 > ix->cap) {
		struct key_index grown = { NULL, ix->cap ? ix->cap * 2 : 64,
					   0 };
		size_t i;

		if (grown.cap > SIZE_MAX / 2 / sizeof(*grown.slots))
			return -ENOMEM;
		grown.slots = calloc(grown.cap, sizeof(*grown.slots));
		if (!grown.slots)
			return -ENOMEM;
		for (i = 0; i < ix->cap; i++)
			if (ix->slots[i].tab)
				index__place(&grown, &ix->slots[i]);
		grown.used = ix->used;
		free(ix->slots);
		*ix = grown;
	}
	index__place(ix, &slot);
	ix->used++;
	return 0;
}

static struct toml_kv *index__find(const struct key_index *ix,
				   const struct toml_value *tab,
				   const char *key, size_t len)
{
	uint64_t hash = index__hash(tab, key, len);
	size_t i;

	if (!ix->cap)
		return NULL;
	for (i = hash & (ix->cap - 1); ix->slots[i].tab;
	     i = (i + 1) & (ix->cap - 1)) {
		const struct index_slot *slot = &ix->slots[i];
		struct toml_kv *kv;

		if (slot->hash != hash || slot->tab != tab)
			continue;
		kv = &tab->u.tab.items[slot->idx];
		if (kv->keylen == len && !memcmp(kv->key, key, len))
			return kv;
	}
	return NULL;
}

static struct toml_kv *parser__lookup(const struct parser *p,
				      const struct toml_value *tab,
				      const struct key_part *part)
{
	return index__find(&p->index, tab, part->str, part->len);
}

/* table__add(), and into the index. Takes @val, even on failure. */
static int parser__add(struct parser *p, struct toml_value *tab,
		       const struct key_part *part, struct toml_value *val)
{
	if (table__add(tab, part, val) || index__add(&p->index, tab))
		return parser__nomem(p);
	return 0;
}

/* ---- strings -------------------------------------------------------- */

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_bare_key_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '_' || c == '-';
}

/* What a number, boolean or inf/nan is made of, and what may follow. */
static bool is_word_char(int c)
{
	return is_bare_key_char(c) || c == '+' || c == '.';
}

static int hex__value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* \uXXXX or \UXXXXXXXX, the cursor on the 'u' or 'U'. */
static int parser__unicode_escape(struct parser *p, struct toml_pos at,
				  struct sbuf *sb)
{
	char letter = parser__peek(p);
	int ndigits = letter == 'u' ? 4 : 8;
	uint32_t cp = 0;
	char found[16];
	int i;

	parser__advance(p, 1);
	for (i = 0; i < ndigits; i++) {
		int d = hex__value(parser__peek(p));

		if (d < 0)
			return parser__fail(
				p, p->pos,
				"expected %d hex digits in \\%c escape, found %s",
				ndigits, letter,
				parser__found(p, found, sizeof(found)));
		cp = cp << 4 | d;
		parser__advance(p, 1);
	}
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return parser__fail(p, at,
				    "escape \\%c%0*" PRIX32
				    " is not a Unicode scalar value",
				    letter, ndigits, cp);
	return sbuf__add_utf8(sb, cp) ? parser__nomem(p) : 0;
}

/* After a line-ending backslash: all whitespace, line breaks included. */
static void parser__skip_ws_newlines(struct parser *p)
{
	for (;;) {
		parser__skip_ws(p);
		if (!parser__at_newline(p))
			return;
		parser__skip_newline(p);
	}
}

/*
 * An escape in a basic string, the cursor on the backslash. In a
 * multi-line string a backslash that ends a line trims the line break and
 * the whitespace that follows it.
 */
static int parser__escape(struct parser *p, struct sbuf *sb, bool multiline)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	struct toml_pos at = p->pos;
	const char *hit;
	size_t i, n;
	int c;

	parser__advance(p, 1);
	c = parser__peek(p);
	if (c == 'u' || c == 'U')
		return parser__unicode_escape(p, at, sb);
	if (c > 0 && (hit = strchr(from, c))) {
		parser__advance(p, 1);
		return sbuf__addc(sb, to[hit - from]) ? parser__nomem(p) : 0;
	}
	if (multiline) {
		for (i = 0; (c = parser__peek_at(p, i)) == ' ' || c == '\t';)
			i++;
		if (c == '\n' || c == '\r') {
			parser__skip_ws_newlines(p);
			return 0;
		}
		c = parser__peek(p);
	}
	if (c < 0 || c == '\n' || c == '\r')
		return parser__fail(p, at, "backslash at end of %s in string",
				    c < 0 ? "file" : "line");
	n = utf8__len(c);
	if (n > p->len - p->off)
		n = p->len - p->off;
	return parser__fail(p, at, "invalid escape sequence '\\%.*s' in string",
			    (int)n, p->buf + p->off);
}

/*
 * At a quote inside a multi-line string: one or two quotes may end the
 * content right before the closing three. Returns 1 once it is closed.
 */
static int parser__ml_quotes(struct parser *p, struct sbuf *sb, char quote)
{
	const char *quotes = quote == '"' ? "\"\"" : "''";
	size_t run = 0;

	while (run < 5 && parser__peek_at(p, run) == quote)
		run++;
	parser__advance(p, run);
	if (run < 3)
		return sbuf__add(sb, quotes, run) ? -ENOMEM : 0;
	return sbuf__add(sb, quotes, run - 3) ? -ENOMEM : 1;
}

/*
 * Any of the four string forms, the cursor on the opening quote. Multi-line
 * strings drop a line break right after the opening quotes, and their
 * CRLF line breaks come out as LF.
 */
static int parser__string(struct parser *p, struct sbuf *sb)
{
	char quote = p->buf[p->off];
	struct toml_pos start = p->pos;
	bool ml = parser__peek_at(p, 1) == quote &&
		  parser__peek_at(p, 2) == quote;
	int c, ret;

	parser__advance(p, ml ? 3 : 1);
	if (ml && parser__at_newline(p))
		parser__skip_newline(p);
	for (;;) {
		c = parser__peek(p);
		if (c < 0 || (!ml && (c == '\n' || c == '\r')))
			return parser__fail(
				p, start,
				"unterminated string: expected closing %s before end of %s",
				quote == '"' ? (ml ? "\"\"\"" : "'\"'") :
					       (ml ? "'''" : "\"'\""),
				c < 0 ? "file" : "line");
		if (c == quote && !ml) {
			parser__advance(p, 1);
			return 0;
		}
		if (c == quote) {
			ret = parser__ml_quotes(p, sb, quote);
			if (ret)
				return ret < 0 ? parser__nomem(p) : 0;
			continue;
		}
		if (c == '\\' && quote == '"') {
			ret = parser__escape(p, sb, ml);
			if (ret)
				return ret;
			continue;
		}
		if (c != '\r' && sbuf__addc(sb, c))
			return parser__nomem(p);
		parser__advance(p, 1);
	}
}

static int parser__string_value(struct parser *p, struct toml_value **out)
{
	struct toml_value *v = value__new(TOML_STRING, p->pos);
	struct sbuf sb = { 0 };
	int ret;

	if (!v)
		return parser__nomem(p);
	ret = parser__string(p, &sb);
	if (!ret) {
		v->u.str.ptr = sbuf__take(&sb, &v->u.str.len);
		if (!v->u.str.ptr)
			ret = parser__nomem(p);
	}
	if (ret) {
		sbuf__free(&sb);
		toml_value__free(v);
		return ret;
	}
	*out = v;
	return 0;
}

/* ---- numbers -------------------------------------------------------- */

struct token {
	const char *s;
	size_t len;
	struct toml_pos pos;
};

static int parser__bad_number(struct parser *p, const struct token *t,
			      const char *why)
{
	char desc[DESC_MAX] = "";

	desc__append(desc, sizeof(desc), t->s, t->len);
	return parser__fail(p, t->pos, "invalid number '%s': %s", desc, why);
}

/* @type is "integer" or "float". */
static int parser__out_of_range(struct parser *p, const struct token *t,
				const char *type)
{
	char desc[DESC_MAX] = "";

	desc__append(desc, sizeof(desc), t->s, t->len);
	return parser__fail(p, t->pos, "%s %s out of range for a 64-bit %s",
			    type, desc, type);
}

static int digit__value(int c, int base)
{
	int d = hex__value(c);

	return d < base ? d : -1;
}

/*
 * Check @len bytes at @s are digits of @base with single underscores
 * only between digits. Returns NULL when they are, else what is wrong.
 */
static const char *digits__check(const char *s, size_t len, int base)
{
	size_t i;

	if (!len)
		return "digits expected";
	for (i = 0; i < len; i++) {
		if (s[i] == '_') {
			if (i == 0 || i + 1 == len || s[i + 1] == '_')
				return "an underscore must sit between two digits";
		} else if (digit__value((unsigned char)s[i], base) < 0) {
			switch (base) {
			case 2:
				return "only digits 0 and 1 may follow 0b";
			case 8:
				return "only digits 0 to 7 may follow 0o";
			case 16:
				return "only hex digits may follow 0x";
			default:
				return "not a valid integer or float";
			}
		}
	}
	return NULL;
}

static int parser__integer(struct parser *p, const struct token *t, int sign,
			   const char *s, size_t len, int base, int64_t *out)
{
	uint64_t limit = sign < 0 ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
	uint64_t mag = 0;
	const char *why;
	size_t i;

	why = digits__check(s, len, base);
	if (!why && base == 10 && s[0] == '0' && len > 1)
		why = "leading zeros are not allowed";
	if (why)
		return parser__bad_number(p, t, why);
	for (i = 0; i < len; i++) {
		int d = digit__value((unsigned char)s[i], base);

		if (d < 0)
			continue;
		if (mag > (limit - d) / base)
			return parser__out_of_range(p, t, "integer");
		mag = mag * base + d;
	}
	if (sign >= 0)
		*out = (int64_t)mag;
	else
		*out = mag > INT64_MAX ? INT64_MIN : -(int64_t)mag;
	return 0;
}

static size_t span__digits(const char *s, size_t len, size_t i)
{
	while (i < len && (is_digit((unsigned char)s[i]) || s[i] == '_'))
		i++;
	return i;
}

/* Check the shape of a decimal float: int part, [.frac], [e[sign]exp]. */
static const char *float__check(const char *s, size_t len)
{
	size_t i, j;
	const char *why;

	i = span__digits(s, len, 0);
	why = digits__check(s, i, 10);
	if (!why && s[0] == '0' && i > 1)
		why = "leading zeros are not allowed";
	if (!why && i < len && s[i] == '.') {
		j = span__digits(s, len, i + 1);
		why = digits__check(s + i + 1, j - i - 1, 10);
		if (why && j == i + 1)
			why = "a digit must follow the decimal point";
		i = j;
	}
	if (!why && i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		j = span__digits(s, len, i);
		why = digits__check(s + i, j - i, 10);
		if (why && j == i)
			why = "the exponent needs digits";
		i = j;
	}
	if (!why && i != len)
		why = "not a valid float";
	return why;
}

/* strtod() in the "C" locale: the program may have set another one. */
static int parser__strtod(struct parser *p, const char *s, double *out)
{
	if (!p->c_locale) {
		p->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
		if (!p->c_locale)
			return -ENOMEM;
	}
	errno = 0;
	*out = strtod_l(s, NULL, p->c_locale);
	return errno == ERANGE && isinf(*out) ? -ERANGE : 0;
}

static int parser__float(struct parser *p, const struct token *t, int sign,
			 const char *s, size_t len, double *out)
{
	const char *why;
	char *copy;
	size_t i, n = 0;
	int ret;

	if (len == 3 && (!memcmp(s, "inf", 3) || !memcmp(s, "nan", 3))) {
		*out = s[0] == 'i' ? INFINITY : NAN;
		*out = sign < 0 ? -*out : *out;
		return 0;
	}
	why = float__check(s, len);
	if (why)
		return parser__bad_number(p, t, why);
	copy = malloc(len + 2);
	if (!copy)
		return parser__nomem(p);
	if (sign < 0)
		copy[n++] = '-';
	for (i = 0; i < len; i++)
		if (s[i] != '_')
			copy[n++] = s[i];
	copy[n] = '\0';
	ret = parser__strtod(p, copy, out);
	free(copy);
	if (ret == -ENOMEM)
		return parser__nomem(p);
	if (ret)
		return parser__out_of_range(p, t, "float");
	return 0;
}

static bool token__is(const char *s, size_t len, const char *word)
{
	return len == strlen(word) && !memcmp(s, word, len);
}

/* An integer or float, the cursor on its first character. */
static int parser__number(struct parser *p, struct toml_value **out)
{
	struct token t = { p->buf + p->off, 0, p->pos };
	struct toml_value *v;
	const char *s;
	size_t len;
	int sign = 0, base = 10, ret;
	bool is_float;

	while (is_word_char(parser__peek_at(p, t.len)))
		t.len++;
	parser__advance(p, t.len);
	if (t.s[0] == '+' || t.s[0] == '-')
		sign = t.s[0] == '-' ? -1 : 1;
	s = t.s + (sign != 0);
	len = t.len - (sign != 0);
	if (len > 1 && s[0] == '0' &&
	    (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		if (sign)
			return parser__bad_number(
				p, &t,
				"a sign is not allowed before 0x, 0o or 0b");
		s += 2;
		len -= 2;
	}
	is_float = base == 10 &&
		   (token__is(s, len, "inf") || token__is(s, len, "nan") ||
		    memchr(s, '.', len) || memchr(s, 'e', len) ||
		    memchr(s, 'E', len));
	v = value__new(is_float ? TOML_FLOAT : TOML_INTEGER, t.pos);
	if (!v)
		return parser__nomem(p);
	if (is_float)
		ret = parser__float(p, &t, sign, s, len, &v->u.f);
	else
		ret = parser__integer(p, &t, sign, s, len, base, &v->u.i);
	if (ret) {
		toml_value__free(v);
		return ret;
	}
	*out = v;
	return 0;
}

/* ---- dates and times ------------------------------------------------ */

static const char *const month_names[] = {
	"January", "February", "March",	    "April",   "May",	   "June",
	"July",	   "August",   "September", "October", "November", "December",
};

static int days_in_month(int year, int month)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30,
				    31, 31, 30, 31, 30, 31 };
	bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);

	return month == 2 && leap ? 29 : days[month - 1];
}

/* Exactly @n digits at the cursor, or -1 with the cursor left alone. */
static int parser__digits(struct parser *p, size_t n)
{
	int v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int c = parser__peek_at(p, i);

		if (!is_digit(c))
			return -1;
		v = v * 10 + c - '0';
	}
	parser__advance(p, n);
	return v;
}

static bool parser__looks_like_date(const struct parser *p)
{
	return is_digit(parser__peek_at(p, 0)) &&
	       is_digit(parser__peek_at(p, 1)) &&
	       is_digit(parser__peek_at(p, 2)) &&
	       is_digit(parser__peek_at(p, 3)) && parser__peek_at(p, 4) == '-';
}

static bool parser__looks_like_time(const struct parser *p)
{
	return is_digit(parser__peek_at(p, 0)) &&
	       is_digit(parser__peek_at(p, 1)) && parser__peek_at(p, 2) == ':';
}

/* Read @n digits, then @sep unless it is 0; fail with @what expected. */
static int parser__dt_field(struct parser *p, size_t n, char sep,
			    const char *what, int *out)
{
	char found[16];

	*out = parser__digits(p, n);
	if (*out >= 0 && (!sep || parser__peek(p) == sep)) {
		parser__advance(p, !!sep);
		return 0;
	}
	return parser__fail(p, p->pos, "expected %s, found %s", what,
			    parser__found(p, found, sizeof(found)));
}

/* YYYY-MM-DD, which parser__looks_like_date() has seen the start of. */
static int parser__date(struct parser *p, struct toml_datetime *dt)
{
	static const char what[] = "a date as YYYY-MM-DD";
	struct toml_pos start = p->pos;
	int ret, dim;

	ret = parser__dt_field(p, 4, '-', what, &dt->year);
	if (!ret)
		ret = parser__dt_field(p, 2, '-', what, &dt->month);
	if (!ret)
		ret = parser__dt_field(p, 2, 0, what, &dt->day);
	if (ret)
		return ret;
	if (dt->month < 1 || dt->month > 12)
		return parser__fail(
			p, start,
			"invalid date %04d-%02d-%02d: there is no month %02d",
			dt->year, dt->month, dt->day, dt->month);
	dim = days_in_month(dt->year, dt->month);
	if (dt->day < 1 || dt->day > dim)
		return parser__fail(
			p, start,
			"invalid date %04d-%02d-%02d: %s %04d has days 01 to %d",
			dt->year, dt->month, dt->day,
			month_names[dt->month - 1], dt->year, dim);
	return 0;
}

/* Fractional seconds, the cursor after the '.'; kept to nanoseconds. */
static int parser__fraction(struct parser *p, struct toml_datetime *dt)
{
	char found[16];
	int i;

	if (!is_digit(parser__peek(p)))
		return parser__fail(
			p, p->pos,
			"expected digits after '.' in time, found %s",
			parser__found(p, found, sizeof(found)));
	while (is_digit(parser__peek(p))) {
		if (dt->frac_digits < 9)
			dt->nsec = dt->nsec * 10 + parser__peek(p) - '0';
		if (dt->frac_digits < INT_MAX)
			dt->frac_digits++;
		parser__advance(p, 1);
	}
	for (i = dt->frac_digits; i < 9; i++)
		dt->nsec *= 10;
	return 0;
}

/* HH:MM:SS[.fraction] */
static int parser__time(struct parser *p, struct toml_datetime *dt)
{
	static const char what[] = "a time as HH:MM:SS";
	struct toml_pos start = p->pos;
	const char *bad = NULL;
	int ret;

	ret = parser__dt_field(p, 2, ':', what, &dt->hour);
	if (!ret)
		ret = parser__dt_field(p, 2, ':', what, &dt->minute);
	if (!ret)
		ret = parser__dt_field(p, 2, 0, what, &dt->second);
	if (!ret && parser__peek(p) == '.') {
		parser__advance(p, 1);
		ret = parser__fraction(p, dt);
	}
	if (ret)
		return ret;
	if (dt->hour > 23)
		bad = "hour";
	else if (dt->minute > 59)
		bad = "minute";
	else if (dt->second > 60)
		bad = "second";
	if (bad)
		return parser__fail(
			p, start,
			"invalid time %02d:%02d:%02d: %s out of range",
			dt->hour, dt->minute, dt->second, bad);
	return 0;
}

/* Z, or +HH:MM / -HH:MM. Returns 1 when there was one, 0 when not. */
static int parser__offset(struct parser *p, struct toml_datetime *dt)
{
	static const char what[] = "a UTC offset as +HH:MM";
	struct toml_pos start = p->pos;
	int c = parser__peek(p), hour = 0, minute = 0, ret;

	if (c == 'Z' || c == 'z') {
		parser__advance(p, 1);
		return 1;
	}
	if (c != '+' && c != '-')
		return 0;
	parser__advance(p, 1);
	ret = parser__dt_field(p, 2, ':', what, &hour);
	if (!ret)
		ret = parser__dt_field(p, 2, 0, what, &minute);
	if (ret)
		return ret;
	if (hour > 23 || minute > 59)
		return parser__fail(
			p, start,
			"invalid UTC offset %c%02d:%02d: %s out of range", c,
			hour, minute, hour > 23 ? "hour" : "minute");
	dt->offset_min = (c == '-' ? -1 : 1) * (hour * 60 + minute);
	return 1;
}

/* Any of the four kinds; the type follows from which parts are there. */
static int parser__datetime(struct parser *p, struct toml_value **out)
{
	struct toml_datetime dt = { 0 };
	struct toml_pos start = p->pos;
	size_t start_off = p->off;
	enum toml_type type = TOML_TIME_LOCAL;
	struct toml_value *v;
	char found[16];
	int c, ret;

	if (parser__looks_like_date(p)) {
		ret = parser__date(p, &dt);
		if (ret)
			return ret;
		type = TOML_DATE_LOCAL;
		c = parser__peek(p);
		/* A space only separates when a time follows it. */
		if (c == 'T' || c == 't' ||
		    (c == ' ' && is_digit(parser__peek_at(p, 1)))) {
			parser__advance(p, 1);
			ret = parser__time(p, &dt);
			if (!ret)
				ret = parser__offset(p, &dt);
			if (ret < 0)
				return ret;
			type = ret ? TOML_DATETIME : TOML_DATETIME_LOCAL;
		}
	} else {
		ret = parser__time(p, &dt);
		if (ret)
			return ret;
	}
	c = parser__peek(p);
	if (is_word_char(c) || c == ':')
		return parser__fail(p, p->pos, "unexpected %s after %s '%.*s'",
				    parser__found(p, found, sizeof(found)),
				    toml_type__name(type),
				    (int)(p->off - start_off),
				    p->buf + start_off);
	v = value__new(type, start);
	if (!v)
		return parser__nomem(p);
	v->u.dt = dt;
	*out = v;
	return 0;
}

/* ---- keys ----------------------------------------------------------- */

static void key__free(struct key *key)
{
	size_t i;

	for (i = 0; i < key->n; i++)
		free(key->parts[i].str);
	free(key->parts);
	memset(key, 0, sizeof(*key));
}

/* The first @n parts of @key as a message shows them: a.b."c d". */
static void key__describe(const struct key *key, size_t n, char *buf,
			  size_t size)
{
	size_t i, j;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const struct key_part *part = &key->parts[i];
		bool bare = part->len > 0;

		for (j = 0; j < part->len && bare; j++)
			bare = is_bare_key_char((unsigned char)part->str[j]);
		if (i)
			desc__append(buf, size, ".", 1);
		if (!bare)
			desc__append(buf, size, "\"", 1);
		desc__append(buf, size, part->str, part->len);
		if (!bare)
			desc__append(buf, size, "\"", 1);
	}
}

/* One part of a key: bare, "basic" or 'literal'. */
static int parser__key_part(struct parser *p, struct key_part *part)
{
	struct sbuf sb = { 0 };
	char found[16];
	size_t n = 0;
	int c = parser__peek(p), ret;

	part->pos = p->pos;
	if (c == '"' || c == '\'') {
		if (parser__peek_at(p, 1) == c && parser__peek_at(p, 2) == c)
			return parser__fail(
				p, p->pos,
				"a multi-line string cannot be a key");
		ret = parser__string(p, &sb);
		if (!ret) {
			part->str = sbuf__take(&sb, &part->len);
			ret = part->str ? 0 : parser__nomem(p);
		}
		sbuf__free(&sb);
		return ret;
	}
	while (is_bare_key_char(parser__peek_at(p, n)))
		n++;
	if (!n)
		return parser__fail(p, p->pos, "expected a key, found %s",
				    parser__found(p, found, sizeof(found)));
	if (sbuf__add(&sb, p->buf + p->off, n))
		return parser__nomem(p);
	parser__advance(p, n);
	part->str = sbuf__take(&sb, &part->len);
	return 0;
}

/* A possibly dotted key, and the whitespace after it. */
static int parser__key(struct parser *p, struct key *key)
{
	int ret;

	for (;;) {
		if (key->n == key->alloc) {
			size_t want = key->alloc ? key->alloc * 2 : 4;
			struct key_part *parts;

			parts = reallocarray(key->parts, want, sizeof(*parts));
			if (!parts)
				return parser__nomem(p);
			key->parts = parts;
			key->alloc = want;
		}
		ret = parser__key_part(p, &key->parts[key->n]);
		if (ret)
			return ret;
		key->n++;
		parser__skip_ws(p);
		if (parser__peek(p) != '.')
			return 0;
		parser__advance(p, 1);
		parser__skip_ws(p);
	}
}

/* ---- arrays, inline tables, and values ------------------------------ */

static int parser__too_deep(struct parser *p, struct toml_pos pos)
{
	return parser__fail(
		p, pos,
		"nested too deeply: more than %d levels of tables and arrays",
		TOML_MAX_DEPTH);
}

/* "an integer", "an inline table": what a key holds, for messages. */
static const char *value__what(const struct toml_value *v, char *buf,
			       size_t size)
{
	const char *name = toml_type__name(v->type);

	if (v->type == TOML_TABLE && (v->flags & TF_FROZEN))
		name = "inline table";
	else if (v->type == TOML_ARRAY && (v->flags & TF_AOT))
		name = "array of tables";
	snprintf(buf, size, "%s %s", strchr("aeiou", name[0]) ? "an" : "a",
		 name);
	return buf;
}

static int parser__value(struct parser *p, unsigned int depth,
			 struct toml_value **out);
static int parser__keyval(struct parser *p, struct toml_value *tab,
			  unsigned int depth);

/* An array literal at @depth, the cursor on its '['. */
static int parser__array(struct parser *p, unsigned int depth,
			 struct toml_value **out)
{
	struct toml_value *arr, *item;
	char found[16];
	int c, ret;

	if (depth > TOML_MAX_DEPTH)
		return parser__too_deep(p, p->pos);
	arr = value__new(TOML_ARRAY, p->pos);
	if (!arr)
		return parser__nomem(p);
	arr->flags = TF_FROZEN;
	parser__advance(p, 1);
	for (;;) {
		parser__skip_blank(p);
		if (parser__peek(p) == ']')
			break;
		ret = parser__value(p, depth + 1, &item);
		if (ret)
			goto fail;
		if (array__push(arr, item)) {
			ret = parser__nomem(p);
			goto fail;
		}
		parser__skip_blank(p);
		c = parser__peek(p);
		if (c == ']')
			break;
		if (c != ',') {
			ret = parser__fail(
				p, p->pos,
				"expected ',' or ']' after array element, found %s",
				parser__found(p, found, sizeof(found)));
			goto fail;
		}
		parser__advance(p, 1);
	}
	parser__advance(p, 1);
	*out = arr;
	return 0;
fail:
	toml_value__free(arr);
	return ret;
}

/* An inline table at @depth, the cursor on its '{'. All on one line. */
static int parser__inline_table(struct parser *p, unsigned int depth,
				struct toml_value **out)
{
	struct toml_value *tab;
	char found[16];
	int c, ret = 0;

	if (depth > TOML_MAX_DEPTH)
		return parser__too_deep(p, p->pos);
	tab = value__new(TOML_TABLE, p->pos);
	if (!tab)
		return parser__nomem(p);
	tab->flags = TF_FROZEN;
	parser__advance(p, 1);
	parser__skip_ws(p);
	while (parser__peek(p) != '}') {
		ret = parser__keyval(p, tab, depth);
		if (ret)
			goto fail;
		parser__skip_ws(p);
		c = parser__peek(p);
		if (c == '}')
			break;
		if (c != ',') {
			ret = parser__fail(
				p, p->pos,
				"expected ',' or '}' after inline table entry, found %s%s",
				parser__found(p, found, sizeof(found)),
				parser__at_newline(p) ?
					" (an inline table must fit on one line)" :
					"");
			goto fail;
		}
		parser__advance(p, 1);
		parser__skip_ws(p);
		if (parser__peek(p) == '}') {
			ret = parser__fail(
				p, p->pos,
				"trailing comma not allowed in an inline table");
			goto fail;
		}
	}
	parser__advance(p, 1);
	*out = tab;
	return 0;
fail:
	toml_value__free(tab);
	return ret;
}

/* true, false, inf or nan; anything else bare is no value. */
static int parser__word(struct parser *p, struct toml_value **out)
{
	const char *s = p->buf + p->off;
	struct toml_value *v;
	char desc[DESC_MAX] = "";
	size_t n = 0;

	while (is_word_char(parser__peek_at(p, n)))
		n++;
	if (token__is(s, n, "inf") || token__is(s, n, "nan"))
		return parser__number(p, out);
	if (!token__is(s, n, "true") && !token__is(s, n, "false")) {
		if (n)
			snprintf(desc, sizeof(desc), "'");
		desc__append(desc, sizeof(desc), s, n);
		if (n)
			desc__append(desc, sizeof(desc), "'", 1);
		return parser__fail(p, p->pos, "expected a value, found %s",
				    n ? desc :
					parser__found(p, desc, sizeof(desc)));
	}
	v = value__new(TOML_BOOL, p->pos);
	if (!v)
		return parser__nomem(p);
	v->u.b = n == 4;
	parser__advance(p, n);
	*out = v;
	return 0;
}

/* Any value; @depth is the one it has if it is an array or table. */
static int parser__value(struct parser *p, unsigned int depth,
			 struct toml_value **out)
{
	int c = parser__peek(p);

	if (c == '"' || c == '\'')
		return parser__string_value(p, out);
	if (c == '[')
		return parser__array(p, depth, out);
	if (c == '{')
		return parser__inline_table(p, depth, out);
	if (parser__looks_like_date(p) || parser__looks_like_time(p))
		return parser__datetime(p, out);
	if (is_digit(c) || c == '+' || c == '-')
		return parser__number(p, out);
	return parser__word(p, out);
}

/* ---- key/value pairs ------------------------------------------------ */

/*
 * Step from *@tab into the table named by part @i of a dotted key, making
 * it if needed. Only tables made by dotted keys may be entered this way:
 * neither inline tables nor tables that a [header] made can be extended.
 */
static int parser__dotted_step(struct parser *p, struct toml_value **tab,
			       unsigned int *depth, const struct key *key,
			       size_t i)
{
	const struct key_part *part = &key->parts[i];
	struct toml_kv *kv = parser__lookup(p, *tab, part);
	char path[DESC_MAX], what[32];
	struct toml_value *v;

	if (++*depth > TOML_MAX_DEPTH)
		return parser__too_deep(p, part->pos);
	if (!kv) {
		v = value__new(TOML_TABLE, part->pos);
		if (parser__add(p, *tab, part, v))
			return -ENOMEM;
		v->flags = TF_DOTTED;
		*tab = v;
		return 0;
	}
	v = kv->val;
	if (v->type == TOML_TABLE && (v->flags & TF_DOTTED)) {
		*tab = v;
		return 0;
	}
	key__describe(key, i + 1, path, sizeof(path));
	if (v->type == TOML_TABLE && (v->flags & TF_FROZEN))
		return parser__fail(
			p, part->pos,
			"cannot add to inline table '%s' (defined at line %u): inline tables are immutable",
			path, kv->pos.line);
	if (v->type == TOML_TABLE)
		return parser__fail(
			p, part->pos,
			"cannot add to table '%s' with dotted keys: it was defined by a [table] header (line %u)",
			path, kv->pos.line);
	return parser__fail(p, part->pos,
			    "key '%s' already holds %s (line %u), not a table",
			    path, value__what(v, what, sizeof(what)),
			    kv->pos.line);
}

/* key = value, into @tab which sits at @depth. */
static int parser__keyval(struct parser *p, struct toml_value *tab,
			  unsigned int depth)
{
	struct key key = { 0 };
	struct toml_value *val;
	struct key_part *last;
	struct toml_kv *kv;
	char name[DESC_MAX], found[16];
	size_t i;
	int c, ret;

	ret = parser__key(p, &key);
	if (ret)
		goto out;
	key__describe(&key, key.n, name, sizeof(name));
	if (parser__peek(p) != '=') {
		ret = parser__fail(p, p->pos,
				   "expected '=' after key '%s', found %s",
				   name,
				   parser__found(p, found, sizeof(found)));
		goto out;
	}
	parser__advance(p, 1);
	parser__skip_ws(p);
	for (i = 0; i + 1 < key.n; i++) {
		ret = parser__dotted_step(p, &tab, &depth, &key, i);
		if (ret)
			goto out;
	}
	last = &key.parts[key.n - 1];
	kv = parser__lookup(p, tab, last);
	if (kv) {
		ret = parser__fail(
			p, last->pos,
			"duplicate key '%s' (first defined at line %u)", name,
			kv->pos.line);
		goto out;
	}
	c = parser__peek(p);
	if (c < 0 || c == '#' || parser__at_newline(p)) {
		ret = parser__fail(
			p, p->pos,
			"expected a value after '=' for key '%s', found %s",
			name, parser__found(p, found, sizeof(found)));
		goto out;
	}
	ret = parser__value(p, depth + 1, &val);
	if (ret)
		goto out;
	ret = parser__add(p, tab, last, val);
	if (ret)
		goto out;
	snprintf(p->context, sizeof(p->context), "the value of '%s'", name);
out:
	key__free(&key);
	return ret;
}

/* ---- [tables] and [[arrays of tables]] ------------------------------ */

/*
 * Step from *@tab into the table named by part @i of a [header], making it
 * (implicitly) if needed. An array of tables is entered at its last
 * element, the one the latest [[header]] made.
 */
static int parser__header_step(struct parser *p, struct toml_value **tab,
			       unsigned int *depth, const struct key *key,
			       size_t i, const char *name)
{
	const struct key_part *part = &key->parts[i];
	struct toml_kv *kv = parser__lookup(p, *tab, part);
	char path[DESC_MAX], what[32];
	struct toml_value *v;

	if (!kv) {
		v = value__new(TOML_TABLE, part->pos);
		if (parser__add(p, *tab, part, v))
			return -ENOMEM;
		v->flags = TF_IMPLICIT;
	} else if (kv->val->type == TOML_TABLE &&
		   !(kv->val->flags & TF_FROZEN)) {
		v = kv->val;
	} else if (kv->val->type == TOML_ARRAY && (kv->val->flags & TF_AOT)) {
		v = kv->val->u.arr.items[kv->val->u.arr.n - 1];
		++*depth;
	} else {
		key__describe(key, i + 1, path, sizeof(path));
		return parser__fail(
			p, part->pos,
			"cannot define table [%s]: '%s' already holds %s (line %u)",
			name, path, value__what(kv->val, what, sizeof(what)),
			kv->pos.line);
	}
	*tab = v;
	if (++*depth > TOML_MAX_DEPTH)
		return parser__too_deep(p, part->pos);
	return 0;
}

/* [name]: the last part of the header, in @tab. */
static int parser__define_table(struct parser *p, struct toml_value *tab,
				const struct key_part *part,
				struct toml_pos start, const char *name)
{
	struct toml_kv *kv = parser__lookup(p, tab, part);
	struct toml_value *v;
	char what[32];

	if (!kv) {
		v = value__new(TOML_TABLE, start);
		if (parser__add(p, tab, part, v))
			return -ENOMEM;
		v->flags = TF_HEADER;
		p->cur = v;
		return 0;
	}
	v = kv->val;
	if (v->type == TOML_TABLE && v->flags == TF_IMPLICIT) {
		/* Made as a parent of an earlier header: defined only now. */
		v->flags = TF_HEADER;
		v->pos = start;
		kv->pos = part->pos;
		p->cur = v;
		return 0;
	}
	if (v->type == TOML_TABLE && (v->flags & TF_HEADER))
		return parser__fail(
			p, start,
			"duplicate table [%s] (first defined at line %u)", name,
			kv->pos.line);
	if (v->type == TOML_TABLE && (v->flags & TF_DOTTED))
		return parser__fail(
			p, start,
			"cannot define table [%s]: dotted keys already defined it at line %u",
			name, kv->pos.line);
	return parser__fail(
		p, start,
		"cannot define table [%s]: the key already holds %s (line %u)",
		name, value__what(v, what, sizeof(what)), kv->pos.line);
}

/* [[name]]: the last part of the header, in @tab. */
static int parser__append_table(struct parser *p, struct toml_value *tab,
				const struct key_part *part,
				struct toml_pos start, const char *name)
{
	struct toml_kv *kv = parser__lookup(p, tab, part);
	struct toml_value *arr, *v;
	char what[32];

	if (!kv) {
		arr = value__new(TOML_ARRAY, start);
		if (parser__add(p, tab, part, arr))
			return -ENOMEM;
		arr->flags = TF_AOT;
	} else if (kv->val->type == TOML_ARRAY && (kv->val->flags & TF_AOT)) {
		arr = kv->val;
	} else {
		return parser__fail(
			p, start,
			"cannot define array of tables [[%s]]: the key already holds %s (line %u)",
			name, value__what(kv->val, what, sizeof(what)),
			kv->pos.line);
	}
	v = value__new(TOML_TABLE, start);
	if (array__push(arr, v))
		return parser__nomem(p);
	v->flags = TF_HEADER;
	p->cur = v;
	return 0;
}

/* A [table] or [[array of tables]] header; it opens a new section. */
static int parser__header(struct parser *p)
{
	struct toml_pos start = p->pos;
	bool aot = parser__peek_at(p, 1) == '[';
	struct toml_value *tab = p->root;
	unsigned int depth = 0;
	struct key key = { 0 };
	char name[DESC_MAX], found[16];
	size_t i;
	int ret;

	parser__advance(p, aot ? 2 : 1);
	parser__skip_ws(p);
	ret = parser__key(p, &key);
	if (ret)
		goto out;
	key__describe(&key, key.n, name, sizeof(name));
	if (parser__peek(p) != ']' || (aot && parser__peek_at(p, 1) != ']')) {
		ret = parser__fail(
			p, p->pos,
			"expected '%s' after table name '%s', found %s",
			aot ? "]]" : "]", name,
			parser__found(p, found, sizeof(found)));
		goto out;
	}
	parser__advance(p, aot ? 2 : 1);
	for (i = 0; i + 1 < key.n; i++) {
		ret = parser__header_step(p, &tab, &depth, &key, i, name);
		if (ret)
			goto out;
	}
	depth += aot ? 2 : 1;
	if (depth > TOML_MAX_DEPTH) {
		ret = parser__too_deep(p, key.parts[key.n - 1].pos);
		goto out;
	}
	if (aot)
		ret = parser__append_table(p, tab, &key.parts[key.n - 1], start,
					   name);
	else
		ret = parser__define_table(p, tab, &key.parts[key.n - 1], start,
					   name);
	if (ret)
		goto out;
	p->cur_depth = depth;
	snprintf(p->context, sizeof(p->context), "table header %s%s%s",
		 aot ? "[[" : "[", name, aot ? "]]" : "]");
out:
	key__free(&key);
	return ret;
}

/* ---- the document --------------------------------------------------- */

/* After a key/value pair or header: only a comment may share its line. */
static int parser__end_of_line(struct parser *p)
{
	char found[16];

	parser__skip_ws(p);
	if (parser__peek(p) == '#')
		parser__skip_comment(p);
	if (parser__peek(p) < 0)
		return 0;
	if (parser__at_newline(p)) {
		parser__skip_newline(p);
		return 0;
	}
	return parser__fail(p, p->pos,
			    "expected end of line after %s, found %s",
			    p->context, parser__found(p, found, sizeof(found)));
}

static int parser__document(struct parser *p)
{
	int c, ret;

	p->cur = p->root;
	for (;;) {
		parser__skip_ws(p);
		c = parser__peek(p);
		if (c < 0)
			return 0;
		if (c == '#') {
			parser__skip_comment(p);
			continue;
		}
		if (parser__at_newline(p)) {
			parser__skip_newline(p);
			continue;
		}
		if (c == '[')
			ret = parser__header(p);
		else
			ret = parser__keyval(p, p->cur, p->cur_depth);
		if (!ret)
			ret = parser__end_of_line(p);
		if (ret)
			return ret;
	}
}

struct toml_value *toml__parse(const char *buf, size_t len,
			       struct toml_error *err)
{
	static const char bom[] = "\xef\xbb\xbf";
	struct toml_error spare;
	struct parser p = {
		.buf = buf ? buf : "",
		.len = buf ? len : 0,
		.pos = { 1, 1 },
		.err = err ? err : &spare,
	};
	int ret;

	memset(p.err, 0, sizeof(*p.err));
	p.root = value__new(TOML_TABLE, p.pos);
	if (!p.root) {
		parser__nomem(&p);
		return NULL;
	}
	ret = parser__prescan(&p);
	if (!ret) {
		/* A byte order mark is no part of the text, nor its columns. */
		p.off = p.len >= 3 && !memcmp(p.buf, bom, 3) ? 3 : 0;
		p.pos.line = 1;
		p.pos.col = 1;
		ret = parser__document(&p);
	}
	free(p.index.slots);
	if (p.c_locale)
		freelocale(p.c_locale);
	if (ret) {
		toml_value__free(p.root);
		return NULL;
	}
	return p.root;
}

static int file__read(const char *path, struct sbuf *sb)
{
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (sbuf__reserve(sb, 65536)) {
			ret = -ENOMEM;
			break;
		}
		n = read(fd, sb->ptr + sb->len, sb->alloc - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = -errno;
		if (n <= 0)
			break;
		sb->len += n;
	}
	close(fd);
	return ret;
}

struct toml_value *toml__parse_file(const char *path, struct toml_error *err)
{
	struct toml_error spare;
	struct toml_value *root;
	struct sbuf sb = { 0 };
	int ret;

	if (!err)
		err = &spare;
	ret = file__read(path, &sb);
	if (ret) {
		memset(err, 0, sizeof(*err));
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path,
			 strerror(-ret));
		sbuf__free(&sb);
		return NULL;
	}
	root = toml__parse(sb.ptr, sb.len, err);
	sbuf__free(&sb);
	return root;
}

/* ---- lookups and formatting ----------------------------------------- */

const struct toml_kv *toml_table__find(const struct toml_value *tab,
				       const char *key)
{
	if (!tab || tab->type != TOML_TABLE || !key)
		return NULL;
	return table__lookup(tab, key, strlen(key));
}

const struct toml_value *toml_table__get(const struct toml_value *tab,
					 const char *key)
{
	const struct toml_kv *kv = toml_table__find(tab, key);

	return kv ? kv->val : NULL;
}

const char *toml_type__name(enum toml_type type)
{
	static const char *const names[] = {
		[TOML_TABLE] = "table",
		[TOML_ARRAY] = "array",
		[TOML_STRING] = "string",
		[TOML_INTEGER] = "integer",
		[TOML_FLOAT] = "float",
		[TOML_BOOL] = "boolean",
		[TOML_DATETIME] = "offset date-time",
		[TOML_DATETIME_LOCAL] = "local date-time",
		[TOML_DATE_LOCAL] = "local date",
		[TOML_TIME_LOCAL] = "local time",
	};

	if ((unsigned int)type >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[type];
}

int toml_datetime__format(const struct toml_value *v, char *buf, size_t size)
{
	const struct toml_datetime *dt;
	char date[48] = "", time[64] = "", zone[32] = "";
	int n, off;

	if (!v || v->type < TOML_DATETIME || v->type > TOML_TIME_LOCAL)
		return -EINVAL;
	dt = &v->u.dt;
	if (v->type != TOML_TIME_LOCAL)
		snprintf(date, sizeof(date), "%04d-%02d-%02d%s", dt->year,
			 dt->month, dt->day,
			 v->type == TOML_DATE_LOCAL ? "" : "T");
	if (v->type != TOML_DATE_LOCAL) {
		n = snprintf(time, sizeof(time), "%02d:%02d:%02d", dt->hour,
			     dt->minute, dt->second);
		/* Print the digits given, as far as nanoseconds keep them. */
		if (dt->frac_digits > 0)
			snprintf(time + n, sizeof(time) - n, ".%09d", dt->nsec);
		if (dt->frac_digits > 0 && dt->frac_digits < 9)
			time[n + 1 + dt->frac_digits] = '\0';
	}
	if (v->type == TOML_DATETIME) {
		off = dt->offset_min < 0 ? -dt->offset_min : dt->offset_min;
		if (off)
			snprintf(zone, sizeof(zone), "%c%02d:%02d",
				 dt->offset_min < 0 ? '-' : '+', off / 60,
				 off % 60);
		else
			strcpy(zone, "Z");
	}
	return snprintf(buf, size, "%s%s%s", date, time, zone);
}

char *toml__quote(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *out = malloc(len * 6 + 3);

	if (!out)
		abort();
	out[o++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)sprintf(out + o, "\\u%04x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}
