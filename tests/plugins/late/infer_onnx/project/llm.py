import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, AutoModelForImageClassification, Qwen2VLForConditionalGeneration

tok = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-7B-Instruct")
lm = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct")
lm16 = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct", torch_dtype=torch.bfloat16)
vision = AutoModelForImageClassification.from_pretrained("google/vit-base-patch16-224")
small = AutoModelForCausalLM.from_pretrained("openai-community/gpt2", torch_dtype=torch.float16)
chat = AutoModelForCausalLM.from_pretrained(CHECKPOINT, torch_dtype=torch.bfloat16)
vl = Qwen2VLForConditionalGeneration.from_pretrained("Qwen/Qwen2-VL-7B-Instruct", torch_dtype=torch.bfloat16)
