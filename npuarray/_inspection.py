"""Inspection API of the array API standard: __array_namespace_info__ and its devices, dtypes, capabilities."""

__all__ = []
