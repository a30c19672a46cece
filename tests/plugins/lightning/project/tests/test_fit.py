# A unit test leaves the device to Lightning; a script takes it from its command line.
import argparse

import pytorch_lightning as pl

from train import LitClassifier


def test_fit_one_batch():
    trainer = pl.Trainer(fast_dev_run=True)
    trainer.fit(LitClassifier())


def cli():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accelerator", default="gpu")
    args = parser.parse_args()
    return pl.Trainer(accelerator=args.accelerator, devices=1)
