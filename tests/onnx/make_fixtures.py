"""Writes the ONNX fixtures of tst_onnx_import: small PyTorch modules exported by torch.onnx (as
Debian's python3-torch 1.13 exports them, opset 13), with their weights dropped: every initializer is
moved to an external-data file that is then deleted, so the files keep each weight's name, shape and
dtype and nothing else (the importer never opens external data).

Run by hand when the fixtures change:  /usr/bin/python3 tests/onnx/make_fixtures.py
(needs python3-torch and python3-onnx; test.sh does not run it).
"""

import math
import os

import onnx
import torch
from torch import nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


class Mlp(nn.Module):
    """Two linear layers with a ReLU: 1024 -> 4096 -> 1024."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(1024, 4096)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4096, 1024)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    """A pre-norm GPT block written out: fused QKV, heads by reshape and transpose, softmax
    attention, projection, exact (erf) GELU MLP."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.norm2 = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, 4 * hidden)
        self.fc2 = nn.Linear(4 * hidden, hidden)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(h, dim=-1)
        q = q.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)
        k = k.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)
        v = v.reshape(b, s, self.heads, h // self.heads).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(h // self.heads)
        context = torch.matmul(torch.softmax(scores, dim=-1), v)
        x = x + self.proj(context.transpose(1, 2).reshape(b, s, h))
        return x + self.fc2(nn.functional.gelu(self.fc1(self.norm2(x))))


class Encoder(nn.Module):
    """Token embedding, `layers` blocks, final norm, LM head."""

    def __init__(self, layers, hidden=256, heads=8, vocab=1000):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.blocks = nn.ModuleList([Block(hidden, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class Basic(nn.Module):
    """ResNet's basic block: two 3x3 convolutions with batch norm, a projected shortcut when the
    shape changes."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.short is None else self.short(x)))


class ResNet(nn.Module):
    """A ResNet-18 layout at 64x64: stem, four stages of two basic blocks, global pool, classifier."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], 64
        for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            blocks += [Basic(cin, cout, stride), Basic(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, 1000)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.blocks(self.stem(x))), 1))


class Inception(nn.Module):
    """An Inception-A style block: 1x1, 1x1-3x3, 1x1-5x5 and pool-1x1 branches joined by concatenation."""

    def __init__(self, cin=192):
        super().__init__()
        self.b1 = nn.Conv2d(cin, 64, 1)
        self.b3 = nn.Sequential(nn.Conv2d(cin, 96, 1), nn.ReLU(), nn.Conv2d(96, 128, 3, padding=1))
        self.b5 = nn.Sequential(nn.Conv2d(cin, 16, 1), nn.ReLU(), nn.Conv2d(16, 32, 5, padding=2))
        self.pool = nn.Sequential(nn.AvgPool2d(3, 1, 1), nn.Conv2d(cin, 32, 1))

    def forward(self, x):
        return torch.relu(torch.cat([self.b1(x), self.b3(x), self.b5(x), self.pool(x)], dim=1))


def export(module, example, name, dynamic):
    path = os.path.join(OUT, name + ".onnx")
    module.train()
    torch.onnx.export(module, example, path, opset_version=13, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": dynamic}, training=torch.onnx.TrainingMode.PRESERVE,
                      do_constant_folding=False)
    model = onnx.load(path)
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=name + ".weights", size_threshold=0)
    os.remove(os.path.join(OUT, name + ".weights"))
    print(path, os.path.getsize(path), "bytes,", len(model.graph.node), "nodes")


def helper_models():
    """Small models written with onnx.helper: an op without a mapping between two layers, and two
    impossible files (a node reading a value nothing produces, two nodes feeding each other)."""
    from onnx import TensorProto, helper

    def weight(name, shape):
        return helper.make_tensor(name, TensorProto.FLOAT, shape, [0.0] * (shape[0] * shape[1]))

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 64])
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h1"], name="fc1"),
             helper.make_node("Frobnicate", ["h1"], ["h2"], name="frob", domain="com.example"),
             helper.make_node("MatMul", ["h2", "w2"], ["y"], name="fc2")]
    graph = helper.make_graph(nodes, "custom_op", [x], [y], [weight("w1", [64, 64]), weight("w2", [64, 64])],
                              value_info=[helper.make_tensor_value_info("h2", TensorProto.FLOAT, ["batch", 64])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
    onnx.save(model, os.path.join(OUT, "custom_op.onnx"))

    missing = helper.make_graph([helper.make_node("Add", ["x", "ghost"], ["y"], name="add_ghost")], "missing_input",
                                [x], [y])
    onnx.save(helper.make_model(missing, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(OUT, "missing_input.onnx"))

    cycle = helper.make_graph([helper.make_node("Add", ["x", "b"], ["a"], name="first"),
                               helper.make_node("Relu", ["a"], ["b"], name="second"),
                               helper.make_node("Identity", ["a"], ["y"], name="out")], "cycle", [x], [y])
    onnx.save(helper.make_model(cycle, opset_imports=[helper.make_opsetid("", 13)]), os.path.join(OUT, "cycle.onnx"))


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    export(Mlp(), torch.randn(8, 1024), "mlp", {0: "batch"})
    ids = torch.randint(0, 1000, (2, 128))
    export(Encoder(2), ids, "encoder2", {0: "batch", 1: "seq"})
    export(Encoder(20, hidden=64, heads=4), ids, "encoder20", {0: "batch", 1: "seq"})
    export(ResNet(), torch.randn(2, 3, 64, 64), "resnet18", {0: "batch"})
    export(Inception(), torch.randn(2, 192, 35, 35), "inception_block", {0: "batch"})
    helper_models()


if __name__ == "__main__":
    main()
