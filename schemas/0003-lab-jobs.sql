-- SPDX-License-Identifier: GPL-2.0-only
--
-- The jobs a run submitted to a lab (transport "lava"): one per boot of
-- a lab's device. Kept so that a run killed while its job ran finds the
-- job again when resumed, instead of submitting a second one for the
-- same boot, and so that a report can say what the lab cost: queueing
-- (submitted_at to started_at) and the device's time.

CREATE TABLE lab_jobs (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	host TEXT NOT NULL,
	server TEXT NOT NULL,
	job_id INTEGER NOT NULL,
	-- the definition's sha256: a resumed run adopts a job only for
	-- the very boot it was submitted for
	definition_sha256 TEXT NOT NULL,
	kernel TEXT NOT NULL,
	cmdline TEXT NOT NULL,
	state TEXT NOT NULL DEFAULT 'submitted'
		CHECK (state IN ('submitted', 'running', 'ended')),
	health TEXT,
	device TEXT,
	error TEXT,
	submitted_at TEXT NOT NULL,
	started_at TEXT,
	ended_at TEXT,
	UNIQUE (server, job_id)
);

CREATE INDEX lab_jobs_run ON lab_jobs (run_id, host);
