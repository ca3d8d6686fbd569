-- SPDX-License-Identifier: GPL-2.0-only
--
-- What a Debian package kernel was when it ran: the versioned package
-- (a meta-package's target at that time), its Debian version and the
-- suite it came from, so that a nightly over a kernel that moves by
-- itself names both sides of a change ("7.3.4-1 -> 7.3.5-1"). The
-- version joins the key: a suite may ship a new build under the same
-- release (Debian keeps an ABI name across uploads), and it is another
-- kernel. '' where not a package, or stored before this.
--
-- SQLite changes a UNIQUE constraint only by rebuilding the table. The
-- rename runs in legacy mode: the default one checks every view first,
-- and trial_metrics, which joins kernels, would name a table that is not
-- there between the DROP and the RENAME; in legacy mode it names the new
-- one afterwards, as it is.

PRAGMA legacy_alter_table = ON;

CREATE TABLE new_kernels (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL CHECK (name <> ''),
	release TEXT NOT NULL DEFAULT '',
	build_id TEXT NOT NULL DEFAULT '',
	image_path TEXT,
	recipe TEXT CHECK (recipe IS NULL OR json_valid(recipe)),
	package TEXT NOT NULL DEFAULT '',
	version TEXT NOT NULL DEFAULT '',
	suite TEXT NOT NULL DEFAULT '',
	UNIQUE (name, release, build_id, version)
);
INSERT INTO new_kernels (id, name, release, build_id, image_path, recipe)
SELECT id, name, release, build_id, image_path, recipe FROM kernels;
DROP TABLE kernels;
ALTER TABLE new_kernels RENAME TO kernels;

PRAGMA legacy_alter_table = OFF;
