-- A finding's unit of work: findings of one category that name the same unit (one
-- library reported at each import and in the requirements, one CUDA kernel reported as
-- its source file and the setup.py line that builds it) are one piece of work, and the
-- assessment's effort counts the unit once. NULL: the finding is a unit of its own.
ALTER TABLE findings ADD COLUMN unit TEXT;
