-- SPDX-License-Identifier: GPL-2.0-only
--
-- The first iommu-bench schema. Released migrations are never edited: a
-- change is a new file, 0002-what.sql. See schemas/README.md for what
-- every table and column means and the queries users run against them.
--
-- Times are UTC text, 'YYYY-MM-DDTHH:MM:SS.SSSZ', which sort as strings
-- and which SQLite's date functions read. JSON columns are checked with
-- json_valid() so that a reader can always hand them to json_each().

-- "IOMB": tells an iommu-bench database from another application's.
PRAGMA application_id = 1229934402;

CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL CHECK (name <> ''),
	config TEXT NOT NULL,
	config_sha256 TEXT NOT NULL CHECK (length(config_sha256) = 64),
	tool_version TEXT NOT NULL,
	started_at TEXT NOT NULL,
	finished_at TEXT,
	status TEXT NOT NULL DEFAULT 'running'
		CHECK (status IN ('running', 'done', 'failed', 'interrupted'))
);
-- Resume looks a run up by its name and the exact matrix it ran.
CREATE INDEX runs_name_config ON runs (name, config_sha256);

-- A host is a machine, not a name: a matrix name re-used for a
-- reinstalled box gets a new row, so old results keep their hardware.
CREATE TABLE hosts (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL CHECK (name <> ''),
	identity TEXT NOT NULL CHECK (identity <> ''),
	first_seen TEXT NOT NULL,
	UNIQUE (name, identity)
);

CREATE TABLE kernels (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL CHECK (name <> ''),
	release TEXT NOT NULL DEFAULT '',
	build_id TEXT NOT NULL DEFAULT '',
	image_path TEXT,
	recipe TEXT CHECK (recipe IS NULL OR json_valid(recipe)),
	-- '' rather than NULL for "not known yet", since NULLs never
	-- collide in a UNIQUE constraint and the upsert would duplicate.
	UNIQUE (name, release, build_id)
);

CREATE TABLE boots (
	id INTEGER PRIMARY KEY,
	host_id INTEGER NOT NULL REFERENCES hosts (id),
	boot_id TEXT NOT NULL CHECK (boot_id <> ''),
	kernel_release TEXT NOT NULL,
	kernel_build_id TEXT NOT NULL DEFAULT '',
	cmdline TEXT NOT NULL,
	facts TEXT CHECK (facts IS NULL OR json_valid(facts)),
	first_seen TEXT NOT NULL,
	UNIQUE (host_id, boot_id)
);

CREATE TABLE cells (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	host_id INTEGER NOT NULL REFERENCES hosts (id),
	kernel_id INTEGER NOT NULL REFERENCES kernels (id),
	mode TEXT NOT NULL CHECK (mode <> ''),
	workload TEXT NOT NULL CHECK (workload <> ''),
	cell_key TEXT NOT NULL CHECK (cell_key <> ''),
	UNIQUE (run_id, cell_key)
);
CREATE INDEX cells_host ON cells (host_id);
CREATE INDEX cells_kernel ON cells (kernel_id);

-- (cell, warmup, repetition) is what a resumed run looks for: a trial
-- that is already 'ok' is not run again.
CREATE TABLE trials (
	id INTEGER PRIMARY KEY,
	cell_id INTEGER NOT NULL REFERENCES cells (id) ON DELETE CASCADE,
	repetition INTEGER NOT NULL CHECK (repetition >= 0),
	warmup INTEGER NOT NULL DEFAULT 0 CHECK (warmup IN (0, 1)),
	requested_mode TEXT NOT NULL,
	effective_mode TEXT,
	boot_id INTEGER REFERENCES boots (id),
	status TEXT NOT NULL DEFAULT 'pending'
		CHECK (status IN ('pending', 'running', 'ok', 'failed', 'skipped')),
	error TEXT,
	started_at TEXT,
	finished_at TEXT,
	UNIQUE (cell_id, warmup, repetition)
);
CREATE INDEX trials_boot ON trials (boot_id);

-- A trial measured on one machine must not claim a boot of another.
CREATE TRIGGER trials_boot_host_insert
BEFORE INSERT ON trials
WHEN NEW.boot_id IS NOT NULL AND
	(SELECT host_id FROM boots WHERE id = NEW.boot_id) IS NOT
	(SELECT host_id FROM cells WHERE id = NEW.cell_id)
BEGIN
	SELECT RAISE(ABORT, 'trial boot belongs to another host than its cell');
