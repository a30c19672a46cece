# A vendored copy of another project is not the project's own package.
