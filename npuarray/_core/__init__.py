"""npuarray's core: the array object and everything it runs on.

``NPUArray`` (``_array``), the dtype rules (``_data_type``), the one launch path of
aclnn operators (``_ops``, with its C fast path ``_fastpath.c``), the element-wise
operator plans (``_elementwise``), reductions, views and indexing, transfers, and
the routines NPUArray's own methods call. The namespace modules above
(``npuarray/_<topic>.py``, ``linalg``, ``fft``, ``random``) are built on it; it
imports only ``_acl``, ``runtime`` and itself.
"""
