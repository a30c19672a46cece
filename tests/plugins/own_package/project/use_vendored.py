import xformers
