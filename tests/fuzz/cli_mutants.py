#!/usr/bin/python3
"""Outcome classes of the CLI on mutated input files (a manual measurement for the README's
Robustness section; the in-process fuzzer tst_fuzz_loaders runs in CI).

Each sample file is mutated with a fixed seed (bytes flipped, inserted or deleted, spans cut or
repeated, numbers replaced by extremes) and handed to shardscope-cli; every run is classed by its
outcome: exit 0, exit 2 with one line on stderr, exit 1 (internal error), killed by a signal, or
past the time limit.

    /usr/bin/python3 tests/fuzz/cli_mutants.py build/app/shardscope-cli [RUNS_PER_READER]
"""
import collections
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTREMES = [b"1e999", b"-1", b"0", b"2147483648", b"9223372036854775808", b"-1e308", b"65536", b"1e-999", b'"x"', b"null"]
TIME_LIMIT_S = 60


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        at = rng.randrange(max(1, len(data)))
        if kind == 0 and data:
            data[at] = rng.randrange(256)
        elif kind == 1:
            data[at:at] = bytes([rng.choice(b'{}[],:"0123456789-e.\n\x00')])
        elif kind == 2 and data:
            del data[at:at + rng.randint(1, 16)]
        elif kind == 3:
            del data[at:]
        elif kind == 4:
            span = data[at:at + rng.randint(1, 200)]
            data[at:at] = span * rng.randint(1, 20)
        else:
            digits = [i for i in range(len(data)) if chr(data[i]).isdigit()]
            if digits:
                i = rng.choice(digits)
                j = i
                while j < len(data) and (chr(data[j]).isdigit() or data[j] in b".e+-"):
                    j += 1
                data[i:j] = rng.choice(EXTREMES)
    return bytes(data)


def readers():
    s = os.path.join(ROOT, "samples")
    return {
        "model": (os.path.join(s, "models/two-layer-mlp.model.json"), ".model.json",
                  lambda f: ["evaluate", "--model", f, "--cluster", "dgx-a100"]),
        "cluster": (os.path.join(s, "clusters/dgx-a100.cluster.json"), ".cluster.json",
                    lambda f: ["evaluate", "--model", "gpt2-small", "--cluster", f]),
        "plan": (os.path.join(s, "plans/gpt2-small-megatron.plan.json"), ".plan.json",
                 lambda f: ["evaluate", "--model", "gpt2-small", "--cluster", "dgx-a100", "--strategy", f]),
        "tactics": (os.path.join(s, "tactics/bp-megatron.tactics.json"), ".tactics.json",
                    lambda f: ["search", "--model", "gpt2-small", "--cluster", "dgx-a100", "--mesh", "data=4,model=2",
                               "--tactics", f]),
        "hf config": (os.path.join(s, "models/hf-llama/config.json"), "/config.json",
                      lambda f: ["evaluate", "--model", f, "--cluster", "dgx-a100"]),
    }


def main():
    cli = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    print(f"{'reader':<10} {'runs':>5} {'exit 0':>7} {'exit 2':>7} {'exit 1':>7} {'signal':>7} {'timeout':>8} {'bad msg':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (sample, suffix, args) in readers().items():
            rng = random.Random(20261206)
            data = open(sample, "rb").read()
            counts = collections.Counter()
            for k in range(runs):
                path = os.path.join(tmp, f"m{k}{suffix}")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(mutate(data, rng))
                try:
                    p = subprocess.run([cli] + args(path), capture_output=True, timeout=TIME_LIMIT_S)
                except subprocess.TimeoutExpired:
                    counts["timeout"] += 1
                    continue
                if p.returncode < 0:
                    counts["signal"] += 1
                elif p.returncode == 2:
                    counts["exit 2"] += 1
                    lines = p.stderr.decode("utf-8", "replace").strip().split("\n")
                    if len(lines) != 1 or len(lines[0]) > 1000:
                        counts["bad msg"] += 1
                elif p.returncode == 0:
                    counts["exit 0"] += 1
                else:
                    counts["exit 1"] += 1
                    print(f"  exit {p.returncode}: {path}: {p.stderr.decode('utf-8', 'replace').strip()[:200]}")
                os.remove(path)
            print(f"{name:<10} {runs:>5} {counts['exit 0']:>7} {counts['exit 2']:>7} {counts['exit 1']:>7} "
                  f"{counts['signal']:>7} {counts['timeout']:>8} {counts['bad msg']:>8}")


if __name__ == "__main__":
    main()
