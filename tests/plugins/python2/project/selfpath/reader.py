import helpers
