"""Constants of the array API standard: e, inf, nan, newaxis, pi."""

__all__ = []
