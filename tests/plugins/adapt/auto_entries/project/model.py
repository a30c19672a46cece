from layers import Block


class GPTConfig:
    pass


class GPT:
    block = Block
