-- The sites a finding follows (ctx.report's `follows`): a JSON array of [file, line, col,
-- end_line, end_col] naming the code whose findings settle it, as a call of the project's
-- own CUDA helper follows the helper's CUDA sites. The record derives such a finding's
-- `automatic` and its settlement from the findings of the same phase at those sites. NULL
-- for the others.
ALTER TABLE findings ADD COLUMN follows TEXT;
