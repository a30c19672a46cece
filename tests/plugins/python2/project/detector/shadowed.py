# `common` exists at the project root, which Python 3 finds first.
import common
