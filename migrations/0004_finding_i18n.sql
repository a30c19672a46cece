-- The message id and arguments of a finding's message and suggestion (JSON), so a
-- finding stored in English is shown in the reader's language.
ALTER TABLE findings ADD COLUMN i18n TEXT;
