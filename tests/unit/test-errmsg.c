// SPDX-License-Identifier: GPL-2.0-only
/*
 * The error contract every library layer follows: words replaced,
 * wrapped from what a callee said, handed over, dropped for a caller
 * that passes no err. Run under ASan (make check SANITIZE=1), a leak or
 * a use of the freed words fails here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "tap.h"
#include "util.h"

static void test_set(void)
{
	char *err = NULL;

	is_int(errmsg__set(&err, -EINVAL, "host %s: %d", "a", 3), -EINVAL,
	       "set returns the errno it is given");
	is_str(err, "host a: 3", "and the formatted words");
	is_int(errmsg__set(&err, -ENOENT, "second"), -ENOENT,
	       "a second failure replaces the first");
	is_str(err, "second", "with its own words");
	is_int(errmsg__set(NULL, -EIO, "dropped %s", "x"), -EIO,
	       "a NULL err keeps the errno only");
	free(err);
}

static void test_wrap(void)
{
	char *err = xstrdup("cannot read /x: No such file");

	errmsg__set(&err, 0, "%s (run depmod)", err);
	is_str(err, "cannot read /x: No such file (run depmod)",
	       "the callee's words wrapped in the caller's");
	free(err);
}

static void test_move_clear(void)
{
	char *err = xstrdup("old");

	is_int(errmsg__move(&err, -EPIPE, xstrdup("moved")), -EPIPE,
	       "move returns the errno");
	is_str(err, "moved", "and holds the words handed over");
	is_int(errmsg__move(NULL, -EPIPE, xstrdup("gone")), -EPIPE,
	       "a NULL err frees the words handed over");
	errmsg__clear(&err);
	ok(err == NULL, "clear leaves no words");
	errmsg__clear(&err);
	errmsg__clear(NULL);
	ok(err == NULL, "and clearing nothing, or a NULL err, is harmless");
}

static void test_reset(void)
{
	char *words = xstrdup("freed by its owner"), *err = words;

	free(words);
	errmsg__reset(&err);
	ok(err == NULL, "reset forgets words it does not own, freeing nothing");
	errmsg__reset(NULL);
	is_int(errmsg__set(&err, -EINVAL, "after"), -EINVAL,
	       "and the next failure sets its words on a clean slate");
	is_str(err, "after", "which are the new words");
	free(err);
}

int main(void)
{
	test_set();
	test_wrap();
	test_move_clear();
	test_reset();
	return tap_done();
}