END;
CREATE TRIGGER trials_boot_host_update
BEFORE UPDATE OF boot_id, cell_id ON trials
WHEN NEW.boot_id IS NOT NULL AND
	(SELECT host_id FROM boots WHERE id = NEW.boot_id) IS NOT
	(SELECT host_id FROM cells WHERE id = NEW.cell_id)
BEGIN
	SELECT RAISE(ABORT, 'trial boot belongs to another host than its cell');
END;

CREATE TABLE metrics (
	id INTEGER PRIMARY KEY,
	trial_id INTEGER NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
	name TEXT NOT NULL CHECK (name <> ''),
	value REAL NOT NULL,
	unit TEXT NOT NULL DEFAULT '',
	better TEXT NOT NULL DEFAULT 'none'
		CHECK (better IN ('higher', 'lower', 'none')),
	UNIQUE (trial_id, name)
);
CREATE INDEX metrics_name ON metrics (name);

-- hist[i] counts calls whose latency fell in [2^i, 2^(i+1)) ns; bucket 0
-- also holds 0 ns. A probe whose target was missing is kept with
-- attach = 'none' so that "not measured" never reads as "never called".
CREATE TABLE probes (
	id INTEGER PRIMARY KEY,
	trial_id INTEGER NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
	name TEXT NOT NULL CHECK (name <> ''),
	target TEXT NOT NULL,
	attach TEXT NOT NULL CHECK (attach <> ''),
	calls INTEGER NOT NULL CHECK (calls >= 0),
	total_ns INTEGER NOT NULL CHECK (total_ns >= 0),
	hist TEXT NOT NULL DEFAULT '[]'
		CHECK (json_valid(hist) AND json_type(hist) = 'array'),
	UNIQUE (trial_id, name)
);

CREATE TABLE profile (
	id INTEGER PRIMARY KEY,
	trial_id INTEGER NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
	event TEXT NOT NULL DEFAULT '',
	symbol TEXT NOT NULL,
	dso TEXT NOT NULL DEFAULT '',
	overhead REAL NOT NULL CHECK (overhead >= 0 AND overhead <= 100),
	samples INTEGER NOT NULL CHECK (samples >= 0)
);
CREATE INDEX profile_trial ON profile (trial_id);
CREATE INDEX profile_symbol ON profile (symbol);

CREATE TABLE intervals (
	id INTEGER PRIMARY KEY,
	trial_id INTEGER NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
	metric TEXT NOT NULL CHECK (metric <> ''),
	t_start REAL NOT NULL CHECK (t_start >= 0),
	t_end REAL NOT NULL CHECK (t_end >= t_start),
	value REAL NOT NULL,
	unit TEXT NOT NULL DEFAULT ''
);
CREATE INDEX intervals_trial ON intervals (trial_id, metric, t_start);

-- run_id is set for trial artifacts too, so that a run's files are one
-- lookup away; the store fills it from the trial, so it cannot disagree.
CREATE TABLE artifacts (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	trial_id INTEGER REFERENCES trials (id) ON DELETE CASCADE,
	path TEXT NOT NULL CHECK (path <> ''),
	kind TEXT NOT NULL CHECK (kind <> ''),
	sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
	size INTEGER NOT NULL CHECK (size >= 0)
);
CREATE INDEX artifacts_run ON artifacts (run_id);
CREATE INDEX artifacts_trial ON artifacts (trial_id);

-- One row per trial metric with everything that names it: what `export`
-- prints and what most hand-written queries want to start from.
CREATE VIEW trial_metrics AS
SELECT
	r.id AS run,
	r.name AS run_name,
	c.cell_key AS cell,
	h.name AS host,
	k.name AS kernel,
	b.kernel_release AS kernel_release,
	t.requested_mode AS requested_mode,
	t.effective_mode AS effective_mode,
	c.workload AS workload,
	t.id AS trial,
	t.repetition AS repetition,
	t.warmup AS warmup,
	t.status AS status,
	m.name AS metric,
	m.value AS value,
	m.unit AS unit,
	m.better AS better,
	t.started_at AS started_at,
	c.id AS cell_id,
	m.id AS metric_id
FROM metrics m
JOIN trials t ON t.id = m.trial_id
JOIN cells c ON c.id = t.cell_id
JOIN runs r ON r.id = c.run_id
JOIN hosts h ON h.id = c.host_id
JOIN kernels k ON k.id = c.kernel_id
LEFT JOIN boots b ON b.id = t.boot_id;
