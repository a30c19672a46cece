"""Runs a detector saved in any of the export formats, chosen by the file's suffix."""
from pathlib import Path

import numpy as np
import torch


class MultiBackend:
    def __init__(self, weights, device=torch.device("cpu")):
        w = str(weights)
        suffix = Path(w).suffix
        self.engine = suffix == ".engine"
        self.onnx = suffix == ".onnx"
        if self.onnx:
            import onnxruntime

            self.session = onnxruntime.InferenceSession(w, providers=["CPUExecutionProvider"])
        elif self.engine:  # TensorRT
            import tensorrt as trt

            if device.type == "cpu":
                device = torch.device("cuda:0")
            logger = trt.Logger(trt.Logger.INFO)
            with open(w, "rb") as f, trt.Runtime(logger) as runtime:
                self.model = runtime.deserialize_cuda_engine(f.read())
            self.context = self.model.create_execution_context()
        else:
            self.model = torch.jit.load(w, map_location=device)
        self.device = device

    def forward(self, im):
        if self.onnx:
            return self.session.run(None, {"images": im.cpu().numpy()})[0]
        return self.model(im)
