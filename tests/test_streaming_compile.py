"""The streaming public-tree compile (rcfr.forms.public.build, 2-NL Hold'em(k)'s closed-form
public nodes): the same arrays as the compile it replaced, bit for bit, and a peak memory the
guard's estimate bounds."""

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rcfr.core import budget
from rcfr.forms.public.tree import compile_public
from rcfr.games.nl_holdem2 import NLHoldem2, public_nodes
from rcfr.games.registry import load_game

# the compiled trees' fingerprints and a hash of all their arrays (array_hash) from main before
# the streaming compile (08fdb07, which walked the public states and built the information sets
# with vectorized int64 temporaries)
PINNED = [
    ("nl_holdem2(stack=4)", "9fdb7fb1377f5df2cfd0f24506f52c3f", "976b0c3fdf9f5435"),
    ("nl_holdem2(stack=5)", "11d4a416bdb3958ef7772892933f4f66", "3454a499ede57d27"),
    ("nl_holdem2(stack=6)", "23865a0e13c5031d52e8dd0320936c69", "3d6b5b3ef20d6174"),
    ("nl_holdem2(stack=7)", "abd6039c7efb2ebf82d24f474c8ee8dd", "916e72156b6cfcb1"),
    ("nl_holdem2(stack=8)", "a6a430df47d10cdc20c62a5e9b6c3cd8", "bf0a4d761bb0468f"),
    ("nl_holdem2(stack=9)", "8f5e80881e7842549bbfff7fb5e095b7", "da5b93ff9ecfb286"),
    ("nl_holdem2(stack=10)", "9a84986a4dc938dbe7588c52001b9454", "440385b9b5a67d61"),
    ("nl_holdem2(stack=11)", "9a4ddbadf95995d3b7d7f172abbad31d", "a17548c8489580e2"),
    ("nl_holdem2(stack=12)", "269decc0db93ea85591166ca7335cae9", "4eb2bcacedd1eddd"),
    ("nl_holdem2(stack=20)", "2d9ad75e767f434f0c40287b52ba9554", "66b2629322176448"),
    ("nl_holdem2(stack=10,ranks=6,suits=3)", "149b641fa09590e1e789fbf81bad6f2a",
     "d20ac0e3bd1ad1c8"),
    ("nl_holdem2(stack=8,buckets=3)", "a6dba4136b74b19a985ada14446ee34e", "7a556298df4627e9"),
    # the games the compiler walks (the walk now records a node table)
    ("kuhn", "4f771998a32811e109012b743cb42dd7", "aa30a1ad7b4e1c9f"),
    ("leduc", "bdafc872631f97c5bb5494eb1ccf6bf9", "eefbda0c6ed97232"),
    ("leduc(canonical=true)", "f66366507ed54cd2e6b98e3a244a9ec5", "0cc77487f6510391"),
    ("liars_dice", "5e1e03afeeb28fafd24159d9f7dc7f16", "7122bd11c82290cd"),
    ("liars_dice(dice=2,faces=2)", "8681e0bddf72493b30e2df0bce8e2465", "75f2486ca8b189f5"),
    ("nl_one_card", "b11435a62a97f12a73272e9b25ed56a9", "2f74800cc26a1fcc"),
]

# floats computed from the card abstraction's E[HS^2] tables (left out of the pinned hash, so
# that it does not hang on the last bit of a sum; the arrays equal the walk's below), and the
# real-card deal's fields, added later: constant for these games (checked below)
ABSTRACTION_FLOATS = {"joint", "matrix", "pay", "weight"}
CARD_DEAL = {"card_deal", "cards"}


