# litgpt's litgpt/api.py, cut to LLM.load: the accelerator Lightning Fabric runs on is
# chosen by a CUDA test, and the preprocessor's device beside it by another.
import lightning as L
import torch
import torch_npu


class LLM(torch.nn.Module):
    @classmethod
    def load(cls, model, distribute="auto", tokenizer=None):
        if distribute == "auto":
            if torch.cuda.is_available():
                accelerator = "cuda"
            elif torch.backends.mps.is_available():
                accelerator = "mps"
            else:
                accelerator = "cpu"

            fabric = L.Fabric(
                accelerator=accelerator,
                devices=1,
                precision="bf16-true",
            )

            with fabric.init_module(empty_init=False):
                model = model()
            model.eval()
            model = fabric.setup_module(model)
        else:
            device = "npu" if torch.npu.is_available() else "cpu"
            model = model().to(device)
            fabric = None

        return model, fabric
