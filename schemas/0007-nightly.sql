-- SPDX-License-Identifier: GPL-2.0-only
--
-- The kernel test robot (iommu-bench nightly): each night of a matrix
-- that follows a kernel branch or a Debian package, the stage it has
-- reached (so that a night killed anywhere resumes where it stopped,
-- and is never counted twice), and what it concluded; the regressions
-- the nights found, each reported once, with the state a person triages
-- it to, and the notes they leave on it.

CREATE TABLE nights (
	id INTEGER PRIMARY KEY,
	-- the matrix's [run] name: one robot per series of nights
	series TEXT NOT NULL,
	-- the followed kernel's name in the matrix
	kernel TEXT NOT NULL,
	-- what it measured: a commit (40 hex) or a package's version
	head TEXT NOT NULL,
	head_subject TEXT,
	-- a followed Debian package: what the meta-package resolved to
	package TEXT,
	run_id INTEGER REFERENCES runs (id) ON DELETE SET NULL,
	-- the last good night it was judged against; NULL: the first
	base_night_id INTEGER REFERENCES nights (id) ON DELETE SET NULL,
	stage TEXT NOT NULL DEFAULT 'run'
		CHECK (stage IN ('run', 'judge', 'confirm', 'bisect', 'mail',
				 'done')),
	verdict TEXT
		CHECK (verdict IN ('pass', 'regression', 'improvement',
				   'unconfirmed', 'failed')),
	-- what the night said, one line per finding
	summary TEXT,
	started_at TEXT NOT NULL,
	finished_at TEXT
);

-- One unfinished night per series: the next start resumes it.
CREATE UNIQUE INDEX nights_open ON nights (series) WHERE stage != 'done';

CREATE TABLE regressions (
	id INTEGER PRIMARY KEY,
	night_id INTEGER NOT NULL REFERENCES nights (id) ON DELETE CASCADE,
	series TEXT NOT NULL,
	host TEXT NOT NULL,
	workload TEXT NOT NULL,
	mode TEXT NOT NULL,
	metric TEXT NOT NULL,
	improvement INTEGER NOT NULL DEFAULT 0 CHECK (improvement IN (0, 1)),
	-- the ends: the last good night's commit or version, and this one's
	base TEXT NOT NULL,
	head TEXT NOT NULL,
	base_median REAL,
	head_median REAL,
	change_pct REAL,
	-- the confirmation: both ends again, interleaved
	confirm_run_id INTEGER REFERENCES runs (id) ON DELETE SET NULL,
	pairs INTEGER CHECK (pairs >= 0),
	reproduced INTEGER CHECK (reproduced >= 0 AND reproduced <= pairs),
	-- the bisection's first bad commit; NULL: none (why: no_commit)
	first_bad TEXT,
	no_commit TEXT,
	-- what it is reported against: first_bad, else head
	culprit TEXT NOT NULL,
	-- confirming (measured again, then bisected), unconfirmed (it did
	-- not reproduce: kept, never mailed), new (confirmed, its mail not
	-- yet written), reported, fixed, ignored
	state TEXT NOT NULL DEFAULT 'confirming'
		CHECK (state IN ('confirming', 'unconfirmed', 'new',
				 'reported', 'fixed', 'ignored')),
	-- the mail written (an mbox file) and its Message-ID
	mail TEXT,
	message_id TEXT,
	fixed_night_id INTEGER REFERENCES nights (id) ON DELETE SET NULL,
	fixed_by TEXT,
	created_at TEXT NOT NULL,
	UNIQUE (series, culprit, host, workload, mode, metric, improvement)
);

CREATE INDEX regressions_series ON regressions (series, host, workload, mode,
						metric);

CREATE TABLE regression_notes (
	id INTEGER PRIMARY KEY,
	regression_id INTEGER NOT NULL REFERENCES regressions (id)
		ON DELETE CASCADE,
	note TEXT NOT NULL,
	created_at TEXT NOT NULL
);
