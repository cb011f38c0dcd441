"""Sorting functions of the array API standard (sort, argsort) on aclnn operators."""

__all__ = []
