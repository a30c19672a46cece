# Settings read from YAML files, the 2017 way.
import yaml
from yaml import load as yload


def cfg_from_file(filename):
    """The settings of a YAML file."""
    with open(filename, 'r') as f:
        return yaml.load(f)


def cfg_from_text(text):
    return yload(text)


def safe_cfg(filename):
    with open(filename) as f:
        return yaml.load(f, Loader=yaml.SafeLoader), yaml.load(f, yaml.FullLoader), yaml.safe_load(f)


def all_docs(stream):
    return list(yaml.load_all(stream))
