-- SPDX-License-Identifier: GPL-2.0-only
-- placeholder; replaced by the store's owner
CREATE TABLE placeholder (id INTEGER PRIMARY KEY);
