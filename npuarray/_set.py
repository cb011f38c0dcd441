"""Set functions of the array API standard (unique_all, unique_counts, unique_inverse, unique_values, isin) on aclnn operators."""

__all__ = []
