"""Runs an exported DTensor plan module against stand-ins for the torch APIs it calls and prints, as
JSON, what it asked PyTorch to do: the mesh, each parallelize_module style with its layouts, the
fully_shard / replicate / checkpoint_wrapper calls and the pipeline constants. Used by
tst_export_dtensor to read an export back by the APIs' meaning.

usage: python3 dtensor_harness.py PLAN.py MODULE_NAME...   (the model's module names, dotted)
"""

import fnmatch
import importlib.util
import json
import sys
import types

calls = {"parallelize_module": [], "fully_shard": [], "replicate": [], "checkpoint_wrapper": [], "mesh": None}


class Placement:
    def __init__(self, text):
        self.text = text


def Shard(dim):
    return Placement("Shard(%d)" % dim)


def Replicate():
    return Placement("Replicate()")


class Style:
    kind = ""

    def __init__(self, **kwargs):
        self.args = {k: (v.text if isinstance(v, Placement) else v) for k, v in kwargs.items()}


class ColwiseParallel(Style):
    kind = "ColwiseParallel"


class RowwiseParallel(Style):
    kind = "RowwiseParallel"


class SequenceParallel(Style):
    kind = "SequenceParallel"


class Mesh:
    def __init__(self, shape, names):
        self.shape, self.names = shape, names

    def __getitem__(self, name):
        assert name in self.names, name
        return name


def init_device_mesh(device_type, shape, mesh_dim_names):
    calls["mesh"] = {"shape": list(shape), "names": list(mesh_dim_names)}
    return Mesh(shape, mesh_dim_names)


class Module:
    def __init__(self, fqn):
        object.__setattr__(self, "fqn", fqn)
        object.__setattr__(self, "children", {})

    def __setattr__(self, name, value):
        self.children[name] = value

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, child in self.children.items():
            yield from child.named_modules(prefix + ("." if prefix else "") + name)

    def get_submodule(self, target):
        module = self
        for atom in target.split(".") if target else []:
            module = module.children[atom]
        return module


def parallelize_module(module, device_mesh, parallelize_plan):
    for pattern, style in parallelize_plan.items():
        matched = [n for n, _ in module.named_modules() if n and fnmatch.fnmatchcase(n, pattern)]
        assert matched, "no module matches " + pattern
        for name in matched:
            calls["parallelize_module"].append({"module": name, "mesh": device_mesh, "style": style.kind, "args": style.args})


def fully_shard(module, mesh, reshard_after_forward):
    calls["fully_shard"].append({"module": module.fqn, "mesh": mesh, "reshard_after_forward": reshard_after_forward})


def replicate(module, device_mesh):
    calls["replicate"].append({"module": module.fqn, "mesh": device_mesh})


def checkpoint_wrapper(module):
    calls["checkpoint_wrapper"].append(module.fqn)
    return module


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module


for package in ["torch", "torch.distributed", "torch.distributed.algorithms", "torch.distributed.algorithms._checkpoint",
                "torch.distributed._composable"]:
    stub(package)
stub("torch.distributed.algorithms._checkpoint.checkpoint_wrapper", checkpoint_wrapper=checkpoint_wrapper)
stub("torch.distributed._composable.replicate", replicate=replicate)
stub("torch.distributed.device_mesh", init_device_mesh=init_device_mesh)
stub("torch.distributed.fsdp", fully_shard=fully_shard)
stub("torch.distributed.tensor", Replicate=Replicate, Shard=Shard)
stub("torch.distributed.tensor.parallel", ColwiseParallel=ColwiseParallel, RowwiseParallel=RowwiseParallel,
     SequenceParallel=SequenceParallel, parallelize_module=parallelize_module)

spec = importlib.util.spec_from_file_location("plan", sys.argv[1])
plan = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plan)

model = Module("")
for name in sys.argv[2:]:
    parent = model
    for atom in name.split("."):
        if atom not in parent.children:
            parent.children[atom] = Module(((parent.fqn + ".") if parent.fqn else "") + atom)
        parent = parent.children[atom]

plan.parallelize(model, plan.make_mesh())
stages = plan.MESH_SHAPE[plan.MESH_DIM_NAMES.index("pipe")] if "pipe" in plan.MESH_DIM_NAMES else 1
json.dump({"calls": calls, "n_microbatches": plan.N_MICROBATCHES, "reshard_after_forward": plan.RESHARD_AFTER_FORWARD,
           "schedule": plan.PIPELINE_SCHEDULE, "stage_modules": plan.STAGE_MODULES,
           "rank_chunks": [plan.stage_modules(r) for r in range(stages)]}, sys.stdout)
