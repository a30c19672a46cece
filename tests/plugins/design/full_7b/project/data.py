from datasets import load_dataset


def corpus(split):
    return load_dataset("wikitext", "wikitext-103-raw-v1", split=split)
