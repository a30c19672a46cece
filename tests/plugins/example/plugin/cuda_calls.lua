-- example.cuda_calls: tensors and modules moved to the GPU with x.cuda(...).
local py = require("py")

return {
  id = "example.cuda_calls",
  phase = "adapt",
  title = _("Tensors and modules moved with .cuda()"),
  severity = "warning",
  category = "device",
  description = _("x.cuda() copies a tensor or module to an NVIDIA GPU. On Ascend the same "
    .. "call is x.npu(), available once torch_npu is imported."),
  triggers = { ".cuda(" },
  run = function(ctx)
    local n = 0
    for _i, path in ipairs(ctx.python_files()) do
      for _j, c in ipairs(py.method_calls(ctx, path, "cuda") or {}) do
        ctx.report{
          file = path,
          node = c.call,
          message = _("{obj}.cuda() moves data to an NVIDIA GPU", { obj = c.object.text }),
          suggestion = _("Call .npu() instead (import torch_npu first)."),
          data = { method = c.method },
        }
        n = n + 1
      end
    end
    ctx.metric("cuda_calls", n)
  end,
  fix = function(ctx, finding)
    return { py.replace(finding.data.method, "npu") }
  end,
}
