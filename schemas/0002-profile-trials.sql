-- SPDX-License-Identifier: GPL-2.0-only
--
-- Profile trials, and which collectors each trial carried. perf record
-- costs a quarter of iperf3's throughput on a veth pair (make bench), so
-- a trial that samples must not feed the statistics unmarked: profile
-- trials are a third kind beside warmups and measured ones, and every
-- trial says what ran during it. SQLite cannot change a UNIQUE
-- constraint in place: the table is rebuilt (schemas/README.md,
-- Migrations), and the view that reads it recreated with one more
-- column at its end.

DROP VIEW trial_metrics;

CREATE TABLE trials_new (
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
	profile INTEGER NOT NULL DEFAULT 0 CHECK (profile IN (0, 1)),
	collectors TEXT CHECK (collectors IS NULL OR json_valid(collectors)),
	CHECK (NOT (warmup AND profile)),
	UNIQUE (cell_id, warmup, profile, repetition)
);
INSERT INTO trials_new (id, cell_id, repetition, warmup, requested_mode,
	effective_mode, boot_id, status, error, started_at, finished_at)
SELECT id, cell_id, repetition, warmup, requested_mode, effective_mode,
	boot_id, status, error, started_at, finished_at
FROM trials;
DROP TABLE trials;
ALTER TABLE trials_new RENAME TO trials;
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
	m.id AS metric_id,
	t.profile AS profile
FROM metrics m
JOIN trials t ON t.id = m.trial_id
JOIN cells c ON c.id = t.cell_id
JOIN runs r ON r.id = c.run_id
JOIN hosts h ON h.id = c.host_id
JOIN kernels k ON k.id = c.kernel_id
LEFT JOIN boots b ON b.id = t.boot_id;
