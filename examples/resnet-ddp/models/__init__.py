"""Models for the resnet-ddp example."""
