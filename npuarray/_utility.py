"""Utility functions of the array API standard (all, any, diff) on aclnn operators."""

__all__ = []
