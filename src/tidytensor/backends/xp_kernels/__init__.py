"""Kernels written once against an array module ``xp``; one module per op family that has
kernels of its own (``array_backend.FAMILIES`` lists them). A family TF.js builds wholly from
other ops' kernels (dropout, moving_average, rnn, linalg, signal) has no module here."""
