"""npuarray.random against NumPy's and PyTorch CPU's generators.

* ``standard_normal`` and ``random`` of 16 M float32 (aclnnInplaceNormal / aclnnInplaceUniform;
  NumPy's ``Generator(PCG64)``, torch's ``randn`` / ``rand``);
* ``integers`` of 16 M int64 in [0, 1000) (aclnnInplaceRandom);
* ``permutation`` of 1 M (aclnnRandperm);
* float64 normals, and two composed distributions (gamma: Marsaglia-Tsang rejection;
  binomial: BTRS) for scale, without targets.

``--quick`` draws 1 M values instead of 16 M.

Every npuarray timing ends with a synchronisation of the stream, so it covers the work,
not only its submission.
"""
import numpy as np

import npuarray as npx

from . import _targets
from ._harness import synchronized, torch_or_none

N = 1 << 24
QUICK_N = 1 << 20


def run(harness):
    torch = torch_or_none()
    stream = npx.get_current_stream()
    g = npx.random.default_rng(0)
    rng = np.random.default_rng(0)
    n = QUICK_N if harness.quick else N
    size = "%d M" % (n >> 20)
    full = not harness.quick  # the targets are stated for 16 M values
    cases = [
        ("random.standard_normal float32 " + size, lambda: g.standard_normal(n, dtype=np.float32),
         lambda: rng.standard_normal(n, dtype=np.float32),
         torch and (lambda: torch.randn(n, dtype=torch.float32)), full and _targets.RANDOM_NORMAL_16M),
        ("random.random float32 " + size, lambda: g.random(n, dtype=np.float32),
         lambda: rng.random(n, dtype=np.float32),
         torch and (lambda: torch.rand(n, dtype=torch.float32)), full and _targets.RANDOM_RANDOM_16M),
        ("random.integers int64 " + size, lambda: g.integers(0, 1000, n),
         lambda: rng.integers(0, 1000, n), torch and (lambda: torch.randint(0, 1000, (n,))),
         full and _targets.RANDOM_INTEGERS_16M),
        ("random.permutation 1 M", lambda: g.permutation(1 << 20),
         lambda: rng.permutation(1 << 20), torch and (lambda: torch.randperm(1 << 20)),
         _targets.RANDOM_PERMUTATION_1M),
        ("random.standard_normal float64 " + size, lambda: g.standard_normal(n),
         lambda: rng.standard_normal(n), torch and (lambda: torch.randn(n, dtype=torch.float64)),
         None),
        ("random.gamma(2.5) float64 1 M", lambda: g.gamma(2.5, size=1 << 20),
         lambda: rng.gamma(2.5, size=1 << 20), None, None),
        ("random.binomial(100, 0.3) 1 M", lambda: g.binomial(100, 0.3, 1 << 20),
         lambda: rng.binomial(100, 0.3, 1 << 20), None, None),
    ]
    for case, device_fn, numpy_fn, torch_fn, target in cases:
        impls = {"npuarray": synchronized(stream, device_fn), "numpy": numpy_fn}
        if torch_fn:
            impls["torch"] = torch_fn
        harness.compare(case, impls, target=target or None)
