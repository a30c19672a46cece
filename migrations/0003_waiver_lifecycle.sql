-- 0003: the waiver lifecycle and the construct a finding is about.
-- A finding's construct is a hash of its file, the matched code and the lines around it,
-- without the plugin: the assess survey and the adapt rewrite of the same code share it,
-- so a waiver given in assess carries to the adapt finding (waivers.carried_from names
-- the finding whose waiver was carried). A waiver can be withdrawn: the row stays, with
-- who withdrew it, when and why; the finding is open again.
ALTER TABLE findings ADD COLUMN construct TEXT;
CREATE INDEX findings_construct ON findings (file, construct);
ALTER TABLE waivers ADD COLUMN carried_from INTEGER REFERENCES findings(id);
ALTER TABLE waivers ADD COLUMN withdrawn_at TEXT;
ALTER TABLE waivers ADD COLUMN withdrawn_by TEXT;
ALTER TABLE waivers ADD COLUMN withdrawn_reason TEXT;
CREATE INDEX waivers_finding ON waivers (finding_id);
