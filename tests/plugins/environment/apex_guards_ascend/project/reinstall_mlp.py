from setup_tools import check_requirements

try:
    from apex.mlp import MLP
except ImportError:
    check_requirements("apex")
    from apex.mlp import MLP
