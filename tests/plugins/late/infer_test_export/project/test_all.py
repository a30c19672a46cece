import io
import unittest

import torch

try:
    import onnxruntime
except ImportError:
    onnxruntime = None


@unittest.skipIf(onnxruntime is None, "ONNX Runtime unavailable")
class ONNXExporterTester(unittest.TestCase):
    def run_model(self, model, inputs_list, do_constant_folding=True, dynamic_axes=None,
                  output_names=None, input_names=None):
        model.eval()

        onnx_io = io.BytesIO()
        # export to onnx with the first input
        torch.onnx.export(model, inputs_list[0], onnx_io,
                          do_constant_folding=do_constant_folding, opset_version=12,
                          dynamic_axes=dynamic_axes, input_names=input_names, output_names=output_names)
        ort_session = onnxruntime.InferenceSession(onnx_io.getvalue())
        return ort_session

    def test_model_onnx_detection(self):
        model = torch.nn.Conv2d(3, 8, 3).eval()
        self.run_model(
            model,
            [(torch.rand(1, 3, 750, 800),)],
            input_names=["inputs"],
            output_names=["pred_logits"],
        )

    def test_model_onnx_detection_small(self):
        model = torch.nn.Conv2d(3, 8, 3).eval()
        self.run_model(model, [(torch.rand(1, 3, 64, 64),)], input_names=["inputs"])


if __name__ == '__main__':
    unittest.main()