def array_hash(tree) -> str:
    """SHA-256 over every array of the compiled tree (its name, dtype, shape and bytes) and
    its per-player counts."""
    h = hashlib.sha256()
    named = [(k, v) for k, v in vars(tree).items() if isinstance(v, np.ndarray)]
    named += [(f"arrays.{k}", v) for k, v in tree.arrays._asdict().items()
              if k not in ABSTRACTION_FLOATS | CARD_DEAL]
    for name, v in sorted(named, key=lambda kv: kv[0]):
        a = np.ascontiguousarray(np.asarray(v))
        h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
        h.update(a.tobytes())
    h.update(repr((tree.num_infosets_per_player, tree.num_sequences_per_player)).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize(("game", "fingerprint", "arrays"), PINNED, ids=[p[0] for p in PINNED])
def test_the_compile_gives_the_arrays_it_gave_before(game, fingerprint, arrays):
    tree = compile_public(load_game(game), max_memory="4G")
    assert tree.fingerprint() == fingerprint
    assert array_hash(tree) == arrays
    assert not tree.arrays.card_deal and tree.arrays.cards.shape == (0, 2)


def _walked(game):
    """``game``'s public tree compiled by walking its public states (no closed-form nodes)."""
    spec = dataclasses.replace(game.public_structure(), nodes=None)
    game.public_structure = lambda: spec
    return compile_public(game)


def _all_arrays(tree) -> dict:
    out = {k: v for k, v in vars(tree).items() if isinstance(v, np.ndarray)}
    out.update({f"arrays.{k}": np.asarray(v) for k, v in tree.arrays._asdict().items()})
    return out


@pytest.mark.parametrize("params", [dict(stack=4), dict(stack=7), dict(stack=13),
                                    dict(stack=9, buckets=3), dict(stack=6, buckets=1)])
def test_closed_form_public_nodes_equal_the_walk(params):
    fast, walked = compile_public(NLHoldem2(**params)), _walked(NLHoldem2(**params))
    a, b = _all_arrays(fast), _all_arrays(walked)
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    assert fast.num_sequences_per_player == walked.num_sequences_per_player
    assert fast.num_infosets_per_player == walked.num_infosets_per_player
    assert fast.fingerprint() == walked.fingerprint()
    assert fast.num_public_nodes == NLHoldem2(**params).num_public_nodes()


def test_public_nodes_follow_the_betting_rules():
    """Stack 4: the dealer folds, limps (1) or shoves (4); the big blind then checks or
    shoves, or folds or calls a shove; 2 flop chance nodes per flop line and all-in line."""
    nodes = public_nodes(4)
    assert nodes.kind[0] == 0 and nodes.num_actions[0] == 3
    assert list(nodes.action[nodes.child_start[0]:nodes.child_start[1]]) == [0, 1, 4]
    assert nodes.kind[1] == 3 and nodes.term_value[0] == -1.0  # the dealer's fold loses 1
    assert len(nodes.kind) == NLHoldem2(stack=4).num_public_nodes() == nodes.child_start[-1]
    assert (nodes.kind == 2).sum() == 2 * 3  # flop lines: limp-check, limp-shove-call, shove-call
    assert set(nodes.ctx.tolist()) == {0, 1, 2}


_PEAK = textwrap.dedent("""
    import json, sys
    def status(field):
        for line in open("/proc/self/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    from rcfr.core import budget
    from rcfr.forms.public.tree import compile_public
    from rcfr.games.nl_holdem2 import NLHoldem2
    compile_public(NLHoldem2(stack=6))  # the kernels loaded
    game = NLHoldem2(stack=int(sys.argv[1]))
    game.abstraction
    with open("/proc/self/clear_refs", "w") as f:  # the high-water mark back to now
        f.write("5")
    base = status("VmRSS")
    tree = compile_public(game, max_memory="4G")
    print(json.dumps({"grew": status("VmHWM") - base, "arrays": tree.nbytes,
                      "estimate": budget.public_compile_bytes(game)}))
""")


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux /proc")
def test_the_guard_bounds_the_compile_peak():
    """In a fresh process, 2-NL Hold'em(24)'s compile (5.7 million sequences, 118 MB of arrays)
    grows the process by at most the guard's estimate, and by at most 1.2 times the arrays it
    keeps (the vectorized compile grew it by 3.7 times)."""
    out = subprocess.run([sys.executable, "-c", _PEAK, "24"], capture_output=True, text=True,
                         check=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    m = json.loads(out.stdout.strip().splitlines()[-1])
    assert m["grew"] <= m["estimate"]
    assert m["grew"] <= 1.2 * m["arrays"]
    assert m["arrays"] <= m["estimate"] <= 1.3 * m["arrays"]  # and it is not far above


def test_the_guard_counts_the_streaming_compile():
    """k = 36 to 40 are judged by the compile's new peak: the compile alone fits 22G at k = 40
    (571 million sequences), and compile and solve keep their per-sequence models."""
    game = load_game("nl_holdem2(stack=40)")
    assert budget.public_sequences(game) == 571_448_405
    assert budget.public_compile_bytes(game) < 22 * 2**30
    assert budget.public_compile_bytes(game) == (budget.PUBLIC_COMPILE_BYTES_PER_SEQUENCE
                                                 * 571_448_405)
