-- SPDX-License-Identifier: GPL-2.0-only
--
-- Self time per probe, so that nested paths are never counted twice:
-- unmap contains iotlb_sync (strict), which contains hw_flush. Of a
-- probe's timed calls, self_ns sums the time not spent inside another
-- probed call of the same task nested in them (any probe of the same
-- collector), and nested counts the calls that began while another
-- probed call of their task was in flight. NULL where not known: rows
-- stored before this, probes without latency (one tracepoint), the
-- exposure window's row.

ALTER TABLE probes ADD COLUMN self_ns INTEGER CHECK (self_ns >= 0);
ALTER TABLE probes ADD COLUMN nested INTEGER CHECK (nested >= 0);
