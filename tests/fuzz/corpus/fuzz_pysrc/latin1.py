s = "café"
