class GPTConfig:
    pass


class GPT:
    pass
