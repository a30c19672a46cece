# Decoy: Hugging Face's Trainer and a non-Lightning accelerator keyword, in a file that
# does not import Lightning.
from transformers import Trainer, TrainingArguments

args = TrainingArguments(output_dir="out")
trainer = Trainer(model=None, args=args)
accelerate_cfg = dict(accelerator="gpu")
