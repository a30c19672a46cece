# Decoy: the Hugging Face Trainer is not Lightning's, and its settings are not Lightning's.
from transformers import Trainer, TrainingArguments


def run(model, data):
    args = TrainingArguments(output_dir="out", fp16=True)
    return Trainer(model=model, args=args, train_dataset=data)
