-- A finding's anchor: the hash of its plugin, file, key and matched code without the lines
-- around it. The fingerprint keeps those lines so that identical code in two places is two
-- findings; when only they changed, a check pairs the new finding with the unseen one of
-- the same anchor and keeps the old identity (id, status, waiver) instead of closing it.
ALTER TABLE findings ADD COLUMN anchor TEXT;
CREATE INDEX findings_anchor ON findings (plugin, file, anchor);
