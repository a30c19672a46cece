# Command-line options shared by the scripts, parsed when this module is imported.
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint", default=None)
args, unknown = parser.parse_known_args()
