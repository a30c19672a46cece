# Project-wide settings.
SEED = 0
