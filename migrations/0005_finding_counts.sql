-- The per-phase counts of open errors, warnings and notes, fixed and waived findings are
-- read on every status and every workbench start: an index that holds phase, status and
-- severity answers them without reading the findings' texts. It also serves every lookup
-- by phase and status, so the narrower index goes.
CREATE INDEX findings_counts ON findings (phase, status, severity);
DROP INDEX findings_phase;
