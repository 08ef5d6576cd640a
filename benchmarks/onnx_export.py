"""Export time of a ResNet-50-shaped model: ``fnet.onnx.export`` beside ``torch.onnx.export``.

Both export the same architecture (ResNet-50 v1, Chainer's layout: stride 2 in the first 1x1
convolution of each stage, batch normalization with running statistics, random weights) for one
224x224 image, to an in-memory ONNX model at opset 17 (18 for torch's dynamo exporter, its
oldest). Each exporter runs ``--repeat`` times after one warm-up; the median is reported. The
torch side runs in another interpreter (``--torch-python``, a venv with torch, onnx and, for the
dynamo exporter, onnxscript), started from here so that both are measured in one run.

    python benchmarks/onnx_export.py [--repeat 5] [--torch-python PATH]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time

_TORCH_SIDE = r"""
import io, json, statistics, sys, time, warnings
import torch
from torch import nn

warnings.filterwarnings("ignore")
torch.manual_seed(0)


class Bottleneck(nn.Module):
    def __init__(self, cin, mid, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, mid, 1, stride, bias=False)
        self.bn1 = nn.BatchNorm2d(mid, eps=2e-5)
        self.conv2 = nn.Conv2d(mid, mid, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(mid, eps=2e-5)
        self.conv3 = nn.Conv2d(mid, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout, eps=2e-5)
        self.shortcut = None
        if stride != 1 or cin != cout:
            conv = nn.Conv2d(cin, cout, 1, stride, bias=False)
            self.shortcut = nn.Sequential(conv, nn.BatchNorm2d(cout, eps=2e-5))

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        h = torch.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return torch.relu(h + (x if self.shortcut is None else self.shortcut(x)))


class ResNet50(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3)
        self.bn1 = nn.BatchNorm2d(64, eps=2e-5)
        blocks, cin = [], 64
        for n, mid, stride in ((3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)):
            for i in range(n):
                blocks.append(Bottleneck(cin, mid, 4 * mid, stride if i == 0 else 1))
                cin = 4 * mid
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(2048, 1000)

    def forward(self, x):
        h = torch.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 3, 2)
        h = self.blocks(h).mean(dim=(2, 3))
        return torch.softmax(self.fc(h), dim=1)


repeat = int(sys.argv[1])
model = ResNet50().eval()
x = torch.rand(1, 3, 224, 224)
results = {"torch": torch.__version__}
for label, kwargs in (("torch.onnx.export (TorchScript)", {"dynamo": False, "opset_version": 17}),
                      ("torch.onnx.export (dynamo)", {"dynamo": True, "opset_version": 18})):
    times = []
    try:
        for _ in range(repeat + 1):
            buffer = io.BytesIO()
            start = time.perf_counter()
            with torch.no_grad():
                torch.onnx.export(model, (x,), buffer, **kwargs)
            times.append(time.perf_counter() - start)
        results[label] = statistics.median(times[1:])
    except Exception as error:  # noqa: BLE001 - reported, not hidden
        results[label] = f"failed: {type(error).__name__}: {str(error).splitlines()[0][:200]}"
print(json.dumps(results))
"""


def time_fnet(repeat: int) -> float:
    """The median time of ``fnet.onnx.export`` of ResNet-50 on one 224x224 image."""
    import numpy

    import fnet
    import fnet.onnx
    from fnet.nn import vision

    model = vision.ResNet50()
    params, state = model.init(fnet.random.key(0)), model.init_state()
    x = numpy.random.default_rng(0).uniform(0, 1, (1, 3, 224, 224)).astype(numpy.float32)

    def predict(p, x):
        return model.apply(p, x, state, train=False)[0]

    times = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        model_proto = fnet.onnx.export(predict, params, x, opset=17)
        io.BytesIO(model_proto.SerializeToString())  # what torch's export also does: serialize
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--torch-python",
        default=os.environ.get("FNET_TORCH_ONNX_PYTHON", "/work/venvs/torch_onnx/bin/python"),
        help="an interpreter with torch and onnx (and onnxscript for the dynamo exporter)",
    )
    args = parser.parse_args(argv)
    fnet_time = time_fnet(args.repeat)
    print(f"fnet.onnx.export                    {fnet_time:7.3f} s  (median of {args.repeat})")
    try:
        done = subprocess.run(
            [args.torch_python, "-c", _TORCH_SIDE, str(args.repeat)],
            capture_output=True,
            text=True,
            check=True,
        )
        torch_results = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.CalledProcessError, ValueError) as error:
        print(f"torch side did not run ({args.torch_python}): {error}")
        return
    print(f"(torch {torch_results.pop('torch')})")
    for label, value in torch_results.items():
        if isinstance(value, str):
            print(f"{label:35s} {value}")
        else:
            print(f"{label:35s} {value:7.3f} s  fnet / torch = {fnet_time / value:.2f}")


if __name__ == "__main__":
    sys.exit(main())
