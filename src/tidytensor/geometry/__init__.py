"""Shape arithmetic shared by ops, kernels and gradients, below all three: which axes a
reduction reduces (``axes``), how shapes broadcast (``broadcast``), and how a convolution or
pooling window slides over its input (``conv``). Nothing here touches a tensor or a buffer.
"""
