"""signal kernels: none. TF.js builds every ``tf.signal`` op (``frame``, ``hannWindow``,
``hammingWindow``, ``stft``) from other ops, so the family registers no kernel of its own."""

KERNELS: dict = {}
