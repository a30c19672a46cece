-- 0002: a finding can say that a later phase's check fixes it automatically (the assess
-- survey reports constructs the adapt phase rewrites), so the effort estimate counts it
-- as mechanical work.
ALTER TABLE findings ADD COLUMN automatic INTEGER NOT NULL DEFAULT 0;
