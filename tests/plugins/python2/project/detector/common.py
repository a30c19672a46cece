# The package's own common helpers; the project root has a common module too.
SCALE = 16
