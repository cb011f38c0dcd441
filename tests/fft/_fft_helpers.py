"""What the FFT path tests share: unit roundoffs, normal complex samples, and the error
bound a transform's result is held to against NumPy's (computed in double)."""
import numpy as np

U32 = 2.0 ** -24
U64 = 2.0 ** -53


def complex_normal(rng, shape, dtype=np.complex64):
    """Standard normal real and imaginary parts from ``rng``, as ``dtype``."""
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def assert_close(got, want, n, u=U32, ulps=8):
    """max |got - want| <= ulps * u * log2 n * max |want| (NumPy's result in double)."""
    scale = np.max(np.abs(want)) if want.size else 1.0
    bound = ulps * u * max(np.log2(max(n, 2)), 1) * scale
    assert np.max(np.abs(got - want), initial=0.0) <= bound, (np.max(np.abs(got - want)), bound)
