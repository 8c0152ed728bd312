"""Convert the DDCFR authors' learned discounting policy (Xu et al., ICLR 2024;
github.com/rpSebastian/DDCFR, ``models/model.pkl``, a PyTorch state dict of float64 tensors)
once into the ``.npz`` rcfr ships (``src/rcfr/solvers/data/ddcfr_policy.npz``, read with
``allow_pickle=False`` by :mod:`rcfr.solvers.ddcfr`), and print the original network's outputs
on a few observations, computed here with PyTorch, for the test to pin.

The network (``ddcfr/es/cfr_model.py``): two layers of 64 ELU units on the observation
(normalised iteration, exploitability fraction), then ``tanh`` to three outputs (alpha, beta,
gamma scaled to [-1, 1]) and a linear head of five logits (the interval tau).

    git --git-dir=DDCFR.git show HEAD:models/model.pkl > model.pkl
    python benchmarks/convert_ddcfr_policy.py model.pkl src/rcfr/solvers/data/ddcfr_policy.npz

torch is needed here only (the extras); rcfr runs the policy in numpy.
"""

from __future__ import annotations

import sys

import numpy as np

# the layers of the state dict, by the names rcfr's .npz gives them
NET = "policy.cfr_net."
LAYERS = {"w1": NET + "feature_model.0.weight", "b1": NET + "feature_model.0.bias",
          "w2": NET + "feature_model.2.weight", "b2": NET + "feature_model.2.bias",
          "w_abg": NET + "abg_model.0.weight", "b_abg": NET + "abg_model.0.bias",
          "w_tau": NET + "tau_model.0.weight", "b_tau": NET + "tau_model.0.bias"}
# observations the test pins the outputs of: the start, and points along a run
OBSERVATIONS = [(0.0, 1.0), (0.001, 0.9), (0.1, 0.6), (0.5, 0.35), (0.9, 0.2), (1.0, 0.05)]


def main(model_path: str, out_path: str) -> None:
    import torch

    state = torch.load(model_path, map_location="cpu", weights_only=True)  # tensors only
    arrays = {k: state[v].numpy().astype(np.float64) for k, v in LAYERS.items()}
    np.savez(out_path, **arrays)
    net = torch.nn.Sequential(torch.nn.Linear(2, 64), torch.nn.ELU(), torch.nn.Linear(64, 64),
                              torch.nn.ELU()).double()
    abg = torch.nn.Sequential(torch.nn.Linear(64, 3), torch.nn.Tanh()).double()
    tau = torch.nn.Linear(64, 5).double()
    net.load_state_dict({"0.weight": state[LAYERS["w1"]], "0.bias": state[LAYERS["b1"]],
                         "2.weight": state[LAYERS["w2"]], "2.bias": state[LAYERS["b2"]]})
    abg.load_state_dict({"0.weight": state[LAYERS["w_abg"]], "0.bias": state[LAYERS["b_abg"]]})
    tau.load_state_dict({"weight": state[LAYERS["w_tau"]], "bias": state[LAYERS["b_tau"]]})
    with torch.no_grad():
        for obs in OBSERVATIONS:
            h = net(torch.tensor([obs], dtype=torch.float64))
            a = abg(h)[0].tolist()
            logits = tau(h)[0]
            print(f"{obs}: abg {[float(x) for x in a]!r}, tau index {int(torch.argmax(logits))}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: convert_ddcfr_policy.py MODEL.pkl OUT.npz")
    main(sys.argv[1], sys.argv[2])
