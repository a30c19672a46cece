NAME = "helpers"
