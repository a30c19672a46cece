-- The history's head commit when a check run began: the version of the code whose lines
-- and byte offsets the run's findings give, so the change list can place a finding a
-- checkpoint fixed in that version's text, whatever ran between. NULL for runs recorded
-- before it was kept (the change list then infers the version, as it did).
ALTER TABLE runs ADD COLUMN head TEXT;
