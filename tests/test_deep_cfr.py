"""The Deep CFR family (issue 25): Deep CFR, Single Deep CFR and DREAM (rcfr.solvers.deep)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rcfr.cli import main
from rcfr.evaluate import evaluate
from rcfr.forms.compile import compile_game
from rcfr.run.engine import solve
from rcfr.solvers.deep.nets import ADVANTAGE, POLICY, NetModel
from rcfr.solvers.deep.reservoir import Reservoir
from rcfr.solvers.memory import reservoir_slots
from rcfr.solvers.run import make_solver

SMALL = {"traversals": 40, "train_steps": 20, "batch_size": 32, "memory": 100}


@pytest.mark.parametrize("form", ["history", "public"])
def test_tabular_full_width_deep_cfr_is_linear_cfr(form):
    """With the exact tabular fit, full-width traversals and a uniform fallback, Deep CFR's
    iterates and average are linear CFR's, and SD-CFR's exact average is its linear average."""
    tree = compile_game("kuhn", form=form)
    exact = {"model": "tabular", "scheme": "full", "fallback": "uniform", "memory": 10**5}
    from rcfr.solvers.deep.deep_cfr import DeepCFRSolver
    from rcfr.solvers.deep.sd_cfr import SDCFRSolver

    deep = DeepCFRSolver(tree, seed=0, **exact)
    sd = SDCFRSolver(tree, seed=0, **exact)
    lcfr = make_solver(tree, "lcfr")
    for _ in range(25):
        deep.run(1)
        sd.run(1)
        lcfr.run(1)
        ref = lcfr.current_policy().probs
        assert np.abs(deep.current_policy().probs - ref).max() < 1e-12
        assert np.abs(sd.current_policy().probs - ref).max() < 1e-12
    avg = lcfr.average_policy().probs
    assert np.abs(deep.average_policy().probs - avg).max() < 1e-12
    assert np.abs(sd.average_policy().probs - avg).max() < 1e-12
    assert evaluate(tree, sd.average_policy()).exploitability < 0.01


def test_reservoir_keeps_a_uniform_sample():
    """Chi-square over which of 2,000 offered rows a memory of 100 keeps (400 runs); a sampler
    that favours late rows fails the same test (the test can fail)."""

    class LateBiased(Reservoir):
        def _slots(self, n, rng):
            slots = super()._slots(n, rng)
            seen = self.added + np.arange(n)
            late = (seen >= self.capacity) & (rng.random(n) < 0.1)
            slots[late] = rng.integers(0, self.capacity, int(late.sum()))
            return slots

    def chi_square(cls) -> float:
        counts = np.zeros(20)
        rng = np.random.default_rng(5)
        for _ in range(400):
            mem = cls(100, 1)
            for lo in range(0, 2000, 250):  # offered in batches, as traversals do
                rows = np.arange(lo, lo + 250)
                mem.add(rows, 1, rows[:, None].astype(float), np.ones(250), rng)
            counts += np.bincount(mem.info[:len(mem)] // 100, minlength=20)
        expected = counts.sum() / 20
        return float(((counts - expected) ** 2 / expected).sum())

    # 19 degrees of freedom: the 99.9% point is 43.8
    assert chi_square(Reservoir) < 43.8
    assert chi_square(LateBiased) > 43.8


def test_reservoir_slots_follow_algorithm_r():
    slots = np.empty(4, dtype=np.int64)
    reservoir_slots(2, 3, np.array([0.1, 0.5, 0.99, 0.2]), slots)
    # rows 2 (seen 2 < 3) is stored at 2; row 3: floor(0.5 * 4) = 2; row 4: floor(0.99 * 5) = 4
    # (not kept); row 5: floor(0.2 * 6) = 1
    assert slots.tolist() == [2, 2, -1, 1]


@pytest.mark.parametrize("key,seed,iterations", [("deep-cfr", 1, 25), ("sd-cfr", 0, 30),
                                                 ("dream", 0, 25)])
def test_the_family_solves_kuhn_below_0_05(key, seed, iterations):
    """200 traversals and 200 Adam steps of 128 per player and iteration (Kuhn's uniform
    strategy is 0.458 exploitable)."""
    options = {} if key == "sd-cfr" else {"policy_steps": 1000}
    solver = make_solver("kuhn", key, seed=seed, traversals=200, train_steps=200,
                         batch_size=128, **options).run(iterations)
    assert evaluate(solver.tree, solver.average_policy()).exploitability < 0.05
    if key == "sd-cfr":
        assert len(solver.snapshots) == iterations and len(solver.snapshots[0]) == 2
        assert 1 <= solver.sample_iteration(np.random.default_rng(0)) <= iterations


@pytest.mark.parametrize("key", ["deep-cfr", "sd-cfr", "dream"])
def test_two_runs_with_one_seed_are_identical(key):
    runs = [make_solver("kuhn", key, seed=s, policy_steps=20, **SMALL).run(3)
            if key != "sd-cfr" else make_solver("kuhn", key, seed=s, **SMALL).run(3)
            for s in (0, 0, 1)]
    probs = [(r.current_policy().probs, r.average_policy().probs) for r in runs]
    assert all(np.array_equal(a, b) for a, b in zip(probs[0], probs[1], strict=True))
    assert not np.array_equal(probs[0][0], probs[2][0])


@pytest.mark.parametrize("key,options", [
    ("deep-cfr", {"warm_start": True, "policy_steps": 20}),
    ("sd-cfr", {}),
    ("dream", {"policy_steps": 20}),
    ("dream", {"policy_steps": 20, "baseline": "table"}),
])
def test_checkpoints_resume_bit_for_bit(tmp_path, key, options):
    """Networks, Adam's moments, memories (full: the reservoir draws) and generators; DREAM's
    Q-network baseline (the default) and its table baseline (a constructor keyword)."""
    from rcfr.solvers.deep.dream import DREAMSolver

    def build():
        if "baseline" in options:
            return DREAMSolver("kuhn", seed=3, **SMALL, **options)
        return make_solver("kuhn", key, seed=3, **SMALL, **options)

    first = build().run(3)
    first.save_checkpoint(tmp_path / "c.npz")
    first.run(2)
    resumed = build()
    resumed.load_checkpoint(tmp_path / "c.npz").run(2)
    assert resumed.iteration == first.iteration == 5
    assert resumed.nodes_visited == first.nodes_visited
    assert np.array_equal(resumed.current_policy().probs, first.current_policy().probs)
    assert np.array_equal(resumed.average_policy().probs, first.average_policy().probs)
    for p in (0, 1):
        assert np.array_equal(resumed.adv_mem_[p].target, first.adv_mem_[p].target)
        assert resumed.adv_mem_[p].added == first.adv_mem_[p].added > 100
    if key == "dream" and first.options["baseline"] == "net":  # the Q-network and its memory
        assert np.array_equal(resumed.q_net_.theta, first.q_net_.theta)
        assert np.array_equal(resumed.q_opt_.v, first.q_opt_.v)
        assert resumed.q_mem_.added == first.q_mem_.added > SMALL["memory"]
        assert np.array_equal(resumed.q_mem_.data["node"], first.q_mem_.data["node"])


def test_dream_q_baseline_features_values_and_training():
    """The Q-network's inputs are both players' information-state tensors at each decision
    history; the history values are the expectations under the strategy of the baselines
    (``Q`` below decisions, values below chance); the network's squared error to those
    targets falls as it trains; the table baseline leaves the network out."""
    from rcfr.solvers.deep.dream import DREAMSolver

    solver = DREAMSolver("kuhn", seed=0, **SMALL, policy_steps=20).run(2)
    tree = solver.tree
    kind = np.asarray(tree.node_kind)
    decisions = np.flatnonzero(kind < 2)
    assert solver.q_features_.shape == (len(decisions), 22)  # Kuhn's tensor is 11 long
    first = solver.q_features_[solver.q_row_[decisions[0]]]
    assert first[:2].tolist() == [1, 0] and first[11:13].tolist() == [0, 1]  # whose tensor
    assert first[2:5].sum() == first[13:16].sum() == 1  # each player's own card
    assert not np.array_equal(first[2:5], first[13:16])  # two different cards
    solver._q_baseline()
    cs, value = np.asarray(tree.node_child_start), solver.value_
    probs = solver.strategy_
    for n in np.flatnonzero(kind < 3):
        kids = np.arange(cs[n], cs[n + 1])
        if kind[n] == 2:
            assert np.allclose(solver.baseline_[kids], value[kids], rtol=0, atol=1e-15)
            w = np.asarray(tree.node_chance_prob)[kids]
        else:
            s0 = tree.infoset_seq_start[tree.node_infoset[n]]
            w = probs[s0:s0 + len(kids)]
        assert value[n] == pytest.approx(float(w @ solver.baseline_[kids]), abs=1e-12)

    def loss() -> float:
        mem = solver.q_mem_
        node, act = mem.data["node"][:len(mem)], mem.data["action"][:len(mem)]
        out = solver.q_net_(solver.q_features_[solver.q_row_[node]])
        return float(np.mean((out[np.arange(len(node)), act] - value[cs[node] + act]) ** 2))

    before = loss()
    solver.options["q_steps"] = 300
    solver._fit_q()
    assert loss() < 0.5 * before
    table = DREAMSolver("kuhn", seed=0, **SMALL, policy_steps=20, baseline="table").run(1)
    assert not hasattr(table, "q_net_")


def test_dream_refuses_q_features_past_its_memory_limit(monkeypatch):
    from rcfr.core.errors import RcfrError
    from rcfr.solvers.deep import dream

    monkeypatch.setattr(dream, "MAX_FEATURE_GIB", 1e-7)  # Kuhn's 24 x 22 floats: 3.9e-6 GiB
    with pytest.raises(RcfrError, match="3.93e-06 GiB .*24 decision histories x 22"):
        dream.DREAMSolver("kuhn", seed=0, **SMALL).run(1)
    dream.DREAMSolver("kuhn", seed=0, **SMALL, baseline="table").run(1)


def test_deep_cfr_runs_on_the_public_form():
    tree = compile_game("kuhn", form="public")
    public = make_solver(tree, "sd-cfr", seed=0, traversals=150, train_steps=150,
                         batch_size=128).run(6)
    assert public.tree is tree
    assert public.nodes_visited > 6 * 2 * 150 * 3  # at least three histories a traversal
    # Kuhn's uniform strategy is 0.458 exploitable
    assert evaluate(tree, public.average_policy()).exploitability < 0.2


def test_solve_evaluates_deep_cfr_along_the_way():
    result = solve("kuhn", "sd-cfr", iterations=4, eval_every=2, seed=0, **SMALL)
    assert [it for it, _ in result.curve] == [2, 4]
    assert result.curve[-1][1] == pytest.approx(result.evaluation.exploitability)


def test_cli_solves_and_refuses_bad_input(capsys, tmp_path):
    out = tmp_path / "avg.npz"
    code = main(["solve", "kuhn", "-a", "deep-cfr", "-n", "2", "--traversals", "20",
                 "--train-steps", "10", "--policy-steps", "10", "--out", str(out), "--json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    assert out.exists()
    for args in (["-a", "sd-cfr", "--policy-steps", "5"], ["-a", "cfr", "--traversals", "5"],
                 ["-a", "deep-cfr", "--lr", "0"], ["-a", "deep-cfr", "--hidden", "0"],
                 ["-a", "deep-cfr", "--simultaneous"], ["-a", "dream", "--form", "public"],
                 ["-a", "deep-cfr", "--traversals", "0"]):
        code = main(["solve", "kuhn", *args, "-n", "1", "--out", str(tmp_path / "x.npz")])
        err = capsys.readouterr().err
        assert code == 2, args
        assert "Traceback" not in err
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize("role", [ADVANTAGE, POLICY])
def test_numpy_network_steps_equal_pytorch_autograd_and_adam(role):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    feats = rng.normal(size=(7, 5))
    num_actions = np.array([2, 3, 3, 2, 3, 1, 2])
    net = NetModel(feats, num_actions, 3, [6, 4], role, lr=0.01)
    net.reset(11)
    layers = []
    for k in range(3):
        lin = torch.nn.Linear(*net.params[2 * k].shape, dtype=torch.float64)
        with torch.no_grad():
            lin.weight.copy_(torch.as_tensor(net.params[2 * k].T))
            lin.bias.copy_(torch.as_tensor(net.params[2 * k + 1]))
        layers += [lin, torch.nn.ReLU()]
    ref = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.Adam(ref.parameters(), lr=0.01)
    for _ in range(3):
        info = rng.integers(0, 7, 16)
        legal = net.legal[info]
        y = rng.random((16, 3)) * legal
        if role == POLICY:
            y /= y.sum(axis=1, keepdims=True)
        w = rng.random(16)
        loss, _ = net.gradients(info, y, w, loss=True)
        net.adam_step()
        out = ref(torch.as_tensor(feats[info]))
        mask = torch.as_tensor(legal)
        if role == POLICY:
            logp = torch.log_softmax(out.masked_fill(~mask, -torch.inf), dim=1)
            per_row = -(torch.as_tensor(y) * logp.masked_fill(~mask, 0.0)).sum(dim=1)
        else:
            per_row = ((out - torch.as_tensor(y)) ** 2 * mask).sum(dim=1)
        ref_loss = (torch.as_tensor(w) * per_row).mean()
        assert loss == pytest.approx(ref_loss.detach().item(), rel=1e-12)
        opt.zero_grad()
        ref_loss.backward()
        opt.step()
        for k, lin in enumerate(layers[::2]):
            assert np.allclose(lin.weight.detach().numpy().T, net.params[2 * k], rtol=0,
                               atol=1e-12)
            assert np.allclose(lin.bias.detach().numpy(), net.params[2 * k + 1], rtol=0,
                               atol=1e-12)


def test_the_pytorch_backend_runs_and_resumes(tmp_path):
    pytest.importorskip("torch")
    from rcfr.solvers.deep.deep_cfr import DeepCFRSolver

    options = {**SMALL, "policy_steps": 20, "backend": "torch", "warm_start": True}
    first = DeepCFRSolver("kuhn", seed=2, **options).run(2)
    first.save_checkpoint(tmp_path / "t.npz")
    first.run(1)
    resumed = DeepCFRSolver("kuhn", seed=2, **options).load_checkpoint(tmp_path / "t.npz").run(1)
    assert np.array_equal(resumed.current_policy().probs, first.current_policy().probs)
    assert np.array_equal(resumed.average_policy().probs, first.average_policy().probs)


@pytest.mark.parametrize("given, flags", [
    ({"baseline": "table", "baseline_rate": 0.5},
     ["--baseline", "table", "--baseline-rate", "0.5"]),
    ({"q_steps": 7, "q_lr": 0.003, "q_memory": 300},
     ["--q-steps", "7", "--q-lr", "0.003", "--q-memory", "300"])])
def test_dream_options_on_the_command_line(capsys, given, flags):
    """DREAM's baseline options on the command line choose what the keywords do in the API
    (and change the run); other algorithms refuse them with one line."""
    small = {"traversals": 40, "train_steps": 10, "policy_steps": 20, "seed": 2}
    api = solve("kuhn", "dream", iterations=3, **given, **small)
    assert api.evaluation.exploitability != solve(
        "kuhn", "dream", iterations=3, **small).evaluation.exploitability
    code = main(["solve", "kuhn", "-a", "dream", "-n", "3", *flags,
                 "--traversals", "40", "--train-steps", "10", "--policy-steps", "20",
                 "--seed", "2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["exploitability"] == api.evaluation.exploitability
    for algorithm in ("es", "deep-cfr"):
        code = main(["solve", "kuhn", "-a", algorithm, "-n", "3", *flags[-2:]])
        err = capsys.readouterr().err
        assert code == 2 and err.strip() == f"error: {flags[-2]} applies to dream, not {algorithm}"


@pytest.mark.parametrize("role", [ADVANTAGE, POLICY])
def test_a_fit_is_its_minibatch_steps(role):
    """NetModel.fit (all steps in one kernel, the minibatches drawn at once) equals its
    minibatches taken one gradient and one Adam step at a time, bit for bit."""
    from rcfr.solvers.deep.reservoir import Reservoir

    rng = np.random.default_rng(3)
    feats = rng.normal(size=(9, 4)) * (rng.random((9, 4)) < 0.6)
    num_actions = np.array([2, 3, 3, 2, 3, 1, 2, 3, 2])
    mem = Reservoir(50, 3)
    info = rng.integers(0, 9, 40)
    y = rng.random((40, 3)) * (np.arange(3)[None, :] < num_actions[info][:, None])
    mem.add(info, 2, y, rng.random(40) + 0.5, rng)
    mem.add(info[:15], 3, y[:15], np.ones(15), rng)
    nets = [NetModel(feats, num_actions, 3, [5, 4], role, lr=0.01) for _ in range(2)]
    for net in nets:
        net.reset(4)
    start = nets[0].mlp.theta.copy()
    nets[0].fit(mem, 3, 6, 16, np.random.default_rng(8))
    n = len(mem)
    scale = float(np.sqrt(np.mean(mem.target[:n] ** 2))) if role == ADVANTAGE else 1.0
    w = mem.iteration[:n] * mem.weight[:n] / (3 * mem.weight[:n].mean())
    for rows in np.random.default_rng(8).integers(0, n, size=(6, 16)):
        nets[1].gradients(mem.info[rows], mem.target[rows] / scale, w[rows])
        nets[1].adam_step()
    assert nets[0].opt.t == nets[1].opt.t == 6
    assert np.array_equal(nets[0].mlp.theta, nets[1].mlp.theta)
    assert np.abs(nets[0].mlp.theta - start).max() > 1e-3  # the steps moved the network


def test_the_card_and_bet_network_gradient_equals_pytorch_autograd():
    """EmbedNet's backward pass (cards: rank + suit + card embeddings summed per group, three
    layers; bets: two layers; joint: three layers, normalisation; skips on the square layers)
    equals PyTorch's autograd on the same network to 1e-12, on Leduc's tensor layout."""
    torch = pytest.importorskip("torch")
    from rcfr.games.leduc import LeducPoker
    from rcfr.solvers.deep.embed import NORM_EPS, EmbedNet, card_layout

    lay = card_layout(LeducPoker())
    rng = np.random.default_rng(5)
    net = EmbedNet(lay, 6, 3, rng)
    x = np.zeros((9, 30))
    x[np.arange(9), rng.integers(0, 2, 9)] = 1.0
    x[np.arange(9), 2 + rng.integers(0, 6, 9)] = 1.0
    x[np.arange(5), 8 + rng.integers(0, 6, 5)] = 1.0  # a board card in five rows
    x[:, 14:] = rng.random((9, 16)) < 0.3
    gy = rng.normal(size=(9, 3))
    out, cache = net.forward(x)
    grad = net.backward(cache, gy).copy()
    P = {k: torch.tensor(v, requires_grad=True) for k, v in net.p.items()}
    X = torch.as_tensor(x)

    def layer(h, name):
        skip = h if P[name].shape[0] == P[name].shape[1] else 0.0
        return torch.relu(h @ P[name] + P[name + "b"] + skip)

    table = P["card"] + P["rank"][torch.as_tensor(lay.rank)] + P["suit"][torch.as_tensor(lay.suit)]
    c = torch.cat([X[:, s:s + 6] @ table for s in lay.groups], dim=1)
    c = layer(layer(layer(c, "c1"), "c2"), "c3")
    b = layer(layer(X[:, torch.as_tensor(lay.bets)], "b1"), "b2")
    j = layer(layer(layer(torch.cat([c, b], dim=1), "j1"), "j2"), "j3")
    n = torch.nn.functional.layer_norm(j, (6,), eps=NORM_EPS)
    ref = n @ P["out"] + P["outb"]
    assert np.allclose(ref.detach().numpy(), out, rtol=0, atol=1e-12)
    (ref * torch.as_tensor(gy)).sum().backward()
    ref_grad = np.concatenate([P[k].grad.numpy().ravel() for k in net.names])
    assert np.abs(grad).max() > 1e-3
    assert np.allclose(grad, ref_grad, rtol=0, atol=1e-12)


def test_the_card_and_bet_network_solves_kuhn(capsys):
    """--network embed on the command line is the API's, SD-CFR with it learns Kuhn, and a
    game without a card layout is refused with one line."""
    small = {"traversals": 100, "train_steps": 40, "hidden": "16", "seed": 0}
    api = solve("kuhn", "sd-cfr", iterations=6, network="embed", **small)
    assert api.evaluation.exploitability < 0.2  # uniform play: 0.458; measured 0.134
    code = main(["solve", "kuhn", "-a", "sd-cfr", "-n", "6", "--network", "embed",
                 "--traversals", "100", "--train-steps", "40", "--hidden", "16", "--seed", "0",
                 "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["exploitability"] == api.evaluation.exploitability
    code = main(["solve", "nl_one_card", "-a", "sd-cfr", "-n", "1", "--network", "embed"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --network embed reads the cards") and \
        len(err.splitlines()) == 1


@pytest.mark.parametrize("role", [ADVANTAGE, POLICY])
def test_the_card_and_bet_model_loss_gradient_matches_finite_differences(role):
    """EmbedModel's minibatch gradient (rows grouped by information set) is the derivative of
    its loss (central differences, to 1e-7)."""
    from rcfr.games.kuhn import KuhnPoker
    from rcfr.solvers.deep.embed import card_layout
    from rcfr.solvers.deep.nets import EmbedModel

    rng = np.random.default_rng(0)
    feats = np.zeros((6, 11))
    feats[np.arange(6), 0] = 1.0
    feats[np.arange(6), 2 + np.arange(6) % 3] = 1.0
    feats[3:, 5] = 1.0
    model = EmbedModel(feats, np.full(6, 2), 2, [8], role, 0.01, card_layout(KuhnPoker()))
    model.reset(1)
    info, w = rng.integers(0, 6, 20), rng.random(20)
    y = rng.random((20, 2))
    y /= y.sum(axis=1, keepdims=True)
    _, grad = model.gradients(info, y, w)
    grad = grad.copy()
    theta, eps = model.mlp.theta, 1e-6
    for q in rng.choice(theta.size, 12, replace=False):
        theta[q] += eps
        up = model.gradients(info, y, w, loss=True)[0]
        theta[q] -= 2 * eps
        down = model.gradients(info, y, w, loss=True)[0]
        theta[q] += eps
        assert (up - down) / (2 * eps) == pytest.approx(grad[q], abs=1e-7)
    assert np.abs(grad).max() > 1e-3
