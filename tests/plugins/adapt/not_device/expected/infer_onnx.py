import numpy as np
import onnxruntime as ort
import torch
import torch_npu

providers = ["CUDAExecutionProvider", "CPUExecutionProvider"] if torch.cuda.is_available() else ["CPUExecutionProvider"]
session = ort.InferenceSession("model.onnx", providers=providers)


def compare(model, x):
    device = "npu" if torch.npu.is_available() else "cpu"
    ref = model.to(device)(torch.from_numpy(x).to(device))
    out = session.run(None, {"input": x})[0]
    return np.abs(ref.detach().cpu().numpy() - out).max()
