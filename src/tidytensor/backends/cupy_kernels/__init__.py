"""GPU kernels of the ``'cupy'`` backend where the xp kernels' CPU design is wrong for a GPU,
one module per kernel family (the same family names as ``xp_kernels``), each with a
``KERNELS`` table that replaces those kernels for ``'cupy'`` only (``cupy_backend``).

They are written against ``xp`` like the xp kernels, so the CPU tests run them on NumPy and
compare them with the CPU kernels."""
