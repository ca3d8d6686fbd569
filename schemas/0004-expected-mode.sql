-- SPDX-License-Identifier: GPL-2.0-only
--
-- The policy word a trial's host had to report for its mode ("strict",
-- "lazy", "passthrough"), as the run decided it from the mode's group
-- type or its name; NULL where the mode is only recorded. One rule for
-- "the mode was not in effect", wherever it is asked: effective_mode
-- differs from expected_mode (STORE_SQL_MODE_MISMATCH in store/store.h).
-- A custom mode whose group type reads DMA-FQ expects "lazy", and is in
-- effect when "lazy" is.
--
-- Trials stored before this knew only their mode's name: the built-in
-- names expect themselves, other modes nothing.

ALTER TABLE trials ADD COLUMN expected_mode TEXT;

UPDATE trials SET expected_mode = requested_mode
WHERE requested_mode IN ('strict', 'lazy', 'passthrough');
